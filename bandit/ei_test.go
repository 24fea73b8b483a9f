package bandit_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/safegp/safegp/bandit"
	"github.com/safegp/safegp/kernel"
)

// TestEIChoices replays constrained-ei and pof-ei against their
// definitions (ei.go) computed from scratch from the policy's posteriors:
// the incumbent f⁺ from the measurements told, PoF from g's posterior,
// EI from f's, the argmax (lowest index on ties) over D or F_t, 30 rounds
// on a 2-D grid with one constraint and an objective threshold; until a
// measurement is feasible, argmax PoF. Then a batch of 4: distinct
// actions, none pending twice.
func TestEIChoices(t *testing.T) {
	t.Parallel()
	x := grid2(10)
	rng := rand.New(rand.NewPCG(8, 9))
	f, g := smooth(rng, x, 2), smooth(rng, x, 2)
	// Thresholds at quantiles of the values: 60 % of g and 80 % of f
	// meet them.
	hg, hf := quantile(g, 0.4), quantile(f, 0.2)
	seed := 0
	for i := range x {
		if g[i] > g[seed] && f[i] >= hf {
			seed = i
		}
	}
	k := kernel.SE{Variance: 1, Lengthscale: 0.3}
	for _, name := range []string{bandit.ConstrainedEI, bandit.PoFEI} {
		t.Run(name, func(t *testing.T) {
			const delta = 0.1
			pol, err := bandit.Build(&bandit.Spec{Name: name},
				bandit.Model{Objective: k, Constraints: []kernel.Kernel{k}, NoiseStd: 0.05, Delta: delta, Beta: bandit.Beta{Value: 4}},
				bandit.Domain{Set: bandit.DecisionSet{X: x, Seed: []int{seed}}},
				bandit.Options{Thresholds: []float64{hg}, ObjectiveThreshold: &hf, Horizon: 40})
			if err != nil {
				t.Fatal(err)
			}
			best := math.Inf(-1)
			var view bandit.Snapshot
			for round := 1; round <= 30; round++ {
				pol.Inspect(&view, bandit.Full)
				want, wv := -1, 0.0
				for i := range x {
					pof := probAbove(view.G[0].Mean[i], view.G[0].Std[i], hg) * probAbove(view.F.Mean[i], view.F.Std[i], hf)
					if name == bandit.PoFEI && pof < 1-delta && i != seed {
						continue
					}
					v := pof
					if !math.IsInf(best, -1) {
						v = ei(view.F.Mean[i], view.F.Std[i], best)
						if name == bandit.ConstrainedEI {
							v *= pof
						}
					}
					if want < 0 || v > wv {
						want, wv = i, v
					}
				}
				a, err := pol.Ask()
				if err != nil {
					t.Fatal(err)
				}
				if a.Index != want {
					t.Fatalf("round %d: played %d, from scratch %d", round, a.Index, want)
				}
				o := bandit.Observation{F: f[a.Index] + 0.05*rng.NormFloat64(), G: []float64{g[a.Index] + 0.05*rng.NormFloat64()}}
				if o.G[0] >= hg && o.F >= hf {
					best = math.Max(best, o.F)
				}
				if err := pol.Tell(a.ID, o); err != nil {
					t.Fatal(err)
				}
			}
			if math.IsInf(best, -1) {
				t.Fatal("no measurement was feasible: EI was never used")
			}
			// A batch: pof-ei's runs out when F_t has fewer actions.
			pol.Inspect(&view, bandit.SafeSet)
			seen := map[int]bool{}
			for k := range 4 {
				a, ok, err := bandit.AskNew(pol)
				if err != nil {
					t.Fatalf("batch: %v", err)
				}
				if !ok {
					if name == bandit.PoFEI && k >= view.SafeSetSize {
						break
					}
					t.Fatalf("batch: ask %d refused with %d actions believed feasible", k+1, view.SafeSetSize)
				}
				if seen[a.Index] {
					t.Fatalf("batch: action %d twice", a.Index)
				}
				seen[a.Index] = true
			}
		})
	}
}

func probAbove(mu, sd, h float64) float64 {
	if sd <= 0 {
		if mu >= h {
			return 1
		}
		return 0
	}
	return 0.5 * math.Erfc((h-mu)/(sd*math.Sqrt2))
}

func ei(mu, sd, best float64) float64 {
	if sd <= 0 {
		return math.Max(mu-best, 0)
	}
	z := (mu - best) / sd
	return (mu-best)*0.5*math.Erfc(-z/math.Sqrt2) + sd*math.Exp(-z*z/2)/math.Sqrt(2*math.Pi)
}

func quantile(v []float64, q float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[int(q*float64(len(s)))]
}
