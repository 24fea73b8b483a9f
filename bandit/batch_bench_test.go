package bandit_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/safegp/safegp/bandit"
	"github.com/safegp/safegp/kernel"
	"github.com/safegp/safegp/problem"
)

// BenchmarkAskBatch is the performance case for the policy: a
// batch of k asks (AskNew k times) from 0 pending, at N = 10 000 actions
// (a 100×100 grid on [0, 1]², SE kernels of lengthscale 0.2, one
// constraint) after t = 500 observations the policy chose itself; the
// asks are withdrawn outside the timer, so that every batch starts at the
// same t. k = 1 is one ask. Each pending point costs one covariance row
// per GP the choice reads (N·t = 5·10⁶ multiply-adds; an O(N) copy for
// the GPs SafeOpt's gp mode keeps the covariance of) and k·N for the
// earlier columns; the study's AskBatch adds its one transaction
// (study.BenchmarkAskBatch). The cases named round make each batch a
// round's first for the SafeOpt family (ForgetRound): M_t and the
// expander tests (or G_t whole) computed again, as after a tell.
func BenchmarkAskBatch(b *testing.B) {
	const n, t0 = 100, 500
	x := problem.Grid([][2]float64{{0, 1}, {0, 1}}, []int{n, n})
	truth := func(x []float64) (float64, float64) {
		return math.Sin(3*x[0]) + math.Cos(2*x[1]), 0.3 - (x[0]-0.5)*(x[0]-0.5) - (x[1]-0.5)*(x[1]-0.5)
	}
	se := kernel.SE{Variance: 1, Lengthscale: 0.2}
	for _, c := range []struct {
		name string
		spec bandit.Spec
	}{
		{"sgp-ucb", bandit.Spec{Name: "sgp-ucb", Phase1: "uncertainty", Exploration: bandit.Exploration{Fixed: ptr(50)}}},
		{"safeopt-gp", bandit.Spec{Name: "safeopt", SafeSet: "gp"}},
	} {
		var pol bandit.Policy
		for _, r := range []struct {
			k     int
			round bool
		}{{1, false}, {8, false}, {1, true}, {8, true}} {
			k, name := r.k, fmt.Sprintf("%s/N=%d/t=%d/k=%d", c.name, n*n, t0, r.k)
			if r.round {
				name += "/round"
			}
			b.Run(name, func(b *testing.B) {
				if pol == nil {
					p, err := bandit.Build(&c.spec, bandit.Model{Objective: se, Constraints: []kernel.Kernel{se}, NoiseStd: 0.05, Delta: 0.01, Beta: bandit.Beta{Value: 4}}, bandit.Domain{Set: bandit.DecisionSet{X: x, Seed: []int{n*n/2 + n/2}}}, bandit.Options{Thresholds: []float64{0}, Horizon: 100000, Grow: true})
					if err != nil {
						b.Fatal(err)
					}
					for range t0 {
						a, err := p.Ask()
						if err != nil {
							b.Fatal(err)
						}
						f, g := truth(a.X)
						if err := p.Tell(a.ID, bandit.Observation{F: f, G: []float64{g}}); err != nil {
							b.Fatal(err)
						}
					}
					pol = p
					var snap bandit.Snapshot
					pol.Inspect(&snap, bandit.SafeSet)
					b.Logf("safe set: %d actions", snap.SafeSetSize)
				}
				batch := pol.(bandit.Batcher)
				for b.Loop() {
					for range k {
						if _, ok, err := batch.AskNew(); err != nil || !ok {
							b.Fatalf("AskNew: ok %v, %v", ok, err)
						}
					}
					b.StopTimer()
					bandit.WithdrawPending(pol)
					if r.round {
						bandit.ForgetRound(pol)
					}
					b.StartTimer()
				}
			})
		}
	}
}
