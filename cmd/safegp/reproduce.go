package main

import (
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"runtime"

	"github.com/safegp/safegp/internal/memlimit"
	"github.com/safegp/safegp/reproduce"
)

func reproduceCmd(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("safegp reproduce", flag.ContinueOnError)
	fs.SetOutput(stderr)
	figureWidth := figureWidthFlag(fs)
	out := fs.String("out", "reproduction", "output `folder`")
	quick := fs.Bool("quick", false, fmt.Sprintf("%d realizations per experiment: a smoke test", reproduce.QuickRealizations))
	workers := intFlag(fs, "workers", runtime.NumCPU(), "number of parallel `workers`, and the most cores used; results do not depend on it")
	force := fs.Bool("force", false, "replace DIR whole if it holds an earlier safegp output")
	var maxMem memlimit.Flag
	fs.Var(&maxMem, "max-memory", "refuse an experiment whose memory estimate is above `SIZE` (8GiB, 512MiB, bytes)")
	var shard shardFlag
	fs.Var(&shard, "shard", "run only shard `i/n` of the work units into DIR, for `safegp merge`")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "Usage: safegp reproduce [--out DIR] [--force] [--quick] [--workers N] [--max-memory SIZE] [--shard i/n] [--figure-width W]\n\n"+
			"Runs every experiment of the paper from the embedded example configurations and writes,\n"+
			"under DIR: illustration/ (Fig. 1), regret-1-10/, regret-11-20/, regret-21-25/ (Fig. 2 and\n"+
			"Figs. 6–8, beside the keep_seed / safe_set gp ablations), fig2-regret.png, linear/ (Fig. 4),\n"+
			"phase1/ (Fig. 5) and REPORT.md, which checks each of the paper's claims. DIR is written\n"+
			"whole or not at all; an existing, non-empty DIR is replaced only with --force, and only\n"+
			"if safegp wrote it.\n\n"+
			"With --shard i/n, DIR holds only shard i of n of the runs (units: experiment, then\n"+
			"algorithm, then realization; a realization's in one shard); `safegp merge --out ALL\n"+
			"DIR1 … DIRn` makes the whole reproduction from the n shards, REPORT.md identical but\n"+
			"for the line stating the wall time.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	pos, ok, err := parse(fs, args)
	if !ok {
		return err
	}
	restoreWidth, err := figureWidth(stderr, "reproduce")
	if err != nil {
		return err
	}
	defer restoreWidth()
	defer useCores(*workers)()
	if len(pos) != 0 {
		fmt.Fprintf(stderr, "safegp reproduce: unexpected arguments %v\n", pos)
		return errUsage
	}
	if *workers < 1 {
		fmt.Fprintf(stderr, "safegp reproduce: --workers must be ≥ 1, got %d\n", *workers)
		return errUsage
	}
	if err := checkOut(*out, *force); err != nil {
		return err
	}
	ctx, stop := withSignals()
	defer stop()
	o, err := reproduce.Run(ctx, reproduce.Options{Out: *out, Quick: *quick, Workers: *workers, Log: stderr, Force: *force, MaxMemory: maxMem.Bytes, Shard: shard.Shard})
	if err != nil {
		return stopped(ctx, err)
	}
	if shard.Sharded() {
		fmt.Fprintf(stdout, "wrote %s: shard %s in %.1f s; %s\n", *out, shard.Shard, o.Elapsed.Seconds(), mergeHint(shard.N))
		return nil
	}
	fmt.Fprintf(stdout, "wrote %s in %.1f s; the report is %s\n", *out, o.Elapsed.Seconds(), filepath.Join(*out, "REPORT.md"))
	return nil
}
