package plot_test

import (
	"image/color"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"

	"github.com/safegp/safegp/plot"
)

func TestBandsSavesBothFormats(t *testing.T) {
	t.Parallel()
	s := []plot.Series{
		{Label: "alpha", X: []float64{1, 2, 3}, Mean: []float64{1, 0.5, 0.3}, Std: []float64{0.2, 0.1, 0.1}},
		{Label: "beta", X: []float64{1, 2, 3}, Mean: []float64{0.9, 0.9, 0.9}},
	}
	p, err := plot.Bands("title", "round t", "R_t/t", s)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := plot.Save(p, dir, "fig"); err != nil {
		t.Fatal(err)
	}
	png, err := os.ReadFile(filepath.Join(dir, "fig.png"))
	if err != nil || len(png) < 8 || string(png[1:4]) != "PNG" {
		t.Fatalf("fig.png is not a PNG (%v)", err)
	}
	svg, err := os.ReadFile(filepath.Join(dir, "fig.svg"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<svg", "alpha", "beta", "round t", "title"} {
		if !strings.Contains(string(svg), want) {
			t.Errorf("fig.svg lacks %q", want)
		}
	}
	if _, err := plot.Bands("", "", "", []plot.Series{{Label: "bad", X: []float64{1}, Mean: []float64{1, 2}}}); err == nil {
		t.Error("mismatched series: no error")
	}
}

// TestStyleOf: an algorithm's label and its variants share its colour, a
// variant is dashed, and two algorithms differ.
func TestStyleOf(t *testing.T) {
	t.Parallel()
	cases := []struct {
		label, base string
		dashed      bool
	}{
		{"sgp-ucb", "sgp-ucb", false},
		{"sgp-ucb keep_seed", "sgp-ucb", true},
		{"naive-sgp-ucb keep_seed", "naive-sgp-ucb", true},
		{"safeopt-mc gp", "safeopt-mc", true},
		{"safeopt-mc (plateau)", "safeopt-mc", true},
		{"safeopt-mc (plateau) gp", "safeopt-mc", true},
		{"stageopt (some new variant)", "stageopt", true},
		{"my-algo (v2)", "my-algo", true},
		{"uncertainty", "sgp-ucb", true}, // the phase-1 ablation
	}
	for _, c := range cases {
		got, base := plot.StyleOf(c.label), plot.StyleOf(c.base)
		if got.Color != base.Color {
			t.Errorf("%q: colour %v, its base %q has %v", c.label, got.Color, c.base, base.Color)
		}
		if (got.Dashes != nil) != c.dashed {
			t.Errorf("%q: dashes %v, want dashed %v", c.label, got.Dashes, c.dashed)
		}
	}
	// The two variants of one algorithm in the reproduction differ.
	if reflect.DeepEqual(plot.StyleOf("safeopt-mc gp").Dashes, plot.StyleOf("safeopt-mc (plateau)").Dashes) {
		t.Error("safeopt-mc gp and safeopt-mc (plateau) look alike")
	}
	algos := []string{"sgp-ucb", "stageopt", "safeopt-mc", "naive-sgp-ucb", "gp-ucb-oracle", "safeopt", "line-bo"}
	seen := map[color.NRGBA]string{}
	for _, a := range algos {
		c := plot.StyleOf(a).Color
		if o, ok := seen[c]; ok {
			t.Errorf("%s and %s share colour %v", a, o, c)
		}
		seen[c] = a
	}
}

// TestStylesResolveClashes: labels outside the table that hash alike get
// distinct styles within one figure, and the table's labels never move.
func TestStylesResolveClashes(t *testing.T) {
	t.Parallel()
	var labels []string
	for i := 0; i < 12; i++ {
		labels = append(labels, "custom-"+string(rune('a'+i)))
	}
	labels = append(labels, "sgp-ucb")
	st := plot.Styles(labels)
	if got := st[len(st)-1]; !reflect.DeepEqual(got, plot.StyleOf("sgp-ucb")) {
		t.Errorf("sgp-ucb moved to %v", got)
	}
	// Thirteen labels, ten colours: solid custom labels can be distinct
	// only as far as the palette goes, so every colour must be in use.
	colours := map[color.NRGBA]bool{}
	for _, s := range st {
		colours[s.Color] = true
	}
	if len(colours) != len(plot.Palette) {
		t.Errorf("%d labels use %d colours, want all %d", len(labels), len(colours), len(plot.Palette))
	}
	// The same labels give the same styles in every figure.
	if again := plot.Styles(labels); !reflect.DeepEqual(again, st) {
		t.Error("Styles is not deterministic")
	}
}

func rounds(n int) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = float64(i + 1)
	}
	return x
}

