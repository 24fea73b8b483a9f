package plot

import (
	"math"
	"sort"
	"strconv"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// The size a panel is drawn at, and the fonts: a figure of three panels
// is 9.6 inches wide and prints at a paper's text width (about 7 inches,
// a scale of 0.7) with tick labels of about 6 points and titles of 7.
const (
	PanelWidth  = 3.2 * vg.Inch
	PanelHeight = 2.4 * vg.Inch
	DPI         = 200
)

var (
	titleSize  = vg.Points(10)
	labelSize  = vg.Points(9.5)
	tickSize   = vg.Points(9)
	legendSize = vg.Points(8.5)
)

// Panel is one panel of a figure: a gonum plot that also remembers the
// data drawn on it (Add), so that SaveRow can place the legend where it
// covers none of it, and an optional colour bar drawn to its right.
type Panel struct {
	*gplot.Plot
	// Bar, if set, is drawn to the right of the panel: set it wherever
	// colour encodes a value.
	Bar *ColorBar

	drawn  map[string]Style // Bands' series, by label
	keys   []legendKey      // the legend's entries (AddLegend), for a legend drawn below
	shared bool             // ShareY set the y range: SaveRow must keep it
	lines  []plotter.XYs    // polylines: plotter.Line
	points []plotter.XYs    // glyphs: plotter.Scatter
	areas  []plotter.XYs    // closed rings: plotter.Polygon
}

// ColorBar is the key of a colour map: its colours from Map.Min() (bottom)
// to Map.Max() (top), with Label beside the axis.
type ColorBar struct {
	Map   palette.ColorMap
	Label string
}

// handler draws every text of the figures: $…$ as math (mathText).
var handler = mathText{text.Plain{Fonts: font.DefaultCache}}

// NewPanel returns an empty panel with the project's fonts, a grid, and a
// y axis that always has a tick at 0 when 0 is in its range. Its texts
// may hold math between dollars: "average regret $R_t/t$" (mathText).
func NewPanel(title, xLabel, yLabel string) *Panel {
	p := &Panel{Plot: gplot.New()}
	p.Title.Text = title
	p.Title.TextStyle.Font.Size = titleSize
	p.Title.TextStyle.Handler = handler
	p.X.Label.Text, p.Y.Label.Text = xLabel, yLabel
	for _, a := range []*gplot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font.Size = labelSize
		a.Label.TextStyle.Handler = handler
		a.Tick.Label.Font.Size = tickSize
		a.Tick.Label.Handler = handler
	}
	p.X.Tick.Marker, p.Y.Tick.Marker = zeroTicks{}, zeroTicks{}
	p.Legend.TextStyle.Font.Size = legendSize
	p.Legend.TextStyle.Handler = handler
	p.Legend.ThumbnailWidth = vg.Points(18)
	p.Plot.Add(plotter.NewGrid())
	return p
}

// legendKey is one entry of a panel's legend.
type legendKey struct {
	label  string
	thumbs []gplot.Thumbnailer
}

// AddLegend adds an entry to the panel's legend, as gonum's Legend.Add
// does, and keeps it, so that a figure can draw its legend in columns
// below the panels (Figure.LegendBelow).
func (p *Panel) AddLegend(label string, thumbs ...gplot.Thumbnailer) {
	p.Legend.Add(label, thumbs...)
	p.keys = append(p.keys, legendKey{label, thumbs})
}

// Add adds plotters to the panel as gonum's Plot.Add does, and records
// the data of lines, scatters, polygons and error bars, which its legend
// must not cover.
func (p *Panel) Add(ps ...gplot.Plotter) {
	for _, d := range ps {
		switch d := d.(type) {
		case *plotter.Line:
			p.lines = append(p.lines, d.XYs)
		case *plotter.Scatter:
			p.points = append(p.points, d.XYs)
		case *plotter.Polygon:
			p.areas = append(p.areas, d.XYs...)
		case *plotter.YErrorBars:
			// Each bar is a vertical segment of data.
			for k, xy := range d.XYs {
				e := d.YErrors[k]
				p.lines = append(p.lines, plotter.XYs{{X: xy.X, Y: xy.Y - e.Low}, {X: xy.X, Y: xy.Y + e.High}})
			}
		}
	}
	p.Plot.Add(ps...)
}

