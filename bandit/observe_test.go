package bandit_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/safegp/safegp/bandit"
	"github.com/safegp/safegp/gp"
	"github.com/safegp/safegp/kernel"
	"github.com/safegp/safegp/problem"
)

// TestConcurrentObserveMatchesSequential: from N·t = bandit.ParallelObserve
// on, a policy updates its GPs concurrently (a goroutine per constraint).
// Each GP's update is the same arithmetic either way, so the posteriors
// must equal, bit for bit, those of GPs fed the same observations one
// after the other — below the threshold and above it. Two constraints with
// different kernels and values catch a goroutine updating the wrong GP or
// with the wrong value, or a result read before its update finished.
func TestConcurrentObserveMatchesSequential(t *testing.T) {
	t.Parallel()
	const n, T = 1 << 14, 80
	if n*1 >= bandit.ParallelObserve || n*T < bandit.ParallelObserve+8*n {
		t.Fatalf("test premise: N·t must cross %d well inside the horizon (N = %d, T = %d)", bandit.ParallelObserve, n, T)
	}
	x := problem.Grid([][2]float64{{0, 10}}, []int{n})
	kf := kernel.SE{Variance: 1, Lengthscale: 1}
	kg := []kernel.Kernel{kernel.SE{Variance: 1, Lengthscale: 0.7}, kernel.Matern52{Variance: 2, Lengthscale: 1.5}}
	pol, err := bandit.Build(&bandit.Spec{Name: "naive-sgp-ucb"}, bandit.Model{Objective: kf, Constraints: kg, NoiseStd: 0.1, Delta: 0.01, Beta: bandit.PaperBeta}, bandit.Domain{Set: bandit.DecisionSet{X: x, Seed: []int{0}}}, bandit.Options{Thresholds: []float64{0, 0}, Epsilon: 0.01, Horizon: T, Rand: rand.New(rand.NewPCG(1, 1))})
	if err != nil {
		t.Fatal(err)
	}
	ref := []*gp.Model{gp.New(kf, x, 0.1), gp.New(kg[0], x, 0.1), gp.New(kg[1], x, 0.1)}
	rng := rand.New(rand.NewPCG(7, 7))
	checked := map[bool]int{} // by whether the last update ran concurrently
	for round := 1; round <= T; round++ {
		a := rng.IntN(n)
		y := []float64{rng.NormFloat64(), rng.NormFloat64(), 3 + rng.NormFloat64()}
		observe(pol, a, y[0], y[1:])
		for j, m := range ref {
			m.Observe(a, y[j])
		}
		parallel := n*round >= bandit.ParallelObserve
		if round%8 != 0 && round != T && n*(round+1) < bandit.ParallelObserve {
			continue // check every 8th round, and every round around the threshold
		}
		snap := inspect(pol)
		got := append([]bandit.Posterior{snap.F}, snap.G...)
		for j, m := range ref {
			std := make([]float64, n)
			for i := range std {
				std[i] = m.Std(i)
			}
			if !slices.Equal(got[j].Mean, m.Mean()) || !slices.Equal(got[j].Std, std) {
				t.Fatalf("round %d (N·t = %d, concurrent update: %v): GP %d's posterior differs from the sequential one", round, n*round, parallel, j)
			}
		}
		checked[parallel]++
	}
	if checked[false] == 0 || checked[true] < 5 {
		t.Fatalf("test premise: compared %d sequential and %d concurrent rounds", checked[false], checked[true])
	}
}
