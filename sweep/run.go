package sweep

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"

	"github.com/safegp/safegp/experiment"
	"github.com/safegp/safegp/internal/memlimit"
	"github.com/safegp/safegp/internal/moments"
	"github.com/safegp/safegp/internal/outdir"
)

// Options tune Run; they never change its results.
type Options struct {
	// Workers is the number of parallel runs within a cell; 0 means all
	// cores.
	Workers int
	// MaxMemory is the memory limit in bytes: 0 means memlimit.Default,
	// a negative value no limit (experiment.Options's meaning).
	MaxMemory int64
	// Force replaces an existing output folder whole, provided safegp
	// wrote it (internal/outdir).
	Force bool
	// Progress, if set, is called (from any goroutine) after each run.
	Progress func()
	// Figures, if set, gives the figures written into cell c's folder:
	// `safegp run`'s, so that the folder is what it writes.
	Figures func(c *Cell) func(tmp string, curves []experiment.Curve) error
}

// Unit is one run of a sweep: an algorithm on a realization of a cell.
type Unit struct{ Cell, Algorithm, Realization int }

// Units lists the sweep's runs in the canonical order that sharding
// counts them in (the team's contract for --shard): cell by cell in the
// product's order, and within a cell as `safegp run` orders its runs,
// algorithm by algorithm, realization by realization.
func (s *Sweep) Units() []Unit {
	n := 0
	for i := range s.Cells {
		c := s.Cells[i].Config
		n += len(c.Algorithms) * c.Realizations
	}
	out := make([]Unit, 0, n)
	for i := range s.Cells {
		c := s.Cells[i].Config
		for a := range c.Algorithms {
			for r := 0; r < c.Realizations; r++ {
				out = append(out, Unit{Cell: i, Algorithm: a, Realization: r})
			}
		}
	}
	return out
}

// UnitBase is the number of units before cell i's in Units' order: cell
// i's unit (a, r) is unit UnitBase(i) + a·R + r of the sweep. A shard's
// selection deals it by the cell whose run it is first (dealing): the
// unit belongs to shard ((UnitBase(that cell) + r) mod n) + 1.
func (s *Sweep) UnitBase(i int) int {
	n := 0
	for k := range s.Cells[:i] {
		n += len(s.Cells[k].Config.Algorithms) * s.Cells[k].Config.Realizations
	}
	return n
}

// Runs is the number of runs of the whole sweep.
func (s *Sweep) Runs() int {
	n := 0
	for i := range s.Cells {
		n += len(s.Cells[i].Config.Algorithms) * s.Cells[i].Config.Realizations
	}
	return n
}

// setMaxMemory bounds the files the cells read (problem.file,
// warm_start) by the memory limit (experiment.Config.SetMaxMemory).
func (s *Sweep) setMaxMemory(limit int64) {
	for i := range s.Cells {
		s.Cells[i].Config.SetMaxMemory(limit)
	}
}

// Plan estimates, before anything runs, the memory the sweep needs with
// workers parallel runs per cell and checks it against limit (≤ 0: no
// limit). Cells run one at a time, each as `safegp run` runs it, holding
// its runs (experiment.Config.Plan); the previous cell's runs are held
// while it is written, so the peak is the two largest cells' estimates.
// The error names the cell.
func (s *Sweep) Plan(workers int, limit int64) (int64, error) {
	var first, second int64
	for i := range s.Cells {
		c := &s.Cells[i]
		fixed, err := c.Config.ReadProblem()
		if err != nil {
			return 0, fmt.Errorf("cell %d (%s): %w", c.Index, s.Label(c), err)
		}
		p, err := c.Config.Plan(fixed, workers, limit, true)
		if err != nil {
			return 0, fmt.Errorf("cell %d (%s): %w", c.Index, s.Label(c), err)
		}
		switch {
		case p.Bytes > first:
			first, second = p.Bytes, first
		case p.Bytes > second:
			second = p.Bytes
		}
	}
	need := memlimit.Add(first, second, s.newReuse().bytes())
	if err := memlimit.Check(need, limit, "the sweep's two largest cells (one running while the other is written) and the runs kept for later cells"); err != nil {
		return need, fmt.Errorf("%w: %w", ErrSweep, err)
	}
	return need, nil
}

