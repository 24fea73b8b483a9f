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
	drawn, err := seriesStyles(series)
	if err != nil {
		return nil, err
	}
	// Every band first, then every line: gonum draws in the order of
	// Add, and a translucent band drawn after another series' line would
	// veil it.
	for i := range series {
		s := &series[i]
		if s.Std == nil || len(s.X) == 0 {
			continue
		}
		band, err := s.band(drawn[i].Color)
		if err != nil {
			return nil, err
		}
		p.Add(band)
	}
	for i := range series {
		if err := p.addLine(&series[i], drawn[i]); err != nil {
			return nil, err
		}
	}
	// Rounds and evaluations count from 1: such an axis starts at 0, where
	// its first tick then goes.
	if p.X.Min > 0 && p.X.Min <= max(1, 0.02*p.X.Max) {
		p.X.Min = 0
	}
	return p, nil
}

// seriesStyles checks each series' lengths and returns the style it is
// drawn in: its label's (Styles), or its own Style, Color and Dashed.
func seriesStyles(series []Series) ([]Style, error) {
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
	return drawn, nil
}

// band is the series' translucent band of ±Std around its mean, clipped
// to Lo and Hi where given, in a light tint of c.
func (s *Series) band(c color.NRGBA) (*plotter.Polygon, error) {
	ring := make(plotter.XYs, 0, 2*len(s.X))
	for k := range s.X {
		ring = append(ring, plotter.XY{X: s.X[k], Y: s.clip(s.Mean[k]+s.Std[k], k)})
	}
	for k := len(s.X) - 1; k >= 0; k-- {
		ring = append(ring, plotter.XY{X: s.X[k], Y: s.clip(s.Mean[k]-s.Std[k], k)})
	}
	band, err := plotter.NewPolygon(ring)
	if err != nil {
		return nil, fmt.Errorf("plot: series %q: %w", s.Label, err)
	}
	band.Color = color.NRGBA{c.R, c.G, c.B, 50}
	band.LineStyle.Width = 0
	return band, nil
}

// clip bounds v, the band's edge at point k, by Lo[k] and Hi[k] where
// given.
func (s *Series) clip(v float64, k int) float64 {
	if s.Lo != nil {
		v = max(v, s.Lo[k])
	}
	if s.Hi != nil {
		v = min(v, s.Hi[k])
	}
	return v
}

// addLine adds the series' mean as a line in style st, with a legend
// entry unless unlabelled or NoLegend, and records the style drawn.
func (p *Panel) addLine(s *Series, st Style) error {
	pts := make(plotter.XYs, len(s.X))
	for k := range s.X {
		pts[k] = plotter.XY{X: s.X[k], Y: s.Mean[k]}
	}
	line, err := plotter.NewLine(pts)
	if err != nil {
		return fmt.Errorf("plot: series %q: %w", s.Label, err)
	}
	line.Color = st.Color
	line.Width = vg.Points(1.5)
	line.Dashes = st.Dashes
	p.Add(line)
	if s.Label != "" && !s.NoLegend {
		p.AddLegend(s.Label, line)
	}
	if p.drawn == nil {
		p.drawn = map[string]Style{}
	}
	p.drawn[s.Label] = st
	return nil
}
