package plot

import (
	"errors"
	"fmt"
	"image/color"
	"os"
	"path/filepath"
	"strings"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// ErrLegendCovers is Check's error when a legend box covers plotted data.
var ErrLegendCovers = errors.New("legend covers plotted data")

const (
	legendInset = 3 // points between the data area's edge and a legend inside it
	legendGap   = 6 // points between the data area and a legend outside it
	glyphPad    = 2 // points around a glyph's centre that count as data
	barWidth    = 0.85 * vg.Inch
	titleMargin = 2 // points kept free at either end of a title
	// maxHeadroom is the largest share of a data area's height a legend
	// may take above the data: more would squash the data.
	maxHeadroom = 0.4
	// minShrink is the smallest factor fitText shrinks a one-line title
	// by before it breaks it: 10 pt to 8.5 pt, the legend's size.
	minShrink = 0.85
)

// Figure is a row of panels, PanelWidth × PanelHeight each, with an
// optional title across them.
type Figure struct {
	Title  string
	Panels []*Panel
	// SharedLegend says the panels carry the same legend: it is drawn
	// once, in the first panel with a free place for it inside its data
	// area, or else to the right of the last panel's.
	SharedLegend bool
	// Columns, if positive and fewer than the panels, wraps them into
	// rows of that many (a sweep's panels); 0 puts them in one row.
	Columns int
	// LegendBelow draws the panels' legends as one (their AddLegend
	// entries, each label once) under the panels, in as many columns as
	// the figure's width holds: for a legend too long to sit beside the
	// data without taking much of its width.
	LegendBelow bool
}

// Width, when positive, is the width of every figure saved (a paper's
// column: 3.5 in; its text width: 7 in): the panels wrap into rows so
// that each is at least MinPanelWidth wide, and keep PanelWidth's aspect
// ratio; a width below MinPanelWidth is taken as MinPanelWidth. 0, the
// default, draws each panel PanelWidth wide. The CLI sets it from
// --figure-width before drawing anything.
var Width vg.Length

// MinPanelWidth is the narrowest a panel gets under Width.
const MinPanelWidth = 2.4 * vg.Inch

// grid returns the figure's columns and rows.
func (f Figure) grid() (cols, rows int) {
	cols = len(f.Panels)
	if f.Columns > 0 && f.Columns < cols {
		cols = f.Columns
	}
	if Width > 0 {
		cols = min(cols, max(1, int(Width/MinPanelWidth)))
	}
	if cols == 0 {
		return 0, 0
	}
	return cols, (len(f.Panels) + cols - 1) / cols
}

// Save writes p as dir/base.png and dir/base.svg, PanelWidth × PanelHeight.
func Save(p *Panel, dir, base string) error {
	return SaveRow([]*Panel{p}, dir, base)
}

// SaveRow writes panels side by side, as Figure.Save does.
func SaveRow(panels []*Panel, dir, base string) error {
	return Figure{Panels: panels}.Save(dir, base)
}

// Check lays panels out as SaveRow does, as Figure.Check does.
func Check(panels []*Panel) ([]LegendAt, error) {
	return Figure{Panels: panels}.Check()
}

func (f Figure) size() (w, h vg.Length) {
	cols, rows := f.grid()
	if Width > 0 && cols > 0 {
		w = max(Width, MinPanelWidth) // no panel narrower
		h = vg.Length(rows) * w / vg.Length(cols) * PanelHeight / PanelWidth
	} else {
		w, h = vg.Length(cols)*PanelWidth, vg.Length(rows)*PanelHeight
	}
	// A legend below adds its own height: the panels keep theirs.
	if legs := f.belowLegends(w); legs != nil {
		h += legs.height + 2*vg.Points(legendGap)
	}
	return w, h
}

// below is a legend drawn under the panels: one gonum legend per column,
// each width wide, height the tallest.
type below struct {
	cols          []*gplot.Legend
	width, height vg.Length
}

// belowLegends splits the panels' legend entries (each label once) into
// the columns a figure w wide holds (nil without LegendBelow or entries).
func (f Figure) belowLegends(w vg.Length) *below {
	if !f.LegendBelow || len(f.Panels) == 0 {
		return nil
	}
	var keys []legendKey
	seen := map[string]bool{}
	for _, p := range f.Panels {
		for _, k := range p.keys {
			if !seen[k.label] {
				seen[k.label] = true
				keys = append(keys, k)
			}
		}
	}
	if len(keys) == 0 {
		return nil
	}
	proto := f.Panels[0].Legend
	one := func(ks []legendKey) *gplot.Legend {
		l := new(gplot.Legend)
		*l = gplot.NewLegend()
		l.TextStyle, l.Padding, l.ThumbnailWidth, l.YPosition = proto.TextStyle, proto.Padding, proto.ThumbnailWidth, proto.YPosition
		l.Left, l.Top = true, true
		for _, k := range ks {
			l.Add(k.label, k.thumbs...)
		}
		return l
	}
	// Legend.Rectangle measures text only; the canvas gives its origin.
	var probe draw.Canvas
	probe.Max = vg.Point{X: w, Y: 100 * vg.Inch}
	widest := vg.Length(0)
	for _, k := range keys {
		widest = max(widest, one([]legendKey{k}).Rectangle(probe).Size().X)
	}
	colW := widest + 2*vg.Points(legendGap)
	n := max(1, min(len(keys), int((w-2*vg.Points(legendGap))/colW)))
	rows := (len(keys) + n - 1) / n
	out := &below{width: colW}
	for c := 0; c*rows < len(keys); c++ {
		l := one(keys[c*rows : min(len(keys), (c+1)*rows)])
		out.cols = append(out.cols, l)
		out.height = max(out.height, l.Rectangle(probe).Size().Y)
	}
	return out
}

// Save writes the figure as dir/base.png (at DPI) and dir/base.svg. Each
// panel's legend goes to the first place inside its data area, with
// legendInset to spare around it, that covers none of its data (the
// corners first, see candidates), or, if none is free, to the right of
// the data area.
func (f Figure) Save(dir, base string) error {
	w, h := f.size()
	for _, ext := range []string{".png", ".svg"} {
		var c vg.CanvasWriterTo
		if ext == ".png" {
			c = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(DPI))}
		} else {
			c = vgsvg.New(w, h)
		}
		f.layout(draw.New(c), true)
		out, err := os.Create(filepath.Join(dir, base+ext))
		if err != nil {
			return fmt.Errorf("save figure %s%s: %w", base, ext, err)
		}
		_, err = c.WriteTo(out)
		if cerr := out.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("save figure %s%s: %w", base, ext, err)
		}
	}
	return nil
}

