package bandit_test

import (
	"math/rand/v2"
	"testing"

	"github.com/safegp/safegp/bandit"
	"github.com/safegp/safegp/kernel"
	"github.com/safegp/safegp/problem"
)

// BenchmarkContextualRound times one round of a contextual policy whose
// context changes every round, cycling through three: SetContext, Ask and
// Tell, after t0 = 300 rounds played that way, N = 100 actions of the
// unit disk, one constraint. rebuild keeps the current context's policy
// only (Options.KeepContexts 1: moved with OnSet for sgp-ucb and gp-mode
// safeopt, told every observation again in lipschitz mode); kept keeps one
// per context and tells it the two observations made since. t grows by
// one per op: run with -benchtime 20x, so that t stays near t0.
func BenchmarkContextualRound(b *testing.B) {
	const n, t0 = 100, 300
	rng := rand.New(rand.NewPCG(1, 2))
	x := problem.UnitBall(rng, n, 2)
	f := func(x []float64, c float64) (float64, float64) {
		return -(x[0]-0.3*c)*(x[0]-0.3*c) - x[1]*x[1], 0.8 - x[0]*x[0] - (x[1]-0.2*c)*(x[1]-0.2*c)
	}
	var seed []int
	for i, p := range x {
		if p[0]*p[0]+p[1]*p[1] < 0.1 {
			seed = append(seed, i)
		}
	}
	kx := kernel.SE{Variance: 1, Lengthscale: 0.5}
	k := kernel.Product{X: kx, C: kernel.SE{Variance: 1, Lengthscale: 1}, D: 2}
	model := bandit.Model{Objective: k, Constraints: []kernel.Kernel{k}, NoiseStd: 0.05, Delta: 0.1, Beta: bandit.Beta{Value: 4}}
	contexts := []float64{0, 0.5, 1}
	for _, s := range []struct {
		name string
		spec bandit.Spec
	}{
		{"sgp-ucb", bandit.Spec{Name: "sgp-ucb", Exploration: bandit.Exploration{Fixed: ptr(30)}}},
		{"safeopt-gp", bandit.Spec{Name: "safeopt", SafeSet: "gp"}},
		{"safeopt-lipschitz", bandit.Spec{Name: "safeopt", Lipschitz: &bandit.Lipschitz{Value: 2}}},
	} {
		for _, keep := range []struct {
			name string
			n    int
		}{{"rebuild", 1}, {"kept", 3}} {
			b.Run(s.name+"/"+keep.name, func(b *testing.B) {
				pol, err := buildContextual(&s.spec, model, bandit.Domain{Set: bandit.DecisionSet{X: x, Seed: seed}, ContextDim: 1}, bandit.Options{Thresholds: []float64{0}, Horizon: t0 + b.N, Rand: rand.New(rand.NewPCG(3, 4)), KeepContexts: keep.n})
				if err != nil {
					b.Fatal(err)
				}
				round := func(t int) {
					c := contexts[t%3]
					if err := pol.SetContext([]float64{c}); err != nil {
						b.Fatal(err)
					}
					a, err := pol.Ask()
					if err != nil {
						b.Fatal(err)
					}
					y, z := f(x[a.Index], c)
					if err := pol.Tell(a.ID, bandit.Observation{F: y, G: []float64{z}}); err != nil {
						b.Fatal(err)
					}
				}
				for t := range t0 {
					round(t)
				}
				b.ResetTimer()
				for i := range b.N {
					round(t0 + i)
				}
			})
		}
	}
}
