package main

import (
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"sort"
	"strings"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/safegp/safegp/plot"
	"github.com/safegp/safegp/space"
	"github.com/safegp/safegp/study/view"
)

// plotNamed draws a study stated in parameters in its user's units
// (issue 44, item 1): its numeric parameters by name on their own scales
// (log axes for log ones), each outcome as measured — a minimized
// objective drawn as minimized, limits as lines — the safe set, the
// trials, violations and failures marked. With choices, the candidates of
// the best safe trial's choice values (else the first candidate's) are
// drawn, and the title says which.
func plotNamed(out, name string, d *view.Plot) error {
	ext := strings.ToLower(filepath.Ext(out))
	if ext != ".png" && ext != ".svg" {
		return fmt.Errorf("--out %s: want a .png or .svg file", out)
	}
	if d.Settings == nil {
		return plotNamedBox(out, ext, name, d)
	}
	var num []space.Param
	var choices []space.Param
	for _, p := range d.Params {
		if p.Type == space.Choice {
			choices = append(choices, p)
		} else {
			num = append(num, p)
		}
	}
	// The candidates drawn: those of one combination of choice values.
	fixed := space.Setting{}
	if len(choices) > 0 {
		at := d.Settings[0]
		best := math.Inf(1)
		ob := d.Outcomes[0]
		for _, t := range d.Trials {
			if t.Failed || t.Violation {
				continue
			}
			v := t.Values[ob.Name]
			if ob.Goal == space.Maximize {
				v = -v
			}
			if v < best {
				best, at = v, t.Setting
			}
		}
		for _, c := range choices {
			fixed[c.Name] = at[c.Name]
		}
	}
	var idx []int
	for i, s := range d.Settings {
		if matches(s, fixed) {
			idx = append(idx, i)
		}
	}
	var trials []view.Trial
	for _, t := range d.Trials {
		if matches(t.Setting, fixed) {
			trials = append(trials, t)
		}
	}
	title := name
	if len(fixed) > 0 {
		var parts []string
		for _, c := range choices {
			parts = append(parts, fmt.Sprintf("%s = %s", c.Name, fixed[c.Name].String()))
		}
		title += " (" + strings.Join(parts, ", ") + ")"
	}
	var panels []*plot.Panel
	var err error
	switch len(num) {
	case 1:
		panels, err = plotNamed1D(title, num[0], d, idx, trials)
	case 2:
		panels, err = plotNamed2D(title, num, d, idx, trials)
	default:
		return fmt.Errorf("plot: a study of %d numeric parameters has no map to draw (its dashboard draws every pair)", len(num))
	}
	if err != nil {
		return err
	}
	return savePanels(panels, out, ext)
}

// matches reports whether setting s has the values fixed gives.
func matches(s, fixed space.Setting) bool {
	for k, v := range fixed {
		if s[k].String() != v.String() {
			return false
		}
	}
	return true
}

// axisLabel is a parameter's or an outcome's name with its unit.
func axisLabel(name, unit string) string {
	if unit == "" {
		return name
	}
	return name + " (" + unit + ")"
}

// logAxis puts a log scale and its ticks (…, 0.1, 1, 10, …) on a.
func logAxis(a *gplot.Axis) {
	a.Scale = gplot.LogScale{}
	a.Tick.Marker = gplot.LogTicks{Prec: -1}
}