// TestLegendCoversNoData: the legend goes to a free place inside when
// there is one; when the data fill the panel, above them (the panel's own
// y axis raised to make room) or, for panels on a shared y axis, outside;
// and Check finds no legend on data in any case.
func TestLegendCoversNoData(t *testing.T) {
	t.Parallel()
	n := 200
	x := rounds(n)
	decay, flat := make([]float64, n), make([]float64, n)
	for i := range x {
		decay[i] = 1 / math.Sqrt(x[i])
		flat[i] = 0.5
	}
	free, err := plot.Bands("decaying", "round t", "R_t/t", []plot.Series{
		{Label: "alpha", X: x, Mean: decay}, {Label: "beta", X: x, Mean: flat}})
	if err != nil {
		t.Fatal(err)
	}
	plot.ShareY(true, free)
	// A band from 0 to 1 over the whole x range leaves no place inside.
	crowded := func() *plot.Panel {
		p, err := plot.Bands("crowded", "round t", "R_t/t", []plot.Series{{Label: "alpha", X: x, Mean: flat, Std: flat}})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	own := crowded()
	at, err := plot.Check([]*plot.Panel{free, own})
	if err != nil {
		t.Fatal(err)
	}
	if at[0].Outside || at[1].Outside {
		t.Errorf("outside: %v and %v, want both inside", at[0].Outside, at[1].Outside)
	}
	if own.Y.Max <= 1 {
		t.Errorf("crowded panel's y axis ends at %g: no headroom made above the band's top 1", own.Y.Max)
	}
	a, b := crowded(), crowded()
	plot.ShareY(true, a, b)
	at, err = plot.Check([]*plot.Panel{a, b})
	if err != nil || !at[0].Outside || !at[1].Outside || a.Y.Max != 1 || b.Y.Max != 1 {
		t.Errorf("shared crowded panels: outside %v %v, y max %g %g, err %v; want outside, y max 1 kept", at[0].Outside, at[1].Outside, a.Y.Max, b.Y.Max, err)
	}
}

// TestShareYAndZeroTick: panels get one y range holding 0, and 0 is a
// labelled tick.
func TestShareYAndZeroTick(t *testing.T) {
	t.Parallel()
	x := rounds(10)
	a, _ := plot.Bands("a", "t", "y", []plot.Series{{Label: "a", X: x, Mean: []float64{3, 3, 3, 3, 3, 3, 3, 3, 3, 3.7}}})
	b, _ := plot.Bands("b", "t", "y", []plot.Series{{Label: "b", X: x, Mean: []float64{0.2, 1, 1, 1, 1, 1, 1, 1, 1, 1}}})
	plot.ShareY(true, a, b)
	// The top line, 3.7, gets the 5 % margin above it: 3.7 + 0.05·(3.7 − 0).
	const top = 3.7 + 0.05*3.7
	if a.Y.Min != 0 || b.Y.Min != 0 || math.Abs(a.Y.Max-top) > 1e-12 || b.Y.Max != a.Y.Max {
		t.Fatalf("y ranges [%g, %g] and [%g, %g], want both [0, %g]", a.Y.Min, a.Y.Max, b.Y.Min, b.Y.Max, top)
	}
	// Again: the margin is not added twice.
	plot.ShareY(true, a, b)
	if math.Abs(a.Y.Max-top) > 1e-12 {
		t.Errorf("ShareY twice: y max %g, want %g", a.Y.Max, top)
	}
	for _, r := range [][2]float64{{0, 3.7}, {-0.13, 1.7}, {-3, 0.4}, {0, 500}} {
		ticks := a.Y.Tick.Marker.Ticks(r[0], r[1])
		zero := false
		for _, tk := range ticks {
			if tk.Value == 0 && tk.Label != "" {
				zero = true
			}
			if strings.Contains(tk.Label, "e") {
				t.Errorf("range %v: tick label %q", r, tk.Label)
			}
		}
		if !zero {
			t.Errorf("range %v: no labelled tick at 0 in %v", r, ticks)
		}
	}
	// Rounds from 1 start the x axis at 0.
	if a.X.Min != 0 {
		t.Errorf("x axis starts at %g, want 0", a.X.Min)
	}
}

// TestColorBar: a panel with a colour bar draws it (its axis label is in
// the SVG) and keeps its legend off the data.
func TestColorBar(t *testing.T) {
	t.Parallel()
	p := plot.NewPanel("heat", "x₁", "x₂")
	cmap := moreland.SmoothBlueRed()
	cmap.SetMin(-1)
	cmap.SetMax(2)
	p.Bar = &plot.ColorBar{Map: cmap, Label: "mean of f"}
	sc, err := plotter.NewScatter(plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: 1}})
	if err != nil {
		t.Fatal(err)
	}
	p.Add(sc)
	dir := t.TempDir()
	if err := plot.Save(p, dir, "heat"); err != nil {
		t.Fatal(err)
	}
	svg, err := os.ReadFile(filepath.Join(dir, "heat.svg"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(svg), "mean of f") {
		t.Error("the colour bar's label is not in the figure")
	}
}
