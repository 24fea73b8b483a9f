package experiment

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"

	"github.com/safegp/safegp/plot"
)

// Curve is the per-round summary of one label over realizations.
type Curve struct {
	Label string
	// MeanAvg[t] and StdAvg[t] are the mean and standard deviation over
	// realizations of R_{t+1}/(t+1); the Reach fields the same against
	// f*_ε(D^w); Violations[t] is the mean count of violations up to round t+1.
	MeanAvg, StdAvg           []float64
	MeanAvgReach, StdAvgReach []float64
	Violations                []float64
}

// Summarize computes one Curve per label, in configuration order. The
// standard deviation is the sample one (n−1 denominator), 0 for a single
// realization.
func Summarize(res *Results) []Curve {
	var order []string
	byLabel := map[string][]*Run{}
	for i := range res.Runs {
		r := &res.Runs[i]
		if _, ok := byLabel[r.Label]; !ok {
			order = append(order, r.Label)
		}
		byLabel[r.Label] = append(byLabel[r.Label], r)
	}
	curves := make([]Curve, 0, len(order))
	for _, label := range order {
		runs := byLabel[label]
		T := len(runs[0].Regret)
		c := Curve{Label: label}
		avg := make([][]float64, len(runs))
		reach := make([][]float64, len(runs))
		viol := make([][]float64, len(runs))
		for k, r := range runs {
			avg[k], reach[k], viol[k] = make([]float64, T), make([]float64, T), make([]float64, T)
			var cum, cumR, v float64
			next := 0 // index into r.violationRounds
			for t := 0; t < T; t++ {
				cum += r.Regret[t]
				cumR += r.ReachableRegret[t]
				avg[k][t] = cum / float64(t+1)
				reach[k][t] = cumR / float64(t+1)
				if next < len(r.violationRounds) && r.violationRounds[next] == t {
					v++
					next++
				}
				viol[k][t] = v
			}
		}
		c.MeanAvg, c.StdAvg = meanStd(avg, T)
		c.MeanAvgReach, c.StdAvgReach = meanStd(reach, T)
		c.Violations, _ = meanStd(viol, T)
		curves = append(curves, c)
	}
	return curves
}

func meanStd(x [][]float64, T int) (mean, std []float64) {
	mean, std = make([]float64, T), make([]float64, T)
	n := float64(len(x))
	for t := 0; t < T; t++ {
		var s float64
		for _, row := range x {
			s += row[t]
		}
		m := s / n
		var q float64
		for _, row := range x {
			q += (row[t] - m) * (row[t] - m)
		}
		mean[t] = m
		if len(x) > 1 {
			std[t] = math.Sqrt(q / (n - 1))
		}
	}
	return mean, std
}

// SummaryCSV renders summary.csv.
func SummaryCSV(curves []Curve) []byte {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
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
		s = append(s, plot.Series{Label: c.Label, X: x, Mean: c.MeanAvg, Std: c.StdAvg})
	}
	return s
}

// Write writes results.json, summary.csv and regret.png/.svg into dir. The
// files are written in a temporary folder beside dir first, so a failure
// leaves no partial output.
func Write(dir string, res *Results, title string) error {
	return WriteWith(dir, res, func(tmp string, curves []Curve) error {
		p, err := plot.Bands(title, "round t", "average regret R_t / t", RegretSeries(curves))
		if err != nil {
			return err
		}
		return plot.Save(p, tmp, "regret")
	})
}

// WriteWith writes results.json and summary.csv into dir, and lets figures
// add its files to the staging folder before dir is published.
func WriteWith(dir string, res *Results, figures func(tmp string, curves []Curve) error) error {
	parent := filepath.Dir(filepath.Clean(dir))
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	tmp, err := os.MkdirTemp(parent, ".safegp-out-*")
	if err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	defer os.RemoveAll(tmp)
	if err := os.Chmod(tmp, 0o755); err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	js, err := json.Marshal(res)
	if err != nil {
		return fmt.Errorf("write results.json: %w", err)
	}
	curves := Summarize(res)
	if err := os.WriteFile(filepath.Join(tmp, "results.json"), append(js, '\n'), 0o644); err != nil {
		return fmt.Errorf("write results.json: %w", err)
	}
	if err := os.WriteFile(filepath.Join(tmp, "summary.csv"), SummaryCSV(curves), 0o644); err != nil {
		return fmt.Errorf("write summary.csv: %w", err)
	}
	if err := figures(tmp, curves); err != nil {
		return err
	}
	return publish(tmp, dir)
}

// publish moves the files of tmp into dir: the whole folder at once when dir
// does not exist, else file by file (each rename is atomic; other files in
// dir are left alone).
func publish(tmp, dir string) error {
	if _, err := os.Stat(dir); os.IsNotExist(err) {
		if err := os.Rename(tmp, dir); err != nil {
			return fmt.Errorf("write output: %w", err)
		}
		return nil
	}
	entries, err := os.ReadDir(tmp)
	if err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	for _, e := range entries {
		if err := os.Rename(filepath.Join(tmp, e.Name()), filepath.Join(dir, e.Name())); err != nil {
			return fmt.Errorf("write output: %w", err)
		}
	}
	return nil
}