// Check lays the figure out as Save does, without writing anything, and
// returns where each panel's legend went (a zero LegendAt for none) and
// ErrLegendCovers, naming the panel, if a legend box covers a point, a
// line or a band of its panel.
func (f Figure) Check() ([]LegendAt, error) {
	w, h := f.size()
	c := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(DPI))
	at := f.layout(draw.New(c), false)
	for i, p := range f.Panels {
		if at[i].Rect.Size().X == 0 {
			continue
		}
		if covers(p, at[i].dc, at[i].Rect) {
			return at, fmt.Errorf("plot: panel %d %q: %w", i+1, p.Title.Text, ErrLegendCovers)
		}
	}
	return at, nil
}

// layout places (and, if paint, draws) every panel in its tile of c.
func (f Figure) layout(c draw.Canvas, paint bool) []LegendAt {
	panels := f.Panels
	if f.Title != "" {
		c = f.drawTitle(c, paint)
	}
	cols, rows := f.grid()
	g := &layoutGrid{
		panels: panels,
		cols:   cols,
		tiles:  draw.Tiles{Rows: rows, Cols: cols, PadX: vg.Millimeter * 5, PadY: vg.Millimeter * 5, PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 3},
		plots:  make([][]*gplot.Plot, rows),
		titles: make([]panelTitle, len(panels)),
	}
	for r := range g.plots {
		g.plots[r] = make([]*gplot.Plot, cols)
	}
	// A title wider than its panel is shrunk or wrapped for this layout
	// only: gonum centres it on the panel and would cut both ends off at
	// the figure's edges (fitTitles). The panels' own titles are
	// restored on return.
	for i, p := range panels {
		g.titles[i] = panelTitle{p.Title.Text, p.Title.TextStyle}
	}
	defer g.restoreTitles()
	g.fitTitles(c)
	for i, p := range panels {
		g.plots[i/cols][i%cols] = p.Plot
		// A panel on a shared axis got its margin from ShareY, which
		// all its panels must keep.
		if top, ok := p.lineTop(); ok && !p.shared {
			p.Y.Max = padTop(p.Y.Min, p.Y.Max, top)
		}
	}
	// A legend below takes a strip at the bottom, its columns centred.
	if legs := f.belowLegends(c.Max.X - c.Min.X); legs != nil {
		gap := vg.Points(legendGap)
		if paint {
			x := c.Center().X - vg.Length(len(legs.cols))*legs.width/2 + gap
			for k, l := range legs.cols {
				lc := c
				lc.Min = vg.Point{X: x + vg.Length(k)*legs.width, Y: c.Min.Y + gap}
				lc.Max = vg.Point{X: lc.Min.X + legs.width, Y: lc.Min.Y + legs.height}
				l.Draw(lc)
			}
		}
		c.Min.Y += legs.height + 2*gap
	}
	// Align gives the panels data areas of one height, so that shared y
	// axes line up.
	canvases := gplot.Align(g.plots, g.tiles, c)
	// With a shared legend, the panel that shows it: the first with room
	// inside, else the last (outside).
	show := -1
	var strip *LegendAt // the shared legend in a strip of its own
	if f.SharedLegend && !f.LegendBelow {
		show, strip, canvases, c = g.sharedLegend(c, canvases)
	}
	at := make([]LegendAt, len(panels))
	for i, p := range panels {
		hide := f.LegendBelow || show >= 0 && (i != show || strip != nil)
		at[i] = placePanel(p, canvases[i/cols][i%cols], c, hide, strip != nil && i == show, strip, paint)
	}
	return at
}

