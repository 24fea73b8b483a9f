package plot

import (
	"fmt"
	"image/color"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// Series is one curve: Mean[k] ± Std[k] at X[k].
type Series struct {
	Label string
	X     []float64
	Mean  []float64
	Std   []float64 // nil for no band
	// Style, if set, replaces the label's (StyleOf). Color, if set,
	// overrides the style's colour; Dashed draws the line dashed when
	// the style is solid.
	Style  *Style
	Color  color.NRGBA
	Dashed bool
	// NoLegend leaves the series out of the legend (a panel whose title
	// names its one series).
	NoLegend bool
	// Lo and Hi, if set, are the range of the data at each X (the
	// lowest and highest run): the band is clipped to it, so that a ±1
	// std band of a skewed quantity (a regret near 0) shows no value that
	// no run had.
	Lo, Hi []float64
}

// Bands returns a panel with one line per series, styled by its label
// (Styles), and a translucent band of ±Std around it where Std is set;
// the bands lie under every line.
func Bands(title, xLabel, yLabel string, series []Series) (*Panel, error) {
	p := NewPanel(title, xLabel, yLabel)
	labels := make([]string, len(series))
	for i, s := range series {
		labels[i] = s.Label
	}
	styles := Styles(labels)
	drawn := make([]Style, len(series))
	for i, s := range series {
		if len(s.X) != len(s.Mean) || (s.Std != nil && len(s.Std) != len(s.Mean)) || (s.Lo != nil && len(s.Lo) != len(s.Mean)) || (s.Hi != nil && len(s.Hi) != len(s.Mean)) {
			return nil, fmt.Errorf("plot: series %q: %d x values, %d means, %d stds, %d and %d bounds", s.Label, len(s.X), len(s.Mean), len(s.Std), len(s.Lo), len(s.Hi))
		}
		st := styles[i]
		if s.Style != nil {
			st = *s.Style
		}
		if s.Color != (color.NRGBA{}) {
			st.Color = s.Color
		}
		if s.Dashed && st.Dashes == nil {
			st.Dashes = variantDashes[0]
		}
		drawn[i] = st
	}
	// Every band first, then every line: gonum draws in the order of
	// Add, and a translucent band drawn after another series' line would
	// veil it.
	for i, s := range series {
		if s.Std == nil || len(s.X) == 0 {
			continue
		}
		clip := func(v float64, k int) float64 {
			if s.Lo != nil {
				v = max(v, s.Lo[k])
			}
			if s.Hi != nil {
				v = min(v, s.Hi[k])
			}
			return v
		}
		ring := make(plotter.XYs, 0, 2*len(s.X))
		for k := range s.X {
			ring = append(ring, plotter.XY{X: s.X[k], Y: clip(s.Mean[k]+s.Std[k], k)})
		}
		for k := len(s.X) - 1; k >= 0; k-- {
			ring = append(ring, plotter.XY{X: s.X[k], Y: clip(s.Mean[k]-s.Std[k], k)})
		}
		band, err := plotter.NewPolygon(ring)
		if err != nil {
			return nil, fmt.Errorf("plot: series %q: %w", s.Label, err)
		}
		c := drawn[i].Color
		band.Color = color.NRGBA{c.R, c.G, c.B, 50}
		band.LineStyle.Width = 0
		p.Add(band)
	}
	for i, s := range series {
		st := drawn[i]
		pts := make(plotter.XYs, len(s.X))
		for k := range s.X {
			pts[k] = plotter.XY{X: s.X[k], Y: s.Mean[k]}
		}
		line, err := plotter.NewLine(pts)
		if err != nil {
			return nil, fmt.Errorf("plot: series %q: %w", s.Label, err)
		}
		line.Color = st.Color
		line.Width = vg.Points(1.5)
		line.Dashes = st.Dashes
		p.Add(line)
		if s.Label != "" && !s.NoLegend {
			p.Legend.Add(s.Label, line)
		}
		if p.drawn == nil {
			p.drawn = map[string]Style{}
		}
		p.drawn[s.Label] = st
	}
	// Rounds and evaluations count from 1: such an axis starts at 0, where
	// its first tick then goes.
	if p.X.Min > 0 && p.X.Min <= max(1, 0.02*p.X.Max) {
		p.X.Min = 0
	}
	return p, nil
}
