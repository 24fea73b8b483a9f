package main

import (
	"cmp"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"path/filepath"

	"github.com/safegp/safegp/experiment"
	"github.com/safegp/safegp/internal/memlimit"
	"github.com/safegp/safegp/reproduce"
	"github.com/safegp/safegp/safety"
	"github.com/safegp/safegp/shard"
	"github.com/safegp/safegp/sweep"
)

// shardFlag is --shard i/n.
type shardFlag struct{ shard.Shard }

func (f *shardFlag) String() string {
	if !f.Sharded() {
		return ""
	}
	return f.Shard.String()
}

func (f *shardFlag) Set(s string) error {
	sh, err := shard.Parse(s)
	if err != nil {
		return fmt.Errorf("want i/n with 1 ≤ i ≤ n, as 3/7")
	}
	f.Shard = sh
	return nil
}

func mergeCmd(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("safegp merge", flag.ContinueOnError)
	fs.SetOutput(stderr)
	figureWidth := figureWidthFlag(fs)
	out := fs.String("out", "", "output `folder` for the merged output (required)")
	force := fs.Bool("force", false, "replace DIR whole if it holds an earlier safegp output")
	var maxMem memlimit.Flag
	fs.Var(&maxMem, "max-memory", "refuse a runs.jsonl line longer than an eighth of `SIZE` (8GiB, 512MiB, bytes)")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "Usage: safegp merge --out DIR [--force] [--figure-width W] SHARD_DIR...\n\n"+
			"Combines the n shard folders written by `safegp run`, `safegp reproduce`, `safegp sweep`\n"+
			"or `safegp safety --suite losbo` with --shard i/n (i = 1 … n, in any order) into DIR,\n"+
			"exactly the output of the unsharded command: byte-identical results.json, summary.csv and\n"+
			"runs.jsonl (the suite's losbo.csv), the figures and\n"+
			"reports redrawn (REPORT.md differs only in the line stating the wall time, here the\n"+
			"shards' and the merge's summed). It refuses folders that are not shards, shards of\n"+
			"different commands, configurations or n, and overlapping or missing shards.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	pos, ok, err := parse(fs, args)
	if !ok {
		return err
	}
	restoreWidth, err := figureWidth(stderr, "merge")
	if err != nil {
		return err
	}
	defer restoreWidth()
	if *out == "" {
		fmt.Fprintln(stderr, "safegp merge: --out DIR is required")
		return errUsage
	}
	if len(pos) == 0 {
		fmt.Fprintln(stderr, "safegp merge: give the shard folders to merge")
		fs.Usage()
		return errUsage
	}
	for _, d := range pos {
		if same(d, *out) {
			return fmt.Errorf("--out %s is one of the shard folders: give another folder", *out)
		}
	}
	if err := checkOut(*out, *force); err != nil {
		return err
	}
	info, err := shard.Read(pos[0])
	if err != nil {
		return err
	}
	ctx, stop := withSignals()
	defer stop()
	switch info.Command {
	case "run":
		var cfg struct {
			Realizations int `json:"realizations"`
		}
		if err := json.Unmarshal(info.Config, &cfg); err != nil {
			return fmt.Errorf("%w: %s: %w", shard.ErrShards, pos[0], err)
		}
		band, err := experiment.ParseBand(cmp.Or(info.Band, "se"))
		if err != nil {
			return fmt.Errorf("%w: %s: band: %w", shard.ErrShards, pos[0], err)
		}
		if err := experiment.Merge(ctx, *out, pos, experiment.WriteOptions{Figures: runFigures(info.Name, band, cfg.Realizations), Force: *force, MaxMemory: maxMem.Bytes}); err != nil {
			return stopped(ctx, err)
		}
		fmt.Fprintf(stdout, "wrote %s: %s merged from %s\n", *out, count(info.Total, "run"), count(len(pos), "shard"))
	case "sweep":
		rows, err := sweep.Merge(ctx, *out, pos, sweep.Options{Force: *force, MaxMemory: maxMem.Bytes, Figures: func(c *sweep.Cell) func(string, []experiment.Curve) error {
			return runFigures(c.Name, experiment.BandSE, c.Config.Realizations)
		}})
		if err != nil {
			return stopped(ctx, err)
		}
		fmt.Fprintf(stdout, "wrote %s: %s merged from %s, %s\n", *out, count(info.Total, "run"), count(len(pos), "shard"), count(len(rows), "table row"))
	case "reproduce":
		o, err := reproduce.Merge(ctx, reproduce.MergeOptions{Out: *out, Shards: pos, Log: stderr, Force: *force, MaxMemory: maxMem.Bytes})
		if err != nil {
			return stopped(ctx, err)
		}
		fmt.Fprintf(stdout, "wrote %s from %s (%.1f s of work); the report is %s\n", *out, count(len(pos), "shard"), o.Elapsed.Seconds(), filepath.Join(*out, "REPORT.md"))
	case "safety --suite losbo":
		o, err := safety.MergeLoSBO(ctx, *out, pos, *force)
		if err != nil {
			return stopped(ctx, err)
		}
		fmt.Fprint(stdout, safety.SuiteTable(o.Rows))
		fmt.Fprintf(stdout, "wrote %s from %s (%.1f s of work); the report is %s\n", *out, count(len(pos), "shard"), o.Elapsed.Seconds(), filepath.Join(*out, "REPORT.md"))
	default:
		return fmt.Errorf("%w: %s is a shard of `safegp %s`, which merge does not know", shard.ErrShards, pos[0], info.Command)
	}
	return nil
}

// count says n things: "1 shard", "7 shards" (every noun count is given
// is made plural with an s).
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// mergeHint is what a command run with --shard i/n says to do next.
func mergeHint(n int) string {
	if n == 1 {
		return "make the unsharded output of this one shard with safegp merge --out DIR SHARD_DIR"
	}
	return fmt.Sprintf("merge the %d shards with safegp merge --out DIR SHARD_DIR...", n)
}

// same reports whether paths a and b name the same folder.
func same(a, b string) bool {
	aa, err1 := filepath.Abs(a)
	bb, err2 := filepath.Abs(b)
	return err1 == nil && err2 == nil && filepath.Clean(aa) == filepath.Clean(bb)
}
