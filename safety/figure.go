package safety

import (
	"fmt"
	"math"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/vg/draw"

	"github.com/safegp/safegp/plot"
)

// Figure draws safety.png and safety.svg into dir: per algorithm, across
// the scenarios, the share of runs with a violation and the mean regret
// R_T/T (± its standard error), under one legend.
func Figure(dir string, results []Result) error {
	ls := labels(results)
	x := make([]float64, len(results))
	ticks := make([]gplot.Tick, len(results))
	for i, r := range results {
		x[i] = float64(i + 1)
		ticks[i] = gplot.Tick{Value: x[i], Label: r.Short}
	}
	var share, regret []plot.Series
	for _, l := range ls {
		var xs, sv, rv, re []float64
		for i := range results {
			row := results[i].find(l)
			if row == nil {
				continue
			}
			xs = append(xs, x[i])
			sv = append(sv, float64(row.Violating)/float64(row.Runs))
			rv = append(rv, row.Regret)
			re = append(re, row.RegretSE)
		}
		share = append(share, plot.Series{Label: l, X: xs, Mean: sv})
		regret = append(regret, plot.Series{Label: l, X: xs, Mean: rv, Std: re})
	}
	left, err := plot.Bands("", "scenario", "share of runs with a violation", share)
	if err != nil {
		return fmt.Errorf("safety: figure: %w", err)
	}
	right, err := plot.Bands("", "scenario", "regret $R_T/T$", regret)
	if err != nil {
		return fmt.Errorf("safety: figure: %w", err)
	}
	for _, p := range []*plot.Panel{left, right} {
		p.X.Tick.Marker = gplot.ConstantTicks(ticks)
		p.X.Min, p.X.Max = 0.5, float64(len(results))+0.5
		// Seven names side by side do not fit a panel's width: slanted.
		p.X.Tick.Label.Rotation = math.Pi / 4
		p.X.Tick.Label.XAlign, p.X.Tick.Label.YAlign = draw.XRight, draw.YCenter
	}
	plot.ShareY(true, left)
	plot.ShareY(true, right)
	fig := plot.Figure{Title: "safety when the model is wrong", Panels: []*plot.Panel{left, right}, SharedLegend: true}
	if err := fig.Save(dir, "safety"); err != nil {
		return fmt.Errorf("safety: figure: %w", err)
	}
	return nil
}
