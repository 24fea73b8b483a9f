package plot

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// zigzag is a panel whose line crosses its whole data area up and down,
// so that no legend fits inside it, with an error bar at every point.
func zigzag(t *testing.T, label string) *Panel {
	t.Helper()
	p := NewPanel(label, "x", "y")
	var pts plotter.XYs
	var errs plotter.YErrors
	for k := 0; k <= 20; k++ {
		pts = append(pts, plotter.XY{X: float64(k), Y: float64(k % 2)})
		errs = append(errs, struct{ Low, High float64 }{0.05, 0.05})
	}
	line, err := plotter.NewLine(pts)
	if err != nil {
		t.Fatal(err)
	}
	line.Color = StyleOf(label).Color
	p.Add(line, &plotter.YErrorBars{XYs: pts, YErrors: errs})
	p.Legend.Add(label, line)
	return p
}

// TestGridAndLegendStrip: Columns wraps the panels into rows (the figure
// is Columns panels wide and as many rows high as needed), and a shared
// legend with no room in any panel goes into a strip right of every
// column, which leaves every panel's data area the same width (the last
// one is not squashed), covers nothing (Check), keeps legendGap from the
// figure's edge, and starts at the first row's data top. Error bars count as data: a bar drawn past the line's
// top is in the recorded lines.
func TestGridAndLegendStrip(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		panels, columns, wantCols, wantRows int
	}{
		{1, 4, 1, 1},
		{2, 0, 2, 1},
		{2, 4, 2, 1},
		{5, 4, 4, 2},
		{8, 4, 4, 2},
		{9, 4, 4, 3},
	} {
		f := Figure{SharedLegend: true, Columns: c.columns}
		for k := 0; k < c.panels; k++ {
			f.Panels = append(f.Panels, zigzag(t, "sgp-ucb"))
		}
		ShareY(true, f.Panels...)
		if cols, rows := f.grid(); cols != c.wantCols || rows != c.wantRows {
			t.Errorf("%d panels, Columns %d: grid %d × %d, want %d × %d", c.panels, c.columns, cols, rows, c.wantCols, c.wantRows)
		}
		if w, h := f.size(); w != PanelWidth*vg.Length(c.wantCols) || h != PanelHeight*vg.Length(c.wantRows) {
			t.Errorf("%d panels, Columns %d: size %v × %v", c.panels, c.columns, w, h)
		}
		at, err := f.Check()
		if err != nil {
			t.Fatalf("%d panels: %v", c.panels, err)
		}
		shown := -1
		for i := range at {
			if at[i].Rect.Size().X > 0 {
				if shown >= 0 {
					t.Fatalf("%d panels: the shared legend is drawn twice (panels %d and %d)", c.panels, shown+1, i+1)
				}
				shown = i
			}
		}
		if shown < 0 || !at[shown].Outside {
			t.Fatalf("%d panels: legend %+v, want one, outside (no panel has room)", c.panels, at)
		}
		width := at[0].dc.Max.X - at[0].dc.Min.X
		for i := range at {
			if w := at[i].dc.Max.X - at[i].dc.Min.X; w < width-0.5 || w > width+0.5 {
				t.Errorf("%d panels: panel %d's data area is %v wide, panel 1's %v", c.panels, i+1, w, width)
			}
			if at[shown].Rect.Min.X < at[i].dc.Max.X {
				t.Errorf("%d panels: the legend strip starts at x = %v, inside panel %d's data area (to %v)", c.panels, at[shown].Rect.Min.X, i+1, at[i].dc.Max.X)
			}
		}
		if w, _ := f.size(); at[shown].Rect.Max.X > w-vg.Points(legendGap)+1e-9 {
			t.Errorf("%d panels: the legend strip ends at x = %v, less than legendGap from the figure's edge %v", c.panels, at[shown].Rect.Max.X, w)
		}
		if top := at[0].dc.Max.Y; at[shown].Rect.Max.Y != top {
			t.Errorf("%d panels: the legend's top is at %v, the first row's data top at %v", c.panels, at[shown].Rect.Max.Y, top)
		}
	}
	// The bars are data: 21 of them besides the line.
	if p := zigzag(t, "x"); len(p.lines) != 22 || p.lines[1][1].Y != 0.05 {
		t.Errorf("recorded lines %d (want the line and 21 bars), first bar %v", len(p.lines), p.lines[1])
	}
}

