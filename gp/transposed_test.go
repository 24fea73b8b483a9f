package gp_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/safegp/safegp/gp"
	"github.com/safegp/safegp/kernel"
)

// TestTransposedSameEntries checks that a model keeping Vᵀ
// (KeepTransposed, from the start or from t = 7, its copy relaid as the
// rows grow) gathers the same covariance entries, to the bit, as one
// reading V, and updates its posterior to the same bits, for one band and
// several. The sums run over the observations in the same order, so the
// tolerance is zero.
func TestTransposedSameEntries(t *testing.T) {
	for _, w := range []int{1, 3} {
		restore := gp.SetWorkers(w)
		rng := rand.New(rand.NewPCG(9, uint64(w)))
		const n = 60
		x := randPoints(rng, n, 2)
		k := kernel.Matern52{Variance: 1.2, Lengthscale: 0.35}
		plain, tr, late := gp.New(k, x, 0.1), gp.New(k, x, 0.1), gp.New(k, x, 0.1)
		for _, m := range []*gp.Model{plain, tr, late} {
			m.GrowTo(40) // rows doubled 8, 16, 32, 40: Vᵀ relaid each time
		}
		tr.KeepTransposed()
		idx := []int{1, 2, 5, 30, 31, 59, 2}
		for s := range 40 {
			if s == 7 {
				late.KeepTransposed()
			}
			if !tr.TransposedKept() {
				t.Fatal("KeepTransposed did not keep Vᵀ")
			}
			for _, i := range []int{0, 17, 59} {
				want := plain.CovarianceAt(make([]float64, len(idx)), i, idx)
				for name, m := range map[string]*gp.Model{"from 0": tr, "from 7": late} {
					got := m.CovarianceAt(make([]float64, len(idx)), i, idx)
					for q := range idx {
						if math.Float64bits(got[q]) != math.Float64bits(want[q]) {
							t.Fatalf("%d bands, t = %d, Vᵀ kept %s: entry (%d, %d) %v, want %v", w, s, name, i, idx[q], got[q], want[q])
						}
					}
				}
			}
			y := rng.NormFloat64()
			if s%6 == 5 {
				p := []float64{rng.Float64(), rng.Float64()}
				for _, m := range []*gp.Model{plain, tr, late} {
					m.AddAt(p, y, -1)
				}
			} else {
				i := rng.IntN(n)
				for _, m := range []*gp.Model{plain, tr, late} {
					m.Observe(i, y)
				}
			}
			for j := range n {
				for _, m := range []*gp.Model{tr, late} {
					if math.Float64bits(m.Mean()[j]) != math.Float64bits(plain.Mean()[j]) || math.Float64bits(m.Var()[j]) != math.Float64bits(plain.Var()[j]) {
						t.Fatalf("%d bands, t = %d: posterior at %d differs with Vᵀ kept", w, s+1, j)
					}
				}
			}
		}
		tr.DropTransposed()
		if tr.TransposedKept() {
			t.Fatal("DropTransposed kept Vᵀ")
		}
		restore()
	}
}