// drawTitle fits the figure's title to c's width, draws it if paint,
// and returns c less the room it takes at the top.
func (f Figure) drawTitle(c draw.Canvas, paint bool) draw.Canvas {
	sty := f.Panels[0].Title.TextStyle
	sty.Font.Size = titleSize
	title, sty := fitText(f.Title, sty, c.Max.X-c.Min.X-2*vg.Points(titleMargin))
	h := sty.Rectangle(title).Size().Y
	if paint {
		// Hung from the top: a title fitText broke into lines
		// extends downwards by h, into the room taken below.
		sty.XAlign, sty.YAlign = draw.XCenter, draw.YTop
		c.FillText(sty, vg.Point{X: c.Center().X, Y: c.Max.Y}, title)
	}
	c.Max.Y -= h + vg.Points(10)
	return c
}

// panelTitle is a panel's own title, kept while layout fits it to its
// tile.
type panelTitle struct {
	text string
	sty  text.Style
}

// layoutGrid is a figure's panels in their tiles, cols to a row, during
// layout: the plots in grid order and the panels' own titles.
type layoutGrid struct {
	panels []*Panel
	cols   int
	tiles  draw.Tiles
	plots  [][]*gplot.Plot
	titles []panelTitle
}

// fitTitles fits each panel's own title to its tile of c. It may reach
// over the tiles' pads by the narrowest of them, PadLeft, at either end.
func (g *layoutGrid) fitTitles(c draw.Canvas) {
	for i, p := range g.panels {
		if text, sty := g.titles[i].text, g.titles[i].sty; text != "" {
			tile := g.tiles.At(c, i%g.cols, i/g.cols)
			w := tile.Max.X - tile.Min.X + 2*g.tiles.PadLeft - 2*vg.Points(titleMargin)
			if p.Bar != nil {
				w -= barWidth // the title is centred on the plot, left of its bar
			}
			p.Title.Text, p.Title.TextStyle = fitText(text, sty, w)
		}
	}
}

// restoreTitles gives the panels their own titles back.
func (g *layoutGrid) restoreTitles() {
	for i, p := range g.panels {
		p.Title.Text, p.Title.TextStyle = g.titles[i].text, g.titles[i].sty
	}
}

