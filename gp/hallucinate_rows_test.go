package gp_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/safegp/safegp/gp"
	"github.com/safegp/safegp/kernel"
)

// TestHallucinatedSameWhateverRows checks that the hallucinated variance
// at an action is the same float whatever the other rows kept are: all
// of D (Reset), runs of consecutive actions, a scattered half, or a few
// actions, with pending actions of D among the rows or not and points
// outside D (AddAt) between them, the covariance kept or not, real
// observations in D and outside it. Each row is computed on its own in
// the same operation order, and the pending points' covariances among
// themselves as a row would hold them (Model.entry, explainedAt), so the
// comparison is exact: a policy may hallucinate over a larger candidate
// set than before and choose the same actions (bandit's
// TestBatchGPSameAsFull).
func TestHallucinatedSameWhateverRows(t *testing.T) {
	t.Parallel()
	for c, k := range []kernel.Kernel{
		kernel.SE{Variance: 1, Lengthscale: 0.4},
		kernel.Matern52{Variance: 0.7, Lengthscale: 0.3},
		kernel.SE{Variance: 1.3, Lengthscale: 0.25, ARD: []float64{1, 2}},
	} {
		for _, keep := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/keep%v", k.Name(), keep), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(uint64(c), 21))
				const n = 300
				x := randPoints(rng, n, 2)
				m := gp.New(k, x, 0.05)
				for s := range 60 {
					if s%7 == 3 {
						m.AddAt(randPoints(rng, 1, 2)[0], rng.NormFloat64(), -1)
					} else {
						m.Add(rng.IntN(n), rng.NormFloat64(), -1)
					}
				}
				if keep {
					m.KeepCovariance()
					for range 5 { // the kept covariance's rank-one updates too
						m.Add(rng.IntN(n), rng.NormFloat64(), -1)
					}
				}
				sets := map[string][]int{}
				for i := range n {
					if i%10 < 6 {
						sets["runs"] = append(sets["runs"], i)
					}
					if rng.IntN(2) == 0 {
						sets["scattered"] = append(sets["scattered"], i)
					}
					if rng.IntN(20) == 0 {
						sets["few"] = append(sets["few"], i)
					}
				}
				var all gp.Hallucinated
				all.Reset(m)
				hs := map[string]*gp.Hallucinated{}
				for name, rows := range sets {
					hs[name] = new(gp.Hallucinated)
					hs[name].ResetRows(m, rows)
				}
				for p := range 12 {
					if p%4 == 2 {
						q := randPoints(rng, 1, 2)[0]
						all.AddAt(q)
						for _, h := range hs {
							h.AddAt(q)
						}
					} else {
						i := rng.IntN(n)
						all.Add(i)
						for _, h := range hs {
							h.Add(i)
						}
					}
					for name, rows := range sets {
						for r, i := range rows {
							if got, want := hs[name].Var()[r], all.Var()[i]; math.Float64bits(got) != math.Float64bits(want) {
								t.Fatalf("%d pending, rows %s: var at action %d = %v, with every row %v", p+1, name, i, got, want)
							}
						}
					}
				}
			})
		}
	}
}
