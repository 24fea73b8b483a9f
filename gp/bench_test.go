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

// atT400 returns a model over n actions in the unit square holding 400
// observations, a third of them at points outside D (issue 10's
// benchmarks: data at any point).
func atT400(n int) *gp.Model {
	const t = 400
	rng := rand.New(rand.NewPCG(1, 2))
	x := randPoints(rng, n, 2)
	m := gp.New(kernel.SE{Variance: 1, Lengthscale: 0.2}, x, 0.1)
	m.Reserve(t + 1)
	for s := 0; s < t; s++ {
		if s%3 == 0 {
			m.AddAt(randPoints(rng, 1, 2)[0], rng.NormFloat64(), 0.02)
		} else {
			m.Observe(rng.IntN(n), rng.NormFloat64())
		}
	}
	return m
}

// BenchmarkDataAnyPoint times issue 10's operations at t = 400 on N = 1000
// actions: AddAt at a point outside D (then popped), split into its two
// parts — the O(t²) forward substitution, which PredictAt times alone,
// and the O(N·t) update over D, which Observe at an action times alone —
// and the posterior moved onto (OnSet) or computed at (Predict) another
// set of 300 points, O(P·t²).
func BenchmarkDataAnyPoint(b *testing.B) {
	m := atT400(1000)
	p := []float64{0.123, -0.456}
	b.Run("AddAt/N=1000/t=400", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			m.AddAt(p, 0.5, -1)
			gp.Pop(m)
		}
	})
	b.Run("PredictAt/t=400", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			m.PredictAt(p)
		}
	})
	b.Run("Observe/N=1000/t=400", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			m.Observe(7, 0.5)
			gp.Pop(m)
		}
	})
	set := randPoints(rand.New(rand.NewPCG(3, 4)), 300, 2)
	b.Run("OnSet/P=300/t=400", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			m.OnSet(set)
		}
	})
	mean, vr := make([]float64, len(set)), make([]float64, len(set))
	b.Run("Predict/P=300/t=400", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			m.Predict(mean, vr, set)
		}
	})
	// A swarm's particles (SafeOptSwarm's 20 a swarm): few points, every
	// observation's row short.
	b.Run("Predict/P=20/t=400", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			m.Predict(mean[:20], vr[:20], set[:20])
		}
	})
}

// BenchmarkCovarianceAtTransposed times CovarianceAt's gathered entries
// on a model that keeps Vᵀ (KeepTransposed), as SafeOpt's expander test
// in gp mode reads them: 256 entries of one row at t observations over
// N = 10 000 actions, O(t) each.
func BenchmarkCovarianceAtTransposed(b *testing.B) {
	const n = 10000
	for _, t := range []int{100, 500} {
		b.Run(fmt.Sprintf("t=%d", t), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			x := randPoints(rng, n, 2)
			m := gp.New(kernel.SE{Variance: 1, Lengthscale: 0.2}, x, 0.1)
			m.Reserve(t)
			m.KeepTransposed()
			for range t {
				m.Observe(rng.IntN(n), rng.NormFloat64())
			}
			idx := make([]int, 256)
			for k := range idx {
				idx[k] = rng.IntN(n)
			}
			dst := make([]float64, len(idx))
			b.ReportAllocs()
			for b.Loop() {
				m.CovarianceAt(dst, 17, idx)
			}
		})
	}
}
