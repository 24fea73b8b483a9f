package bandit_test

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/safegp/safegp/bandit"
	"github.com/safegp/safegp/kernel"
)

// TestConstrainedEIGolden replays constrained EI against an independent
// reference (issue 41, item 4): testdata/ei_golden.py writes Gardner et
// al.'s rule from the paper in numpy — exact GP regression for f and two
// constraints, EI_f · PoF, the incumbent over the feasible measurements,
// the lowest index on ties — on three 2-D grids, 30 rounds each with the
// same noisy measurements. safegp must play the reference's action in
// every round.
func TestConstrainedEIGolden(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("testdata/ei_golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var golden struct {
		Cases []struct {
			Lengthscale, Variance float64
			NoiseStd              float64 `json:"noise_std"`
			X                     [][]float64
			F                     []float64
			G                     [][]float64
			H                     []float64
			X0                    int
			Y0                    []float64
			Noise                 [][]float64
			Trace                 []int
		}
	}
	if err := json.Unmarshal(raw, &golden); err != nil {
		t.Fatal(err)
	}
	for n, c := range golden.Cases {
		k := kernel.SE{Variance: c.Variance, Lengthscale: c.Lengthscale}
		pol, err := bandit.Build(&bandit.Spec{Name: bandit.ConstrainedEI},
			bandit.Model{Objective: k, Constraints: []kernel.Kernel{k, k}, NoiseStd: c.NoiseStd, Delta: 0.1, Beta: bandit.Beta{Value: 4}},
			bandit.Domain{Set: bandit.DecisionSet{X: c.X, Seed: []int{c.X0}}},
			bandit.Options{Thresholds: c.H, Horizon: len(c.Trace) + 1})
		if err != nil {
			t.Fatal(err)
		}
		if err := pol.Tell(0, bandit.Observation{Index: c.X0, F: c.Y0[0], G: c.Y0[1:]}); err != nil {
			t.Fatal(err)
		}
		for r, want := range c.Trace {
			a, err := pol.Ask()
			if err != nil {
				t.Fatal(err)
			}
			if a.Index != want {
				t.Fatalf("case %d, round %d: played %d, the reference %d", n, r+1, a.Index, want)
			}
			i, e := a.Index, c.Noise[r]
			if err := pol.Tell(a.ID, bandit.Observation{F: c.F[i] + e[0], G: []float64{c.G[0][i] + e[1], c.G[1][i] + e[2]}}); err != nil {
				t.Fatal(err)
			}
		}
	}
}
