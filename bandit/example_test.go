package bandit_test

import (
	"fmt"
	"math/rand/v2"

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
	policy, err := bandit.New(
		&bandit.Spec{Name: "sgp-ucb", Phase1: "uncertainty", Exploration: bandit.Exploration{Fixed: ptr(3)}},
		&bandit.Env{
			X: x, Seed: []int{0, 1}, H: []float64{0},
			Objective:   kernel.SE{Variance: 1, Lengthscale: 0.5},
			Constraints: []kernel.Kernel{kernel.SE{Variance: 1, Lengthscale: 0.5}},
			NoiseStd:    0.01, Delta: 0.1, Beta: bandit.Beta{Value: 1}, Horizon: 8,
			Rand: rand.New(rand.NewPCG(1, 1)),
		})
	if err != nil {
		panic(err)
	}
	for t := 1; t <= 8; t++ {
		i := policy.Next() // ask
		fmt.Printf("round %d: action %d, |safe set| = %d\n", t, i, policy.SafeSetSize())
		policy.Observe(i, f[i], []float64{g[i]}) // tell (exact values here)
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
