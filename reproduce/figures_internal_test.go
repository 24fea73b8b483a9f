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
	figs["fig5"] = plot.Figure{Panels: phase1Panels(curvesFor([]string{"uniform", "uncertainty"}, 100))}
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

// TestFiguresLayout: no legend covers data in any figure; the regret
// panels of one figure share their y axis, from 0; Fig. 2 draws its
// means with ±1 SE (none for curves without their realization count, as
// here) and Figs. 6–8 their std bands; no label writes a caret.
func TestFiguresLayout(t *testing.T) {
	t.Parallel()
	for name, f := range allFigures() {
		if _, err := f.Check(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		for _, p := range f.Panels {
			if p.Y.Label.Text != regretLabel {
				continue // Fig. 5's difference: around 0, its own axis
			}
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

// TestFig2StandardErrors (issue 44, item 3): with the realizations known,
// Fig. 2 and the ablation panels draw each mean with ±1 standard error,
// std/√n: curvesFor's std is a quarter of the mean, so with n = 16 the
// top of Fig. 2 is label 4's band, 0.5/(1 + 1/50)·(1 + 1/16), above its
// line's 5 % margin; Fig. 5's right panel is the difference with
// √(SE₁² + SE₂²).
func TestFig2StandardErrors(t *testing.T) {
	t.Parallel()
	cs := curvesFor(regimeLabels, 100)
	for i := range cs {
		cs[i].N = 16
	}
	start := 1 / (1 + 1.0/50)
	p := fig2Panel(cs, "1-10", "a")
	plot.ShareY(true, p)
	if got, want := p.Y.Max, 0.5*start*(1+1.0/16); math.Abs(got-want) > 1e-12 {
		t.Errorf("fig2 y max %g, want the top of the largest mean's SE band %g", got, want)
	}
	if left, _ := regimePanels(cs, "1-10"); !strings.Contains(left.Title.Text, "mean ± 1 SE") {
		t.Errorf("ablation panel title %q does not say its band", left.Title.Text)
	}
	ph := curvesFor([]string{"uniform", "uncertainty"}, 100)
	for i := range ph {
		ph[i].N = 16
	}
	ps := phase1Panels(ph)
	if len(ps) != 2 || ps[1].Y.Label.Text != "difference in $R_t/t$" {
		t.Fatalf("fig5: %d panels", len(ps))
	}
	// uncertainty (label 1) − uniform (label 0) = m₀ at round 1, its SE
	// √((m₀/16)² + (2m₀/16)²): the band's top is m₀(1 + √5/16).
	m0 := 0.5 * start
	if got, want := ps[1].Y.Max, m0*(1+math.Sqrt(5)/16); math.Abs(got-want) > 1e-9 && got < want {
		t.Errorf("fig5 difference: y max %g, want at least %g", got, want)
	}
}