// TestWidth: with Width set the figure is that wide, its panels wrapped
// so that each is at least MinPanelWidth wide, at PanelWidth's aspect
// ratio; a one-column width stacks them.
func TestWidth(t *testing.T) {
	defer func(w vg.Length) { Width = w }(Width)
	for _, c := range []struct {
		width            vg.Length
		panels, cols, rs int
	}{
		{3.5 * vg.Inch, 3, 1, 3},
		{7 * vg.Inch, 3, 2, 2},
		{7.2 * vg.Inch, 3, 3, 1},
		{3.5 * vg.Inch, 1, 1, 1},
		{1 * vg.Inch, 2, 1, 2}, // taken as MinPanelWidth
	} {
		Width = c.width
		f := Figure{}
		for k := 0; k < c.panels; k++ {
			f.Panels = append(f.Panels, zigzag(t, "sgp-ucb"))
		}
		if cols, rows := f.grid(); cols != c.cols || rows != c.rs {
			t.Errorf("width %v, %d panels: grid %d × %d, want %d × %d", c.width, c.panels, cols, rows, c.cols, c.rs)
		}
		w, h := f.size()
		ww := max(c.width, MinPanelWidth)
		if want := vg.Length(c.rs) * ww / vg.Length(c.cols) * PanelHeight / PanelWidth; w != ww || math.Abs(float64(h-want)) > 1e-9 {
			t.Errorf("width %v, %d panels: size %v × %v, want %v × %v", c.width, c.panels, w, h, ww, want)
		}
		if _, err := f.Check(); err != nil {
			t.Errorf("width %v, %d panels: %v", c.width, c.panels, err)
		}
	}
}

// TestLegendBelow: a shared legend of 12 entries drawn below the panels
// (LegendBelow) leaves each panel's data area as wide as the panels'
// without a legend, where at their right it narrows them; it adds its
// height to the figure's, keeps the entries in order down the columns,
// and fits in more than one column.
func TestLegendBelow(t *testing.T) {
	Width = 0
	panels := func() []*Panel {
		var ps []*Panel
		for range 2 {
			p := zigzag(t, "sgp-ucb")
			p.Legend = gplot.NewLegend()
			p.keys = nil
			for k := range 12 {
				line, _ := plotter.NewLine(plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: 1}})
				p.AddLegend(fmt.Sprintf("algorithm %02d", k), line)
			}
			ps = append(ps, p)
		}
		return ps
	}
	dataWidth := func(f Figure) vg.Length {
		w, h := f.size()
		c := draw.New(vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(DPI)))
		at := f.layout(c, false)
		return at[0].dc.Max.X - at[0].dc.Min.X
	}
	bare := Figure{Panels: panels()}
	for _, p := range bare.Panels {
		p.Legend = gplot.NewLegend()
	}
	right := Figure{Panels: panels(), SharedLegend: true}
	below := Figure{Panels: panels(), SharedLegend: true, LegendBelow: true}
	wb, wr, wd := dataWidth(bare), dataWidth(right), dataWidth(below)
	if math.Abs(float64(wd-wb)) > 0.5 || !(wr < wb-20) {
		t.Errorf("data width: %.1f pt with the legend below, %.1f without a legend, %.1f with it at the right; want below = none > right", wd, wb, wr)
	}
	_, hb := bare.size()
	legs := below.belowLegends(2 * PanelWidth)
	if _, h := below.size(); len(legs.cols) < 2 || math.Abs(float64(h-hb-legs.height-2*vg.Points(legendGap))) > 1e-9 {
		t.Errorf("legend below: %d columns, figure height %v, want ≥ 2 columns and %v + its %v", len(legs.cols), h, hb, legs.height)
	}
	dir := t.TempDir()
	if err := below.Save(dir, "below"); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "below.svg"))
	if err != nil {
		t.Fatal(err)
	}
	last := -1
	for k := range 12 {
		i := strings.Index(string(b), fmt.Sprintf(">algorithm %02d<", k))
		if i < 0 || i < last || strings.Count(string(b), fmt.Sprintf(">algorithm %02d<", k)) != 1 {
			t.Errorf("entry %d: at %d (the one before at %d), want each once and in order", k, i, last)
		}
		last = i
	}
}
