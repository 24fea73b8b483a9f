package reproduce

import (
	"fmt"
	"strings"
	"sync"

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
// band (the paper's Figs. 6–8) or none (its Fig. 2).
func regretSeries(curves []experiment.Curve, bands bool) []plot.Series {
	s := experiment.RegretSeries(curves)
	if !bands {
		for i := range s {
			s[i].Std = nil
		}
	}
	return s
}

// fig2Panel is one panel of the paper's Fig. 2: the regime's comparison
// as the paper ran it (no ablation), means only, as the paper prints it.
func fig2Panel(curves []experiment.Curve, regime, letter string) *plot.Panel {
	var paper []plot.Series
	for _, s := range regretSeries(curves, false) {
		if !isAblation(s.Label) {
			paper = append(paper, s)
		}
	}
	p, err := plot.Bands(fmt.Sprintf("(%s) %s", letter, regimeRange(regime)), "round $t$", regretLabel, paper)
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
		for _, s := range regretSeries(curves, true) {
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
// (right), means only (the bands are in Figs. 6–8), on one y axis.
func regimePanels(curves []experiment.Curve, regime string) (left, right *plot.Panel) {
	var paper, ablation []plot.Series
	for _, s := range regretSeries(curves, false) {
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
	left, err := plot.Bands(regimeRange(regime)+": as in the paper", "round $t$", regretLabel, paper)
	if err != nil {
		panic(err) // series built above have matching lengths
	}
	right, err = plot.Bands(regimeRange(regime)+": ablations", "round $t$", regretLabel, ablation)
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

// phase1Panel draws Fig. 5: SGP-UCB with uniform and with uncertainty
// sampling in phase 1.
func phase1Panel(curves []experiment.Curve) *plot.Panel {
	p, err := plot.Bands("Phase-1 rule (paper Fig. 5): mean ± 1 std", "round $t$", regretLabel, experiment.RegretSeries(curves))
	if err != nil {
		panic(err)
	}
	plot.ShareY(true, p)
	return p
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
