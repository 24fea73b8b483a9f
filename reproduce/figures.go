package reproduce

import (
	"fmt"
	"image/color"
	"math"
	"strings"
	"sync"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/safegp/safegp/bandit"
	"github.com/safegp/safegp/experiment"
	"github.com/safegp/safegp/plot"
)

// The y label of every regret figure.
const regretLabel = "average regret $R_t/t$"

// isAblation reports whether label is a variant of another label (an
// ablation: "sgp-ucb keep_seed", "safeopt-mc gp", "safeopt-mc (plateau)");
// plot.StyleOf draws it in its algorithm's colour, dashed.
func isAblation(label string) bool {
	_, v := plot.SplitVariant(label)
	return v != ""
}

// regimeRange writes a regime "1-10" as the paper's captions do:
// "1 ≤ |Dʷ| ≤ 10".
func regimeRange(regime string) string {
	lo, hi, _ := strings.Cut(regime, "-")
	return fmt.Sprintf("%s ≤ |Dʷ| ≤ %s", lo, hi)
}

// regretSeries is experiment.RegretSeries with the band given: the std
// band (the paper's Figs. 6–8), ±1 standard error of the mean over the
// realizations (Fig. 2 and the ablations: how well each mean is known,
// which says whether two curves differ beyond noise), or none.
func regretSeries(curves []experiment.Curve, band experiment.Band) []plot.Series {
	s := experiment.RegretSeries(curves)
	for i := range s {
		switch n := curves[i].N; {
		case band == experiment.BandStd:
		case band == experiment.BandSE && n > 1:
			se := make([]float64, len(s[i].Std))
			for t, v := range s[i].Std {
				se[t] = v / math.Sqrt(float64(n))
			}
			s[i].Std = se
		default:
			s[i].Std = nil
		}
	}
	return s
}

// fig2Panel is one panel of the paper's Fig. 2: the regime's comparison
// as the paper ran it (no ablation), with ±1 standard error bands.
func fig2Panel(curves []experiment.Curve, regime, letter string) *plot.Panel {
	var paper []plot.Series
	for _, s := range regretSeries(curves, experiment.BandSE) {
		if !isAblation(s.Label) {
			paper = append(paper, s)
		}
	}
	p, err := plot.Bands(fmt.Sprintf("(%s) %s: mean ± 1 SE", letter, regimeRange(regime)), "round $t$", regretLabel, paper)
	if err != nil {
		panic(err) // RegretSeries builds series of matching lengths
	}
	return p
}

// fig2 is the paper's Fig. 2: one panel per regime, one y axis, one
// legend.
func fig2(regimes []*Experiment) plot.Figure {
	var ps []*plot.Panel
	for k, e := range regimes {
		ps = append(ps, fig2Panel(e.Curves, strings.TrimPrefix(e.Name, "regret-"), string(rune('a'+k))))
	}
	plot.ShareY(true, ps...)
	return plot.Figure{Panels: ps, SharedLegend: true}
}

// bandAlgorithms are the panels of the paper's Figs. 6–8, in its order.
var bandAlgorithms = []struct{ label, title string }{
	{bandit.SafeOptMC, "SafeOpt-MC"}, {bandit.StageOpt, "StageOpt"}, {bandit.SGPUCB, "SGP-UCB"},
}

// bandPanels is one of the paper's Figs. 6–8 (appendix F): for one regime,
// SafeOpt-MC, StageOpt and SGP-UCB each in its own panel with its mean ± 1
// standard deviation over realizations, on one y axis.
func bandPanels(curves []experiment.Curve, regime string) []*plot.Panel {
	var ps []*plot.Panel
	for k, a := range bandAlgorithms {
		for _, s := range regretSeries(curves, experiment.BandStd) {
			if s.Label != a.label {
				continue
			}
			s.NoLegend = true // the title names it
			p, err := plot.Bands(fmt.Sprintf("(%c) %s, %s: mean ± 1 std", 'a'+k, a.title, regimeRange(regime)), "round $t$", regretLabel, []plot.Series{s})
			if err != nil {
				panic(err)
			}
			ps = append(ps, p)
		}
	}
	plot.ShareY(true, ps...)
	return ps
}

