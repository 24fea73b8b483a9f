package sweep

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/safegp/safegp/experiment"
	"github.com/safegp/safegp/internal/outdir"
	"github.com/safegp/safegp/shard"
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
	return shard.Hash([]byte(all.String())), nil
}

// HeldRuns is the number of runs shard sh of the sweep holds.
func (s *Sweep) HeldRuns(sh shard.Shard) int {
	n := 0
	d := s.deal()
	for i := range s.Cells {
		n += len(d.held(i, sh))
	}
	return n
}

// dealing is how a sweep's units are dealt to shards. Each run is dealt
// with the first cell whose algorithm's runs are the same (Cell.runKeys;
// the cell itself when no earlier one is), where the whole sweep plays
// it and later cells reuse it (reuse): so a shard that holds a run later
// cells reuse holds those uses too, and plays it once as the whole sweep
// does. Then, for n shards:
//
//   - a sweep of at least cellDeal·n cells is dealt by cell: every unit
//     of cell f (f being that first cell) goes to shard (f mod n) + 1.
//     A shard that so holds the whole of a cell writes its folder
//     finished, as the unsharded sweep does (RunShard), and the merge
//     copies it: nothing is decoded or drawn twice. Round robin over at
//     least cellDeal cells a shard keeps the shards' loads within a
//     quarter of each other when the cells cost alike.
//   - a smaller sweep is dealt by realization, as `safegp run` deals
//     (shard.Shard.Select): unit (a, r) of cell i is deal
//     UnitBase(f) + r, realizations round robin from the cell's first
//     unit, all the algorithms of a realization in one shard, which
//     draws its problem once. All n shards then have work.
type dealing struct {
	base  []int   // UnitBase of each cell
	first [][]int // per cell and algorithm: the first cell with its runs
	s     *Sweep
}

// cellDeal is the least number of cells per shard for which a sweep is
// dealt by cell (dealing).
const cellDeal = 4

func (s *Sweep) deal() *dealing {
	d := &dealing{base: make([]int, len(s.Cells)), first: make([][]int, len(s.Cells)), s: s}
	first := map[string]int{}
	n := 0
	for i := range s.Cells {
		c := s.Cells[i].Config
		keys := s.Cells[i].runKeys
		d.base[i] = n
		n += len(c.Algorithms) * c.Realizations
		d.first[i] = make([]int, len(c.Algorithms))
		for a := range d.first[i] {
			d.first[i][a] = i
			if len(keys) != len(c.Algorithms) {
				continue // no keys (cannot happen for a decoded tree)
			}
			if f, ok := first[keys[a]]; ok {
				d.first[i][a] = f
			} else {
				first[keys[a]] = i
			}
		}
	}
	return d
}

// byCell reports whether the sweep's shards of sh.N are dealt by cell.
func (d *dealing) byCell(sh shard.Shard) bool {
	return sh.Sharded() && len(d.base) >= cellDeal*sh.N
}

// selects is experiment.Options.Units for cell i of shard sh.
func (d *dealing) selects(i int, sh shard.Shard) func(a, r int) bool {
	first := d.first[i]
	if d.byCell(sh) {
		return func(a, _ int) bool { return sh.Holds(first[a]) }
	}
	return func(a, r int) bool { return sh.Holds(d.base[first[a]] + r) }
}

// held lists, ascending, cell i's units (in the sweep's numbering) that
// shard sh holds.
func (d *dealing) held(i int, sh shard.Shard) []int {
	return shard.Held(d.selects(i, sh), d.base[i], len(d.s.Cells[i].Config.Algorithms), d.s.Cells[i].Config.Realizations)
}