// Drawn returns the style Bands drew each series of the panel in, by
// label: what a test compares across figures.
func (p *Panel) Drawn() map[string]Style { return p.drawn }

// ShareY gives panels one y range, the union of theirs (and 0 if zero is
// set) with yMargin above the highest line, so that the panels of one
// figure compare at a glance; SaveRow then keeps it as it is (no headroom
// for a legend) when there are several.
func ShareY(zero bool, panels ...*Panel) {
	lo, hi := math.Inf(1), math.Inf(-1)
	if zero {
		lo, hi = 0, 0
	}
	for _, p := range panels {
		lo, hi = math.Min(lo, p.Y.Min), math.Max(hi, p.Y.Max)
	}
	if hi == lo {
		hi = lo + 1 // all zero (no violations): 0 at the bottom, not the middle
	}
	for _, p := range panels {
		if top, ok := p.lineTop(); ok {
			hi = padTop(lo, hi, top)
		}
	}
	for _, p := range panels {
		p.Y.Min, p.Y.Max = lo, hi
		p.shared = len(panels) > 1
	}
}

// yMargin is the share of the data's height left free between the
// highest line or glyph and the top of the data area, so that no line
// lies on its edge: matplotlib's default margin (axes.ymargin = 0.05).
// The bottom needs none: gonum draws the x axis its Padding below the
// data area. Bands do not count: a band may reach the edge (the
// illustration's seed-set shading spans the whole height on purpose).
const yMargin = 0.05

// lineTop returns the highest finite y of p's lines and glyphs, and
// false if it has none.
func (p *Panel) lineTop() (float64, bool) {
	top, ok := math.Inf(-1), false
	for _, set := range [][]plotter.XYs{p.lines, p.points} {
		for _, xys := range set {
			for _, v := range xys {
				if !math.IsNaN(v.Y) && !math.IsInf(v.Y, 0) && v.Y > top {
					top, ok = v.Y, true
				}
			}
		}
	}
	return top, ok
}

// padTop returns hi raised, where needed, to top + yMargin·(top − lo): a
// y range [lo, hi] that leaves the margin above a line reaching top.
// It only ever raises hi, so that applying it twice changes nothing.
func padTop(lo, hi, top float64) float64 {
	return math.Max(hi, top+yMargin*(top-lo))
}

// zeroTicks is gonum's default ticks with a labelled tick at 0 added
// whenever 0 is inside the range and the default left it out.
type zeroTicks struct{}

func (zeroTicks) Ticks(min, max float64) []gplot.Tick {
	return relabel(withZero(niceTicks(min, max), min, max))
}

// maxTicks is the most ticks an axis gets: every tick is labelled (a
// figure for a paper labels each tick or none), so fewer than gonum's
// default majors and unlabelled minors.
const maxTicks = 6

// niceTicks are the multiples of the smallest step 1, 2, 2.5 or 5 × 10^k
// within [min, max] that gives at most maxTicks of them (at least two
// whenever the range allows), all labelled; 0 is one of them whenever it
// is in the range.
func niceTicks(min, max float64) []gplot.Tick {
	if !(max > min) || math.IsInf(max-min, 0) {
		return gplot.DefaultTicks{}.Ticks(min, max)
	}
	e := math.Floor(math.Log10(max-min)) - 1
	for range 8 {
		p := math.Pow(10, e)
		for _, m := range []float64{1, 2, 2.5, 5} {
			step := m * p
			lo, hi := math.Ceil(min/step-1e-9), math.Floor(max/step+1e-9)
			if n := hi - lo + 1; n <= maxTicks && n >= 1 {
				ts := make([]gplot.Tick, 0, int(n))
				for k := lo; k <= hi; k++ {
					v := k * step
					if v == 0 {
						v = 0 // not −0
					}
					ts = append(ts, gplot.Tick{Value: v, Label: strconv.FormatFloat(v, 'g', -1, 64)})
				}
				return ts
			}
		}
		e++
	}
	return gplot.DefaultTicks{}.Ticks(min, max)
}

