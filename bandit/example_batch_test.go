package bandit_test

import (
	"fmt"

	"github.com/safegp/safegp/bandit"
	"github.com/safegp/safegp/kernel"
	"github.com/safegp/safegp/problem"
)

// A batch of asks to measure in parallel: every one in the safe set of the
// data so far, spread by the hallucinated variance of the ones before it,
// then told in any order. The first batch is short: only the two seeds
// are known to be safe.
func ExampleBatcher() {
	x := problem.Grid([][2]float64{{0, 4}}, []int{41})
	policy, err := bandit.Build(&bandit.Spec{Name: "safeopt", SafeSet: "gp"}, bandit.Model{
		Objective:   kernel.SE{Variance: 1, Lengthscale: 1},
		Constraints: []kernel.Kernel{kernel.SE{Variance: 1, Lengthscale: 1}},
		NoiseStd:    0.05, Delta: 0.1, Beta: bandit.Beta{Value: 4},
	}, bandit.Domain{Set: bandit.DecisionSet{X: x, Seed: []int{10, 11}}}, bandit.Options{Thresholds: []float64{0}, Horizon: 40})
	if err != nil {
		panic(err)
	}
	f := func(x []float64) float64 { return -(x[0] - 2.5) * (x[0] - 2.5) }
	g := func(x []float64) float64 { return 1.5 - max(x[0]-2, 2-x[0]) }
	b := policy.(bandit.Batcher)
	for round := 1; round <= 3; round++ {
		var batch []bandit.Ask
		for range 4 {
			a, ok, err := b.AskNew()
			if err != nil {
				panic(err)
			}
			if !ok {
				break // no further distinct candidate: a shorter batch
			}
			batch = append(batch, a)
		}
		fmt.Print("batch ", round, ":")
		for _, a := range batch {
			fmt.Printf(" x=%.1f", a.X[0])
		}
		fmt.Println()
		for k := len(batch) - 1; k >= 0; k-- { // any order
			a := batch[k]
			if err := policy.Tell(a.ID, bandit.Observation{F: f(a.X), G: []float64{g(a.X)}}); err != nil {
				panic(err)
			}
		}
	}
	// Output:
	// batch 1: x=1.0 x=1.1
	// batch 2: x=1.6 x=0.8 x=1.3 x=1.5
	// batch 3: x=2.5 x=2.1 x=0.7 x=2.0
}
