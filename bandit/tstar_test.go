package bandit_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/safegp/safegp/bandit"
	"github.com/safegp/safegp/kernel"
	"github.com/safegp/safegp/theory"
)

// tstarEnv: five actions on [0, 1], SE kernels (v = 1), σ = 1, constant
// β = 0.01, every action safe (h = −5), seed {2}, |R̄_0(S_0)| = 2 by
// Truth. t/(β_t·γ_{2t}) = t/(0.01·10·log(1 + 2t·10)) increases in t and
// ε sets where it crosses C_1·3/ε²: ε = 0.86 puts t* near 30, within
// T = 60; ε = 0.3 puts it beyond.
func tstarEnv(eps float64) *setup {
	return &setup{
		model: bandit.Model{Objective: kernel.SE{Variance: 1, Lengthscale: 0.5}, Constraints: []kernel.Kernel{kernel.SE{Variance: 1, Lengthscale: 0.5}},
			NoiseStd: 1, Delta: 0.1, Beta: bandit.Beta{Value: 0.01}},
		set:   bandit.DecisionSet{X: [][]float64{{0}, {0.25}, {0.5}, {0.75}, {1}}, Seed: []int{2}},
		truth: &bandit.Truth{Reach0: 2},
		opt:   bandit.Options{Thresholds: []float64{-5}, Epsilon: eps, Horizon: 60},
	}
}

// TestSafeOptMCTheory: exploration: theory gives safeopt-mc the phase t*
// of Berkenkamp et al. 2016, Theorem 1, checked here in closed form (the
// inequality holds at t* and fails at t* − 1); after t* it plays
// argmax_{S_t} ℓ_{f,t}; t* > T keeps it in SafeOpt's rule all run; and
// without |R̄_0(S_0)| (a real system) it is refused.
func TestSafeOptMCTheory(t *testing.T) {
	t.Parallel()
	spec := &bandit.Spec{Name: "safeopt-mc", SafeSet: "gp", Exploration: bandit.Exploration{Theory: true}}
	ratio := func(tt float64) float64 { return tt / (0.01 * 10 * math.Log(1+2*tt*10)) }
	for _, c := range []struct {
		eps    float64
		within bool
	}{{0.86, true}, {0.3, false}} {
		env := tstarEnv(c.eps)
		ts, err := bandit.TStar(env.model, env.set, env.opt, 2)
		if err != nil {
			t.Fatal(err)
		}
		target := 8 / math.Log(2) * 3 / (c.eps * c.eps)
		if !(ratio(float64(ts.T)) >= target && (ts.T == 1 || ratio(float64(ts.T-1)) < target)) {
			t.Errorf("ε = %v: t* = %d: ratio %v there, %v before, target %v", c.eps, ts.T, ratio(float64(ts.T)), ratio(float64(ts.T-1)), target)
		}
		if ts.Within(60) != c.within || ts.T < 2 {
			t.Fatalf("ε = %v: t* = %d, want it %s T = 60 (test premise)", c.eps, ts.T, map[bool]string{true: "within", false: "beyond"}[c.within])
		}
		pol, err := env.build(spec)
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(3, 4))
		for tt := 1; tt <= 60; tt++ {
			s := inspect(pol)
			a := next(pol)
			if c.within && tt > int(ts.T) {
				best, bi := math.Inf(-1), -1
				for i, in := range s.Safe {
					if in && s.LowerF[i] > best {
						best, bi = s.LowerF[i], i
					}
				}
				if a != bi {
					t.Fatalf("round %d after t* = %d: played %d, want argmax_{S_t} ℓ_f = %d", tt, ts.T, a, bi)
				}
			}
			observe(pol, a, rng.NormFloat64(), []float64{rng.NormFloat64()})
		}
		want := 60
		if c.within {
			want = int(ts.T)
		}
		if got := inspect(pol).ExplorationRounds; got != want {
			t.Errorf("ε = %v: exploration rounds %d, want %d", c.eps, got, want)
		}
	}
	env := tstarEnv(0.86)
	env.truth = nil
	if _, err := env.build(spec); !errors.Is(err, bandit.ErrConfig) || !strings.Contains(err.Error(), "R̄_0(S_0)") {
		t.Errorf("no truth: got %v, want ErrConfig naming R̄_0(S_0)", err)
	}
	env = tstarEnv(0.86)
	env.model.NoiseStd = 0
	if _, err := env.build(spec); !errors.Is(err, theory.ErrNoTStar) {
		t.Errorf("σ = 0: got %v, want theory.ErrNoTStar", err)
	}
}
