package main

import (
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/safegp/safegp/bandit"
	"github.com/safegp/safegp/plot"
	"github.com/safegp/safegp/study/api"
)

// plotStudy draws a study's state: for a 1-D decision set, the posterior
// mean ± β½σ of f and of each g_i with the thresholds (h_f on f's
// panel when hf is not nil), the safe set and the observations; for 2-D,
// the posterior mean of f over the actions and the safe set with the
// observations. The safe set is the policy's, which counts f ≥ h_f.
func plotStudy(out, name string, x [][]float64, h []float64, hf *float64, obs []api.Observation, snap bandit.Snapshot) error {
	ext := strings.ToLower(filepath.Ext(out))
	if ext != ".png" && ext != ".svg" {
		return fmt.Errorf("--out %s: want a .png or .svg file", out)
	}
	var panels []*plot.Panel
	var err error
	switch len(x[0]) {
	case 1:
		panels, err = plot1D(name, x, h, hf, obs, snap)
	case 2:
		panels, err = plot2D(name, x, obs, snap)
	default:
		return fmt.Errorf("plot: only 1-D and 2-D decision sets can be drawn, this one is %d-D", len(x[0]))
	}
	if err != nil {
		return err
	}
	return savePanels(panels, out, ext)
}

func plot1D(name string, x [][]float64, h []float64, hf *float64, obs []api.Observation, snap bandit.Snapshot) ([]*plot.Panel, error) {
	order := make([]int, len(x))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return x[order[a]][0] < x[order[b]][0] })
	panel := func(title string, p bandit.Posterior, value func(o api.Observation) float64, threshold *float64) (*plot.Panel, error) {
		s := plot.Series{Label: "posterior mean ± β½σ", Color: plot.Palette[0]}
		for _, i := range order {
			s.X = append(s.X, x[i][0])
			s.Mean = append(s.Mean, p.Mean[i])
			s.Std = append(s.Std, snap.SqrtBeta*p.Std[i])
		}
		pl, err := plot.Bands(title, "x", "value", []plot.Series{s})
		if err != nil {
			return nil, err
		}
		lo := math.Inf(1)
		for k := range s.Mean {
			lo = math.Min(lo, s.Mean[k]-s.Std[k])
		}
		if threshold != nil {
			l, err := plotter.NewLine(plotter.XYs{{X: s.X[0], Y: *threshold}, {X: s.X[len(s.X)-1], Y: *threshold}})
			if err != nil {
				return nil, err
			}
			l.Color, l.Dashes = plot.Palette[3], []vg.Length{vg.Points(4), vg.Points(3)}
			pl.Add(l)
			pl.AddLegend("threshold h", l)
			lo = math.Min(lo, *threshold)
		}
		var safe plotter.XYs
		for _, i := range order {
			if snap.Safe[i] {
				safe = append(safe, plotter.XY{X: x[i][0], Y: lo})
			}
		}
		if len(safe) > 0 {
			sc, err := plotter.NewScatter(safe)
			if err != nil {
				return nil, err
			}
			sc.GlyphStyle = draw.GlyphStyle{Color: plot.Palette[2], Radius: vg.Points(1.5), Shape: draw.BoxGlyph{}}
			pl.Add(sc)
			pl.AddLegend("safe set", sc)
		}
		if len(obs) > 0 {
			pts := make(plotter.XYs, len(obs))
			for k, o := range obs {
				pts[k] = plotter.XY{X: o.X[0], Y: value(o)}
			}
			sc, err := plotter.NewScatter(pts)
			if err != nil {
				return nil, err
			}
			sc.GlyphStyle = draw.GlyphStyle{Color: color.Black, Radius: vg.Points(2), Shape: draw.CrossGlyph{}}
			pl.Add(sc)
			pl.AddLegend("observations", sc)
		}
		return pl, nil
	}
	fp, err := panel(name+": f", snap.F, func(o api.Observation) float64 { return o.F }, hf)
	if err != nil {
		return nil, err
	}
	panels := []*plot.Panel{fp}
	for i := range snap.G {
		hi := h[i]
		gp, err := panel(fmt.Sprintf("%s: g%d", name, i+1), snap.G[i], func(o api.Observation) float64 { return o.G[i] }, &hi)
		if err != nil {
			return nil, err
		}
		panels = append(panels, gp)
	}
	return panels, nil
}