// RunShard writes dir as shard sh of the sweep (the team's --shard
// contract): dir/cells/<name>/ a shard folder of each cell's share of the
// units (experiment.ExecuteToDir; cell i's units start at UnitBase(i)),
// and dir/shard.json listing the sweep's units it holds, with the sweep
// file's text for the merge. Runs are shared across cells as Run shares
// them (reuse): the units are dealt so that a shard holds every use of a
// run it plays (dealing). dir is written whole or not at all.
func RunShard(ctx context.Context, s *Sweep, dir string, sh shard.Shard, opt Options) error {
	start := time.Now()
	if err := outdir.Check(dir, opt.Force); err != nil {
		return fmt.Errorf("write output: %s %w", dir, err)
	}
	eopt := experiment.Options{Workers: opt.Workers, MaxMemory: opt.MaxMemory, Progress: opt.Progress}
	s.setMaxMemory(opt.MaxMemory)
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
	defer outdir.Discard(tmp) // gone already once published
	if err := os.Mkdir(filepath.Join(tmp, "cells"), 0o755); err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	info := &shard.Info{Format: shard.Format, Command: command, ConfigSHA256: shard.Hash(src),
		Shard: sh.I, Of: sh.N, Total: s.Runs(), Units: []int{}, Config: src}
	deal := s.deal()
	reuse := s.newReuse()
	for i := range s.Cells {
		c := &s.Cells[i]
		o := reuse.options(i, eopt)
		o.Units = deal.selects(i, sh)
		held := deal.held(i, sh)
		sub := &shard.Info{Command: command, Shard: sh.I, Of: sh.N, Name: c.Name}
		cell := filepath.Join(tmp, "cells", c.Name)
		var err error
		if len(held) == experiment.Units(c.Config) {
			err = s.writeFinished(ctx, c, o, cell, sub, opt)
		} else {
			_, err = experiment.ExecuteToDir(ctx, c.Config, o, cell, experiment.WriteOptions{Shard: sub})
		}
		if err != nil {
			return fmt.Errorf("cell %d (%s): %w", c.Index, s.Label(c), err)
		}
		reuse.done(i)
		info.Units = append(info.Units, held...)
	}
	info.Seconds = time.Since(start).Seconds()
	if err := shard.Write(tmp, info); err != nil {
		return err
	}
	if err := outdir.Publish(tmp, dir, opt.Force); err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	return nil
}

// writeFinished writes cell c, which this shard holds whole, into dir as
// the unsharded sweep writes it (Run: the runs in memory, then
// experiment.WriteWithOptions with the cell's figures), and beside it the
// shard.json sub, finished, with the cell's rows of the table: the merge
// copies the folder and takes the rows.
func (s *Sweep) writeFinished(ctx context.Context, c *Cell, o experiment.Options, dir string, sub *shard.Info, opt Options) error {
	start := time.Now()
	res, err := experiment.Execute(ctx, c.Config, o)
	if err != nil {
		return err
	}
	var figs func(string, []experiment.Curve) error
	if opt.Figures != nil {
		figs = opt.Figures(c)
	}
	if err := experiment.WriteWithOptions(dir, res, experiment.WriteOptions{Figures: figs}); err != nil {
		return err
	}
	cfg, err := json.Marshal(c.Config)
	if err != nil {
		return err
	}
	table, err := encodeRows(s.rows(c, res))
	if err != nil {
		return err
	}
	sub.Format, sub.Total, sub.Config, sub.ConfigSHA256 = shard.Format, experiment.Units(c.Config), cfg, shard.Hash(cfg)
	sub.Units = make([]int, sub.Total)
	for u := range sub.Units {
		sub.Units[u] = u
	}
	sub.Finished, sub.Table, sub.Seconds = true, table, time.Since(start).Seconds()
	return shard.Write(dir, sub)
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
	s, err := rebuild(shards)
	if err != nil {
		return nil, err
	}
	if err := outdir.Check(out, opt.Force); err != nil {
		return nil, fmt.Errorf("write output: %s %w", out, err)
	}
	tmp, err := outdir.Stage(out)
	if err != nil {
		return nil, fmt.Errorf("write output: %w", err)
	}
	defer outdir.Discard(tmp)
	if err := os.Mkdir(filepath.Join(tmp, "cells"), 0o755); err != nil {
		return nil, fmt.Errorf("write output: %w", err)
	}
	var rows []Row
	for i := range s.Cells {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		rs, err := s.mergeCell(ctx, tmp, shards, &s.Cells[i], opt)
		if err != nil {
			return nil, err
		}
		rows = append(rows, rs...)
	}
	if err := s.writeTable(tmp, rows); err != nil {
		return nil, err
	}
	if err := outdir.Publish(tmp, out, opt.Force); err != nil {
		return nil, fmt.Errorf("write output: %w", err)
	}
	return rows, nil
}

// rebuild checks that shards are a complete set of a sweep's shards and
// rebuilds the sweep from the file they record, refusing one that now
// builds other cells.
func rebuild(shards []string) (*Sweep, error) {
	if len(shards) == 0 {
		return nil, fmt.Errorf("%w: no shard folders given", shard.ErrShards)
	}
	// The first folder's kind before the set's completeness, so that a
	// cell's folder given by mistake is named as such.
	first, err := shard.Read(shards[0])
	if err != nil {
		return nil, err
	}
	if first.Command != command {
		return nil, fmt.Errorf("%w: %s is a shard of `safegp %s`, not of `safegp sweep`", shard.ErrShards, shards[0], first.Command)
	}
	var src source
	if err := json.Unmarshal(first.Config, &src); err != nil || src.YAML == "" {
		// A cell's folder inside a sweep shard is a shard of `safegp
		// sweep` too, but of one cell: its shard.json has the cell's
		// configuration, not the sweep file.
		return nil, fmt.Errorf("%w: %s: its shard.json holds no sweep file: give the sweep shard's own folder (the one holding cells/), not a cell's", shard.ErrShards, shards[0])
	}
	if _, _, err := shard.Check(shards); err != nil {
		return nil, err
	}
	s, err := Parse([]byte(src.YAML), src.Dir)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: rebuilding the sweep from the file it records (folder %s): %w", shard.ErrShards, shards[0], src.Dir, err)
	}
	if h, err := s.hash(); err != nil {
		return nil, err
	} else if h != src.Cells {
		return nil, fmt.Errorf("%w: %s: the sweep its shard.json records now builds other cells (a base or problem file changed, or another safegp version)", shard.ErrShards, shards[0])
	}
	return s, nil
}