// regimePanels draws the paper's comparison (left) and the same comparison
// under the other implementation choices, with the oracle for reference
// (right), each mean with ±1 standard error (one realization's spread is
// in Figs. 6–8), on one y axis.
func regimePanels(curves []experiment.Curve, regime string) (left, right *plot.Panel) {
	var paper, ablation []plot.Series
	for _, s := range regretSeries(curves, experiment.BandSE) {
		switch {
		case isAblation(s.Label):
			ablation = append(ablation, s)
		case s.Label == bandit.GPUCBOracle:
			paper = append(paper, s)
			ablation = append(ablation, s)
		default:
			paper = append(paper, s)
		}
	}
	left, err := plot.Bands(regimeRange(regime)+": as in the paper, mean ± 1 SE", "round $t$", regretLabel, paper)
	if err != nil {
		panic(err) // series built above have matching lengths
	}
	right, err = plot.Bands(regimeRange(regime)+": ablations, mean ± 1 SE", "round $t$", regretLabel, ablation)
	if err != nil {
		panic(err)
	}
	plot.ShareY(true, left, right)
	return left, right
}

// linearPanel draws Fig. 4: each algorithm against x* (solid) and against
// the reachable benchmark f*_ε(Dʷ) (its style's dashed variant).
func linearPanel(curves []experiment.Curve) *plot.Panel {
	var s []plot.Series
	for _, c := range curves {
		x := make([]float64, len(c.MeanAvg))
		for t := range x {
			x[t] = float64(t + 1)
		}
		st := plot.StyleOf(c.Label)
		s = append(s,
			plot.Series{Label: c.Label + " vs $x^*$", X: x, Mean: c.MeanAvg, Std: c.StdAvg, Lo: c.MinAvg, Hi: c.MaxAvg, Style: &st},
			plot.Series{Label: c.Label + " vs $f^*_\\varepsilon(D^w)$", X: x, Mean: c.MeanAvgReach, Color: st.Color, Dashed: true})
	}
	p, err := plot.Bands("Linear kernels (paper Fig. 4): mean ± 1 std", "round $t$", regretLabel, s)
	if err != nil {
		panic(err)
	}
	plot.ShareY(true, p)
	return p
}

// phase1Panels draw Fig. 5: SGP-UCB with uniform and with uncertainty
// sampling in phase 1, the means (left) and their difference,
// uncertainty − uniform, with ±1 standard error of the difference
// (right): whether the rule matters is read off the right panel, where the
// paper's overlapping std bands showed nothing. The SE is
// √(SE₁² + SE₂²), as for independent realizations; the two rules run on
// the same problems, so the paired difference's would be smaller — the
// band errs wide.
func phase1Panels(curves []experiment.Curve) []*plot.Panel {
	left, err := plot.Bands("Phase-1 rule (paper Fig. 5): mean regret", "round $t$", regretLabel, regretSeries(curves, experiment.BandNone))
	if err != nil {
		panic(err)
	}
	plot.ShareY(true, left)
	se := regretSeries(curves, experiment.BandSE)
	var a, b int = -1, -1
	for i, c := range curves {
		switch {
		case strings.Contains(c.Label, "uncertainty"):
			a = i
		case strings.Contains(c.Label, "uniform"):
			b = i
		}
	}
	if a < 0 || b < 0 {
		return []*plot.Panel{left}
	}
	d := plot.Series{Label: "uncertainty − uniform", X: se[a].X, Color: plot.Palette[0]}
	for t := range se[a].Mean {
		d.Mean = append(d.Mean, se[a].Mean[t]-se[b].Mean[t])
		if se[a].Std != nil && se[b].Std != nil {
			d.Std = append(d.Std, math.Hypot(se[a].Std[t], se[b].Std[t]))
		}
	}
	right, err := plot.Bands("uncertainty − uniform: mean ± 1 SE", "round $t$", "difference in $R_t/t$", []plot.Series{d})
	if err != nil {
		panic(err)
	}
	zero, err := plotter.NewLine(plotter.XYs{{X: d.X[0], Y: 0}, {X: d.X[len(d.X)-1], Y: 0}})
	if err != nil {
		panic(err)
	}
	zero.Color, zero.Dashes = color.Gray{120}, []vg.Length{vg.Points(3), vg.Points(3)}
	right.Add(zero)
	return []*plot.Panel{left, right}
}

// paperFigures writes the paper's Fig. 2 (fig2-regret) and Figs. 6–8
// (fig6-regret-1-10, fig7-…, fig8-…) into dir from the regimes' curves,
// each figure on its own goroutine (drawing is the reproduction's last
// serial part); the error is the first figure's in that order.
func paperFigures(dir string, regimes []*Experiment) error {
	errs := make([]error, 1+len(regimes))
	var wg sync.WaitGroup
	wg.Go(func() { errs[0] = fig2(regimes).Save(dir, "fig2-regret") })
	for k, e := range regimes {
		wg.Go(func() {
			regime := strings.TrimPrefix(e.Name, "regret-")
			errs[1+k] = plot.SaveRow(bandPanels(e.Curves, regime), dir, fmt.Sprintf("fig%d-regret-%s", 6+k, regime))
		})
	}
	wg.Wait()
	return firstError(errs)
}
