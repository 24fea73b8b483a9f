package bandit_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/safegp/safegp/bandit"
	"github.com/safegp/safegp/kernel"
)

// swarmRun runs safeopt-swarm for rounds asks on [0, 1]² with f peaked at
// (0.85, 0.85) and g ≥ 0 inside the circle of radius 0.45 about
// (0.5, 0.5), measured with noise of sd 0.01, and returns the asks.
func swarmRun(t *testing.T, seed uint64, rounds int) [][]float64 {
	t.Helper()
	f := func(x []float64) float64 { return -((x[0]-0.85)*(x[0]-0.85) + (x[1]-0.85)*(x[1]-0.85)) }
	g := func(x []float64) float64 { return 0.45*0.45 - ((x[0]-0.5)*(x[0]-0.5) + (x[1]-0.5)*(x[1]-0.5)) }
	se := kernel.SE{Variance: 0.1, Lengthscale: 0.4}
	model := bandit.Model{Objective: se, Constraints: []kernel.Kernel{se}, NoiseStd: 0.01, Delta: 0.1, Beta: bandit.Beta{Value: 4}}
	box := bandit.Box{Bounds: [][2]float64{{0, 1}, {0, 1}}, Seeds: [][]float64{{0.5, 0.5}}}
	iters := 30
	pol, err := bandit.Build(&bandit.Spec{Name: "safeopt-swarm", Iterations: &iters}, model, bandit.Domain{Box: &box},
		bandit.Options{Thresholds: []float64{0}, Horizon: rounds, Rand: rand.New(rand.NewPCG(seed, 1))})
	if err != nil {
		t.Fatal(err)
	}
	noise := rand.New(rand.NewPCG(seed, 2))
	var asks [][]float64
	for range rounds {
		a, err := pol.Ask()
		if err != nil {
			t.Fatal(err)
		}
		// The algorithm's own guarantee: a point safe under the model
		// (ℓ_g ≥ 0 with its √β), or the seed.
		var pr bandit.Prediction
		if err := bandit.Predict(pol, &pr, [][]float64{a.X}); err != nil {
			t.Fatal(err)
		}
		if lb := pr.G[0].Mean[0] - pr.SqrtBeta*pr.G[0].Std[0]; lb < 0 && !slices.Equal(a.X, box.Seeds[0]) {
			t.Errorf("seed %d, ask %d: %v has ℓ_g = %.4g < 0 under the model", seed, len(asks)+1, a.X, lb)
		}
		asks = append(asks, a.X)
		if err := pol.Tell(a.ID, bandit.Observation{F: f(a.X) + 0.01*noise.NormFloat64(), G: []float64{g(a.X) + 0.01*noise.NormFloat64()}}); err != nil {
			t.Fatal(err)
		}
	}
	return asks
}

// TestSwarmSafeAndDeterministic: over 30 asks and 4 seeds safeopt-swarm
// asks only points safe under its model (or the seed), moves well away
// from the seed towards f's peak (the best ask within 0.2 of the safe
// set's closest point to it, (0.818, 0.818)), and the same seed gives
// the same asks. The model (SE, variance 0.1, ℓ = 0.4) is not the truth
// (a quadratic g): the asks' true g is reported, not asserted — a few
// fall just outside the disc where the model's mean overshoots (3 of 120
// asks, by at most 0.015 in radius, measured).
func TestSwarmSafeAndDeterministic(t *testing.T) {
	t.Parallel()
	for seed := range uint64(4) {
		asks := swarmRun(t, seed, 30)
		bestD := math.Inf(1)
		for k, x := range asks {
			if r := math.Hypot(x[0]-0.5, x[1]-0.5); r > 0.45 {
				t.Logf("seed %d, ask %d: %v is outside the safe disc (radius %.3f)", seed, k+1, x, r)
			}
			bestD = min(bestD, math.Hypot(x[0]-0.818, x[1]-0.818))
		}
		if bestD > 0.2 {
			t.Errorf("seed %d: the closest ask to the constrained optimum is %.3f away", seed, bestD)
		}
		if again := swarmRun(t, seed, 30); !slices.EqualFunc(asks, again, slices.Equal) {
			t.Errorf("seed %d: a second run asked otherwise", seed)
		}
	}
}
