package bandit_test

import (
	"slices"
	"testing"

	"github.com/safegp/safegp/bandit"
)

// TestObjectiveThresholdShrinksSafeSets tells the same exact observations
// to each policy with and without an objective threshold h_f and compares
// their safe sets after every observation (SPEC §5, "Safe objective": f ≥
// h_f is one more constraint, read from f's GP, whose ℓ_f both policies
// share since they saw the same data):
//
//   - sgp-ucb's D^s_t with h_f is D^s_t without it ∩ {ℓ_f ≥ h_f} (eq. 8);
//   - safeopt's gp-mode S_t with h_f is D^w ∪ (S_t without it ∩ {ℓ_f ≥ h_f});
//   - safeopt's lipschitz-mode S_t with h_f is a subset of S_t without it
//     (S_t grows from S_{t−1} by a condition that h_f only strengthens).
//
// Each must shrink strictly in some round, or h_f was not tested.
func TestObjectiveThresholdShrinksSafeSets(t *testing.T) {
	t.Parallel()
	p, info := instance(t, 3)
	// h_f below f at every seed action, above it at a third of D.
	hf := slices.Min(p.F)
	for _, s := range p.Seed {
		hf = max(hf, p.F[s]-0.3)
	}
	for _, c := range []struct {
		name string
		spec bandit.Spec
		want func(plain, with bandit.Snapshot, i int, seed bool) bool // with.Safe[i]
		lip  bool
	}{
		{"naive-sgp-ucb", bandit.Spec{Name: "naive-sgp-ucb"}, func(plain, with bandit.Snapshot, i int, _ bool) bool {
			return plain.Safe[i] && with.LowerF[i] >= hf
		}, false},
		{"safeopt-gp", bandit.Spec{Name: "safeopt", SafeSet: "gp"}, func(plain, with bandit.Snapshot, i int, seed bool) bool {
			return seed || (plain.Safe[i] && with.LowerF[i] >= hf)
		}, false},
		{"safeopt-lipschitz", bandit.Spec{Name: "safeopt", SafeSet: "lipschitz", Lipschitz: &bandit.Lipschitz{Value: 1}}, nil, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := env(p, info, bandit.Beta{Value: 2}, 60)
			plain, err := e.build(&c.spec)
			if err != nil {
				t.Fatal(err)
			}
			e.opt.ObjectiveThreshold = &hf
			with, err := e.build(&c.spec)
			if err != nil {
				t.Fatal(err)
			}
			isSeed := make([]bool, p.N())
			for _, s := range p.Seed {
				isSeed[s] = true
			}
			strict := false
			z := make([]float64, p.M())
			// The seed actions, then every third action of D, safe or not:
			// exact values, told outside the loop.
			order := slices.Clone(p.Seed)
			for a := 0; a < p.N(); a += 3 {
				order = append(order, a)
			}
			for k, a := range order {
				for i := range z {
					z[i] = p.G[i][a]
				}
				for _, pol := range []bandit.Policy{plain, with} {
					if err := pol.Tell(0, bandit.Observation{F: p.F[a], G: z, Index: a}); err != nil {
						t.Fatal(err)
					}
				}
				sp, sw := inspect(plain), inspect(with)
				if !slices.Equal(sp.LowerF, sw.LowerF) {
					t.Fatalf("after %d observations: ℓ_f differs with h_f", k+1)
				}
				for i := range sw.Safe {
					want := sp.Safe[i]
					if !c.lip {
						want = c.want(sp, sw, i, isSeed[i])
					}
					if c.lip && sw.Safe[i] && !sp.Safe[i] {
						t.Errorf("after %d observations: action %d is in S_t with h_f, not without", k+1, i)
					}
					if !c.lip && sw.Safe[i] != want {
						t.Errorf("after %d observations: action %d safe %v with h_f, want %v", k+1, i, sw.Safe[i], want)
					}
				}
				if sw.SafeSetSize < sp.SafeSetSize {
					strict = true
				}
			}
			if !strict {
				t.Error("h_f never shrank the safe set")
			}
		})
	}
}
