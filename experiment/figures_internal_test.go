package experiment

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// TestBandChoice: std, se and none change the band drawn around the mean
// (and so the y range the figure needs) and the title that states it.
// Closed form: over n = 9 realizations, a sample std of 0.3 is a
// standard error of 0.3/√9 = 0.1; a benchmark function's curve holds the
// SE, 0.1, whose std is 0.3.
func TestBandChoice(t *testing.T) {
	t.Parallel()
	const n, T = 9, 50
	regret := Curve{Label: "sgp-ucb"}
	function := Curve{Label: "line-bo", Function: true}
	for t := 0; t < T; t++ {
		regret.MeanAvg = append(regret.MeanAvg, 1)
		regret.StdAvg = append(regret.StdAvg, 0.3)
		function.MeanBest = append(function.MeanBest, 1)
		function.SEBest = append(function.SEBest, 0.1)
		function.Violations = append(function.Violations, 0)
	}
	cases := []struct {
		band   Band
		name   string
		spread float64 // the band's half-width; 0 for none
		title  string
	}{
		{BandStd, "std", 0.3, "mean ± 1 std over 9 realizations"},
		{BandSE, "se", 0.1, "mean ± 1 SE over 9 realizations"},
		{BandNone, "none", 0, "mean over 9 realizations"},
	}
	for _, c := range cases {
		b, err := ParseBand(c.name)
		if err != nil || b != c.band || b.String() != c.name {
			t.Fatalf("ParseBand(%q) = %v, %v", c.name, b, err)
		}
		if got := b.Describe(n); got != c.title {
			t.Errorf("%s: title %q, want %q", c.name, got, c.title)
		}
		for _, cv := range []Curve{regret, function} {
			fig, err := regretFigure("x: "+b.Describe(n), b, n, []Curve{cv})
			if err != nil {
				t.Fatal(err)
			}
			p := fig.Panels[0]
			// The panel's y range reaches the band's top, mean 1 +
			// spread; the regret panel's (plot.ShareY's) also leaves 5 %
			// of the range free above the line at 1: 1 + 0.05·(1 − 0).
			want := 1 + c.spread
			if !cv.Function {
				want = math.Max(want, 1.05)
			}
			if got := p.Y.Max; math.Abs(got-want) > 1e-12 {
				t.Errorf("%s, function %v: y max %g, want %g", c.name, cv.Function, got, want)
			}
			title := p.Title.Text
			if cv.Function {
				title = fig.Title
			}
			if !strings.Contains(title, c.title) {
				t.Errorf("%s, function %v: title %q does not state the band", c.name, cv.Function, title)
			}
			if _, err := fig.Check(); err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
			// Laid out, the panel leaves the margin above its line at 1
			// (the legend's headroom may add more).
			if lo, hi := p.Y.Min, p.Y.Max; hi < 1+0.05*(1-lo)-1e-12 {
				t.Errorf("%s, function %v: y range [%g, %g] leaves the line at 1 less than 5 %% margin", c.name, cv.Function, lo, hi)
			}
		}
	}
	if _, err := ParseBand("sd"); !errors.Is(err, ErrBand) {
		t.Errorf("ParseBand(sd): %v, want ErrBand", err)
	}
	// The regret axis starts at 0 with a labelled tick there.
	fig, _ := regretFigure("", BandNone, n, []Curve{regret})
	if fig.Panels[0].Y.Min != 0 {
		t.Errorf("regret axis starts at %g", fig.Panels[0].Y.Min)
	}
}
