package safety

import (
	"fmt"
	"math"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/safegp/safegp/plot"
)

// Figure draws safety.png and safety.svg into dir: per scenario and
// algorithm, a point with its interval — the share of runs with a
// violation with its 95 % Wilson interval, the mean regret R_T/T ± its
// standard error — the algorithms side by side within each scenario,
// nothing joining the scenarios (they are categories, not a sequence),
// under one legend outside the data (issue 44, item 3).
func Figure(dir string, results []Result) error {
	return figure(dir, results, figureText{
		name: "safety", title: "safety when the model is wrong", x: "scenario",
		regret: "regret, mean ± 1 SE", regretY: "regret $R_T/T$",
	})
}

// figureText is what a figure of Results says: its file name, title,
// x axis and right panel.
type figureText struct {
	name, title, x, regret, regretY string
}

func figure(dir string, results []Result, txt figureText) error {
	ls := labels(results)
	ticks := make([]gplot.Tick, len(results))
	for i, r := range results {
		ticks[i] = gplot.Tick{Value: float64(i + 1), Label: r.Short}
	}
	left := plot.NewPanel("share of runs with a violation, 95 % interval", txt.x, "share of runs")
	right := plot.NewPanel(txt.regret, txt.x, txt.regretY)
	// Each algorithm's place within a scenario's slot of width 1.
	width := 0.7
	for k, l := range ls {
		off := -width/2 + width*(float64(k)+0.5)/float64(len(ls))
		var sp, rp plotter.XYs
		var se, re []yErr
		for i := range results {
			row := results[i].find(l)
			if row == nil {
				continue
			}
			x := float64(i+1) + off
			p, lo, hi := wilson(row.Violating, row.Runs)
			sp = append(sp, plotter.XY{X: x, Y: p})
			se = append(se, yErr{Low: p - lo, High: hi - p})
			rp = append(rp, plotter.XY{X: x, Y: row.Regret})
			re = append(re, yErr{Low: row.RegretSE, High: row.RegretSE})
		}
		st := plot.StyleOf(l)
		for _, c := range []struct {
			p   *plot.Panel
			pts plotter.XYs
			err []yErr
		}{{left, sp, se}, {right, rp, re}} {
			if len(c.pts) == 0 {
				continue
			}
			if err := pointsWithErrors(c.p, l, st, k, c.pts, c.err); err != nil {
				return fmt.Errorf("safety: figure: %w", err)
			}
		}
	}
	for _, p := range []*plot.Panel{left, right} {
		p.X.Tick.Marker = gplot.ConstantTicks(ticks)
		p.X.Min, p.X.Max = 0.5, float64(len(results))+0.5
		// Seven names side by side do not fit a panel's width: slanted.
		p.X.Tick.Label.Rotation = math.Pi / 4
		p.X.Tick.Label.XAlign, p.X.Tick.Label.YAlign = draw.XRight, draw.YCenter
	}
	plot.ShareY(true, left)
	plot.ShareY(true, right)
	// The legend of 12 algorithms in columns under the panels: at their
	// right it took a quarter of the figure's width from the data.
	fig := plot.Figure{Title: txt.title, Panels: []*plot.Panel{left, right}, SharedLegend: true, LegendBelow: true}
	if err := fig.Save(dir, txt.name); err != nil {
		return fmt.Errorf("safety: figure: %w", err)
	}
	return nil
}

// glyphs tell the algorithms apart beside their colours (an ablation
// shares its algorithm's colour).
var glyphs = []draw.GlyphDrawer{draw.CircleGlyph{}, draw.BoxGlyph{}, draw.TriangleGlyph{}, draw.PyramidGlyph{}, draw.RingGlyph{}, draw.SquareGlyph{}, draw.CrossGlyph{}, draw.PlusGlyph{}}

// pointsWithErrors adds label's points and their error bars to p, in its
// style st and the k-th glyph, with one legend entry.
func pointsWithErrors(p *plot.Panel, label string, st plot.Style, k int, pts plotter.XYs, errs []yErr) error {
	bars, err := plotter.NewYErrorBars(yErrors{pts, errs})
	if err != nil {
		return err
	}
	bars.LineStyle.Color = st.Color
	bars.LineStyle.Width = vg.Points(0.8)
	bars.CapWidth = vg.Points(3)
	sc, err := plotter.NewScatter(pts)
	if err != nil {
		return err
	}
	// (k + k/8) mod 8: the ninth label, whose colour may repeat the first's
	// (a palette of ten), takes another glyph.
	sc.GlyphStyle = draw.GlyphStyle{Color: st.Color, Radius: vg.Points(2.2), Shape: glyphs[(k+k/len(glyphs))%len(glyphs)]}
	p.Add(bars, sc)
	p.AddLegend(label, sc)
	return nil
}

// yErrors is points with asymmetric errors, as plotter.NewYErrorBars
// reads them.
type yErrors struct {
	plotter.XYs
	errs []yErr
}

func (e yErrors) YError(i int) (float64, float64) { return e.errs[i].Low, e.errs[i].High }

// wilson is the share k/n with its 95 % Wilson score interval (E. B.
// Wilson, JASA 1927): unlike p ± 1.96·√(p(1−p)/n) it stays in [0, 1] and
// is not empty at 0 or n of n.
func wilson(k, n int) (p, lo, hi float64) {
	if n == 0 {
		return 0, 0, 0
	}
	const z = 1.959963984540054
	p = float64(k) / float64(n)
	nf := float64(n)
	den := 1 + z*z/nf
	mid := (p + z*z/(2*nf)) / den
	half := z * math.Sqrt(p*(1-p)/nf+z*z/(4*nf*nf)) / den
	return p, max(0, mid-half), min(1, mid+half)
}

// yErr is one point's error below and above it.
type yErr struct{ Low, High float64 }