func plotNamed1D(title string, p space.Param, d *view.Plot, idx []int, trials []view.Trial) ([]*plot.Panel, error) {
	sort.Slice(idx, func(a, b int) bool { return d.Settings[idx[a]][p.Name].Num < d.Settings[idx[b]][p.Name].Num })
	var panels []*plot.Panel
	for k, o := range d.Outcomes {
		s := plot.Series{Label: "posterior mean ± β½σ", Color: plot.Palette[0]}
		for _, i := range idx {
			s.X = append(s.X, d.Settings[i][p.Name].Num)
			s.Mean = append(s.Mean, o.Mean[i])
			s.Std = append(s.Std, o.Band[i])
		}
		what := "constraint"
		if k == 0 {
			what = o.Goal
		}
		pl, err := plot.Bands(fmt.Sprintf("%s: %s (%s)", title, o.Name, what), axisLabel(p.Name, p.Unit), axisLabel(o.Name, o.Unit), []plot.Series{s})
		if err != nil {
			return nil, err
		}
		if p.Scale == "log" {
			// Bands starts an axis of rounds at 0, which a log axis cannot show.
			logAxis(&pl.X)
			pl.X.Min, pl.X.Max = s.X[0], s.X[len(s.X)-1]
		}
		for _, lim := range []*float64{o.Min, o.Max} {
			if lim == nil {
				continue
			}
			l, err := plotter.NewLine(plotter.XYs{{X: s.X[0], Y: *lim}, {X: s.X[len(s.X)-1], Y: *lim}})
			if err != nil {
				return nil, err
			}
			l.Color, l.Dashes = plot.Palette[3], []vg.Length{vg.Points(4), vg.Points(3)}
			pl.Add(l)
			pl.AddLegend("limit", l)
		}
		var ok, bad plotter.XYs
		for _, t := range trials {
			if t.Failed {
				continue
			}
			pt := plotter.XY{X: t.Setting[p.Name].Num, Y: t.Values[o.Name]}
			if t.Violation {
				bad = append(bad, pt)
			} else {
				ok = append(ok, pt)
			}
		}
		if err := addPoints(pl, ok, color.Black, draw.CrossGlyph{}, "trials"); err != nil {
			return nil, err
		}
		if err := addPoints(pl, bad, plot.Palette[3], draw.CircleGlyph{}, "broke a limit"); err != nil {
			return nil, err
		}
		panels = append(panels, pl)
	}
	return panels, nil
}

func plotNamed2D(title string, num []space.Param, d *view.Plot, idx []int, trials []view.Trial) ([]*plot.Panel, error) {
	px, py := num[0], num[1]
	ob := d.Outcomes[0]
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, i := range idx {
		lo, hi = math.Min(lo, ob.Mean[i]), math.Max(hi, ob.Mean[i])
	}
	if !(hi > lo) {
		hi = lo + 1
	}
	cmap := moreland.SmoothBlueRed()
	cmap.SetMin(lo)
	cmap.SetMax(hi)
	axes := func(pl *plot.Panel) {
		if px.Scale == "log" {
			logAxis(&pl.X)
		}
		if py.Scale == "log" {
			logAxis(&pl.Y)
		}
	}
	xl, yl := axisLabel(px.Name, px.Unit), axisLabel(py.Name, py.Unit)
	mean := plot.NewPanel(fmt.Sprintf("%s: %s (%s), posterior mean", title, ob.Name, ob.Goal), xl, yl)
	mean.Bar = &plot.ColorBar{Map: cmap, Label: axisLabel(ob.Name, ob.Unit)}
	axes(mean)
	for _, i := range idx {
		c, err := cmap.At(ob.Mean[i])
		if err != nil {
			c = color.Gray{128}
		}
		s := d.Settings[i]
		sc, err := plotter.NewScatter(plotter.XYs{{X: s[px.Name].Num, Y: s[py.Name].Num}})
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: c, Radius: vg.Points(2), Shape: draw.BoxGlyph{}}
		mean.Add(sc)
	}
	set := plot.NewPanel(title+": safe set and trials", xl, yl)
	axes(set)
	var in, outside, ok, bad, failed plotter.XYs
	for _, i := range idx {
		s := d.Settings[i]
		pt := plotter.XY{X: s[px.Name].Num, Y: s[py.Name].Num}
		if d.Safe[i] {
			in = append(in, pt)
		} else {
			outside = append(outside, pt)
		}
	}
	for _, t := range trials {
		pt := plotter.XY{X: t.Setting[px.Name].Num, Y: t.Setting[py.Name].Num}
		switch {
		case t.Failed:
			failed = append(failed, pt)
		case t.Violation:
			bad = append(bad, pt)
		default:
			ok = append(ok, pt)
		}
	}
	for _, err := range []error{
		addPoints(set, outside, color.Gray{200}, draw.CircleGlyph{}, "not (yet) safe"),
		addPoints(set, in, plot.Palette[2], draw.CircleGlyph{}, "safe: every limit's lower bound holds"),
		addPoints(set, ok, color.Black, draw.CrossGlyph{}, "trials"),
		addPoints(set, bad, plot.Palette[3], draw.CircleGlyph{}, "broke a limit"),
		addPoints(set, failed, plot.Palette[1], draw.PyramidGlyph{}, "failed"),
	} {
		if err != nil {
			return nil, err
		}
	}
	return []*plot.Panel{mean, set}, nil
}

