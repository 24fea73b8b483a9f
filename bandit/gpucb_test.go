package bandit_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/safegp/safegp/bandit"
	"github.com/safegp/safegp/kernel"
)

// TestGPUCBIgnoresSafety: gp-ucb asks argmax_D u_f over every action —
// here one the constraint's data make unsafe, which sgp-ucb on the same
// data never asks — and runs as line-bo's inner algorithm.
func TestGPUCBIgnoresSafety(t *testing.T) {
	t.Parallel()
	var xs [][]float64
	for i := range 21 {
		xs = append(xs, []float64{float64(i) / 20})
	}
	se := kernel.SE{Variance: 1, Lengthscale: 0.2}
	model := bandit.Model{Objective: se, Constraints: []kernel.Kernel{se}, NoiseStd: 0.05, Delta: 0.1, Beta: bandit.Beta{Value: 4}}
	set := bandit.DecisionSet{X: xs, Seed: []int{2}}
	f := func(x float64) float64 { return x }       // best at x = 1
	g := func(x float64) float64 { return 0.5 - x } // safe below 0.5
	ask := func(s *bandit.Spec) (int, bandit.Snapshot) {
		pol, err := bandit.Build(s, model, bandit.Domain{Set: set}, bandit.Options{Thresholds: []float64{0}, Horizon: 30, Rand: rand.New(rand.NewPCG(1, 2))})
		if err != nil {
			t.Fatal(err)
		}
		for _, i := range []int{0, 2, 4, 6, 20} {
			if err := pol.Tell(0, bandit.Observation{Index: i, F: f(xs[i][0]), G: []float64{g(xs[i][0])}}); err != nil {
				t.Fatal(err)
			}
		}
		var snap bandit.Snapshot
		pol.Inspect(&snap, bandit.Full)
		a, err := pol.Ask()
		if err != nil {
			t.Fatal(err)
		}
		return a.Index, snap
	}
	i, snap := ask(&bandit.Spec{Name: "gp-ucb"})
	best, bu := 0, math.Inf(-1)
	for k := range xs {
		if u := snap.F.Mean[k] + snap.SqrtBeta*snap.F.Std[k]; u > bu {
			best, bu = k, u
		}
	}
	if i != best {
		t.Errorf("gp-ucb asked action %d, argmax u_f is %d", i, best)
	}
	_, safe := ask(&bandit.Spec{Name: "sgp-ucb", Exploration: bandit.Exploration{Fixed: ptr(0)}})
	if safe.Safe[i] {
		t.Fatalf("action %d (x = %v) is in sgp-ucb's safe set: the test proves nothing", i, xs[i][0])
	}
	// On a box, as line-bo's inner algorithm.
	box := testBox()
	pol, err := bandit.Build(&bandit.Spec{Name: "line-bo", Inner: "gp-ucb", PerLine: ptr(3), Points: ptr(31)}, boxModel(), bandit.Domain{Box: &box}, boxOpt(1))
	if err != nil {
		t.Fatal(err)
	}
	for range 9 {
		a, err := pol.Ask()
		if err != nil {
			t.Fatal(err)
		}
		if err := pol.Tell(a.ID, bandit.Observation{F: boxF(a.X), G: []float64{boxG(a.X)}}); err != nil {
			t.Fatal(err)
		}
	}
}
