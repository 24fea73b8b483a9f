package plot

import (
	"math"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"
)

// TestGeometry checks the overlap tests Check relies on against cases
// worked by hand on the unit square [0, 1]².
func TestGeometry(t *testing.T) {
	t.Parallel()
	r := vg.Rectangle{Min: vg.Point{X: 0, Y: 0}, Max: vg.Point{X: 1, Y: 1}}
	pt := func(x, y vg.Length) vg.Point { return vg.Point{X: x, Y: y} }
	segs := []struct {
		a, b vg.Point
		want bool
	}{
		{pt(-1, 0.5), pt(2, 0.5), true},    // straight through
		{pt(0.2, 0.2), pt(0.3, 0.4), true}, // wholly inside
		{pt(-1, -1), pt(2, 2), true},       // the diagonal
		{pt(-1, 2), pt(2, 2), false},       // above
		{pt(1.5, -1), pt(1.5, 3), false},   // to the right
		{pt(-1, 1), pt(1, 3), false},       // passes the corner (0, 1)'s outside: y = x + 2
		{pt(-1, -0.1), pt(0.5, 1.4), true}, // enters the left edge: y = x + 0.9
	}
	for _, c := range segs {
		if got := segmentMeets(c.a, c.b, r); got != c.want {
			t.Errorf("segment %v–%v meets the unit square: %v, want %v", c.a, c.b, got, c.want)
		}
	}
	tri := []vg.Point{pt(-1, -1), pt(3, -1), pt(-1, 3)} // x + y ≤ 2, x, y ≥ −1
	for _, c := range []struct {
		q    vg.Point
		want bool
	}{{pt(0, 0), true}, {pt(0.9, 0.9), true}, {pt(1.1, 1.1), false}, {pt(-2, 0), false}} {
		if got := inPolygon(c.q, tri); got != c.want {
			t.Errorf("%v in the triangle: %v, want %v", c.q, got, c.want)
		}
	}
}

// TestCheckFindsCoveredData: a legend put over a line by hand is what
// Check reports.
func TestCheckFindsCoveredData(t *testing.T) {
	t.Parallel()
	p, err := Bands("t", "x", "y", []Series{{Label: "line", X: []float64{0, 1}, Mean: []float64{0, 1}}})
	if err != nil {
		t.Fatal(err)
	}
	at, err := Check([]*Panel{p})
	if err != nil {
		t.Fatal(err)
	}
	dc := at[0].dc
	if covers(p, dc, at[0].Rect) {
		t.Fatalf("the placed legend %v covers the line", at[0].Rect)
	}
	// The same legend box moved to the middle of the data area sits on
	// the diagonal line.
	size := at[0].Rect.Size()
	mid := vg.Point{X: (dc.Min.X + dc.Max.X - size.X) / 2, Y: (dc.Min.Y + dc.Max.Y - size.Y) / 2}
	if !covers(p, dc, vg.Rectangle{Min: mid, Max: vg.Point{X: mid.X + size.X, Y: mid.Y + size.Y}}) {
		t.Error("a legend in the middle of the diagonal is not reported")
	}
}

// TestFitText: a title that fits stays as it is; one a little too wide
// gets a font at most minShrink smaller; a wider one breaks after its
// "name:", every line within the width, and else between words; a word
// wider than the width shrinks the font until it fits.
func TestFitText(t *testing.T) {
	t.Parallel()
	p := NewPanel("", "", "")
	sty := p.Title.TextStyle
	width := PanelWidth - 2*vg.Points(titleMargin)
	fits := "regime-1-10: mean ± 1 std over 30 realizations"
	if sty.Width(fits) > width {
		t.Fatalf("test set-up: %q is wider than %v", fits, width)
	}
	if got, gsty := fitText(fits, sty, width); got != fits || gsty.Font.Size != sty.Font.Size {
		t.Errorf("fitText(%q) = %q at %v pt, want it unchanged", fits, got, gsty.Font.Size)
	}
	// 7 % too wide: shrunk by 1/1.07, one line.
	near := "0-lengthscale=0.05,delta=0.01: mean ± 1 SE over 30 realizations"
	if f := width / sty.Width(near); f >= 1 || f < minShrink {
		t.Fatalf("test set-up: %q needs a factor %v, want one in [%v, 1)", near, f, minShrink)
	}
	if got, gsty := fitText(near, sty, width); got != near || math.Abs(float64(gsty.Width(got)-width)) > 1e-6 {
		t.Errorf("fitText(%q) = %q, %v wide, want it on one line exactly %v wide", near, got, gsty.Width(got), width)
	}
	wide := "lengthscale=0.05,delta=0.01: mean ± 1 standard error over 30 realizations, sharded"
	if f := width / sty.Width(wide); f >= minShrink {
		t.Fatalf("test set-up: %q needs a factor %v ≥ %v", wide, f, minShrink)
	}
	want := "lengthscale=0.05,delta=0.01:\nmean ± 1 standard error over 30 realizations, sharded"
	if got, gsty := fitText(wide, sty, width); got != want || gsty.Font.Size != sty.Font.Size {
		t.Errorf("fitText(%q) = %q at %v pt, want %q at %v pt", wide, got, gsty.Font.Size, want, sty.Font.Size)
	}
	// No ": " to break at: words wrap, each line within the width.
	long := strings.Repeat("word ", 40)
	got, gsty := fitText(long, sty, width)
	if gsty.Width(got) > width || strings.Count(got, "\n") < 2 || strings.Join(strings.Fields(got), " ") != strings.TrimSpace(long) {
		t.Errorf("fitText(40 words) = %q, %v wide, want its words on lines within %v", got, gsty.Width(got), width)
	}
	// One word too wide: the same word, a smaller font, within the width.
	word := strings.Repeat("x", 200)
	got, gsty = fitText(word, sty, width)
	if got != word || gsty.Font.Size >= sty.Font.Size || gsty.Width(got) > width+1e-9 {
		t.Errorf("fitText(200 x) = %q at %v pt, %v wide; want the word shrunk within %v", got, gsty.Font.Size, gsty.Width(got), width)
	}
}

// TestLongTitleLaidOut: a panel's long title is wrapped for the layout
// only (the panel keeps its text) and its data area is lower by the
// second line, so Check and Save agree on where the data are.
func TestLongTitleLaidOut(t *testing.T) {
	t.Parallel()
	short, err := Bands("name: mean", "x", "y", []Series{{Label: "a", X: []float64{1, 2}, Mean: []float64{0, 1}}})
	if err != nil {
		t.Fatal(err)
	}
	const title = "lengthscale=0.05,delta=0.01: mean ± 1 standard error over 30 realizations"
	long, err := Bands(title, "x", "y", []Series{{Label: "a", X: []float64{1, 2}, Mean: []float64{0, 1}}})
	if err != nil {
		t.Fatal(err)
	}
	as, err := Check([]*Panel{short})
	if err != nil {
		t.Fatal(err)
	}
	al, err := Check([]*Panel{long})
	if err != nil {
		t.Fatal(err)
	}
	if long.Title.Text != title {
		t.Errorf("the panel's title became %q", long.Title.Text)
	}
	line := long.Title.TextStyle.Height("x\nx") - long.Title.TextStyle.Height("x")
	if d := as[0].dc.Max.Y - al[0].dc.Max.Y; math.Abs(float64(d-line)) > 1e-9 {
		t.Errorf("two-line title lowers the data area by %v, want one line, %v", d, line)
	}
}
