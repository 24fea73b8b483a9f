package gp_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/safegp/safegp/gp"
	"github.com/safegp/safegp/kernel"
)

// TestAddSameForAnyWorkers checks that a model's floats do not depend on
// how many bands the update's product k(x, D) − Vᵀl is split into
// (gp.Model.explained): every observation path (Observe, Add with its
// own noise, AddAt outside D, Add after KeepCovariance) on random sets
// and kernels, compared bit for bit — mean, variance, V through
// Covariance, and the marginal likelihood — with the unsplit product.
// Bit equality is the claim, so there is no tolerance. It also checks
// that the standard deviation the update keeps is the variance's, and
// that kept prior rows (KeepPriorRows, before or after Reserve, or grown
// with the model) change no float: half the actions come from a pool of
// five, so rows are reused.
func TestAddSameForAnyWorkers(t *testing.T) {
	kernels := []kernel.Kernel{
		kernel.SE{Variance: 1, Lengthscale: 0.3},
		kernel.Matern32{Variance: 2, Lengthscale: 0.5},
		kernel.Matern52{Variance: 0.5, Lengthscale: 0.2},
		kernel.SE{Variance: 1.5, ARD: []float64{0.3, 0.5, 0.7}},
	}
	for c := range 24 {
		rng := rand.New(rand.NewPCG(uint64(c), 77))
		n := []int{1, 2, 5, 37, 300, 1001}[c%6]
		d := 1 + c%3
		k := kernels[c%len(kernels)]
		x := randPoints(rng, n, d)
		steps := 3 + rng.IntN(40)
		keepAt := rng.IntN(steps + 5) // may never keep
		type step struct {
			i     int
			p     []float64
			y, nv float64
		}
		plan := make([]step, steps)
		for s := range plan {
			plan[s] = step{i: rng.IntN(n), y: rng.NormFloat64(), nv: -1}
			if rng.IntN(2) == 0 {
				plan[s].i = rng.IntN(min(n, 5))
			}
			switch rng.IntN(4) {
			case 0:
				plan[s].nv = 0.01 + rng.Float64()
			case 1:
				plan[s].i = -1
				plan[s].p = randPoints(rng, 1, d)[0]
			}
		}
		build := func(w int, keepRows bool) *gp.Model {
			defer gp.SetWorkers(w)()
			m := gp.New(k, x, 0.1)
			if c%3 == 0 {
				m.Reserve(steps)
			}
			if keepRows {
				m.KeepPriorRows()
			}
			if c%3 == 1 {
				m.Reserve(steps)
			}
			for s, st := range plan {
				if s == keepAt {
					m.KeepCovariance()
				}
				switch {
				case st.i < 0:
					m.AddAt(st.p, st.y, st.nv)
				case st.nv < 0:
					m.Observe(st.i, st.y)
				default:
					m.Add(st.i, st.y, st.nv)
				}
			}
			return m
		}
		ref := build(1, false)
		for _, run := range []struct {
			w        int
			keepRows bool
		}{{2, false}, {3, false}, {7, false}, {n + 3, false}, {1, true}, {3, true}, {n + 3, true}} {
			w := run.w
			t.Run(fmt.Sprintf("case%d/N=%d/workers=%d/rows=%v", c, n, w, run.keepRows), func(t *testing.T) {
				m := build(w, run.keepRows)
				same := func(what string, a, b []float64) {
					t.Helper()
					for j := range a {
						if math.Float64bits(a[j]) != math.Float64bits(b[j]) {
							t.Fatalf("%s[%d] = %v with %d bands, %v unsplit", what, j, b[j], w, a[j])
						}
					}
				}
				same("mean", ref.Mean(), m.Mean())
				same("var", ref.Var(), m.Var())
				for _, i := range []int{0, n / 2, n - 1} {
					same(fmt.Sprintf("cov row %d", i), ref.Covariance(make([]float64, n), i), m.Covariance(make([]float64, n), i))
				}
				// Std is kept by the update, not computed on demand: it
				// must be √max(σ², 0) of the variance beside it, here and
				// on the model moved onto a subset by OnSet.
				for _, g := range []*gp.Model{m, m.OnSet(x[:max(n/2, 1)])} {
					for j, v := range g.Var() {
						if want := math.Sqrt(math.Max(v, 0)); math.Float64bits(g.Std(j)) != math.Float64bits(want) {
							t.Fatalf("Std(%d) = %v, want √max(%v, 0) = %v", j, g.Std(j), v, want)
						}
					}
				}
				if a, b := ref.LogMarginalLikelihood(), m.LogMarginalLikelihood(); math.Float64bits(a) != math.Float64bits(b) {
					t.Fatalf("log marginal likelihood %v with %d bands, %v unsplit", b, w, a)
				}
			})
		}
	}
}
