package experiment

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// ExecuteToDir runs the experiment and writes its output folder dir as
// WriteWithOptions does, but streams each run to disk as it finishes:
// memory holds a chunk of realizations (Plan.Chunk) and the per-round
// summary, never every run, so that results.json may be larger than
// memory. The folder is byte for byte what Execute and WriteWithOptions
// write. It returns the plan it ran with.
func ExecuteToDir(ctx context.Context, c *Config, opt Options, dir string, wopt WriteOptions) (Plan, error) {
	var plan Plan
	err := writeDir(dir, wopt, func(tmp string) ([]Curve, error) {
		// One file of runs per algorithm, so that results.json lists them
		// algorithm by algorithm, as Execute does, though they finish
		// realization chunk by chunk.
		parts := make([]*os.File, len(c.Algorithms))
		bufs := make([]*bufio.Writer, len(c.Algorithms))
		for a := range parts {
			var err error
			if parts[a], err = os.Create(filepath.Join(tmp, fmt.Sprintf(".runs-%d", a))); err != nil {
				return nil, fmt.Errorf("write results.json: %w", err)
			}
			defer parts[a].Close()
			bufs[a] = bufio.NewWriterSize(parts[a], 1<<20)
		}
		sum := newSummarizer(c.Horizon)
		first := make([]bool, len(parts))
		var err error
		plan, err = Stream(ctx, c, opt, func(a int, run *Run) error {
			sum.add(run)
			b, err := json.Marshal(run)
			if err != nil {
				return fmt.Errorf("write results.json: %w", err)
			}
			if first[a] {
				bufs[a].WriteByte(',')
			}
			first[a] = true
			_, err = bufs[a].Write(b)
			return err
		})
		if err != nil {
			return nil, err
		}
		if err := joinRuns(filepath.Join(tmp, "results.json"), c, parts, bufs); err != nil {
			return nil, fmt.Errorf("write results.json: %w", err)
		}
		return sum.curves(), nil
	})
	return plan, err
}

// joinRuns writes {"config": c, "runs": [part 0, part 1, …]} to path, as
// json.Marshal(&Results{…}) would, and removes the parts.
func joinRuns(path string, c *Config, parts []*os.File, bufs []*bufio.Writer) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	cfg, err := json.Marshal(c)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, `{"config":%s,"runs":[`, cfg)
	for a, p := range parts {
		if err := bufs[a].Flush(); err != nil {
			return err
		}
		if a > 0 {
			w.WriteByte(',')
		}
		if _, err := p.Seek(0, io.SeekStart); err != nil {
			return err
		}
		if _, err := io.Copy(w, p); err != nil {
			return err
		}
		p.Close()
		if err := os.Remove(p.Name()); err != nil {
			return err
		}
	}
	w.WriteString("]}\n")
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Close()
}
