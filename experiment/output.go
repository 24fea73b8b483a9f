package experiment

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/safegp/safegp/internal/csvcell"
	"github.com/safegp/safegp/internal/outdir"
	"github.com/safegp/safegp/plot"
	"github.com/safegp/safegp/shard"
)

// Curve is the per-round summary of one label over realizations.
type Curve struct {
	Label string
	// MeanAvg[t] and StdAvg[t] are the mean and standard deviation over
	// realizations of R_{t+1}/(t+1); the Reach fields the same against
	// f*_ε(D^w); Violations[t] is the mean count of violations up to round t+1.
	MeanAvg, StdAvg []float64
	// MinAvg and MaxAvg are the lowest and highest R_{t+1}/(t+1) of a
	// run: the figures clip the std band to them.
	MinAvg, MaxAvg            []float64
	MeanAvgReach, StdAvgReach []float64
	Violations                []float64
	// Function marks a benchmark function's curve (problem.function):
	// MeanBest and SEBest are the mean and standard error over
	// realizations of the best safe value after round t+1, MeanSimple
	// and SESimple those of the simple regret (nil when f* is unknown);
	// the regret averages are nil.
	Function             bool
	MeanBest, SEBest     []float64
	MeanSimple, SESimple []float64
	// MeanShare and SEShare are those of the share of the way from the
	// seeds to f*, (best safe − f_0)/(f* − f_0) with f_0 the seeds' best
	// value (Run.SeedBest), 1 where a seed is optimal: comparable across
	// realizations whose f* and f_0 differ (GP samples). Nil without f*,
	// or when a run lacks SeedBest.
	MeanShare, SEShare []float64
	// N is the number of realizations summarized: the standard error of
	// MeanAvg is StdAvg/√N (0 when not known).
	N int
}

// Summarize computes one Curve per label, in configuration order. The
// standard deviation is the sample one (n−1 denominator), 0 for a single
// realization.
func Summarize(res *Results) []Curve {
	if len(res.Runs) == 0 {
		return nil
	}
	s := newSummarizer(max(len(res.Runs[0].Regret), len(res.Runs[0].BestSafe)))
	for i := range res.Runs {
		s.add(&res.Runs[i])
	}
	return s.curves()
}

// SummaryCSV renders summary.csv.
func SummaryCSV(curves []Curve) []byte {
	var b bytes.Buffer
	w := csvcell.NewWriter(&b)
	if len(curves) > 0 && curves[0].Function {
		return functionCSV(curves)
	}
	w.Write([]string{"label", "round", "mean_avg_regret", "std_avg_regret", "mean_avg_reachable_regret", "std_avg_reachable_regret", "mean_violations"})
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	for _, c := range curves {
		for t := range c.MeanAvg {
			w.Write([]string{c.Label, strconv.Itoa(t + 1), f(c.MeanAvg[t]), f(c.StdAvg[t]), f(c.MeanAvgReach[t]), f(c.StdAvgReach[t]), f(c.Violations[t])})
		}
	}
	w.Flush()
	return b.Bytes()
}

// RegretSeries turns curves into plot series of R_t/t.
func RegretSeries(curves []Curve) []plot.Series {
	var s []plot.Series
	for _, c := range curves {
		x := make([]float64, len(c.MeanAvg))
		for t := range x {
			x[t] = float64(t + 1)
		}
		s = append(s, plot.Series{Label: c.Label, X: x, Mean: c.MeanAvg, Std: c.StdAvg, Lo: c.MinAvg, Hi: c.MaxAvg})
	}
	return s
}

// Write writes results.json, summary.csv and regret.png/.svg into dir, as
// WriteWithOptions does without Force.
func Write(dir string, res *Results, title string) error {
	return WriteWithOptions(dir, res, WriteOptions{Figures: RegretFigure(title)})
}

// RegretFigure returns the figures function of Write: regret.png/.svg, the
// mean R_t/t per label with a ±1 std band (for a benchmark function, ±1
// standard error), as RegretFigureBand draws them.
func RegretFigure(title string) func(tmp string, curves []Curve) error {
	return func(tmp string, curves []Curve) error {
		band := BandStd
		if len(curves) > 0 && curves[0].Function {
			band = BandSE
		}
		// n = 1: each curve's band is the spread it holds, unconverted.
		return RegretFigureBand(title, band, 1)(tmp, curves)
	}
}

