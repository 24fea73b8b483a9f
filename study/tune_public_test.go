package study_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/safegp/safegp/problem/bench"
	"github.com/safegp/safegp/space"
)

// The public constrained problems of issue 42's suite, stated as a user
// states a study: parameters in their own ranges, an objective, limits
// and one safe seed. Each is the published definition; the seeds are
// ours (a published problem has none, or draws one at random).
func init() {
	// Gardner, Kusner, Xu, Weinberger and Cunningham, Bayesian
	// Optimization with Inequality Constraints, ICML 2014, §5.1: min
	// cos(2x₁)cos(x₂) + sin(x₁) subject to cos(x₁)cos(x₂) − sin(x₁)sin(x₂)
	// ≤ 0.5 on [0, 6]², and min sin(x₁) + x₂ subject to sin(x₁)sin(x₂) ≤
	// −0.95, whose feasible set is two islands (the seed's holds the
	// optimum).
	tuneCases["gardner1"] = tuneCase{spec: `
parameters:
  - {name: x1, low: 0, high: 6}
  - {name: x2, low: 0, high: 6}
objective: {name: f, goal: minimize}
constraints:
  - {name: c, max: 0.5}
seeds: [{x1: 1.5, x2: 1.5}]
horizon: 60
seed: 1
`, measure: func(p space.Setting) (map[string]float64, bool) {
		x1, x2 := p["x1"].Num, p["x2"].Num
		c := math.Cos(x1)*math.Cos(x2) - math.Sin(x1)*math.Sin(x2)
		return map[string]float64{"f": math.Cos(2*x1)*math.Cos(x2) + math.Sin(x1), "c": c}, c <= 0.5
	}, noise: []tuneNoise{{"f", 0.01, false}, {"c", 0.01, false}}, objective: "f"}
	tuneCases["gardner2"] = tuneCase{spec: `
parameters:
  - {name: x1, low: 0, high: 6}
  - {name: x2, low: 0, high: 6}
objective: {name: f, goal: minimize}
constraints:
  - {name: c, max: -0.95}
seeds: [{x1: 4.7, x2: 1.6}]
horizon: 60
seed: 1
`, measure: func(p space.Setting) (map[string]float64, bool) {
		x1, x2 := p["x1"].Num, p["x2"].Num
		c := math.Sin(x1) * math.Sin(x2)
		return map[string]float64{"f": math.Sin(x1) + x2, "c": c}, c <= -0.95
	}, noise: []tuneNoise{{"f", 0.01, false}, {"c", 0.002, false}}, objective: "f"}
	// TNK (Tanaka et al. 1995), Xopt's test problem: x ∈ [0, π]², c₁ =
	// x₁² + x₂² − 1 − 0.1·cos(16·atan2(x₁, x₂)) ≥ 0, c₂ = (x₁ − 0.5)² +
	// (x₂ − 0.5)² ≤ 0.5; its two objectives x₁ and x₂ minimized as their
	// sum, the one objective a study has.
	tuneCases["tnk"] = tuneCase{spec: `
parameters:
  - {name: x1, low: 0, high: 3.141592653589793}
  - {name: x2, low: 0, high: 3.141592653589793}
objective: {name: f, goal: minimize}
constraints:
  - {name: c1, min: 0}
  - {name: c2, max: 0.5}
seeds: [{x1: 0.8, x2: 0.8}]
horizon: 60
seed: 1
`, measure: func(p space.Setting) (map[string]float64, bool) {
		x1, x2 := p["x1"].Num, p["x2"].Num
		c1 := x1*x1 + x2*x2 - 1 - 0.1*math.Cos(16*math.Atan2(x1, x2))
		c2 := (x1-0.5)*(x1-0.5) + (x2-0.5)*(x2-0.5)
		return map[string]float64{"f": x1 + x2, "c1": c1, "c2": c2}, c1 >= 0 && c2 <= 0.5
	}, noise: []tuneNoise{{"f", 0.01, false}, {"c1", 0.01, false}, {"c2", 0.01, false}}, objective: "f"}
	// The LineBO paper's constrained camelback and Hartmann-6 (Kirschner
	// et al. 2019; examples/linebo-*.yaml): f ≥ 0 and f ≥ 0.3, noise 0.2,
	// maximized.
	camel, _ := bench.Lookup("camelback", 0)
	tuneCases["camelback"] = tuneCase{spec: `
parameters:
  - {name: x1, low: -2, high: 2}
  - {name: x2, low: -1, high: 1}
objective: {name: f, goal: maximize, min: 0}
seeds: [{x1: 0, x2: -0.3}]
horizon: 60
seed: 1
`, measure: benchMeasure(camel, 0), noise: []tuneNoise{{"f", 0.2, false}}, objective: "f", maximize: true}
	h6, _ := bench.Lookup("hartmann6", 0)
	tuneCases["hartmann6"] = tuneCase{spec: boxSpec(6, 0.3, "0.4, 0.4, 0.5, 0.4, 0.4, 0.6") + "horizon: 80\nseed: 1\n",
		measure: benchMeasure(h6, 0.3), noise: []tuneNoise{{"f", 0.2, false}}, objective: "f", maximize: true, trials: 80, optimum: h6.FStar}
	// A draw of a GP on [0, 1]¹⁰ (issue 27's benchmark,
	// examples/highdim): se, variance 1, lengthscale 0.2·√10, f ≥ −0.5,
	// the seed at the centre (f = 0), noise 0.05; the study is not told
	// the kernel.
	gs, _ := bench.GPSample(10, 1, 0.2*math.Sqrt(10), rand.New(rand.NewPCG(42, 10)))
	tuneCases["gp-sample-10"] = tuneCase{spec: boxSpec(10, -0.5, strings.TrimSuffix(strings.Repeat("0.5, ", 10), ", ")) + "horizon: 100\nseed: 1\n",
		measure: benchMeasure(gs, -0.5), noise: []tuneNoise{{"f", 0.05, false}}, objective: "f", maximize: true, trials: 100, optimum: gs.FStar}
}

