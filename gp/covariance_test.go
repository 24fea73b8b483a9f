package gp_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/safegp/safegp/gp"
	"github.com/safegp/safegp/kernel"
)

// TestCovarianceAtIsCovariance checks that CovarianceAt gives Covariance's
// floats at the chosen actions, to the bit, and so does a model that keeps
// the full covariance: the expander test's decisions must not depend on
// which of the three computed a row (see CovarianceAt). Observations at
// actions and at points outside D, with ARD and isotropic kernels.
func TestCovarianceAtIsCovariance(t *testing.T) {
	t.Parallel()
	kernels := []kernel.Kernel{
		kernel.SE{Variance: 1.3, Lengthscale: 0.4},
		kernel.Matern52{Variance: 1, Lengthscale: 0.3},
		kernel.SE{Variance: 1, ARD: []float64{0.3, 0.7}},
	}
	for ki, k := range kernels {
		rng := rand.New(rand.NewPCG(5, uint64(ki)))
		x := randPoints(rng, 40, 2)
		m, full := gp.New(k, x, 0.1), gp.New(k, x, 0.1)
		full.KeepCovariance()
		// A few actions (gathered) and most of them (a whole row).
		few, most := []int{0, 3, 4, 17, 39, 3}, make([]int, 0, 40)
		for j := range 37 {
			most = append(most, (j*7)%40)
		}
		want := make([]float64, 40)
		for s := range 25 {
			for _, i := range []int{0, 7, 39} {
				for _, idx := range [][]int{few, most} {
					got := make([]float64, len(idx))
					m.CovarianceAt(got, i, idx)
					m.Covariance(want, i)
					kept := full.CovarianceRow(i)
					for q, j := range idx {
						if math.Float64bits(got[q]) != math.Float64bits(want[j]) || math.Float64bits(kept[j]) != math.Float64bits(want[j]) {
							t.Fatalf("kernel %d, t = %d, row %d: at %d CovarianceAt %v, kept %v, Covariance %v", ki, s, i, j, got[q], kept[j], want[j])
						}
					}
				}
			}
			y := rng.NormFloat64()
			if s%5 == 4 {
				p := []float64{rng.Float64(), rng.Float64()}
				m.AddAt(p, y, -1)
				full.AddAt(p, y, -1)
			} else {
				i := rng.IntN(40)
				m.Observe(i, y)
				full.Observe(i, y)
			}
		}
	}
}