// WriteWith writes results.json and summary.csv into dir, and lets figures
// add its files to the staging folder before dir is published; as
// WriteWithOptions does without Force.
func WriteWith(dir string, res *Results, figures func(tmp string, curves []Curve) error) error {
	return WriteWithOptions(dir, res, WriteOptions{Figures: figures})
}

// RunsFile is the JSON Lines file of runs beside results.json: one run a
// line, in unit order (algorithm-major, then realization).
const RunsFile = "runs.jsonl"

// Units is the number of work units of c (package shard): algorithms ×
// realizations.
func Units(c *Config) int { return len(c.Algorithms) * c.Realizations }

// WriteOptions tune WriteWithOptions.
type WriteOptions struct {
	// Figures, if set, adds figure files to the staging folder.
	Figures func(tmp string, curves []Curve) error
	// Force replaces an existing, non-empty dir whole, provided an earlier
	// run wrote it (it holds the outdir.Marker file); without Force such a
	// dir is refused. An empty or missing dir is always fine.
	Force bool
	// Shard, if set, makes ExecuteToDir write a shard folder (runs.jsonl
	// and shard.json, no results.json, summary or figures): the caller
	// gives Command, Shard, Of and Name; ExecuteToDir the rest.
	Shard *shard.Info
	// Runs, if set, is called with every run written into results.json
	// (not in a shard folder, which has none), in runs.jsonl's order,
	// after the summary has taken it. It lets a caller use the runs (a
	// sweep's table, the reproduction's report) without reading
	// runs.jsonl back. The run is valid during the call only: a run read
	// back from runs.jsonl is decoded over the previous one's arrays, so
	// a callee that keeps it keeps run.Clone().
	Runs func(run *Run)
	// MaxMemory (Options.MaxMemory's meaning) bounds what Merge reads: a
	// line of a shard's runs.jsonl holds at most readlimit.For(MaxMemory)
	// bytes.
	MaxMemory int64
}

// WriteWithOptions writes runs.jsonl, results.json and summary.csv, then the figures,
// into a temporary folder beside dir, and renames it to dir only when
// complete: a failure leaves dir as it was and no temporary folder behind.
// dir also receives the outdir.Marker file, which lets a later Force
// replace it.
func WriteWithOptions(dir string, res *Results, opt WriteOptions) error {
	return writeDir(dir, opt, func(tmp string) ([]Curve, error) {
		// The held runs go through the streamed output's one path
		// (finishRuns), so that the folder is byte for byte what
		// ExecuteToDir writes, runs.jsonl included: the runs are
		// algorithm-major, Realizations of each.
		cfg, err := json.Marshal(res.Config)
		if err != nil {
			return nil, fmt.Errorf("write results.json: %w", err)
		}
		R := max(res.Config.Realizations, 1)
		k := 0
		var line []byte
		next := func() ([]byte, *Run, error) {
			if k == len(res.Runs) {
				return nil, nil, io.EOF
			}
			run := &res.Runs[k]
			var err error
			line, err = appendLine(line[:0], k/R, run)
			k++
			return bytes.TrimSuffix(line, []byte{'\n'}), run, err
		}
		return finishRuns(tmp, cfg, res.Config.Horizon, next, opt.Runs)
	})
}

// writeDir stages dir (outdir.Check, then outdir.Stage), lets results
// write results.json into the staging folder and return the curves, adds
// summary.csv and the figures, and publishes: the one path both the held
// (WriteWithOptions) and the streamed (ExecuteToDir) outputs take.
func writeDir(dir string, opt WriteOptions, results func(tmp string) ([]Curve, error)) error {
	// Refuse before writing anything; Publish checks again at the end.
	if err := outdir.Check(dir, opt.Force); err != nil {
		return fmt.Errorf("write output: %s %w", dir, err)
	}
	tmp, err := outdir.Stage(dir)
	if err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	defer outdir.Discard(tmp) // gone already once published
	curves, err := results(tmp)
	if err != nil {
		return err
	}
	if opt.Shard != nil {
		// A shard's share is summarized only when merged (Merge).
		if err := outdir.Publish(tmp, dir, opt.Force); err != nil {
			return fmt.Errorf("write output: %w", err)
		}
		return nil
	}
	if err := os.WriteFile(filepath.Join(tmp, "summary.csv"), SummaryCSV(curves), 0o644); err != nil {
		return fmt.Errorf("write summary.csv: %w", err)
	}
	if opt.Figures != nil {
		if err := opt.Figures(tmp, curves); err != nil {
			return err
		}
	}
	if err := outdir.Publish(tmp, dir, opt.Force); err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	return nil
}