// sharedLegend chooses the panel that shows a shared legend (show): the
// first with room inside, else the last. When none has room and the last
// has no colour bar, the legend takes a strip of its own (strip) at the
// figure's right, and the panels are aligned again in the narrower c.
func (g *layoutGrid) sharedLegend(c draw.Canvas, canvases [][]draw.Canvas) (int, *LegendAt, [][]draw.Canvas, draw.Canvas) {
	panels := g.panels
	show := len(panels) - 1
	for i, p := range panels {
		tile := canvases[i/g.cols][i%g.cols]
		if p.Bar != nil {
			tile.Max.X -= barWidth
		}
		if _, at := placeLegend(p, tile, true); !at.Outside {
			return i, nil, canvases, c
		}
	}
	if panels[show].Bar != nil {
		return show, nil, canvases, c
	}
	// No panel has room: the legend takes a strip at the figure's right,
	// legendGap from the panels and from the edge, its width taken from
	// every column alike (not from the last panel alone, which it would
	// squash), its top at the first row's data top; the titles refitted
	// to the narrower tiles.
	size := panels[show].Legend.Rectangle(c).Size()
	if !(size.X > 0 && size.Y > 0) {
		return show, nil, canvases, c
	}
	c.Max.X -= size.X + 2*vg.Points(legendGap)
	g.fitTitles(c)
	canvases = gplot.Align(g.plots, g.tiles, c)
	top := panels[0].DataCanvas(canvases[0][0]).Max.Y
	x := c.Max.X + vg.Points(legendGap)
	strip := &LegendAt{Rect: vg.Rectangle{Min: vg.Point{X: x, Y: top - size.Y}, Max: vg.Point{X: x + size.X, Y: top}}, Outside: true}
	return show, strip, canvases, c
}

// placePanel places panel p's legend in its tile of c and, if paint,
// draws the panel there. hide says its legend is drawn elsewhere (a
// shared legend shown in another panel, or in the strip); inStrip that
// the strip holds it for this panel.
func placePanel(p *Panel, tile, c draw.Canvas, hide, inStrip bool, strip *LegendAt, paint bool) LegendAt {
	var bar draw.Canvas
	if p.Bar != nil {
		bar = tile
		bar.Min.X = tile.Max.X - barWidth
		tile.Max.X -= barWidth
	}
	leg := p.Legend
	if hide {
		p.Legend = gplot.NewLegend() // drawn in panel show only, or in the strip
	}
	tile, at := placeLegend(p, tile, false)
	if inStrip {
		at, p.Legend = *strip, leg
	}
	if paint {
		legend := p.Legend
		p.Legend = gplot.NewLegend() // drawn below, where placeLegend put it
		p.Plot.Draw(tile)
		if at.Rect.Size().X > 0 {
			legend.Top, legend.Left = true, false
			legend.XOffs, legend.YOffs = 0, 0
			lc := draw.Canvas{Canvas: c.Canvas, Rectangle: at.Rect}
			// White under the legend hides the grid lines, and
			// nothing else: it covers no data.
			lc.SetColor(color.White)
			lc.Fill(lc.Rectangle.Path())
			legend.Draw(lc)
		}
	}
	p.Legend = leg
	if p.Bar != nil && paint {
		drawBar(p, tile, bar)
	}
	// Now, while the title is the one drawn: its height sets the
	// data area's.
	at.dc = p.DataCanvas(tile)
	return at
}

