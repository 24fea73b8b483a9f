package plot

import (
	"math"
	"strings"
	"testing"

	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/vgimg"
)

// TestRuns: how mathText splits labels into runs (text, italic, shift).
func TestRuns(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		want []run
	}{
		{"average regret", []run{{"average regret", false, 0}}},
		{"average regret $R_t/t$", []run{{"average regret ", false, 0}, {"R", true, 0}, {"t", true, -1}, {"/", false, 0}, {"t", true, 0}}},
		{"$\\ell_f$ = 0.3", []run{{"ℓ", false, 0}, {"f", true, -1}, {" = 0.3", false, 0}}},
		{"seed set $D^w$", []run{{"seed set ", false, 0}, {"D", true, 0}, {"w", true, 1}}},
		{"$R_{50}/50$", []run{{"R", true, 0}, {"50", false, -1}, {"/50", false, 0}}},
		{"$\\delta$ = 0.01", []run{{"δ = 0.01", false, 0}}},
		{"keep_seed", []run{{"keep_seed", false, 0}}},         // outside $: as written
		{"costs $5", []run{{"costs $5", false, 0}}},           // unmatched $
		{"$\\nosuch$", []run{{"\\nosuch", false, 0}}},         // unknown macro: as written
		{"$x_{12$", []run{{"x", true, 0}, {"12", false, -1}}}, // unmatched brace: the rest
		{"$a_$", []run{{"a", true, 0}, {"_", false, 0}}},      // a script without argument
		{"", nil},
	} {
		got := runs(c.in)
		if len(got) != len(c.want) {
			t.Errorf("runs(%q) = %v, want %v", c.in, got, c.want)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("runs(%q) = %v, want %v", c.in, got, c.want)
				break
			}
		}
	}
}

// TestMathTextBox: plain text measures as text.Plain measures it; a
// subscript is narrower than the same letter on the line and reaches
// lower; a superscript reaches higher.
func TestMathTextBox(t *testing.T) {
	t.Parallel()
	fnt := font.Font{Typeface: "Liberation", Variant: "Serif", Size: vg.Points(10)}
	plain := text.Plain{Fonts: font.DefaultCache}
	for _, s := range []string{"average regret", "round t", "0.5", "δ ≤ 1"} {
		w, h, d := handler.Box(s, fnt)
		pw, ph, pd := plain.Box(s, fnt)
		if w != pw || h != ph || d != pd {
			t.Errorf("Box(%q) = %v %v %v, text.Plain %v %v %v", s, w, h, d, pw, ph, pd)
		}
	}
	wl, _, dl := handler.Box("$xx$", fnt)
	ws, _, ds := handler.Box("$x_x$", fnt)
	_, hu, _ := handler.Box("$x^x$", fnt)
	_, hl, _ := handler.Box("$xx$", fnt)
	if !(ws < wl && ds > dl && hu > hl) {
		t.Errorf("scripts: widths %v (line) %v (sub), depths %v %v, heights %v (line) %v (sup)", wl, ws, dl, ds, hl, hu)
	}
}

// TestMathTextDraws: every label of the figures and some broken ones draw
// without failing, rotated and not.
func TestMathTextDraws(t *testing.T) {
	t.Parallel()
	c := vgimg.New(vg.Points(200), vg.Points(100))
	sty := text.Style{Font: font.Font{Typeface: "Liberation", Variant: "Serif", Size: vg.Points(10)}, Handler: handler}
	for _, s := range []string{"average regret $R_t/t$", "round $t$", "$1 \\le |D^w| \\le 10$", "$\\ell_f$", "a\nb $x_1$", "$", "$$", "$_$", "$^{$", strings.Repeat("$x_y^z$", 20)} {
		for _, rot := range []float64{0, 1.5707963267948966} {
			sty.Rotation = rot
			handler.Draw(c, s, sty, vg.Point{X: 10, Y: 50})
		}
	}
}

// TestNiceTicks: every tick labelled, at most maxTicks, evenly spaced
// within the range, 0 among them when in range; the values of the
// figures' usual axes.
func TestNiceTicks(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		min, max float64
		want     []float64
	}{
		{0, 500, []float64{0, 100, 200, 300, 400, 500}},
		{0, 1.1, []float64{0, 0.2, 0.4, 0.6, 0.8, 1}},
		{-1.6, 1.6, []float64{-1, 0, 1}},
		{0, 10, []float64{0, 2, 4, 6, 8, 10}},
		{0.05, 0.2, []float64{0.05, 0.1, 0.15, 0.2}},
		{3, 3.5, []float64{3, 3.1, 3.2, 3.3, 3.4, 3.5}},
	} {
		ts := zeroTicks{}.Ticks(c.min, c.max)
		var got []float64
		for _, tk := range ts {
			if tk.Label == "" {
				t.Errorf("[%v, %v]: tick %v unlabelled", c.min, c.max, tk.Value)
			}
			got = append(got, tk.Value)
		}
		if len(got) != len(c.want) {
			t.Errorf("[%v, %v]: ticks %v, want %v", c.min, c.max, got, c.want)
			continue
		}
		for i := range got {
			if math.Abs(got[i]-c.want[i]) > 1e-12 {
				t.Errorf("[%v, %v]: ticks %v, want %v", c.min, c.max, got, c.want)
				break
			}
		}
	}
}

// TestBandClipped: a band is clipped to the data's range where it is
// given (Lo, Hi), and not elsewhere.
func TestBandClipped(t *testing.T) {
	t.Parallel()
	x, mean, std := []float64{1, 2, 3}, []float64{0.1, 0.2, 0.9}, []float64{0.5, 0.5, 0.5}
	for _, c := range []struct {
		lo, hi         []float64
		wantLo, wantHi float64
	}{
		{nil, nil, -0.4, 1.4},
		{[]float64{0, 0, 0}, nil, 0, 1.4},
		{[]float64{0, 0.05, 0.6}, []float64{0.3, 0.5, 1}, 0, 1},
	} {
		p, err := Bands("", "x", "y", []Series{{Label: "a", X: x, Mean: mean, Std: std, Lo: c.lo, Hi: c.hi}})
		if err != nil {
			t.Fatal(err)
		}
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, ring := range p.areas {
			for _, q := range ring {
				lo, hi = math.Min(lo, q.Y), math.Max(hi, q.Y)
			}
		}
		if math.Abs(lo-c.wantLo) > 1e-12 || math.Abs(hi-c.wantHi) > 1e-12 {
			t.Errorf("Lo %v, Hi %v: band from %v to %v, want %v to %v", c.lo, c.hi, lo, hi, c.wantLo, c.wantHi)
		}
	}
	if _, err := Bands("", "x", "y", []Series{{Label: "a", X: x, Mean: mean, Std: std, Lo: []float64{0}}}); err == nil {
		t.Error("a Lo of the wrong length was taken")
	}
}
