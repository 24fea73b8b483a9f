package bandit_test

import (
	"math/rand/v2"
	"testing"

	"github.com/safegp/safegp/bandit"
	"github.com/safegp/safegp/kernel"
	"github.com/safegp/safegp/problem"
)

// BenchmarkLoSBO times 60 rounds of losbo on a 100 × 100 grid of [0, 1]²
// (a study's candidate grid of two parameters): its safe set and
// Lipschitz expanders scan every pair of safe and outside actions, the
// cost of every round.
func BenchmarkLoSBO(b *testing.B) {
	se := kernel.SE{Variance: 1, Lengthscale: 0.3}
	x := problem.Grid([][2]float64{{0, 1}, {0, 1}}, []int{100, 100})
	e := 0.02
	spec := bandit.Spec{Name: bandit.LoSBO, Lipschitz: &bandit.Lipschitz{Value: 1.5}, NoiseBound: &e}
	for b.Loop() {
		pol, err := bandit.Build(&spec, bandit.Model{Objective: se, Constraints: []kernel.Kernel{se}, NoiseStd: 0.02, Delta: 0.1, Beta: bandit.Beta{Value: 4}},
			bandit.Domain{Set: bandit.DecisionSet{X: x, Seed: []int{2020}}}, bandit.Options{Thresholds: []float64{0}, Horizon: 60, Rand: rand.New(rand.NewPCG(1, 2))})
		if err != nil {
			b.Fatal(err)
		}
		for range 60 {
			a, err := pol.Ask()
			if err != nil {
				b.Fatal(err)
			}
			p := a.X
			if err := pol.Tell(a.ID, bandit.Observation{F: -(p[0]-0.8)*(p[0]-0.8) - (p[1]-0.7)*(p[1]-0.7), G: []float64{1 - p[0]*p[0] - p[1]}}); err != nil {
				b.Fatal(err)
			}
		}
	}
}
