package sweep

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/safegp/safegp/experiment"
	"github.com/safegp/safegp/internal/outdir"
)

// command is the command a sweep's shard.json names.
const command = "sweep"

// source is what a sweep's shard.json records of the sweep (its Config):
// the sweep file's text and folder, from which Merge rebuilds the cells,
// the table and the figure with no other input. Relative paths in it
// (base_file, problem files) are read from Dir again at merge time: on
// the shared volume of a Slurm or Kubernetes job, the same path. Dir is
// absolute (RunShard makes it so); shard.json written before that may
// hold it relative, which Merge resolves against its working directory.
type source struct {
	Dir  string `json:"dir"`
	YAML string `json:"yaml"`
	// Cells is the SHA-256 of the cells the file gave (Sweep.hash), so
	// that a merge that rebuilds other cells refuses.
	Cells string `json:"cells_sha256"`
}

// hash is the SHA-256 that identifies the sweep across shards: of every
// cell's name and configuration JSON, in order, and of the figure.
func (s *Sweep) hash() (string, error) {
	var all strings.Builder
	fmt.Fprintf(&all, "sweep figure=%s x=%s\n", s.Figure.Metric, s.Figure.X)
	for i := range s.Cells {
		js, err := json.Marshal(s.Cells[i].Config)
		if err != nil {
			return "", fmt.Errorf("cell %d: %w", i, err)
		}
		fmt.Fprintf(&all, "%s %s\n", s.Cells[i].Name, js)
	}
	return experiment.ConfigHash([]byte(all.String())), nil
}

// HeldRuns is the number of runs shard sh of the sweep holds.
func (s *Sweep) HeldRuns(sh experiment.Shard) int {
	n := 0
	d := s.deal()
	for i := range s.Cells {
		n += len(d.held(i, sh))
	}
	return n
}

// dealing is how a sweep's units are dealt to shards: unit (a, r) of cell
// i is deal from[i][a] + r (experiment.Shard.Holds), from[i][a] being
// UnitBase of the first cell whose algorithm's runs are the same
// (Cell.runKeys; cell i itself when no earlier one is), where the whole
// sweep plays them and later cells reuse them (reuse). So a shard that
// holds a run later cells reuse holds those uses too, and plays it once
// as the whole sweep does. A sweep without reuse is dealt as `safegp
// run` deals (experiment.Shard.Select): realizations round robin from
// the cell's first unit, all the algorithms of a realization in one
// shard, which draws its problem once.
type dealing struct {
	base []int   // UnitBase of each cell
	from [][]int // the deal base of each cell's algorithms
	s    *Sweep
}

func (s *Sweep) deal() *dealing {
	d := &dealing{base: make([]int, len(s.Cells)), from: make([][]int, len(s.Cells)), s: s}
	first := map[string]int{}
	n := 0
	for i := range s.Cells {
		c := s.Cells[i].Config
		keys := s.Cells[i].runKeys
		d.base[i] = n
		n += len(c.Algorithms) * c.Realizations
		d.from[i] = make([]int, len(c.Algorithms))
		for a := range d.from[i] {
			d.from[i][a] = d.base[i]
			if len(keys) != len(c.Algorithms) {
				continue // no keys (cannot happen for a decoded tree)
			}
			if f, ok := first[keys[a]]; ok {
				d.from[i][a] = d.base[f]
			} else {
				first[keys[a]] = i
			}
		}
	}
	return d
}

// selects is experiment.Options.Units for cell i of shard sh.
func (d *dealing) selects(i int, sh experiment.Shard) func(a, r int) bool {
	from := d.from[i]
	return func(a, r int) bool { return sh.Holds(from[a] + r) }
}

// held lists, ascending, cell i's units (in the sweep's numbering) that
// shard sh holds.
func (d *dealing) held(i int, sh experiment.Shard) []int {
	return experiment.HeldBy(d.selects(i, sh), d.base[i], d.s.Cells[i].Config)
}

// RunShard writes dir as shard sh of the sweep (the team's --shard
// contract): dir/cells/<name>/ a shard folder of each cell's share of the
// units (experiment.ExecuteToDir; cell i's units start at UnitBase(i)),
// and dir/shard.json listing the sweep's units it holds, with the sweep
// file's text for the merge. Runs are shared across cells as Run shares
// them (reuse): the units are dealt so that a shard holds every use of a
// run it plays (dealing). dir is written whole or not at all.
func RunShard(ctx context.Context, s *Sweep, dir string, sh experiment.Shard, opt Options) error {
	start := time.Now()
	if err := outdir.Check(dir, opt.Force); err != nil {
		return fmt.Errorf("write output: %s %w", dir, err)
	}
	eopt := experiment.Options{Workers: opt.Workers, MaxMemory: opt.MaxMemory, Progress: opt.Progress}
	if _, err := s.Plan(max(opt.Workers, 1), eopt.Limit()); err != nil {
		return err
	}
	hash, err := s.hash()
	if err != nil {
		return err
	}
	// The folder is recorded absolute: the merge may run from another
	// working directory (Slurm's merge job, a Kubernetes merge Job) and
	// must still find base_file and problem files there. Older shards
	// recorded it as typed; Merge reads those against its own directory.
	abs, err := filepath.Abs(s.dir)
	if err != nil {
		return fmt.Errorf("sweep folder %q: %w", s.dir, err)
	}
	src, err := json.Marshal(source{Dir: abs, YAML: string(s.src), Cells: hash})
	if err != nil {
		return err
	}
	tmp, err := outdir.Stage(dir)
	if err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	defer os.RemoveAll(tmp) // gone already once published
	if err := os.Mkdir(filepath.Join(tmp, "cells"), 0o755); err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	info := &experiment.ShardInfo{Format: experiment.ShardFormat, Command: command, ConfigSHA256: experiment.ConfigHash(src),
		Shard: sh.I, Of: sh.N, Total: s.Runs(), Units: []int{}, Config: src}
	deal := s.deal()
	reuse := s.newReuse()
	for i := range s.Cells {
		c := &s.Cells[i]
		o := reuse.options(i, eopt)
		o.Units = deal.selects(i, sh)
		sub := &experiment.ShardInfo{Command: command, Shard: sh.I, Of: sh.N, Name: c.Name}
		if _, err := experiment.ExecuteToDir(ctx, c.Config, o, filepath.Join(tmp, "cells", c.Name), experiment.WriteOptions{Shard: sub}); err != nil {
			return fmt.Errorf("cell %d (%s): %w", c.Index, s.Label(c), err)
		}
		reuse.done(i)
		info.Units = append(info.Units, deal.held(i, sh)...)
	}
	info.Seconds = time.Since(start).Seconds()
	if err := experiment.WriteShardInfo(tmp, info); err != nil {
		return err
	}
	if err := outdir.Publish(tmp, dir, opt.Force); err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	return nil
}