// relabel writes the labelled ticks with the fewest decimals that show
// every one of them exactly, the same number for all: gonum's default
// writes 0 to 500 as "0.00", "250.00", "500.00".
func relabel(ts []gplot.Tick) []gplot.Tick {
	prec := 0
	for _, t := range ts {
		if t.Label == "" {
			continue
		}
		for p := prec; p <= 6; p++ {
			prec = p
			r, _ := strconv.ParseFloat(strconv.FormatFloat(t.Value, 'f', p, 64), 64)
			if math.Abs(r-t.Value) <= 1e-9*math.Max(1, math.Abs(t.Value)) {
				break
			}
		}
	}
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = strconv.FormatFloat(ts[i].Value, 'f', prec, 64)
		}
	}
	return ts
}

func withZero(ts []gplot.Tick, min, max float64) []gplot.Tick {
	if min > 0 || max < 0 {
		return ts
	}
	// Within a thousandth of the range counts as 0 (the default's ticks
	// are multiples of a step, and 0 comes out exact or not at all).
	eps := 1e-3 * (max - min)
	var major []float64
	for i := len(ts) - 1; i >= 0; i-- {
		if ts[i].Label == "" {
			if math.Abs(ts[i].Value) < eps {
				ts = append(ts[:i], ts[i+1:]...)
			}
			continue
		}
		if math.Abs(ts[i].Value) < eps {
			return ts
		}
		major = append(major, ts[i].Value)
	}
	// Drop a labelled tick so close to 0 that the labels would collide.
	sort.Float64s(major)
	step := max - min
	for k := 1; k < len(major); k++ {
		step = math.Min(step, major[k]-major[k-1])
	}
	for i := len(ts) - 1; i >= 0; i-- {
		if ts[i].Label != "" && math.Abs(ts[i].Value) < step/2 {
			ts = append(ts[:i], ts[i+1:]...)
		}
	}
	ts = append(ts, gplot.Tick{Value: 0, Label: "0"})
	sort.Slice(ts, func(a, b int) bool { return ts[a].Value < ts[b].Value })
	return ts
}

// LegendAt reports where SaveRow drew a panel's legend: Rect in the
// figure's canvas coordinates, Outside when no place inside the data area
// was free and the legend went to the right of it.
type LegendAt struct {
	Rect    vg.Rectangle
	Outside bool

	dc draw.Canvas // the data area the plot was drawn in
}

// canvasData returns the panel's recorded data in the coordinates of the
// data canvas dc.
func (p *Panel) canvasData(dc draw.Canvas) shapes {
	var s shapes
	tr := func(xys plotter.XYs) []vg.Point {
		pts := make([]vg.Point, 0, len(xys))
		for _, v := range xys {
			if math.IsNaN(v.X) || math.IsNaN(v.Y) || math.IsInf(v.X, 0) || math.IsInf(v.Y, 0) {
				continue
			}
			pts = append(pts, vg.Point{X: dc.X(p.X.Norm(v.X)), Y: dc.Y(p.Y.Norm(v.Y))})
		}
		return pts
	}
	for _, l := range p.lines {
		s.lines = append(s.lines, tr(l))
	}
	for _, l := range p.points {
		s.points = append(s.points, tr(l))
	}
	for _, l := range p.areas {
		s.areas = append(s.areas, tr(l))
	}
	return s
}