// boxSpec is a study of dim parameters x1 … x_dim on [0, 1] maximizing
// f with f ≥ min from the seed given as dim comma-separated values.
func boxSpec(dim int, min float64, seed string) string {
	var b strings.Builder
	b.WriteString("parameters:\n")
	for j := range dim {
		fmt.Fprintf(&b, "  - {name: x%d, low: 0, high: 1}\n", j+1)
	}
	fmt.Fprintf(&b, "objective: {name: f, goal: maximize, min: %v}\nseeds: [{", min)
	for j, v := range strings.Split(seed, ", ") {
		if j > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "x%d: %s", j+1, v)
	}
	b.WriteString("}]\n")
	return b.String()
}

// benchMeasure measures benchmark f at a setting of x1 … x_d, safe where
// f ≥ min.
func benchMeasure(f *bench.Function, min float64) func(space.Setting) (map[string]float64, bool) {
	return func(p space.Setting) (map[string]float64, bool) {
		x := make([]float64, f.Dim)
		for j := range x {
			x[j] = p[fmt.Sprintf("x%d", j+1)].Num
		}
		v := f.Eval(x)
		return map[string]float64{"f": v}, v >= min
	}
}

// TestTuneSeedsSafe: every seed of the suite keeps every limit of its
// plant, noiselessly, and lies short of the plant's optimum: a suite
// whose seed broke a limit, or started at the optimum, would measure
// nothing.
func TestTuneSeedsSafe(t *testing.T) {
	t.Parallel()
	for name, c := range tuneCases {
		for k, set := range resolved(t, c.spec).Spec.Seeds {
			vals, safe := c.measure(set)
			if !safe {
				t.Errorf("%s: seed %d (%v) breaks a limit: %v", name, k, set, vals)
			}
		}
	}
}