// placeLegend returns the canvas the plot is drawn in (the tile, or less
// of it when the legend goes outside) and where the legend goes: the
// first free candidate place inside; else, for a panel whose y axis is
// its own (not ShareY's) and when the legend takes at most
// maxHeadroom of the data area's height, above the data, the y axis
// raised to make room (unless probe: SharedLegend's look for a panel
// with room); else outside, to the right.
func placeLegend(p *Panel, tile draw.Canvas, probe bool) (draw.Canvas, LegendAt) {
	dc := p.DataCanvas(tile)
	size := p.Legend.Rectangle(dc).Size()
	if size.X == 0 || size.Y == 0 {
		return tile, LegendAt{}
	}
	in := vg.Points(legendInset)
	// The data in dc's coordinates, once for the up to 104 candidates
	// (it was most of a figure's layout, recomputed for each).
	data := p.canvasData(dc)
	for _, o := range candidates(dc, size, in) {
		r := vg.Rectangle{Min: o, Max: vg.Point{X: o.X + size.X, Y: o.Y + size.Y}}
		// A legend that touches a line reads as part of it: keep
		// legendInset clear around it too.
		clear := vg.Rectangle{Min: vg.Point{X: r.Min.X - in, Y: r.Min.Y - in}, Max: vg.Point{X: r.Max.X + in, Y: r.Max.Y + in}}
		if !data.meets(clear) {
			return tile, LegendAt{Rect: r}
		}
	}
	// Above the data, legendGap (not only legendInset) separates the
	// legend from the data's top, a band's edge as much as a line: a
	// legend just clear of a band still reads as lying on it.
	if need := size.Y + in + vg.Points(legendGap); !probe && !p.shared && need <= maxHeadroom*(dc.Max.Y-dc.Min.Y) {
		old := p.Y.Max
		p.Y.Max = p.Y.Min + (p.Y.Max-p.Y.Min)/(1-float64(need/(dc.Max.Y-dc.Min.Y)))
		dc = p.DataCanvas(tile)
		r := vg.Rectangle{Min: vg.Point{X: dc.Max.X - in - size.X, Y: dc.Max.Y - in - size.Y}, Max: vg.Point{X: dc.Max.X - in, Y: dc.Max.Y - in}}
		clear := vg.Rectangle{Min: vg.Point{X: r.Min.X - in, Y: r.Min.Y - in}, Max: r.Max}
		if !covers(p, dc, clear) {
			return tile, LegendAt{Rect: r}
		}
		p.Y.Max = old
	}
	// Outside: the plot gives up the legend's width on its right.
	tile.Max.X -= size.X + vg.Points(legendGap)
	dc = p.DataCanvas(tile)
	x := tile.Max.X + vg.Points(legendGap)
	return tile, LegendAt{Rect: vg.Rectangle{Min: vg.Point{X: x, Y: dc.Max.Y - size.Y}, Max: vg.Point{X: x + size.X, Y: dc.Max.Y}}, Outside: true}
}

// candidates lists the lower-left corners a legend of the given size may
// take inside dc, inset by in, in the order they are tried: the four
// corners, the top and bottom centres, then down the right and the left
// edges, then the rest of a 9 × 9 grid, top rows first.
func candidates(dc draw.Canvas, size vg.Point, in vg.Length) []vg.Point {
	x0, x1 := dc.Min.X+in, dc.Max.X-in-size.X
	y0, y1 := dc.Min.Y+in, dc.Max.Y-in-size.Y
	if x1 < x0 || y1 < y0 {
		return nil // larger than the data area: outside
	}
	xc := (x0 + x1) / 2
	out := []vg.Point{{X: x1, Y: y1}, {X: x0, Y: y1}, {X: x1, Y: y0}, {X: x0, Y: y0}, {X: xc, Y: y1}, {X: xc, Y: y0}}
	const n = 8
	at := func(lo, hi vg.Length, k int) vg.Length { return lo + (hi-lo)*vg.Length(k)/n }
	for _, x := range []vg.Length{x1, x0} {
		for k := n - 1; k > 0; k-- {
			out = append(out, vg.Point{X: x, Y: at(y0, y1, k)})
		}
	}
	for j := n - 1; j > 0; j-- {
		for i := n - 1; i > 0; i-- {
			out = append(out, vg.Point{X: at(x0, x1, i), Y: at(y0, y1, j)})
		}
	}
	return out
}

// covers reports whether r meets any of p's data drawn on dc: a line's
// segment, a glyph (within glyphPad of its centre) or a band (its
// outline, or r inside it).
func covers(p *Panel, dc draw.Canvas, r vg.Rectangle) bool {
	return p.canvasData(dc).meets(r)
}

// shapes are a panel's recorded data in a data canvas's coordinates
// (Panel.canvasData).
type shapes struct{ lines, points, areas [][]vg.Point }

// meets reports whether r meets any of the shapes (covers).
func (s shapes) meets(r vg.Rectangle) bool {
	for _, l := range s.lines {
		if polylineMeets(l, r, false) {
			return true
		}
	}
	pad := vg.Points(glyphPad)
	grown := vg.Rectangle{Min: vg.Point{X: r.Min.X - pad, Y: r.Min.Y - pad}, Max: vg.Point{X: r.Max.X + pad, Y: r.Max.Y + pad}}
	for _, ps := range s.points {
		for _, q := range ps {
			if inRect(q, grown) {
				return true
			}
		}
	}
	for _, a := range s.areas {
		if polylineMeets(a, r, true) || inPolygon(r.Min, a) {
			return true
		}
	}
	return false
}

func inRect(q vg.Point, r vg.Rectangle) bool {
	return q.X >= r.Min.X && q.X <= r.Max.X && q.Y >= r.Min.Y && q.Y <= r.Max.Y
}

