package experiment

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/safegp/safegp/internal/outdir"
)

// ExecuteToDir runs the experiment and writes its output folder dir as
// WriteWithOptions does, but streams each run to disk as it finishes:
// memory holds a chunk of realizations (Plan.Chunk) and the per-round
// summary, never every run, so that results.json may be larger than
// memory. The folder is byte for byte what Execute and WriteWithOptions
// write. It returns the plan it ran with.
func ExecuteToDir(ctx context.Context, c *Config, opt Options, dir string, wopt WriteOptions) (Plan, error) {
	if err := outdir.Check(dir, wopt.Force); err != nil {
		return Plan{}, fmt.Errorf("write output: %s %w", dir, err)
	}
	tmp, err := outdir.Stage(dir)
	if err != nil {
		return Plan{}, fmt.Errorf("write output: %w", err)
	}
	defer os.RemoveAll(tmp) // gone already once published
	// One file of runs per algorithm, so that results.json lists them
	// algorithm by algorithm, as Execute does, though they finish
	// realization chunk by chunk.
	parts := make([]*os.File, len(c.Algorithms))
	bufs := make([]*bufio.Writer, len(c.Algorithms))
	for a := range parts {
		if parts[a], err = os.Create(filepath.Join(tmp, fmt.Sprintf(".runs-%d", a))); err != nil {
			return Plan{}, fmt.Errorf("write results.json: %w", err)
		}
		defer parts[a].Close()
		bufs[a] = bufio.NewWriterSize(parts[a], 1<<20)
	}
	sum := newSummarizer(c.Horizon)
	first := make([]bool, len(parts))
	plan, err := Stream(ctx, c, opt, func(a int, run *Run) error {
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
		return plan, err
	}
	if err := joinRuns(filepath.Join(tmp, "results.json"), c, parts, bufs); err != nil {
		return plan, fmt.Errorf("write results.json: %w", err)
	}
	curves := sum.curves()
	if err := os.WriteFile(filepath.Join(tmp, "summary.csv"), SummaryCSV(curves), 0o644); err != nil {
		return plan, fmt.Errorf("write summary.csv: %w", err)
	}
	if wopt.Figures != nil {
		if err := wopt.Figures(tmp, curves); err != nil {
			return plan, err
		}
	}
	if err := outdir.Publish(tmp, dir, wopt.Force); err != nil {
		return plan, fmt.Errorf("write output: %w", err)
	}
	return plan, nil
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