// Merge makes, from the n shard folders of a sweep (RunShard), the folder
// Run writes unsharded: every cell's runs.jsonl, results.json and
// summary.csv byte for byte (experiment.Merge), its figures and the
// table and figure across cells redrawn. The sweep is rebuilt from the
// file text the shards recorded, read against the folder it was in (the
// base file and problem files must be there still, as on a shared
// volume), and must give the cells the shards ran: the SHA-256 in their
// shard.json. It refuses what experiment.CheckShards refuses.
func Merge(ctx context.Context, out string, shards []string, opt Options) ([]Row, error) {
	if len(shards) == 0 {
		return nil, fmt.Errorf("%w: no shard folders given", experiment.ErrShards)
	}
	// The first folder's kind before the set's completeness, so that a
	// cell's folder given by mistake is named as such.
	first, err := experiment.ReadShard(shards[0])
	if err != nil {
		return nil, err
	}
	if first.Command != command {
		return nil, fmt.Errorf("%w: %s is a shard of `safegp %s`, not of `safegp sweep`", experiment.ErrShards, shards[0], first.Command)
	}
	var src source
	if err := json.Unmarshal(first.Config, &src); err != nil || src.YAML == "" {
		// A cell's folder inside a sweep shard is a shard of `safegp
		// sweep` too, but of one cell: its shard.json has the cell's
		// configuration, not the sweep file.
		return nil, fmt.Errorf("%w: %s: its shard.json holds no sweep file: give the sweep shard's own folder (the one holding cells/), not a cell's", experiment.ErrShards, shards[0])
	}
	if _, _, err := experiment.CheckShards(shards); err != nil {
		return nil, err
	}
	s, err := Parse([]byte(src.YAML), src.Dir)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: rebuilding the sweep from the file it records (folder %s): %w", experiment.ErrShards, shards[0], src.Dir, err)
	}
	if h, err := s.hash(); err != nil {
		return nil, err
	} else if h != src.Cells {
		return nil, fmt.Errorf("%w: %s: the sweep its shard.json records now builds other cells (a base or problem file changed, or another safegp version)", experiment.ErrShards, shards[0])
	}
	if err := outdir.Check(out, opt.Force); err != nil {
		return nil, fmt.Errorf("write output: %s %w", out, err)
	}
	tmp, err := outdir.Stage(out)
	if err != nil {
		return nil, fmt.Errorf("write output: %w", err)
	}
	defer os.RemoveAll(tmp)
	if err := os.Mkdir(filepath.Join(tmp, "cells"), 0o755); err != nil {
		return nil, fmt.Errorf("write output: %w", err)
	}
	var rows []Row
	for i := range s.Cells {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		c := &s.Cells[i]
		subs := make([]string, len(shards))
		for k, d := range shards {
			subs[k] = filepath.Join(d, "cells", c.Name)
		}
		var figs func(string, []experiment.Curve) error
		if opt.Figures != nil {
			figs = opt.Figures(c)
		}
		// The cell's rows from the merge's own pass over the runs: each
		// run's counts as it is written, then the summary's curves (the
		// ones the unsharded sweep summarizes from the same runs in the
		// same order), taken before the figures are drawn from them.
		var t tally
		wopt := experiment.WriteOptions{
			Runs: t.add,
			Figures: func(tmp string, curves []experiment.Curve) error {
				rows = append(rows, t.rows(c, curves)...)
				if figs != nil {
					return figs(tmp, curves)
				}
				return nil
			},
		}
		if err := experiment.Merge(filepath.Join(tmp, "cells", c.Name), subs, wopt); err != nil {
			return nil, fmt.Errorf("cell %d (%s): %w", c.Index, s.Label(c), err)
		}
	}
	if err := s.writeTable(tmp, rows); err != nil {
		return nil, err
	}
	if err := outdir.Publish(tmp, out, opt.Force); err != nil {
		return nil, fmt.Errorf("write output: %w", err)
	}
	return rows, nil
}
