package reproduce

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/safegp/safegp/experiment"
	"github.com/safegp/safegp/plot"
)

// curvesFor makes synthetic regret curves, one per label, decaying from
// different heights, with a std of a quarter of the mean.
func curvesFor(labels []string, T int) []experiment.Curve {
	var cs []experiment.Curve
	for i, l := range labels {
		c := experiment.Curve{Label: l}
		for t := 1; t <= T; t++ {
			m := float64(i+1) / float64(len(labels)) / (1 + float64(t)/50)
			c.MeanAvg = append(c.MeanAvg, m)
			c.StdAvg = append(c.StdAvg, m/4)
			c.MeanAvgReach = append(c.MeanAvgReach, m/2)
		}
		cs = append(cs, c)
	}
	return cs
}

// regimeLabels are a regime's labels: the paper's five, the ablations
// addAblations adds, and a "<algorithm> (<variant>)" one as the t* reading
// of SafeOpt-MC brings.
var regimeLabels = []string{"sgp-ucb", "stageopt", "safeopt-mc", "naive-sgp-ucb", "gp-ucb-oracle",
	"sgp-ucb keep_seed", "naive-sgp-ucb keep_seed", "stageopt gp", "safeopt-mc gp", "safeopt-mc (plateau)"}

// allFigures draws every figure of the reproduction from synthetic curves.
func allFigures() map[string]plot.Figure {
	regimes := []*Experiment{}
	figs := map[string]plot.Figure{}
	for k, r := range Regimes {
		e := &Experiment{Name: "regret-" + r, Curves: curvesFor(regimeLabels, 100+50*k)}
		regimes = append(regimes, e)
		left, right := regimePanels(e.Curves, r)
		figs["regret-"+r] = plot.Figure{Panels: []*plot.Panel{left, right}}
		figs[fmt.Sprintf("fig%d", 6+k)] = plot.Figure{Panels: bandPanels(e.Curves, r)}
	}
	figs["fig2"] = fig2(regimes)
	figs["fig4"] = plot.Figure{Panels: []*plot.Panel{linearPanel(curvesFor([]string{"safeopt", "sgp-ucb"}, 100))}}
	figs["fig5"] = plot.Figure{Panels: []*plot.Panel{phase1Panel(curvesFor([]string{"uniform", "uncertainty"}, 100))}}
	return figs
}

// TestFiguresStyleConsistent: every label is drawn in the same style in
// every figure, that style is plot.StyleOf's, and an ablation shares its
// algorithm's colour, dashed.
func TestFiguresStyleConsistent(t *testing.T) {
	t.Parallel()
	seen := map[string]plot.Style{}
	where := map[string]string{}
	for name, f := range allFigures() {
		for _, p := range f.Panels {
			for label, st := range p.Drawn() {
				if name == "fig4" {
					// "safeopt vs x*" is safeopt's own style; the
					// reachable benchmark its dashed variant.
					base, _, _ := strings.Cut(label, " vs ")
					if st.Color != plot.StyleOf(base).Color {
						t.Errorf("fig4 %q: colour %v, %s has %v", label, st.Color, base, plot.StyleOf(base).Color)
					}
					continue
				}
				if old, ok := seen[label]; ok && !reflect.DeepEqual(old, st) {
					t.Errorf("%q: %v in %s, %v in %s", label, old, where[label], st, name)
				}
				seen[label], where[label] = st, name
				if want := plot.StyleOf(label); !reflect.DeepEqual(st, want) {
					t.Errorf("%s: %q drawn %v, StyleOf says %v", name, label, st, want)
				}
			}
		}
	}
	for _, l := range regimeLabels {
		if _, ok := seen[l]; !ok {
			t.Errorf("%q is in no figure", l)
		}
		base, variant := plot.SplitVariant(l)
		if variant != "" && (seen[l].Color != seen[base].Color || seen[l].Dashes == nil) {
			t.Errorf("ablation %q: %v, its algorithm %q: %v", l, seen[l], base, seen[base])
		}
	}
}

// TestFiguresLayout: no legend covers data in any figure; the panels of
// one figure share their y axis, from 0; Fig. 2 draws means only and
// Figs. 6–8 their std bands; no label writes a caret.
func TestFiguresLayout(t *testing.T) {
	t.Parallel()
	for name, f := range allFigures() {
		if _, err := f.Check(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		for _, p := range f.Panels {
			if p.Y.Min != 0 || p.Y.Max != f.Panels[0].Y.Max {
				t.Errorf("%s %q: y range [%g, %g], first panel's [%g, %g]", name, p.Title.Text, p.Y.Min, p.Y.Max, f.Panels[0].Y.Min, f.Panels[0].Y.Max)
			}
			for _, s := range []string{p.Title.Text, p.X.Label.Text, p.Y.Label.Text} {
				if strings.Contains(s, "^") {
					t.Errorf("%s: %q has a caret", name, s)
				}
			}
		}
	}
	// curvesFor's label i of 10 starts at (i+1)/10/(1 + 1/50), its std a
	// quarter of that. Fig. 2 draws the paper's five (labels 0–4) without
	// bands: its top is the largest of the five, label 4, at 0.5/(1 + 1/50),
	// and plot's 5 % margin above that line (plot.ShareY): 1.05 times
	// it. Fig. 6 draws safeopt-mc (label 2) with its std band: its top is
	// 1.25 · 0.3/(1 + 1/50), above the margin of its line, 1.05 · 0.3/(1 + 1/50).
	figs := allFigures()
	start := 1 / (1 + 1.0/50)
	if got, want := figs["fig2"].Panels[0].Y.Max, 1.05*0.5*start; math.Abs(got-want) > 1e-12 {
		t.Errorf("fig2 y max %g, want the largest mean %g with 5 %% margin (means only)", got, want)
	}
	if got, want := figs["fig6"].Panels[0].Y.Max, 1.25*0.3*start; math.Abs(got-want) > 1e-12 {
		t.Errorf("fig6 y max %g, want safeopt-mc's band top %g", got, want)
	}
	for _, p := range figs["fig2"].Panels {
		for label := range p.Drawn() {
			if isAblation(label) {
				t.Errorf("fig2 draws the ablation %q", label)
			}
		}
	}
}
