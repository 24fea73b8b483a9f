package experiment

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/safegp/safegp/internal/readlimit"
	"github.com/safegp/safegp/shard"
)

// Merge writes into out the output folder of the whole configuration from
// the shard folders that ExecuteToDir wrote with WriteOptions.Shard (one
// configuration's shards: a `run`, one experiment of `reproduce`, one cell
// of a sweep): runs.jsonl, results.json and summary.csv byte for byte as
// the unsharded ExecuteToDir writes them, and the figures of wopt.Figures
// redrawn from the summary. wopt.Shard must be nil. It refuses, naming
// the folders (shard.ErrShards), folders that are not shards, shards of
// different commands, configurations or n, overlapping and missing shards.
// It reads the shards' runs one line at a time, in unit order, and stops
// with ctx's error, writing nothing, when ctx is done.
func Merge(ctx context.Context, out string, shards []string, wopt WriteOptions) error {
	infos, owner, err := shard.Check(shards)
	if err != nil {
		return err
	}
	var cfg struct {
		Horizon      int `json:"horizon"`
		Realizations int `json:"realizations"`
	}
	if err := json.Unmarshal(infos[0].Config, &cfg); err != nil || cfg.Realizations < 1 {
		return fmt.Errorf("%w: %s: shard.json has no configuration: %v", shard.ErrShards, shards[0], err)
	}
	lines, err := shard.OpenLines(shards, owner, RunsFile, readlimit.For(wopt.MaxMemory), func(line []byte) (int, error) {
		a, r, err := lineUnit(line)
		return a*cfg.Realizations + r, err
	})
	if err != nil {
		return err
	}
	defer lines.Close()
	wopt.Shard = nil
	return writeDir(out, wopt, func(tmp string) ([]Curve, error) {
		next := func() ([]byte, error) { return lines.Next(ctx) }
		return finishRuns(tmp, infos[0].Config, cfg.Horizon, undecoded(next), wopt.Runs)
	})
}
