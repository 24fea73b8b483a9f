package main

import (
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"runtime"

	"github.com/safegp/safegp/internal/memlimit"
	"github.com/safegp/safegp/safety"
)

func safetyCmd(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("safegp safety", flag.ContinueOnError)
	fs.SetOutput(stderr)
	figureWidth := figureWidthFlag(fs)
	out := fs.String("out", "safety", "output `folder`")
	workers := intFlag(fs, "workers", runtime.NumCPU(), "number of parallel `workers`, and the most cores used; results do not depend on it")
	realizations := intFlag(fs, "realizations", 0, "at most `R` realizations per scenario (0: each scenario's own, 10): a smoke test")
	force := fs.Bool("force", false, "replace DIR whole if it holds an earlier safegp output")
	var maxMem memlimit.Flag
	fs.Var(&maxMem, "max-memory", "refuse an experiment whose memory estimate is above `SIZE` (8GiB, 512MiB, bytes)")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "Usage: safegp safety [--out DIR] [--force] [--workers N] [--realizations R] [--max-memory SIZE] [--figure-width W]\n\n"+
			"Measures how safe each algorithm is when the model is wrong (docs/safety.md): problems\n"+
			"drawn from one GP and modelled with another — the right model, lengthscales 2× and 3× too\n"+
			"long, a variance 4× too small, the noise believed 3× smaller, lengthscale and variance\n"+
			"both off, kernels fitted to the first measurements — and the paper's own setting, for\n"+
			"the paper's five algorithms, SafeOpt in both modes, LoSBO, constrained-ei, pof-ei and,\n"+
			"with a frequentist β, SGP-UCB and SafeOpt.\n"+
			"Writes under DIR one folder per experiment, safety.png and REPORT.md (the runs with a\n"+
			"violation, the violating rounds and the regret per algorithm and scenario). DIR is written\n"+
			"whole or not at all; an existing, non-empty DIR is replaced only with --force, and only\n"+
			"if safegp wrote it.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	pos, ok, err := parse(fs, args)
	if !ok {
		return err
	}
	restoreWidth, err := figureWidth(stderr, "safety")
	if err != nil {
		return err
	}
	defer restoreWidth()
	defer useCores(*workers)()
	if len(pos) != 0 {
		fmt.Fprintf(stderr, "safegp safety: unexpected arguments %v\n", pos)
		return errUsage
	}
	if *workers < 1 || *realizations < 0 {
		fmt.Fprintf(stderr, "safegp safety: --workers must be ≥ 1 and --realizations ≥ 0, got %d and %d\n", *workers, *realizations)
		return errUsage
	}
	if err := checkOut(*out, *force); err != nil {
		return err
	}
	ctx, stop := withSignals()
	defer stop()
	o, err := safety.Run(ctx, safety.Options{Out: *out, Workers: *workers, Realizations: *realizations, Log: stderr, Force: *force, MaxMemory: maxMem.Bytes})
	if err != nil {
		return stopped(ctx, err)
	}
	fmt.Fprintf(stdout, "wrote %s in %.1f s; the report is %s\n", *out, o.Elapsed.Seconds(), filepath.Join(*out, "REPORT.md"))
	return nil
}
