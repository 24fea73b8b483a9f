package experiment

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/safegp/safegp/internal/readlimit"
	"github.com/safegp/safegp/shard"
)

// ExecuteToDir runs the experiment and writes its output folder dir as
// WriteWithOptions does, but streams each run to disk as it finishes:
// memory holds a chunk of realizations (Plan.Chunk) and the per-round
// summary, never every run, so that results.json may be larger than
// memory. Beside results.json it writes runs.jsonl, one run a line in
// results.json's order, and results.json and summary.csv are made from it
// line by line. The folder is byte for byte what Execute and
// WriteWithOptions write, plus runs.jsonl. It returns the plan it ran with.
//
// With wopt.Shard, dir is a shard folder instead: the runs of the units
// opt.Units selects in runs.jsonl and wopt.Shard (its Units, Total,
// Config and hash filled in here) in shard.json; Merge makes the output
// folder of the whole from the shards.
func ExecuteToDir(ctx context.Context, c *Config, opt Options, dir string, wopt WriteOptions) (Plan, error) {
	var plan Plan
	start := time.Now()
	cfg, err := json.Marshal(c)
	if err != nil {
		return plan, fmt.Errorf("write results.json: %w", err)
	}
	err = writeDir(dir, wopt, func(tmp string) ([]Curve, error) {
		// One file of runs per algorithm, so that runs.jsonl lists them
		// algorithm by algorithm, as Execute does, though they finish
		// realization chunk by chunk.
		parts := make([]*os.File, len(c.Algorithms))
		bufs := make([]*bufio.Writer, len(c.Algorithms))
		for a := range parts {
			var err error
			if parts[a], err = os.Create(filepath.Join(tmp, fmt.Sprintf(".runs-%d", a))); err != nil {
				return nil, fmt.Errorf("write %s: %w", RunsFile, err)
			}
			defer parts[a].Close()
			bufs[a] = bufio.NewWriterSize(parts[a], bufSize)
		}
		var units []int
		var line []byte
		var err error
		plan, err = Stream(ctx, c, opt, func(a int, run *Run) error {
			units = append(units, a*c.Realizations+run.Realization)
			if line, err = appendLine(line[:0], a, run); err != nil {
				return fmt.Errorf("write %s: %w", RunsFile, err)
			}
			_, err = bufs[a].Write(line)
			return err
		})
		if err != nil {
			return nil, err
		}
		// The parts, in algorithm order, are runs.jsonl.
		next, closeParts, err := partLines(parts, bufs)
		if err != nil {
			return nil, fmt.Errorf("write %s: %w", RunsFile, err)
		}
		defer closeParts()
		if wopt.Shard != nil {
			if err := copyLines(filepath.Join(tmp, RunsFile), next); err != nil {
				return nil, fmt.Errorf("write %s: %w", RunsFile, err)
			}
			// In runs.jsonl's order (algorithm-major), which chunks
			// of realizations do not follow.
			slices.Sort(units)
			s := *wopt.Shard
			s.Format, s.Total, s.Units, s.Config = shard.Format, Units(c), units, cfg
			if s.Units == nil {
				s.Units = []int{}
			}
			if s.ConfigSHA256 == "" {
				s.ConfigSHA256 = shard.Hash(cfg)
			}
			s.Seconds = time.Since(start).Seconds()
			return nil, shard.Write(tmp, &s)
		}
		return finishRuns(tmp, cfg, c.Horizon, undecoded(next), wopt.Runs)
	})
	return plan, err
}

// A line of runs.jsonl: the algorithm's index and the realization (the
// work unit), the 0-based rounds that violated a constraint (which the
// summary's violation curve needs and results.json leaves out), then the
// run exactly as results.json holds it, last, so that it can be copied
// out of the line without decoding it.
type runLine struct {
	Algorithm       int   `json:"algorithm_index"`
	Realization     int   `json:"realization"`
	ViolationRounds []int `json:"violation_rounds"`
	Run             *Run  `json:"run"`
}

const runKey = `,"run":`

// bufSize is the buffer of each file of runs read or written
// (shard.BufSize).
const bufSize = shard.BufSize

// appendLine appends run's line (with its newline) to dst.
func appendLine(dst []byte, a int, run *Run) ([]byte, error) {
	js, err := json.Marshal(run)
	if err != nil {
		return dst, err
	}
	dst = append(dst, `{"algorithm_index":`...)
	dst = strconv.AppendInt(dst, int64(a), 10)
	dst = append(dst, `,"realization":`...)
	dst = strconv.AppendInt(dst, int64(run.Realization), 10)
	dst = append(dst, `,"violation_rounds":[`...)
	for k, t := range run.violationRounds {
		if k > 0 {
			dst = append(dst, ',')
		}
		dst = strconv.AppendInt(dst, int64(t), 10)
	}
	dst = append(dst, ']')
	dst = append(dst, runKey...)
	dst = append(dst, js...)
	return append(dst, '}', '\n'), nil
}

// runBytes returns the run's JSON within a line (without its newline).
func runJSON(line []byte) ([]byte, error) {
	k := bytes.Index(line, []byte(runKey))
	if k < 0 || len(line) < k+len(runKey)+1 || line[len(line)-1] != '}' {
		return nil, errors.New("a line without its run")
	}
	return line[k+len(runKey) : len(line)-1], nil
}