// mergeCell writes cell c's folder in tmp from its folder in each shard
// and returns its rows: copied from a shard that wrote it finished, else
// merged (experiment.Merge) with its figures drawn.
func (s *Sweep) mergeCell(ctx context.Context, tmp string, shards []string, c *Cell, opt Options) ([]Row, error) {
	subs := make([]string, len(shards))
	for k, d := range shards {
		subs[k] = filepath.Join(d, "cells", c.Name)
	}
	// A cell one shard wrote finished is copied, with its rows.
	if rs, ok, err := copyFinished(filepath.Join(tmp, "cells", c.Name), subs); err != nil {
		return nil, fmt.Errorf("cell %d (%s): %w", c.Index, s.Label(c), err)
	} else if ok {
		return rs, nil
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
	var rows []Row
	wopt := experiment.WriteOptions{
		MaxMemory: opt.MaxMemory,
		Runs:      t.add,
		Figures: func(tmp string, curves []experiment.Curve) error {
			rows = append(rows, t.rows(c, curves)...)
			if figs != nil {
				return figs(tmp, curves)
			}
			return nil
		},
	}
	if err := experiment.Merge(ctx, filepath.Join(tmp, "cells", c.Name), subs, wopt); err != nil {
		return nil, fmt.Errorf("cell %d (%s): %w", c.Index, s.Label(c), err)
	}
	return rows, nil
}

// copyFinished copies into dir the cell folder among subs (the cell's
// folder in each shard) that one shard wrote finished (writeFinished) and
// returns its rows; ok is false when no shard holds the cell whole.
func copyFinished(dir string, subs []string) (rows []Row, ok bool, err error) {
	info, err := shard.CopyFinished(dir, subs, []string{experiment.RunsFile, "results.json", "summary.csv"}, experiment.RunsFile)
	if err != nil || info == nil {
		return nil, false, err
	}
	if rows, err = decodeRows(info.Table); err != nil {
		return nil, false, fmt.Errorf("%w: %s: %w", shard.ErrShards, dir, err)
	}
	return rows, true, nil
}

// rowJSON is a Row in a finished cell's shard.json: the floats as
// strconv's shortest text ("NaN" and "±Inf" too), which gives back the
// same bits, so that the merged table is the unsharded one.
type rowJSON struct {
	Cell         int       `json:"cell"`
	Name         string    `json:"name"`
	Label        string    `json:"label"`
	Realizations int       `json:"realizations"`
	Values       [6]string `json:"values"` // Regret, RegretSE, Violations, ViolationsSE, Exploration, ExplorationSE
}

func encodeRows(rows []Row) (json.RawMessage, error) {
	out := make([]rowJSON, len(rows))
	for k, r := range rows {
		out[k] = rowJSON{Cell: r.Cell, Name: r.Name, Label: r.Label, Realizations: r.Realizations}
		for j, x := range [6]float64{r.Regret, r.RegretSE, r.Violations, r.ViolationsSE, r.Exploration, r.ExplorationSE} {
			out[k].Values[j] = strconv.FormatFloat(x, 'g', -1, 64)
		}
	}
	return json.Marshal(out)
}

func decodeRows(b json.RawMessage) ([]Row, error) {
	var in []rowJSON
	if err := json.Unmarshal(b, &in); err != nil {
		return nil, fmt.Errorf("table: %w", err)
	}
	rows := make([]Row, len(in))
	for k, r := range in {
		var x [6]float64
		for j, v := range r.Values {
			var err error
			if x[j], err = strconv.ParseFloat(v, 64); err != nil {
				return nil, fmt.Errorf("table: row %d: %w", k+1, err)
			}
		}
		rows[k] = Row{Cell: r.Cell, Name: r.Name, Label: r.Label, Realizations: r.Realizations,
			Regret: x[0], RegretSE: x[1], Violations: x[2], ViolationsSE: x[3], Exploration: x[4], ExplorationSE: x[5]}
	}
	return rows, nil
}