// addPoints adds pts to p as glyphs of colour c and shape, with a legend
// entry label; nothing for no points.
func addPoints(p *plot.Panel, pts plotter.XYs, c color.Color, shape draw.GlyphDrawer, label string) error {
	if len(pts) == 0 {
		return nil
	}
	sc, err := plotter.NewScatter(pts)
	if err != nil {
		return err
	}
	sc.GlyphStyle = draw.GlyphStyle{Color: c, Radius: vg.Points(2.5), Shape: shape}
	p.Add(sc)
	p.AddLegend(label, sc)
	return nil
}

// plotNamedBox draws a box study stated in parameters (three or more
// numeric ones), whose candidates change at every trial: the best safe
// objective value against the trials, as measured (a minimized objective
// as minimized), and the trials in parallel coordinates, each parameter
// an axis from its low to its high on its own scale, a line per trial
// coloured by its objective, violations red, failures grey and dashed.
func plotNamedBox(out, ext, name string, d *view.Plot) error {
	if len(d.Trials) == 0 {
		return fmt.Errorf("plot: study %s has no trials yet", name)
	}
	ob := d.Outcomes[0]
	better := func(a, b float64) bool { return a < b }
	if ob.Goal == space.Maximize {
		better = func(a, b float64) bool { return a > b }
	}
	best := plot.NewPanel(fmt.Sprintf("%s: best safe %s (%s)", name, ob.Name, ob.Goal), "trial", axisLabel(ob.Name, ob.Unit))
	var pts plotter.XYs
	have, b := false, 0.0
	lo, hi := math.Inf(1), math.Inf(-1)
	for k, t := range d.Trials {
		if !t.Failed {
			v := t.Values[ob.Name]
			lo, hi = math.Min(lo, v), math.Max(hi, v)
			if !t.Violation && (!have || better(v, b)) {
				have, b = true, v
			}
		}
		if have {
			pts = append(pts, plotter.XY{X: float64(k), Y: b})
		}
	}
	if len(pts) > 0 {
		l, err := plotter.NewLine(pts)
		if err != nil {
			return err
		}
		l.Color, l.Width = plot.Palette[0], vg.Points(1.5)
		best.Add(l)
	}
	if !(hi > lo) {
		hi = lo + 1
	}
	cmap := moreland.SmoothBlueRed()
	cmap.SetMin(lo)
	cmap.SetMax(hi)
	par := plot.NewPanel(name+": trials in parallel coordinates", "parameter", "low … high on its scale")
	par.Bar = &plot.ColorBar{Map: cmap, Label: axisLabel(ob.Name, ob.Unit)}
	ticks := make([]gplot.Tick, len(d.Params))
	for j, p := range d.Params {
		ticks[j] = gplot.Tick{Value: float64(j), Label: p.Name}
	}
	par.X.Tick.Marker = gplot.ConstantTicks(ticks)
	par.X.Min, par.X.Max = -0.2, float64(len(d.Params)-1)+0.2
	par.Y.Min, par.Y.Max = 0, 1
	for _, t := range d.Trials {
		var line plotter.XYs
		for j, p := range d.Params {
			line = append(line, plotter.XY{X: float64(j), Y: onScale(p, t.Setting[p.Name])})
		}
		l, err := plotter.NewLine(line)
		if err != nil {
			return err
		}
		switch {
		case t.Failed:
			l.Color, l.Dashes = color.Gray{150}, []vg.Length{vg.Points(3), vg.Points(2)}
		case t.Violation:
			l.Color = plot.Palette[3]
		default:
			if c, err := cmap.At(t.Values[ob.Name]); err == nil {
				l.Color = c
			}
		}
		l.Width = vg.Points(0.8)
		par.Add(l)
	}
	return savePanels([]*plot.Panel{best, par}, out, ext)
}

// onScale is v's place in [0, 1] along parameter p: from its low to its
// high, on a log scale for a log parameter; a choice's value by its index.
func onScale(p space.Param, v space.Value) float64 {
	if p.Type == space.Choice {
		if len(p.Values) < 2 {
			return 0.5
		}
		for k, c := range p.Values {
			if c == v.String() {
				return float64(k) / float64(len(p.Values)-1)
			}
		}
		return 0
	}
	lo, hi, x := *p.Low, *p.High, v.Num
	if p.Scale == "log" {
		lo, hi, x = math.Log(lo), math.Log(hi), math.Log(x)
	}
	if !(hi > lo) {
		return 0.5
	}
	return (x - lo) / (hi - lo)
}
