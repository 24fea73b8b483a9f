package bandit_test

import (
	"fmt"

	"github.com/safegp/safegp/bandit"
	"github.com/safegp/safegp/kernel"
)

// A policy is asked for an action and told the result: the caller owns the
// loop, so the same code serves a simulation, the command line or a real
// system.
func Example() {
	x := [][]float64{{0}, {0.25}, {0.5}, {0.75}, {1}}
	f := []float64{0, 0.3, 0.6, 0.9, 1.2}  // unknown reward
	g := []float64{1, 0.8, 0.5, 0.1, -0.4} // unknown constraint, safe when ≥ 0
	policy, err := bandit.Build(&bandit.Spec{Name: "sgp-ucb", Phase1: "uncertainty", Exploration: bandit.Exploration{Fixed: ptr(3)}}, bandit.Model{
		Objective:   kernel.SE{Variance: 1, Lengthscale: 0.5},
		Constraints: []kernel.Kernel{kernel.SE{Variance: 1, Lengthscale: 0.5}},
		NoiseStd:    0.01, Delta: 0.1, Beta: bandit.Beta{Value: 1},
	}, bandit.Domain{Set: bandit.DecisionSet{X: x, Seed: []int{0, 1}}}, // no ground truth: this is how a real system is tuned
		bandit.Options{Thresholds: []float64{0}, Horizon: 8})
	if err != nil {
		panic(err)
	}
	var view bandit.Snapshot
	for t := 1; t <= 8; t++ {
		a, err := policy.Ask()
		if err != nil {
			panic(err)
		}
		policy.Inspect(&view, bandit.SafeSet)
		fmt.Printf("round %d: action %d, |safe set| = %d\n", t, a.Index, view.SafeSetSize)
		i := a.Index
		if err := policy.Tell(a.ID, bandit.Observation{F: f[i], G: []float64{g[i]}}); err != nil { // exact values here
			panic(err)
		}
	}
	// Output:
	// round 1: action 0, |safe set| = 0
	// round 2: action 1, |safe set| = 2
	// round 3: action 1, |safe set| = 3
	// round 4: action 2, |safe set| = 3
	// round 5: action 3, |safe set| = 4
	// round 6: action 3, |safe set| = 4
	// round 7: action 3, |safe set| = 4
	// round 8: action 3, |safe set| = 4
}

// A contextual policy is told the context of each round before it asks: a
// temperature, here, which shifts where the constraint is met. The GPs
// model f and g on (x, c) with the product kernel k_x·k_c, so that what
// one temperature teaches carries over to nearby ones. The seed set is
// assumed safe at every temperature.
func ExampleBuild_contexts() {
	x := [][]float64{{0}, {0.25}, {0.5}, {0.75}, {1}}
	f := func(x, c float64) float64 { return x - 0.2*c }
	g := func(x, c float64) float64 { return 1 - x - 0.3*c } // safe when ≥ 0
	kx := kernel.SE{Variance: 1, Lengthscale: 0.5}
	kc := kernel.SE{Variance: 1, Lengthscale: 2} // k_c's variance is 1
	k := kernel.Product{X: kx, C: kc, D: 1}      // on (x, c)
	policy, err := bandit.Build(
		&bandit.Spec{Name: bandit.SafeOpt, SafeSet: "gp"},
		bandit.Model{Objective: k, Constraints: []kernel.Kernel{k}, NoiseStd: 0.01, Delta: 0.1, Beta: bandit.Beta{Value: 1}},
		// one context coordinate; no ground truth: a real system
		bandit.Domain{Set: bandit.DecisionSet{X: x, Seed: []int{0, 1}}, ContextDim: 1},
		bandit.Options{Thresholds: []float64{0}, Horizon: 8},
	)
	if err != nil {
		panic(err)
	}
	var view bandit.Snapshot
	for t, temp := range []float64{0, 0, 1, 1, 0, 2, 2, 0} {
		if err := bandit.SetContext(policy, []float64{temp}); err != nil {
			panic(err)
		}
		a, err := policy.Ask()
		if err != nil {
			panic(err)
		}
		policy.Inspect(&view, bandit.SafeSet)
		i := a.Index
		fmt.Printf("round %d at temperature %g: action %d, |safe set| = %d\n", t+1, temp, i, view.SafeSetSize)
		if err := policy.Tell(a.ID, bandit.Observation{F: f(x[i][0], temp), G: []float64{g(x[i][0], temp)}}); err != nil {
			panic(err)
		}
	}
	// Output:
	// round 1 at temperature 0: action 0, |safe set| = 2
	// round 2 at temperature 0: action 1, |safe set| = 2
	// round 3 at temperature 1: action 0, |safe set| = 2
	// round 4 at temperature 1: action 1, |safe set| = 2
	// round 5 at temperature 0: action 2, |safe set| = 3
	// round 6 at temperature 2: action 0, |safe set| = 2
	// round 7 at temperature 2: action 1, |safe set| = 2
	// round 8 at temperature 0: action 3, |safe set| = 4
}
