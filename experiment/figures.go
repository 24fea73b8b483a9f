package experiment

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/safegp/safegp/plot"
)

// ErrBand is ParseBand's error for a name it does not know.
var ErrBand = errors.New("unknown band")

// Band is the spread drawn around each mean curve of a run's figure.
type Band int

const (
	// BandSE is ±1 standard error of the mean over realizations (the
	// sample standard deviation over √n): how well the mean is known.
	BandSE Band = iota
	// BandStd is ±1 sample standard deviation over realizations: how
	// much one realization varies (the paper's Figs. 6–8).
	BandStd
	// BandNone draws the means only (the paper's Fig. 2).
	BandNone
)

// ParseBand reads "se", "std" or "none".
func ParseBand(s string) (Band, error) {
	switch s {
	case "se":
		return BandSE, nil
	case "std":
		return BandStd, nil
	case "none":
		return BandNone, nil
	}
	return 0, fmt.Errorf("band %q: %w (want std, se or none)", s, ErrBand)
}

func (b Band) String() string {
	switch b {
	case BandStd:
		return "std"
	case BandNone:
		return "none"
	}
	return "se"
}

// Describe says what a figure with this band over n realizations shows,
// for its title: "mean ± 1 SE over 30 realizations" (SE: standard error;
// short, so that a title with the configuration's name fits one panel).
func (b Band) Describe(n int) string {
	switch b {
	case BandStd:
		return fmt.Sprintf("mean ± 1 std over %d realizations", n)
	case BandNone:
		return fmt.Sprintf("mean over %d realizations", n)
	}
	return fmt.Sprintf("mean ± 1 SE over %d realizations", n)
}

// spread turns a per-round sample standard deviation (std) or standard
// error (se; exactly one is set) over n realizations into the band b
// draws; nil for none. SE = std/√n.
func (b Band) spread(std, se []float64, n int) []float64 {
	if b == BandNone || (std == nil && se == nil) {
		return nil
	}
	out := make([]float64, max(len(std), len(se)))
	rn := math.Sqrt(float64(n))
	for t := range out {
		switch {
		case std != nil && b == BandStd:
			out[t] = std[t]
		case std != nil:
			out[t] = std[t] / rn
		case b == BandSE:
			out[t] = se[t]
		default:
			out[t] = se[t] * rn
		}
	}
	return out
}

// RegretFigureBand returns the figures function of `safegp run`:
// regret.png/.svg with the mean R_t/t per label and the chosen band over
// n realizations (for a benchmark function, the best safe value, the
// simple regret and the violations). title should state the band
// (Band.Describe).
func RegretFigureBand(title string, band Band, n int) func(tmp string, curves []Curve) error {
	return func(tmp string, curves []Curve) error {
		fig, err := regretFigure(title, band, n, curves)
		if err != nil {
			return err
		}
		return fig.Save(tmp, "regret")
	}
}

// regretFigure draws what RegretFigureBand saves.
func regretFigure(title string, band Band, n int, curves []Curve) (plot.Figure, error) {
	if len(curves) > 0 && curves[0].Function {
		return functionFigure(title, band, n, curves)
	}
	var s []plot.Series
	for _, c := range curves {
		x := make([]float64, len(c.MeanAvg))
		for t := range x {
			x[t] = float64(t + 1)
		}
		s = append(s, plot.Series{Label: c.Label, X: x, Mean: c.MeanAvg, Std: band.spread(c.StdAvg, nil, n), Lo: c.MinAvg, Hi: c.MaxAvg})
	}
	p, err := plot.Bands(title, "round $t$", "average regret $R_t/t$", s)
	if err != nil {
		return plot.Figure{}, err
	}
	plot.ShareY(true, p) // regret is ≥ 0: the axis starts at 0
	return plot.Figure{Panels: []*plot.Panel{p}}, nil
}

// functionFigure draws a benchmark function's figure: side by side, the
// best safe value — or, with f* known, the share of the way from the seeds
// to f* (Curve.MeanShare), which stays comparable across realizations
// with different f* — the simple regret (with f* known) and the mean
// violations against evaluations, under one title and one legend. The
// panels show different quantities, so each keeps its own y axis; the
// regret and the violations start at 0.
func functionFigure(title string, band Band, n int, curves []Curve) (plot.Figure, error) {
	series := func(mean, se func(c Curve) []float64) []plot.Series {
		var s []plot.Series
		for _, c := range curves {
			m := mean(c)
			if m == nil {
				return nil
			}
			x := make([]float64, len(m))
			for t := range x {
				x[t] = float64(t + 1)
			}
			s = append(s, plot.Series{Label: c.Label, X: x, Mean: m, Std: band.spread(nil, se(c), n)})
		}
		return s
	}
	none := func(Curve) []float64 { return nil }
	panels := []struct {
		y      string
		mean   func(Curve) []float64
		spread func(Curve) []float64
		zero   bool
	}{
		{"best safe value", func(c Curve) []float64 { return c.MeanBest }, func(c Curve) []float64 { return c.SEBest }, false},
		{"simple regret f* − best safe", func(c Curve) []float64 { return c.MeanSimple }, func(c Curve) []float64 { return c.SESimple }, true},
		{"violations so far (mean)", func(c Curve) []float64 { return c.Violations }, none, true},
	}
	if !slices.ContainsFunc(curves, func(c Curve) bool { return c.MeanShare == nil }) {
		panels[0].y = "share of the way to f*"
		panels[0].mean = func(c Curve) []float64 { return c.MeanShare }
		panels[0].spread = func(c Curve) []float64 { return c.SEShare }
	}
	fig := plot.Figure{Title: title, SharedLegend: true}
	for _, pn := range panels {
		s := series(pn.mean, pn.spread)
		if s == nil {
			continue
		}
		p, err := plot.Bands("", "evaluations", pn.y, s)
		if err != nil {
			return plot.Figure{}, err
		}
		if pn.zero {
			plot.ShareY(true, p)
		}
		fig.Panels = append(fig.Panels, p)
	}
	return fig, nil
}
