package experiment

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/safegp/safegp/internal/readlimit"
)

// Merge writes into out the output folder of the whole configuration from
// the shard folders that ExecuteToDir wrote with WriteOptions.Shard (one
// configuration's shards: a `run`, one experiment of `reproduce`, one cell
// of a sweep): runs.jsonl, results.json and summary.csv byte for byte as
// the unsharded ExecuteToDir writes them, and the figures of wopt.Figures
// redrawn from the summary. wopt.Shard must be nil. It refuses, naming
// the folders (ErrShards), folders that are not shards, shards of
// different commands, configurations or n, overlapping and missing shards.
// It reads the shards' runs one line at a time, in unit order, and stops
// with ctx's error, writing nothing, when ctx is done.
func Merge(ctx context.Context, out string, shards []string, wopt WriteOptions) error {
	infos, owner, err := CheckShards(shards)
	if err != nil {
		return err
	}
	var cfg struct {
		Horizon      int `json:"horizon"`
		Realizations int `json:"realizations"`
	}
	if err := json.Unmarshal(infos[0].Config, &cfg); err != nil || cfg.Realizations < 1 {
		return fmt.Errorf("%w: %s: shard.json has no configuration: %v", ErrShards, shards[0], err)
	}
	files := make([]*os.File, len(shards))
	readers := make([]*lineReader, len(shards))
	for k, d := range shards {
		f, err := os.Open(filepath.Join(d, RunsFile))
		if err != nil {
			return fmt.Errorf("%w: %w", ErrShards, err)
		}
		defer f.Close()
		files[k], readers[k] = f, newLineReader(f, readlimit.For(wopt.MaxMemory))
	}
	wopt.Shard = nil
	return writeDir(out, wopt, func(tmp string) ([]Curve, error) {
		u := 0
		next := func() ([]byte, error) {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if u == len(owner) {
				// Every shard read to its end: no line left over.
				for k, lr := range readers {
					if _, err := lr.next(); err != io.EOF {
						return nil, fmt.Errorf("%w: %s has more runs than its %s lists", ErrShards, files[k].Name(), ShardFile)
					}
				}
				return nil, io.EOF
			}
			k := owner[u]
			line, err := readers[k].next()
			if err == io.EOF {
				return nil, fmt.Errorf("%w: %s ends before unit %d, which its %s lists", ErrShards, files[k].Name(), u, ShardFile)
			}
			if err != nil {
				return nil, fmt.Errorf("%w: %s: %w", ErrShards, files[k].Name(), err)
			}
			a, r, err := lineUnit(line)
			if err != nil || a*cfg.Realizations+r != u {
				return nil, fmt.Errorf("%w: %s: the run of unit %d is not where its %s puts it (%v)", ErrShards, files[k].Name(), u, ShardFile, err)
			}
			u++
			return line, nil
		}
		return finishRuns(tmp, infos[0].Config, cfg.Horizon, undecoded(next), wopt.Runs)
	})
}