// Run runs every cell of the sweep as an ordinary configuration
// (experiment.Execute, what `safegp run` runs) and writes dir whole or
// not at all: dir/cells/<name>/ for each cell, byte for byte what
// `safegp run` writes for its configuration, and the table across cells
// (sweep.csv, sweep.md) with its figure (sweep.png, .svg). It returns the
// table's rows.
//
// A cell's folder is written while the next cell runs, so that the cores
// do not wait for the figures and the JSON; every cell's runs use all the
// workers, as `safegp run` does.
func Run(ctx context.Context, s *Sweep, dir string, opt Options) ([]Row, error) {
	if err := outdir.Check(dir, opt.Force); err != nil {
		return nil, fmt.Errorf("write output: %s %w", dir, err)
	}
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	eopt := experiment.Options{Workers: workers, MaxMemory: opt.MaxMemory, Progress: opt.Progress}
	s.setMaxMemory(opt.MaxMemory)
	if _, err := s.Plan(workers, eopt.Limit()); err != nil {
		return nil, err
	}
	tmp, err := outdir.Stage(dir)
	if err != nil {
		return nil, fmt.Errorf("write output: %w", err)
	}
	defer outdir.Discard(tmp) // gone already once published
	cells := filepath.Join(tmp, "cells")
	if err := os.Mkdir(cells, 0o755); err != nil {
		return nil, fmt.Errorf("write output: %w", err)
	}

	// A failed write stops the runs: cancel ends the cell running.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type done struct {
		cell *Cell
		res  *experiment.Results
	}
	queue := make(chan done)
	written := make(chan error, 1)
	go func() {
		var first error
		for d := range queue {
			if first != nil {
				continue // drain: the runner stops at its next send
			}
			var figs func(string, []experiment.Curve) error
			if opt.Figures != nil {
				figs = opt.Figures(d.cell)
			}
			if err := experiment.WriteWithOptions(filepath.Join(cells, d.cell.Name), d.res, experiment.WriteOptions{Figures: figs}); err != nil {
				first = fmt.Errorf("cell %d (%s): %w", d.cell.Index, s.Label(d.cell), err)
				cancel()
			}
		}
		written <- first
	}()
	var rows []Row
	var runErr error
	reuse := s.newReuse()
	for i := range s.Cells {
		c := &s.Cells[i]
		res, err := experiment.Execute(ctx, c.Config, reuse.options(i, eopt))
		if err != nil {
			runErr = fmt.Errorf("cell %d (%s): %w", c.Index, s.Label(c), err)
			break
		}
		reuse.done(i)
		rows = append(rows, s.rows(c, res)...)
		queue <- done{c, res}
	}
	close(queue)
	if err := <-written; err != nil {
		return nil, err // the cause, rather than the cancellation it caused
	}
	if runErr != nil {
		return nil, runErr
	}
	if err := s.writeTable(tmp, rows); err != nil {
		return nil, err
	}
	if err := outdir.Publish(tmp, dir, opt.Force); err != nil {
		return nil, fmt.Errorf("write output: %w", err)
	}
	return rows, nil
}

