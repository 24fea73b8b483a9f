package main

import (
	"flag"
	"fmt"
	"io"
	"runtime"
	"time"

	"github.com/vbauerster/mpb/v8/decor"

	"github.com/safegp/safegp/experiment"
	"github.com/safegp/safegp/internal/memlimit"
	"github.com/safegp/safegp/sweep"
)

const sweepHelp = `A sweep file:

  base_file: regime-1-10.yaml      # an ordinary run configuration, relative to this file,
  # base: {seed: 1, ...}           # or given inline
  axes:                            # key paths into the configuration, each with its values;
    problem.generate.constraints[0].lengthscale: [0.05, 0.1, 0.2]
    model.delta: [0.01, 0.1]       # cells: the Cartesian product, the last axis fastest
  figure: {metric: regret, x: problem.generate.constraints[0].lengthscale}
                                   # metric: regret (final R_T/T), violations or exploration

Every cell is built (the key paths set in the base) and checked before anything
runs; an error names the cell and its axis values. DIR receives:
  cells/<index>-<axis=value,...>/  what 'safegp run' writes for the cell's configuration
  sweep.csv, sweep.md              one row per cell and algorithm: the axis values, the final
                                   R_T/T, violations and exploration rounds (mean, standard error)
  sweep.png, sweep.svg             the metric against figure.x, one line per algorithm, a panel
                                   per combination of the other axes; error bars ±1 standard error
`

func sweepCmd(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("safegp sweep", flag.ContinueOnError)
	fs.SetOutput(stderr)
	figureWidth := figureWidthFlag(fs)
	out := fs.String("out", "", "output `folder` (required)")
	workers := intFlag(fs, "workers", runtime.NumCPU(), "number of parallel `workers`, and the most cores used; results do not depend on it")
	quiet := fs.Bool("quiet", false, "no progress bar")
	force := fs.Bool("force", false, "replace DIR whole if it holds an earlier safegp output")
	var shard shardFlag
	fs.Var(&shard, "shard", "run only shard `i/n` of the sweep's runs into DIR, for `safegp merge`")
	var maxMem memlimit.Flag
	fs.Var(&maxMem, "max-memory", "refuse a sweep whose memory estimate is above `SIZE` (8GiB, 512MiB, bytes)")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "Usage: safegp sweep SWEEP.yaml --out DIR [--force] [--workers N] [--max-memory SIZE] [--quiet] [--shard i/n] [--figure-width W]\n\n"+
			"Runs a base configuration over the Cartesian product of axes, each cell as\n"+
			"'safegp run' runs it, and tabulates the cells. DIR is written whole or not at\n"+
			"all; an existing, non-empty DIR is replaced only with --force, and only if\n"+
			"safegp wrote it.\n\n"+
			"With --shard i/n, DIR holds only shard i of n: the units are the cells' (algorithm,\n"+
			"realization) pairs, cell by cell, and a realization's runs of a cell are in one shard.\n"+
			"DIR then holds each cell's shard folder and shard.json (with the sweep file's text);\n"+
			"`safegp merge --out ALL DIR1 … DIRn` makes from the n shards exactly the unsharded\n"+
			"DIR (every cell's results byte for byte; the table and figures redrawn, or copied\n"+
			"for a cell a shard held whole). The merge\n"+
			"reads the base and problem files from the sweep file's folder again.\n\nFlags:\n")
		fs.PrintDefaults()
		fmt.Fprint(fs.Output(), "\n"+sweepHelp)
	}
	pos, ok, err := parse(fs, args)
	if !ok {
		return err
	}
	restoreWidth, err := figureWidth(stderr, "sweep")
	if err != nil {
		return err
	}
	defer restoreWidth()
	defer useCores(*workers)()
	if len(pos) != 1 {
		fmt.Fprintf(stderr, "safegp sweep: want exactly one SWEEP file, got %d arguments\n", len(pos))
		fs.Usage()
		return errUsage
	}
	if *out == "" {
		fmt.Fprintln(stderr, "safegp sweep: --out DIR is required")
		return errUsage
	}
	if *workers < 1 {
		fmt.Fprintf(stderr, "safegp sweep: --workers must be ≥ 1, got %d\n", *workers)
		return errUsage
	}
	if err := checkOut(*out, *force); err != nil {
		return err
	}
	s, err := sweep.Load(pos[0])
	if err != nil {
		return err
	}
	ctx, stop := withSignals()
	defer stop()
	opt := sweep.Options{
		Workers: *workers, MaxMemory: maxMem.Bytes, Force: *force,
		// Each cell's figures are those `safegp run` draws for the cell's
		// configuration saved as <name>.yaml (Cell.YAML).
		Figures: func(c *sweep.Cell) func(string, []experiment.Curve) error {
			return runFigures(c.Name, experiment.BandSE, c.Config.Realizations)
		},
	}
	total := s.Runs()
	if shard.Sharded() {
		total = s.HeldRuns(shard.Shard)
	}
	step, finish := progressBar(ctx, stderr, *quiet, int64(total), decor.Name(fmt.Sprintf("%d cells, runs ", len(s.Cells))),
		decor.Percentage(), decor.Name(" "), decor.Elapsed(decor.ET_STYLE_GO), decor.Name(", left "), decor.AverageETA(decor.ET_STYLE_GO))
	defer finish()
	opt.Progress = step
	start := time.Now()
	if shard.Sharded() {
		err := sweep.RunShard(ctx, s, *out, shard.Shard, opt)
		finish()
		if err != nil {
			return stopped(ctx, fmt.Errorf("%s: %w", pos[0], err))
		}
		fmt.Fprintf(stdout, "wrote %s: shard %s, %d of %s in %.1f s; %s\n", *out, shard.Shard, total, count(s.Runs(), "run"), time.Since(start).Seconds(), mergeHint(shard.N))
		return nil
	}
	_, err = sweep.Run(ctx, s, *out, opt)
	finish()
	if err != nil {
		return stopped(ctx, fmt.Errorf("%s: %w", pos[0], err))
	}
	fmt.Fprintf(stdout, "wrote %s: %s, %s in %.1f s\n", *out, count(len(s.Cells), "cell"), count(total, "run"), time.Since(start).Seconds())
	return nil
}
