package gp_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/safegp/safegp/gp"
	"github.com/safegp/safegp/kernel"
)

// BenchmarkObserve times one Observe on a model that already holds t−1
// observations, over N actions in the unit square: the cost must grow as
// N·t (SPEC §2). Each iteration observes and then pops the observation
// (O(N), a small part of the time).
func BenchmarkObserve(b *testing.B) {
	for _, n := range []int{100, 1000, 10000} {
		for _, t := range []int{100, 500} {
			b.Run(fmt.Sprintf("N=%d/t=%d", n, t), func(b *testing.B) {
				rng := rand.New(rand.NewPCG(1, 2))
				x := randPoints(rng, n, 2)
				m := gp.New(kernel.SE{Variance: 1, Lengthscale: 0.2}, x, 0.1)
				m.Reserve(t)
				for s := 0; s < t-1; s++ {
					m.Observe(rng.IntN(n), rng.NormFloat64())
				}
				b.ReportAllocs()
				b.ResetTimer()
				for b.Loop() {
					m.Observe(7, 0.5)
					gp.Pop(m)
				}
			})
		}
	}
}

// BenchmarkAddAt times one AddAt at a point outside D on a model that
// already holds t−1 observations (a third of them outside D too), then
// pops it, as BenchmarkObserve does: O(N·t) for the update over D plus
// O(t²) for the forward substitution l = L⁻¹k(X_t, x), and one small
// allocation, the model's copy of x.
func BenchmarkAddAt(b *testing.B) {
	for _, n := range []int{100, 1000, 10000} {
		for _, t := range []int{100, 500} {
			b.Run(fmt.Sprintf("N=%d/t=%d", n, t), func(b *testing.B) {
				rng := rand.New(rand.NewPCG(1, 2))
				x := randPoints(rng, n, 2)
				m := gp.New(kernel.SE{Variance: 1, Lengthscale: 0.2}, x, 0.1)
				m.Reserve(t)
				for s := 0; s < t-1; s++ {
					if s%3 == 0 {
						m.AddAt(randPoints(rng, 1, 2)[0], rng.NormFloat64(), 0.02)
					} else {
						m.Observe(rng.IntN(n), rng.NormFloat64())
					}
				}
				p := []float64{0.123, -0.456}
				b.ReportAllocs()
				b.ResetTimer()
				for b.Loop() {
					m.AddAt(p, 0.5, -1)
					gp.Pop(m)
				}
			})
		}
	}
}
