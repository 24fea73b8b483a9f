package plot

import (
	"image/png"
	"math"
	"os"
	"path/filepath"
	"testing"

	"gonum.org/v1/plot/vg"
)

// flat returns n copies of v.
func flat(n int, v float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// TestLinesOverBands: a mean line inside a band of a series drawn after it
// is painted in its own colour, not veiled by the band (bands are drawn
// first). The pixel at the middle of the horizontal line, 1.5 pt = 4.2 px
// wide at 200 dpi, is covered by it alone; under a band of alpha 50/255 its
// red channel would be 31 + 50/255·(255 − 31) ≈ 75.
func TestLinesOverBands(t *testing.T) {
	t.Parallel()
	const n = 50
	x := make([]float64, n)
	for i := range x {
		x[i] = float64(i + 1)
	}
	p, err := Bands("", "t", "y", []Series{
		{Label: "sgp-ucb", X: x, Mean: flat(n, 0.5)},
		{Label: "stageopt", X: x, Mean: flat(n, 0.6), Std: flat(n, 0.4)},
	})
	if err != nil {
		t.Fatal(err)
	}
	ShareY(true, p)
	at, err := Check([]*Panel{p})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := Save(p, dir, "order"); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(dir, "order.png"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	dc := at[0].dc
	pt := vg.Point{X: dc.X(p.X.Norm(25)), Y: dc.Y(p.Y.Norm(0.5))}
	px := int(math.Round(float64(pt.X.Dots(DPI))))
	py := img.Bounds().Dy() - 1 - int(math.Round(float64(pt.Y.Dots(DPI))))
	r, g, b, _ := img.At(px, py).RGBA()
	want := StyleOf("sgp-ucb").Color
	got := [3]int{int(r >> 8), int(g >> 8), int(b >> 8)}
	for k, w := range [3]uint8{want.R, want.G, want.B} {
		// ±3 for anti-aliasing at the pixel's edge.
		if d := got[k] - int(w); d < -3 || d > 3 {
			t.Fatalf("pixel (%d, %d) on sgp-ucb's line is %v, want its colour %v: a band lies over the line", px, py, got, want)
		}
	}
}

// TestCheckFindsLegendInBand: a legend wholly inside a band, touching
// neither its outline nor a line, covers the band, and Check's test says
// so; the legend placed by layout over a band reaching near the top sits
// above it, legendGap clear.
func TestCheckFindsLegendInBand(t *testing.T) {
	t.Parallel()
	const n = 100
	x := make([]float64, n)
	decay := make([]float64, n)
	for i := range x {
		x[i] = float64(i + 1)
		decay[i] = 1 / math.Sqrt(x[i])
	}
	// As naive SGP-UCB's ±1 std in regime 1–10: a flat mean with a band
	// from 0 to about 1.8 over every round.
	p, err := Bands("", "t", "y", []Series{
		{Label: "sgp-ucb", X: x, Mean: decay, Std: flat(n, 0.2)},
		{Label: "naive-sgp-ucb", X: x, Mean: flat(n, 1), Std: flat(n, 0.85)},
	})
	if err != nil {
		t.Fatal(err)
	}
	ShareY(true, p)
	at, err := Check([]*Panel{p})
	if err != nil {
		t.Fatal(err)
	}
	if at[0].Outside {
		t.Fatal("legend outside: want it above the data")
	}
	dc := at[0].dc
	bandTop := dc.Y(p.Y.Norm(1.85))
	if gap := at[0].Rect.Min.Y - bandTop; gap < vg.Points(legendGap)-1e-9 {
		t.Errorf("legend's bottom %v is %v above the band's top, want ≥ %v", at[0].Rect.Min.Y, gap, vg.Points(legendGap))
	}
	// The legend's box moved into the band between the naive line (y = 1)
	// and the band's top: inside the band, on no outline or line.
	size := at[0].Rect.Size()
	lo := dc.Y(p.Y.Norm(1.2))
	r := vg.Rectangle{Min: vg.Point{X: dc.Max.X - size.X - 10, Y: lo}, Max: vg.Point{X: dc.Max.X - 10, Y: lo + size.Y}}
	if r.Max.Y >= bandTop {
		t.Fatalf("test set-up: box %v reaches the band's top %v", r, bandTop)
	}
	if !covers(p, dc, r) {
		t.Error("a legend inside naive-sgp-ucb's band is not reported")
	}
}