// polylineMeets reports whether a segment of pts (closed: also the last
// to the first) meets r, by Liang and Barsky's clipping (Liang & Barsky,
// "A new concept and method for line clipping", ACM TOG 3(1), 1984).
func polylineMeets(pts []vg.Point, r vg.Rectangle, closed bool) bool {
	n := len(pts)
	if n == 1 {
		return inRect(pts[0], r)
	}
	last := n - 1
	if closed {
		last = n
	}
	for k := 0; k < last; k++ {
		if segmentMeets(pts[k], pts[(k+1)%n], r) {
			return true
		}
	}
	return false
}

func segmentMeets(a, b vg.Point, r vg.Rectangle) bool {
	dx, dy := float64(b.X-a.X), float64(b.Y-a.Y)
	t0, t1 := 0.0, 1.0
	for _, e := range [4][2]float64{
		{-dx, float64(a.X - r.Min.X)}, {dx, float64(r.Max.X - a.X)},
		{-dy, float64(a.Y - r.Min.Y)}, {dy, float64(r.Max.Y - a.Y)},
	} {
		p, q := e[0], e[1]
		if p == 0 {
			if q < 0 {
				return false
			}
			continue
		}
		t := q / p
		if p < 0 {
			t0 = max(t0, t)
		} else {
			t1 = min(t1, t)
		}
		if t0 > t1 {
			return false
		}
	}
	return true
}

// inPolygon is the even–odd ray-casting test.
func inPolygon(q vg.Point, ring []vg.Point) bool {
	in := false
	for i, j := 0, len(ring)-1; i < len(ring); j, i = i, i+1 {
		a, b := ring[i], ring[j]
		if (a.Y > q.Y) != (b.Y > q.Y) && q.X < (b.X-a.X)*(q.Y-a.Y)/(b.Y-a.Y)+a.X {
			in = !in
		}
	}
	return in
}

// drawBar draws p's colour bar in bar, its bar exactly as tall as the
// data area of the plot drawn in tile.
func drawBar(p *Panel, tile, bar draw.Canvas) {
	bp := gplot.New()
	bp.HideX()
	bp.Y.Label.Text = p.Bar.Label
	bp.Y.Label.TextStyle.Font.Size = labelSize
	bp.Y.Label.TextStyle.Handler = handler
	bp.Y.Tick.Label.Font.Size = tickSize
	bp.Y.Tick.Label.Handler = handler
	bp.Y.Tick.Marker = zeroTicks{} // every tick labelled, as the panels' axes
	bp.Add(&plotter.ColorBar{ColorMap: p.Bar.Map, Vertical: true})
	bp.Y.Min, bp.Y.Max = p.Bar.Map.Min(), p.Bar.Map.Max()
	want := p.DataCanvas(tile)
	bar.Min.X += vg.Points(legendGap)
	bar.Max.X -= vg.Points(legendGap)
	got := bp.DataCanvas(bar)
	bar.Min.Y += want.Min.Y - got.Min.Y
	bar.Max.Y += want.Max.Y - got.Max.Y
	bp.Draw(bar)
}

// fitText returns txt and sty fitted to width: unchanged if it fits on
// one line; on one line in a font at most minShrink smaller if that fits
// (a second line would take the height a legend above the data needs);
// else broken into lines at the first ": " (a name and what the figure
// shows), or else at spaces, greedily, as fits; and with the font shrunk
// as far as needed if a line still does not fit (a word wider than
// width).
func fitText(txt string, sty text.Style, width vg.Length) (string, text.Style) {
	w := sty.Width(txt)
	if width <= 0 || w <= width {
		return txt, sty
	}
	if f := width / w; f >= minShrink {
		sty.Font.Size *= f
		return txt, sty
	}
	var lines []string
	if head, tail, ok := strings.Cut(txt, ": "); ok && sty.Width(head+":") <= width && sty.Width(tail) <= width {
		lines = []string{head + ":", tail}
	} else {
		for _, w := range strings.Fields(txt) {
			if n := len(lines); n > 0 && sty.Width(lines[n-1]+" "+w) <= width {
				lines[n-1] += " " + w
			} else {
				lines = append(lines, w)
			}
		}
	}
	out := strings.Join(lines, "\n")
	if w := sty.Width(out); w > width {
		sty.Font.Size *= width / w
	}
	return out, sty
}
