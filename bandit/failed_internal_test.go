package bandit

import (
	"math"
	"testing"

	"github.com/safegp/safegp/gp"
	"github.com/safegp/safegp/kernel"
)

// TestImputeFailed: the pseudo-observation of a failure, in closed form
// (failed.go): alone, each constraint failMargin prior standard
// deviations past its limit with noise failNoise prior standard
// deviations; next to an earlier failure, failMargin2 past it and exact;
// f at its posterior mean, or past h_f when f ≥ h_f is a condition.
func TestImputeFailed(t *testing.T) {
	x := [][]float64{{0}, {0.1}, {3}}
	f := gp.New(kernel.SE{Variance: 4, Lengthscale: 1}, x, 0.1)
	g := []*gp.Model{gp.New(kernel.SE{Variance: 9, Lengthscale: 1}, x, 0.1)}
	f.Observe(0, 1.5)
	mean, _ := f.PredictAt(x[1])
	hf := -1.0
	for _, c := range []struct {
		name   string
		failed [][]float64
		hf     *float64
		g, f   float64
		noise  float64
	}{
		{"alone", nil, nil, 0.5 - failMargin*3, mean, failNoise * failNoise * 9},
		{"far from a failure", [][]float64{x[2]}, nil, 0.5 - failMargin*3, mean, failNoise * failNoise * 9},
		{"next to a failure", [][]float64{x[0]}, nil, 0.5 - failMargin2*3, mean, math.SmallestNonzeroFloat64},
		{"objective threshold", nil, &hf, 0.5 - failMargin*3, math.Min(mean, -1-failMargin*2), failNoise * failNoise * 9},
	} {
		var o Observation
		imputeFailed(&o, x[1], f, g, []float64{0.5}, c.hf, c.failed)
		if len(o.G) != 1 || math.Abs(o.G[0]-c.g) > 1e-12 || math.Abs(o.F-c.f) > 1e-12 || math.Abs(o.NoiseVar-c.noise) > 1e-12 {
			t.Errorf("%s: g %v f %v noise %v; want g %v f %v noise %v", c.name, o.G, o.F, o.NoiseVar, c.g, c.f, c.noise)
		}
	}
}
