package reproduce

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/safegp/safegp/experiment"
	"github.com/safegp/safegp/internal/outdir"
	"github.com/safegp/safegp/shard"
)

// The reproduction's work units (issue 14) are its experiments' in the
// order Run runs them (paperExperiments): experiment, then algorithm, then
// realization, numbered on from one experiment to the next. The
// illustration, the theory and the report are not units: Merge computes
// them, as Run does, from the merged runs.

// command is the command written into shard.json.
const command = "reproduce"

// configs loads every experiment's configuration and returns them with
// the hash of the whole reproduction: of --quick and of each
// configuration's JSON, in order.
func configs(quick bool) ([]*experiment.Config, string, error) {
	var cfgs []*experiment.Config
	var all strings.Builder
	fmt.Fprintf(&all, "reproduce quick=%t\n", quick)
	for _, pe := range paperExperiments() {
		cfg, err := pe.config(quick)
		if err != nil {
			return nil, "", err
		}
		js, err := json.Marshal(cfg)
		if err != nil {
			return nil, "", fmt.Errorf("reproduce: %s: %w", pe.name, err)
		}
		fmt.Fprintf(&all, "%s %s\n", pe.name, js)
		cfgs = append(cfgs, cfg)
	}
	return cfgs, shard.Hash([]byte(all.String())), nil
}

// runShard writes opt.Out (the staging folder) as shard opt.Shard: per
// experiment a shard folder of its units, then shard.json with the units
// in the reproduction's numbering.
func runShard(ctx context.Context, opt Options, start time.Time) error {
	cfgs, hash, err := configs(opt.Quick)
	if err != nil {
		return err
	}
	info := &shard.Info{Format: shard.Format, Command: command, ConfigSHA256: hash, Shard: opt.Shard.I, Of: opt.Shard.N, Units: []int{}}
	for k, pe := range paperExperiments() {
		cfg := cfgs[k]
		base := info.Total
		sub := &shard.Info{Command: command, Shard: opt.Shard.I, Of: opt.Shard.N, Name: pe.name}
		if _, err := experiment.ExecuteToDir(ctx, cfg, experiment.Options{Workers: opt.Workers, MaxMemory: opt.MaxMemory, Units: opt.Shard.ByRealization(base)},
			filepath.Join(opt.Out, pe.name), experiment.WriteOptions{Shard: sub}); err != nil {
			return fmt.Errorf("reproduce: %s: %w", pe.name, err)
		}
		info.Units = append(info.Units, shard.Held(opt.Shard.ByRealization(base), base, len(cfg.Algorithms), cfg.Realizations)...)
		info.Total += experiment.Units(cfg)
		if opt.Log != nil {
			fmt.Fprintf(opt.Log, "%s: shard %s done\n", pe.name, opt.Shard)
		}
	}
	info.Seconds = time.Since(start).Seconds()
	return shard.Write(opt.Out, info)
}

// MergeOptions tune Merge.
type MergeOptions struct {
	Out    string   // output folder
	Shards []string // the shard folders, each written by Run with a Shard
	Log    io.Writer
	Force  bool // as Options.Force
	// MaxMemory bounds what the merge reads (experiment.WriteOptions).
	MaxMemory int64
}

// Merge makes, from the shard folders of a reproduction, the folder Run
// writes unsharded: each experiment's runs.jsonl, results.json and
// summary.csv byte for byte (experiment.Merge), the figures and
// REPORT.md redrawn, identical but for the line that states the wall
// time (WallTimeLine), which here is the sum of the shards' and the
// merge's. It refuses what experiment.CheckShards refuses, and shards of
// another command, or of a reproduction this safegp would not run (its
// embedded examples changed).
func Merge(ctx context.Context, opt MergeOptions) (*Outcome, error) {
	start := time.Now()
	infos, _, err := shard.Check(opt.Shards)
	if err != nil {
		return nil, err
	}
	if infos[0].Command != command {
		return nil, fmt.Errorf("%w: %s is a shard of `safegp %s`, not of `safegp reproduce`", shard.ErrShards, opt.Shards[0], infos[0].Command)
	}
	quick := false
	if _, h, err := configs(false); err != nil {
		return nil, err
	} else if h != infos[0].ConfigSHA256 {
		quick = true
		if _, h, err = configs(true); err != nil {
			return nil, err
		} else if h != infos[0].ConfigSHA256 {
			return nil, fmt.Errorf("%w: %s is a shard of a reproduction whose configurations this safegp does not run (another version?)", shard.ErrShards, opt.Shards[0])
		}
	}
	var shardTime float64
	for _, s := range infos {
		shardTime += s.Seconds
	}
	if err := outdir.Check(opt.Out, opt.Force); err != nil {
		return nil, fmt.Errorf("reproduce: %s %w", opt.Out, err)
	}
	stage, err := outdir.Stage(opt.Out)
	if err != nil {
		return nil, fmt.Errorf("reproduce: %w", err)
	}
	defer outdir.Discard(stage)
	logf := func(format string, args ...any) {
		if opt.Log != nil {
			fmt.Fprintf(opt.Log, format+"\n", args...)
		}
	}
	out, err := assemble(ctx, stage, quick, logf, func(ctx context.Context, pe *paperExperiment, cfg *experiment.Config, figures func(string, []experiment.Curve) error) (*Experiment, error) {
		e := newExperiment(pe.name, cfg)
		subs := make([]string, len(opt.Shards))
		for k, d := range opt.Shards {
			subs[k] = filepath.Join(d, pe.name)
		}
		wopt := e.writeOptions(figures)
		wopt.MaxMemory = opt.MaxMemory
		if err := experiment.Merge(ctx, filepath.Join(stage, pe.name), subs, wopt); err != nil {
			return nil, fmt.Errorf("reproduce: %s: %w", pe.name, err)
		}
		return e, nil
	})
	if err != nil {
		return nil, err
	}
	out.Elapsed = time.Duration((shardTime + time.Since(start).Seconds()) * float64(time.Second))
	if err := writeReport(stage, out); err != nil {
		return nil, err
	}
	if err := outdir.Publish(stage, opt.Out, opt.Force); err != nil {
		return nil, fmt.Errorf("reproduce: %w", err)
	}
	return out, nil
}

// WallTimeLine reports whether a line of REPORT.md states the wall time
// of the reproduction: the one line in which a merged report differs
// from the unsharded one.
func WallTimeLine(line string) bool {
	return strings.HasPrefix(line, "Written by `safegp reproduce`")
}
