package main

import (
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"runtime"

	"github.com/safegp/safegp/internal/memlimit"
	"github.com/safegp/safegp/internal/quote"
	"github.com/safegp/safegp/safety"
)

func safetyCmd(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("safegp safety", flag.ContinueOnError)
	fs.SetOutput(stderr)
	figureWidth := figureWidthFlag(fs)
	out := fs.String("out", "safety", "output `folder` (with --suite losbo: safety-losbo unless given)")
	workers := intFlag(fs, "workers", runtime.NumCPU(), "number of parallel `workers`, and the most cores used; results do not depend on it")
	realizations := intFlag(fs, "realizations", 0, "at most `R` realizations per scenario (0: each scenario's own, 10): a smoke test")
	force := fs.Bool("force", false, "replace DIR whole if it holds an earlier safegp output")
	suite := fs.String("suite", "", "run a field's benchmark suite instead of the scenarios: `losbo` (the LoSBO paper's 200 functions and protocol)")
	runs := intFlag(fs, "runs", 20, "with --suite losbo: `N` runs per function and algorithm (the paper's: 10000)")
	functions := intFlag(fs, "functions", 0, "with --suite losbo: the first `K` functions of each set (0: all 100)")
	var sh shardFlag
	fs.Var(&sh, "shard", "with --suite losbo: run shard `i/n` of the (protocol, function) units into DIR, for safegp merge")
	var maxMem memlimit.Flag
	fs.Var(&maxMem, "max-memory", "refuse an experiment whose memory estimate is above `SIZE` (8GiB, 512MiB, bytes)")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "Usage: safegp safety [--out DIR] [--force] [--workers N] [--realizations R] [--max-memory SIZE] [--figure-width W]\n"+
			"       safegp safety --suite losbo [--runs N] [--functions K] [--shard i/n] [--out DIR] [--force] [--workers N]\n\n"+
			"Measures how safe each algorithm is when the model is wrong (docs/safety.md): problems\n"+
			"drawn from one GP and modelled with another — the right model, lengthscales 2× and 3× too\n"+
			"long, a variance 4× too small, the noise believed 3× smaller, lengthscale and variance\n"+
			"both off, kernels fitted to the first measurements — and the paper's own setting, for\n"+
			"the paper's five algorithms, SafeOpt in both modes, LoSBO, constrained-ei, pof-ei and,\n"+
			"with a frequentist β, SGP-UCB and SafeOpt.\n"+
			"Writes under DIR one folder per experiment, safety.png and REPORT.md (the runs with a\n"+
			"violation, the violating rounds and the regret per algorithm and scenario). DIR is written\n"+
			"whole or not at all; an existing, non-empty DIR is replaced only with --force, and only\n"+
			"if safegp wrote it.\n\n"+
			"With --suite losbo it runs the LoSBO paper's grid protocol (Fiedler et al., TMLR 2024) on\n"+
			"its 100 SE and 100 Matérn-3/2 functions (docs/safety-benchmarks.md): SafeOpt with β½ = 2 and\n"+
			"with frequentist β at B = 10, 2.5 and 20, LoSBO, a seed in the reachable set, misstated\n"+
			"lengthscales, and sgp-ucb, stageopt and the EI baselines beside them; it prints a row per\n"+
			"scenario and algorithm (runs never started, runs with a violation, the worst function,\n"+
			"simple regret) and writes losbo.csv, losbo.png and REPORT.md under DIR. With --shard i/n\n"+
			"it writes shard i's units only; safegp merge --out DIR SHARD... writes the table, CSV and\n"+
			"figure the whole run would, byte for byte.\n\nFlags:\n")
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
	switch {
	case *suite != "" && *suite != "losbo":
		fmt.Fprintf(stderr, "safegp safety: --suite: want losbo, got %s\n", quote.Short(*suite))
		return errUsage
	case *suite == "" && (flagSet(fs, "runs") || flagSet(fs, "functions") || flagSet(fs, "shard")):
		fmt.Fprintf(stderr, "safegp safety: --runs, --functions and --shard are for --suite losbo; the scenarios take --realizations\n")
		return errUsage
	case *suite != "" && *realizations != 0:
		fmt.Fprintf(stderr, "safegp safety: --realizations is for the scenarios; --suite losbo takes --runs and --functions\n")
		return errUsage
	case *runs < 1 || *functions < 0 || *functions > 100:
		fmt.Fprintf(stderr, "safegp safety: --runs must be ≥ 1 and --functions in 0…100, got %d and %d\n", *runs, *functions)
		return errUsage
	}
	if *out == "safety" && *suite != "" {
		*out = "safety-" + *suite
	}
	if err := checkOut(*out, *force); err != nil {
		return err
	}
	ctx, stop := withSignals()
	defer stop()
	if *suite == "losbo" {
		o, err := safety.RunLoSBO(ctx, safety.SuiteOptions{Out: *out, Workers: *workers, Runs: *runs, Functions: *functions, Shard: sh.Shard, Log: stderr, Force: *force, MaxMemory: maxMem.Bytes})
		if err != nil {
			return stopped(ctx, err)
		}
		if sh.Sharded() {
			fmt.Fprintf(stdout, "wrote shard %s to %s in %.1f s; merge the shards with safegp merge\n", sh.Shard, *out, o.Elapsed.Seconds())
			return nil
		}
		fmt.Fprint(stdout, safety.SuiteTable(o.Rows))
		fmt.Fprintf(stdout, "wrote %s in %.1f s; the report is %s\n", *out, o.Elapsed.Seconds(), filepath.Join(*out, "REPORT.md"))
		return nil
	}
	o, err := safety.Run(ctx, safety.Options{Out: *out, Workers: *workers, Realizations: *realizations, Log: stderr, Force: *force, MaxMemory: maxMem.Bytes})
	if err != nil {
		return stopped(ctx, err)
	}
	fmt.Fprintf(stdout, "wrote %s in %.1f s; the report is %s\n", *out, o.Elapsed.Seconds(), filepath.Join(*out, "REPORT.md"))
	return nil
}

// flagSet reports whether the flag name was given on the command line.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
