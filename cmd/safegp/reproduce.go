package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"

	"github.com/safegp/safegp/reproduce"
)

func reproduceCmd(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("safegp reproduce", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "reproduction", "output `folder`")
	quick := fs.Bool("quick", false, fmt.Sprintf("%d realizations per experiment: a smoke test", reproduce.QuickRealizations))
	workers := fs.Int("workers", runtime.NumCPU(), "number of parallel `workers`; results do not depend on it")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "Usage: safegp reproduce [--out DIR] [--quick] [--workers N]\n\n"+
			"Runs every experiment of the paper from the embedded example configurations and writes,\n"+
			"under DIR: illustration/ (Fig. 1), regret-1-10/, regret-11-20/, regret-21-25/ (Fig. 2 and\n"+
			"Figs. 6–8, beside the keep_seed / safe_set gp ablations), fig2-regret.png, linear/ (Fig. 4),\n"+
			"phase1/ (Fig. 5) and REPORT.md, which checks each of the paper's claims.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	pos, ok, err := parse(fs, args)
	if !ok {
		return err
	}
	if len(pos) != 0 {
		fmt.Fprintf(stderr, "safegp reproduce: unexpected arguments %v\n", pos)
		return errUsage
	}
	if *workers < 1 {
		fmt.Fprintf(stderr, "safegp reproduce: --workers must be ≥ 1, got %d\n", *workers)
		return errUsage
	}
	if st, err := os.Stat(*out); err == nil && !st.IsDir() {
		return fmt.Errorf("--out %s: exists and is not a folder", *out)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	o, err := reproduce.Run(ctx, reproduce.Options{Out: *out, Quick: *quick, Workers: *workers, Log: stderr})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s in %.1f s; the report is %s\n", *out, o.Elapsed.Seconds(), filepath.Join(*out, "REPORT.md"))
	return nil
}
