package bandit

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/safegp/safegp/internal/racetest"
	"github.com/safegp/safegp/kernel"
)

// TestBatchGPSameAsFull checks the lazy batch choice of the SafeOpt family
// in gp mode (chooseNewGP: candidates tested in argmax's order until the
// choice is known, the variance hallucinated at all of S_t) against the
// path it replaces (batchOld: G_t computed whole each round, the variance
// hallucinated at G_t ∪ M_t or G_t): every ask of every batch the same
// action, to the bit, on 96 random problems — d = 1 … 4, one and two
// constraints, a third with an objective threshold, SafeOpt, SafeOpt-MC
// and StageOpt, batches of 1 … 8 asks, and after each batch a tell of
// all, the oldest or a random part of the pending asks, so that later
// batches start with points pending from earlier rounds, some of them
// outside the new G_t ∪ M_t (where the two paths hallucinate on
// different rows). The covariance is kept from the second round or never
// (rows on demand, in chunks of 256 or of 7 entries).
func TestBatchGPSameAsFull(t *testing.T) {
	if testing.Short() {
		t.Skip("96 problems × 3 variants × 2 paths")
	}
	const rounds = 30
	defer func(b, k int64, c int) { covarianceBudget, keepAfter, expanderChunk = b, k, c }(covarianceBudget, keepAfter, expanderChunk)
	names := []string{"safeopt", "safeopt-mc", "stageopt"}
	var asks, expanders, outside int
	// Under the race detector (10 times slower, 10 s) the first 32
	// problems, every d and number of constraints four times over; all
	// 96 run without it (.ci/run's coverage run).
	problems := uint64(racetest.Count(96, 32))
	for seed := uint64(0); seed < problems; seed++ {
		rng := rand.New(rand.NewPCG(seed, 17))
		d, m := 1+int(seed%4), 1+int(seed/4%2)
		n := 40 + rng.IntN(160)
		x := make([][]float64, n)
		for i := range x {
			x[i] = make([]float64, d)
			for k := range x[i] {
				x[i][k] = rng.Float64()
			}
		}
		// Smooth truths (TestGPModeSameAsFullTest's), the seed where
		// the constraints are largest.
		wave := func() []float64 {
			w := make([]float64, d+1)
			for k := range w {
				w[k] = 4 * (rng.Float64() - 0.5)
			}
			v := make([]float64, n)
			for i, xi := range x {
				s := w[d]
				for k, c := range xi {
					s += w[k] * c
				}
				v[i] = math.Sin(3*s) + 0.3*math.Cos(5*s*w[0])
			}
			return v
		}
		f := wave()
		g := make([][]float64, m)
		h := make([]float64, m)
		for k := range g {
			g[k] = wave()
			h[k] = -0.5
		}
		seedAct := 0
		for i := range x {
			if min(g[0][i], g[m-1][i]) > min(g[0][seedAct], g[m-1][seedAct]) {
				seedAct = i
			}
		}
		se := kernel.SE{Variance: 1, Lengthscale: 0.4 * math.Sqrt(float64(d))}
		ks := make([]kernel.Kernel, m)
		for k := range ks {
			ks[k] = se
		}
		var hf *float64
		if seed%3 == 2 {
			v := f[seedAct] - 0.5
			hf = &v
		}
		covarianceBudget, keepAfter, expanderChunk = 0, 0, 256
		if seed%4 < 2 {
			covarianceBudget = 1 << 40
		} else if seed%4 == 3 {
			expanderChunk = 7
		}
		for _, name := range names {
			s := &Spec{Name: name, SafeSet: "gp"}
			if name != "safeopt" {
				fixed := 10 + int(seed%20)
				s.Exploration = Exploration{Fixed: &fixed}
			}
			beta := PaperBeta
			if seed%5 < 3 {
				beta = Beta{Value: 4}
			}
			env := &setup{
				model: Model{Objective: se, Constraints: ks, NoiseStd: 0.05, Delta: 0.05, Beta: beta},
				set:   DecisionSet{X: x, Seed: []int{seedAct}},
				opt:   Options{Thresholds: h, ObjectiveThreshold: hf, Epsilon: 0.05, Horizon: rounds * 8, Rand: rand.New(rand.NewPCG(seed, 1))},
			}
			old, err := env.build(s)
			if err != nil {
				t.Fatal(err)
			}
			env.opt.Rand = rand.New(rand.NewPCG(seed, 1))
			lazy, err := env.build(s)
			if err != nil {
				t.Fatal(err)
			}
			po, pl := old.(*loop), lazy.(*loop)
			oo, ol := safeOptOf(t, old), safeOptOf(t, lazy)
			noise := rand.New(rand.NewPCG(seed, 99))
			for r := range rounds {
				k := 1 + rng.IntN(8)
				for q := range k {
					// Points pending from earlier rounds that the old
					// path does not hallucinate at.
					if len(po.pending) > 0 && oo.gRound == oo.updated {
						for _, a := range po.pending {
							if !oo.inG[a.Index] && !(oo.mRound == oo.updated && oo.inM[a.Index]) {
								outside++
							}
						}
					}
					batchOld = true
					a, okO, errO := po.AskNew()
					batchOld = false
					b, okL, errL := pl.AskNew()
					if errO != nil || errL != nil {
						t.Fatalf("seed %d %s: AskNew: %v, %v", seed, name, errO, errL)
					}
					if okO != okL || a.Index != b.Index {
						t.Fatalf("seed %d (d = %d, m = %d, N = %d, h_f %v) %s round %d ask %d of %d (%d pending): lazy (%d, %v), full G_t (%d, %v)",
							seed, d, m, n, hf != nil, name, r+1, q+1, k, len(po.pending), b.Index, okL, a.Index, okO)
					}
					if !okO {
						break
					}
					asks++
					if ol.knownRound == ol.updated && ol.known[b.Index] > 0 {
						expanders++
					}
				}
				// Tell all, the oldest, or each with probability ½ (at
				// least one), the same values to both.
				pend := append([]Ask(nil), po.pending...)
				mode := rng.IntN(3)
				for j, a := range pend {
					if mode == 1 && j > 0 || mode == 2 && j > 0 && rng.IntN(2) == 0 {
						continue
					}
					zs := make([]float64, m)
					for c := range zs {
						zs[c] = g[c][a.Index] + 0.05*noise.NormFloat64()
					}
					y := f[a.Index] + 0.05*noise.NormFloat64()
					tell(t, old, a, y, zs...)
					tell(t, lazy, a, y, zs...)
				}
			}
		}
	}
	t.Logf("%d asks, %d of them expanders, %d times a pending point outside G_t ∪ M_t", asks, expanders, outside)
	// The comparison means something only if expanders were chosen and
	// pending points fell outside the old path's rows.
	if expanders < asks/10 || outside == 0 {
		t.Errorf("%d asks, only %d expanders and %d pending points outside G_t ∪ M_t", asks, expanders, outside)
	}
}