// lineUnit reads a line's algorithm index and realization from its head.
func lineUnit(line []byte) (a, r int, err error) {
	k := bytes.Index(line, []byte(`,"violation_rounds"`))
	if k < 0 {
		return 0, 0, errors.New("a line without its unit")
	}
	var h runLine
	if err := json.Unmarshal(append(line[:k:k], '}'), &h); err != nil {
		return 0, 0, err
	}
	return h.Algorithm, h.Realization, nil
}

// decodeLine decodes a line's run, with its violation rounds.
func decodeLine(line []byte) (int, *Run, error) {
	var d lineDecoder
	return d.decode(line)
}

// lineDecoder decodes lines one after another into one Run, whose
// arrays it reuses from line to line (decodeLineFast's spare): the run
// it returns is valid until the next decode.
type lineDecoder struct{ last runLine }

func (d *lineDecoder) decode(line []byte) (int, *Run, error) {
	l := runLine{Run: &Run{}}
	if !decodeLineFast(line, &l, &d.last) {
		l = runLine{Run: &Run{}}
		if err := json.Unmarshal(line, &l); err != nil {
			return 0, nil, err
		}
	}
	l.Run.violationRounds = l.ViolationRounds
	d.last = l
	return l.Algorithm, l.Run, nil
}

// partLines flushes the per-algorithm parts and returns their lines in
// order, and a function that closes and removes them.
func partLines(parts []*os.File, bufs []*bufio.Writer) (func() ([]byte, error), func(), error) {
	for a, p := range parts {
		if err := bufs[a].Flush(); err != nil {
			return nil, nil, err
		}
		if _, err := p.Seek(0, io.SeekStart); err != nil {
			return nil, nil, err
		}
	}
	a := 0
	var lr *shard.LineReader
	next := func() ([]byte, error) {
		for a < len(parts) {
			if lr == nil {
				lr = shard.NewLineReader(parts[a], 0) // our own parts
			}
			line, err := lr.Next()
			if err == io.EOF {
				a, lr = a+1, nil
				continue
			}
			return line, err
		}
		return nil, io.EOF
	}
	done := func() {
		for _, p := range parts {
			p.Close()
			os.Remove(p.Name())
		}
	}
	return next, done, nil
}

// copyLines writes the lines next returns to path.
func copyLines(path string, next func() ([]byte, error)) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, bufSize)
	for {
		line, err := next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		w.Write(line)
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Close()
}

// finishRuns writes, from the lines next returns (in results.json's
// order), runs.jsonl and results.json — {"config": cfg, "runs": […]}, as
// json.Marshal(&Results{…}) would — into tmp, and returns the summary of
// the runs (horizon T), decoded one line at a time: the one path of the
// streamed output, of Merge and of WriteWithOptions. next may return the
// line's run when it holds it (WriteWithOptions), which then is not
// decoded again: its line is its JSON, and JSON gives back every float
// (strconv's shortest form round-trips), so the summary is the same.
func finishRuns(tmp string, cfg []byte, T int, next func() ([]byte, *Run, error), each func(*Run)) ([]Curve, error) {
	fail := func(name string, err error) ([]Curve, error) { return nil, fmt.Errorf("write %s: %w", name, err) }
	lf, err := os.Create(filepath.Join(tmp, RunsFile))
	if err != nil {
		return fail(RunsFile, err)
	}
	defer lf.Close()
	rf, err := os.Create(filepath.Join(tmp, "results.json"))
	if err != nil {
		return fail("results.json", err)
	}
	defer rf.Close()
	lw, rw := bufio.NewWriterSize(lf, bufSize), bufio.NewWriterSize(rf, bufSize)
	rw.WriteString(`{"config":`)
	rw.Write(cfg)
	rw.WriteString(`,"runs":[`)
	sum := newSummarizer(T)
	var dec lineDecoder
	for k := 0; ; k++ {
		line, run, err := next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fail(RunsFile, err)
		}
		lw.Write(line)
		lw.WriteByte('\n')
		js, err := runJSON(line)
		if err != nil {
			return fail("results.json", fmt.Errorf("run %d: %w", k+1, err))
		}
		if k > 0 {
			rw.WriteByte(',')
		}
		rw.Write(js)
		if run == nil {
			if _, run, err = dec.decode(line); err != nil {
				return fail("summary.csv", fmt.Errorf("run %d: %w", k+1, err))
			}
		}
		sum.add(run)
		if each != nil {
			each(run)
		}
	}
	rw.WriteString("]}\n")
	for _, e := range []error{lw.Flush(), rw.Flush(), lf.Close(), rf.Close()} {
		if e != nil {
			return fail(RunsFile, e)
		}
	}
	return sum.curves(), nil
}

// undecoded is next for finishRuns when only the lines are at hand.
func undecoded(next func() ([]byte, error)) func() ([]byte, *Run, error) {
	return func() ([]byte, *Run, error) {
		line, err := next()
		return line, nil, err
	}
}

// ReadRuns calls fn with every run of dir's runs.jsonl, in order, with
// its algorithm's index, reading one line at a time.
func ReadRuns(dir string, fn func(a int, run *Run) error) error {
	f, err := os.Open(filepath.Join(dir, RunsFile))
	if err != nil {
		return fmt.Errorf("read runs: %w", err)
	}
	defer f.Close()
	lr := shard.NewLineReader(f, readlimit.For(0))
	for k := 1; ; k++ {
		line, err := lr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read %s line %d: %w", f.Name(), k, err)
		}
		a, run, err := decodeLine(line)
		if err != nil {
			return fmt.Errorf("read %s line %d: %w", f.Name(), k, err)
		}
		if err := fn(a, run); err != nil {
			return err
		}
	}
}