// writeTable writes the table across cells (sweep.csv, sweep.md) and its
// figure (sweep.png, .svg) into dir: what Run and Merge share.
func (s *Sweep) writeTable(dir string, rows []Row) error {
	if err := os.WriteFile(filepath.Join(dir, "sweep.csv"), s.CSV(rows), 0o644); err != nil {
		return fmt.Errorf("write sweep.csv: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "sweep.md"), s.Markdown(rows), 0o644); err != nil {
		return fmt.Errorf("write sweep.md: %w", err)
	}
	return s.SaveFigure(dir, "sweep", rows)
}

// Row is one line of the table: one algorithm (label) in one cell, its
// final average regret R_T/T, violations over the T rounds and
// exploration length, each as a mean over the cell's realizations with
// its standard error (sample standard deviation / √n; 0 for one
// realization).
type Row struct {
	Cell         int
	Name         string // the cell's folder name
	Label        string // the algorithm's label
	Realizations int
	// The means and standard errors; Regret and the mean Violations are
	// the numbers summary.csv gives at round T (the same summary), so the
	// table and the cell's folder agree to the last bit.
	Regret, RegretSE           float64
	Violations, ViolationsSE   float64
	Exploration, ExplorationSE float64
}

// rows summarises cell c's results per label, in configuration order.
func (s *Sweep) rows(c *Cell, res *experiment.Results) []Row {
	var t tally
	for k := range res.Runs {
		t.add(&res.Runs[k])
	}
	return t.rows(c, experiment.Summarize(res))
}

// tally keeps what a cell's rows need of each run besides the summary's
// curves, in the runs' order: a merge collects it while the cell's folder
// is written (experiment.WriteOptions.Runs) instead of reading the runs
// again.
type tally struct {
	labels      []string
	violations  []int
	exploration []int
}

func (t *tally) add(r *experiment.Run) {
	t.labels = append(t.labels, r.Label)
	t.violations = append(t.violations, r.Violations)
	t.exploration = append(t.exploration, r.ExplorationRounds)
}

// rows makes a cell's rows of the table, one per curve: final R_T/T, its
// standard error over the realizations, violations and exploration.
func (t *tally) rows(c *Cell, curves []experiment.Curve) []Row {
	var out []Row
	for _, cv := range curves {
		var viol, expl moments.Moments
		for k, label := range t.labels {
			if label == cv.Label {
				viol.Add(float64(t.violations[k]))
				expl.Add(float64(t.exploration[k]))
			}
		}
		T := len(cv.MeanAvg)
		out = append(out, Row{
			Cell: c.Index, Name: c.Name, Label: cv.Label, Realizations: int(viol.N),
			Regret: cv.MeanAvg[T-1], RegretSE: cv.StdAvg[T-1] / math.Sqrt(viol.N),
			Violations: cv.Violations[T-1], ViolationsSE: viol.SE(),
			Exploration: expl.Mean, ExplorationSE: expl.SE(),
		})
	}
	return out
}

// reuse keeps the runs an algorithm plays in one cell for the later cells
// whose runs of it are the same (Cell.runKeys): a sweep over one
// algorithm's setting, or over a key no other algorithm reads, runs the
// other algorithms once. Runs are kept only until their key's last use.
// Run and RunShard both play through it (options), so that a shard, which
// holds a run's every use (dealt with the cell it is first played in:
// dealing), plays it once as the whole sweep does.
type reuse struct {
	left map[string]int               // cells still to use a key, counted from the first
	kept map[string][]*experiment.Run // by realization; nil where not played yet
	s    *Sweep
}

func (s *Sweep) newReuse() *reuse {
	u := &reuse{left: map[string]int{}, kept: map[string][]*experiment.Run{}, s: s}
	for i := range s.Cells {
		for _, k := range distinct(s.Cells[i].runKeys) {
			u.left[k]++
		}
	}
	return u
}

// bytes bounds the memory of the runs kept: every key used by more than
// one cell, its realizations' runs held at once (experiment's estimate of
// a run: four per-round series of 8 bytes and 256 bytes of fields).
func (u *reuse) bytes() int64 {
	var b int64
	seen := map[string]bool{}
	for i := range u.s.Cells {
		c := u.s.Cells[i].Config
		for _, k := range u.s.Cells[i].runKeys {
			if u.left[k] > 1 && !seen[k] {
				seen[k] = true
				b = memlimit.Add(b, memlimit.Mul(int64(c.Realizations), memlimit.Add(memlimit.Mul(32, int64(c.Horizon)), 256)))
			}
		}
	}
	return b
}

func distinct(keys []string) []string {
	var out []string
	for _, k := range keys {
		if !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}

// options returns opt for cell i, playing only the units whose runs no
// earlier cell kept (experiment.Options.Reuse supplies the others) and
// keeping the runs a later cell reuses (Options.Played), so that the
// cell's results are Execute's, run for run. An algorithm listed twice
// in one cell is played twice (the same runs): only runs of earlier
// chunks and cells are at hand when a chunk starts.
func (u *reuse) options(i int, opt experiment.Options) experiment.Options {
	c := &u.s.Cells[i]
	keys := c.runKeys
	if len(keys) != len(c.Config.Algorithms) {
		return opt // no keys (cannot happen for a decoded tree): play everything
	}
	R := c.Config.Realizations
	opt.Reuse = func(a, r int) *experiment.Run {
		if kept := u.kept[keys[a]]; kept != nil {
			return kept[r]
		}
		return nil
	}
	opt.Played = func(a int, run *experiment.Run) {
		k := keys[a]
		if u.left[k] < 2 {
			return // no later cell uses it
		}
		if u.kept[k] == nil {
			u.kept[k] = make([]*experiment.Run, R)
		}
		u.kept[k][run.Realization] = run
	}
	return opt
}

// done counts cell i's keys used, dropping the runs of keys no later cell
// uses.
func (u *reuse) done(i int) {
	for _, k := range distinct(u.s.Cells[i].runKeys) {
		if u.left[k]--; u.left[k] == 0 {
			delete(u.kept, k)
		}
	}
}