func plot2D(name string, x [][]float64, obs []api.Observation, snap bandit.Snapshot) ([]*plot.Panel, error) {
	cmap := moreland.SmoothBlueRed()
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, m := range snap.F.Mean {
		lo, hi = math.Min(lo, m), math.Max(hi, m)
	}
	if hi <= lo {
		hi = lo + 1
	}
	cmap.SetMin(lo)
	cmap.SetMax(hi)
	mean := plot.NewPanel(name+": f over the actions", "x₁", "x₂")
	mean.Bar = &plot.ColorBar{Map: cmap, Label: "posterior mean of f"}
	for i, p := range x {
		c, err := cmap.At(snap.F.Mean[i])
		if err != nil {
			c = color.Gray{128}
		}
		sc, err := plotter.NewScatter(plotter.XYs{{X: p[0], Y: p[1]}})
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: c, Radius: vg.Points(3), Shape: draw.CircleGlyph{}}
		mean.Add(sc)
	}
	set := plot.NewPanel(name+": safe set and observations", "x₁", "x₂")
	var in, outside plotter.XYs
	for i, p := range x {
		if snap.Safe[i] {
			in = append(in, plotter.XY{X: p[0], Y: p[1]})
		} else {
			outside = append(outside, plotter.XY{X: p[0], Y: p[1]})
		}
	}
	add := func(pts plotter.XYs, c color.Color, shape draw.GlyphDrawer, r vg.Length, label string) error {
		if len(pts) == 0 {
			return nil
		}
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			return err
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: c, Radius: r, Shape: shape}
		set.Add(sc)
		set.AddLegend(label, sc)
		return nil
	}
	var seen plotter.XYs
	for _, o := range obs {
		seen = append(seen, plotter.XY{X: o.X[0], Y: o.X[1]})
	}
	for _, err := range []error{
		add(outside, color.Gray{190}, draw.CircleGlyph{}, vg.Points(2.5), "not (yet) safe"),
		add(in, plot.Palette[2], draw.CircleGlyph{}, vg.Points(3), "safe set"),
		add(seen, color.Black, draw.CrossGlyph{}, vg.Points(3), "observations"),
	} {
		if err != nil {
			return nil, err
		}
	}
	return []*plot.Panel{mean, set}, nil
}

// plotBox draws a box study's observations: for d ≤ 2 the observed points
// coloured by f (d = 1: f against x1), and for any d the best safe value
// against evaluations — the largest f among the observations so far not
// flagged as violations.
func plotBox(out, name string, obs []api.Observation) error {
	ext := strings.ToLower(filepath.Ext(out))
	if ext != ".png" && ext != ".svg" {
		return fmt.Errorf("--out %s: want a .png or .svg file", out)
	}
	if len(obs) == 0 {
		return fmt.Errorf("plot: study %s has no observations yet", name)
	}
	var panels []*plot.Panel
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, o := range obs {
		lo, hi = math.Min(lo, o.F), math.Max(hi, o.F)
	}
	if hi <= lo {
		hi = lo + 1
	}
	switch d := len(obs[0].X); d {
	case 1:
		p := plot.NewPanel(name+": observations", "x₁", "f")
		var pts plotter.XYs
		for _, o := range obs {
			pts = append(pts, plotter.XY{X: o.X[0], Y: o.F})
		}
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			return err
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: color.Black, Radius: vg.Points(3), Shape: draw.CrossGlyph{}}
		p.Add(sc)
		panels = append(panels, p)
	case 2:
		cmap := moreland.SmoothBlueRed()
		cmap.SetMin(lo)
		cmap.SetMax(hi)
		p := plot.NewPanel(name+": observations coloured by f", "x₁", "x₂")
		p.Bar = &plot.ColorBar{Map: cmap, Label: "f observed"}
		for _, o := range obs {
			c, err := cmap.At(o.F)
			if err != nil {
				c = color.Gray{128}
			}
			sc, err := plotter.NewScatter(plotter.XYs{{X: o.X[0], Y: o.X[1]}})
			if err != nil {
				return err
			}
			sc.GlyphStyle = draw.GlyphStyle{Color: c, Radius: vg.Points(3), Shape: draw.CircleGlyph{}}
			p.Add(sc)
		}
		panels = append(panels, p)
	}
	best := plot.NewPanel(name+": best safe value", "evaluations", "best f measured safe")
	var pts plotter.XYs
	b := math.Inf(-1)
	for k, o := range obs {
		if !o.Violation {
			b = math.Max(b, o.F)
		}
		if !math.IsInf(b, -1) {
			pts = append(pts, plotter.XY{X: float64(k + 1), Y: b})
		}
	}
	if len(pts) > 0 {
		l, err := plotter.NewLine(pts)
		if err != nil {
			return err
		}
		best.Add(l)
	}
	panels = append(panels, best)
	return savePanels(panels, out, ext)
}

// savePanels writes panels in a row to out (format ext), through a
// temporary folder beside it, so that out appears whole or not at all.
func savePanels(panels []*plot.Panel, out, ext string) error {
	dir, err := os.MkdirTemp(filepath.Dir(out), ".safegp-plot-*")
	if err != nil {
		return fmt.Errorf("plot: %w", err)
	}
	defer os.RemoveAll(dir)
	// The panels' legends under them, in columns: beside a heat map's
	// colour bar a legend at the right took most of a panel's width.
	if err := (plot.Figure{Panels: panels, LegendBelow: true}).Save(dir, "fig"); err != nil {
		return err
	}
	return os.Rename(filepath.Join(dir, "fig"+ext), out)
}
