package plot

import (
	"fmt"
	"image/color"
	"os"
	"path/filepath"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Series is one curve: Mean[k] ± Std[k] at X[k].
type Series struct {
	Label  string
	X      []float64
	Mean   []float64
	Std    []float64   // nil for no band
	Color  color.NRGBA // zero: the next palette colour
	Dashed bool
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
		c := s.Color
		if c == (color.NRGBA{}) {
			c = Palette[i%len(Palette)]
		}
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
		if s.Dashed {
			line.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
		}
		p.Add(line)
		p.Legend.Add(s.Label, line)
	}
	return p, nil
}

// Save writes p as dir/base.png and dir/base.svg, 6×4 inches.
func Save(p *gplot.Plot, dir, base string) error {
	return SaveRow([]*gplot.Plot{p}, dir, base)
}

// SaveRow writes plots side by side, 6×4 inches each, as dir/base.png and
// dir/base.svg.
func SaveRow(ps []*gplot.Plot, dir, base string) error {
	w, h := vg.Length(len(ps))*6*vg.Inch, 4*vg.Inch
	for _, ext := range []string{".png", ".svg"} {
		var c vg.CanvasWriterTo
		if ext == ".png" {
			c = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(96))}
		} else {
			c = vgsvg.New(w, h)
		}
		dc := draw.New(c)
		tiles := draw.Tiles{Rows: 1, Cols: len(ps), PadX: vg.Millimeter * 6, PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 4}
		canvases := gplot.Align([][]*gplot.Plot{ps}, tiles, dc)
		for j, p := range ps {
			p.Draw(canvases[0][j])
		}
		f, err := os.Create(filepath.Join(dir, base+ext))
		if err != nil {
			return fmt.Errorf("save figure %s%s: %w", base, ext, err)
		}
		_, err = c.WriteTo(f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("save figure %s%s: %w", base, ext, err)
		}
	}
	return nil
}
