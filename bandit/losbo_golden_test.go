package bandit_test

import (
	"encoding/json"
	"math"
	"os"
	"testing"

	"github.com/safegp/safegp/bandit"
	"github.com/safegp/safegp/kernel"
)

// TestLoSBOGolden replays the authors' LoSBO (testdata/losbo_golden.py:
// their losbo/gp_opt.py transcribed to numpy, since GPy is not available
// here) on three RKHS functions of their experiments' kind, 100 rounds
// each with the same measurements. Their code never lets the seed x0 into
// its safe set (every update skips it), so x0 counts as unsafe when it
// looks for expanders; safegp's seeds are known safe. With the one line
// that puts x0 in S (trace_seeded) safegp plays the same action and has
// the same safe set in all 300 rounds; the code as it is plays the same
// until the seed's exclusion first changes its choice (rounds 63, 32 and
// 42: an action next to x0 becomes an "expander" towards x0), which the
// test checks too.
func TestLoSBOGolden(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("testdata/losbo_golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var golden struct {
		Cases []struct {
			Lengthscale, Variance, L, R, Beta float64
			NoiseVar                          float64 `json:"noise_var"`
			X                                 [][]float64
			F                                 []float64
			X0                                int
			Y0                                float64
			Noise                             []float64
			Trace                             []int
			SafeSizes                         []int `json:"safe_sizes"`
			TraceSeeded                       []int `json:"trace_seeded"`
			SafeSizesSeeded                   []int `json:"safe_sizes_seeded"`
			FirstDifference                   int   `json:"first_difference"`
		}
	}
	if err := json.Unmarshal(raw, &golden); err != nil {
		t.Fatal(err)
	}
	for n, c := range golden.Cases {
		k := kernel.SE{Variance: c.Variance, Lengthscale: c.Lengthscale}
		zero := 0.0
		pol, err := bandit.Build(&bandit.Spec{Name: bandit.LoSBO, Lipschitz: &bandit.Lipschitz{Value: c.L}, NoiseBound: ptr(c.R)},
			bandit.Model{Objective: k, NoiseStd: math.Sqrt(c.NoiseVar), Delta: 0.1, Beta: bandit.Beta{Value: c.Beta * c.Beta}},
			bandit.Domain{Set: bandit.DecisionSet{X: c.X, Seed: []int{c.X0}}},
			bandit.Options{ObjectiveThreshold: &zero, Horizon: len(c.Trace) + 1})
		if err != nil {
			t.Fatal(err)
		}
		// Their GP starts with the seed's measurement.
		if err := pol.Tell(0, bandit.Observation{Index: c.X0, F: c.Y0}); err != nil {
			t.Fatal(err)
		}
		var view bandit.Snapshot
		for r, want := range c.TraceSeeded {
			pol.Inspect(&view, bandit.SafeSet)
			a, err := pol.Ask()
			if err != nil {
				t.Fatal(err)
			}
			if a.Index != want || view.SafeSetSize != c.SafeSizesSeeded[r] {
				t.Fatalf("case %d, round %d: played %d with %d safe, the authors' code (x0 in S) %d with %d", n, r+1, a.Index, view.SafeSetSize, want, c.SafeSizesSeeded[r])
			}
			if r+1 < c.FirstDifference && (a.Index != c.Trace[r] || view.SafeSetSize != c.SafeSizes[r]+1) {
				t.Fatalf("case %d, round %d: played %d with %d safe, the authors' code as it is %d with %d (+ the seed)", n, r+1, a.Index, view.SafeSetSize, c.Trace[r], c.SafeSizes[r])
			}
			if err := pol.Tell(a.ID, bandit.Observation{F: c.F[a.Index] + c.Noise[r]}); err != nil {
				t.Fatal(err)
			}
		}
	}
}
