package plot

import (
	"fmt"
	"image/color"
	"path/filepath"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// Series is one curve: Mean[k] ± Std[k] at X[k].
type Series struct {
	Label string
	X     []float64
	Mean  []float64
	Std   []float64 // nil for no band
}

// Palette is Tableau's ten colours: distinct, and readable by most colour-
// blind readers.
var Palette = []color.NRGBA{
	{31, 119, 180, 255}, {255, 127, 14, 255}, {44, 160, 44, 255}, {214, 39, 40, 255},
	{148, 103, 189, 255}, {140, 86, 75, 255}, {227, 119, 194, 255}, {127, 127, 127, 255},
	{188, 189, 34, 255}, {23, 190, 207, 255},
}

// Bands returns a figure with one line per series and a translucent band
// of ±1 standard deviation around it.
func Bands(title, xLabel, yLabel string, series []Series) (*gplot.Plot, error) {
	p := gplot.New()
	p.Title.Text = title
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	p.Legend.Top = true
	p.Add(plotter.NewGrid())
	for i, s := range series {
		if len(s.X) != len(s.Mean) || (s.Std != nil && len(s.Std) != len(s.Mean)) {
			return nil, fmt.Errorf("plot: series %q: %d x values, %d means, %d stds", s.Label, len(s.X), len(s.Mean), len(s.Std))
		}
		c := Palette[i%len(Palette)]
		if s.Std != nil && len(s.X) > 0 {
			ring := make(plotter.XYs, 0, 2*len(s.X))
			for k := range s.X {
				ring = append(ring, plotter.XY{X: s.X[k], Y: s.Mean[k] + s.Std[k]})
			}
			for k := len(s.X) - 1; k >= 0; k-- {
				ring = append(ring, plotter.XY{X: s.X[k], Y: s.Mean[k] - s.Std[k]})
			}
			band, err := plotter.NewPolygon(ring)
			if err != nil {
				return nil, fmt.Errorf("plot: series %q: %w", s.Label, err)
			}
			band.Color = color.NRGBA{c.R, c.G, c.B, 50}
			band.LineStyle.Width = 0
			p.Add(band)
		}
		pts := make(plotter.XYs, len(s.X))
		for k := range s.X {
			pts[k] = plotter.XY{X: s.X[k], Y: s.Mean[k]}
		}
		line, err := plotter.NewLine(pts)
		if err != nil {
			return nil, fmt.Errorf("plot: series %q: %w", s.Label, err)
		}
		line.Color = c
		line.Width = vg.Points(1.5)
		p.Add(line)
		p.Legend.Add(s.Label, line)
	}
	return p, nil
}

// Save writes p as dir/base.png and dir/base.svg, 6×4 inches.
func Save(p *gplot.Plot, dir, base string) error {
	for _, ext := range []string{".png", ".svg"} {
		if err := p.Save(6*vg.Inch, 4*vg.Inch, filepath.Join(dir, base+ext)); err != nil {
			return fmt.Errorf("save figure %s%s: %w", base, ext, err)
		}
	}
	return nil
}
