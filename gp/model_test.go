package gp_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/safegp/safegp/gp"
	"github.com/safegp/safegp/kernel"
)

// scratch computes the posterior over x from observations (acts, ys) by a
// fresh Cholesky solve of K(X_t,X_t)+σ²I: the reference the incremental
// model must match.
func scratch(k kernel.Kernel, x [][]float64, noiseVar float64, acts []int, ys []float64) (mean, vr []float64) {
	t, n := len(acts), len(x)
	kt := mat.NewSymDense(t, nil)
	for a := 0; a < t; a++ {
		for b := a; b < t; b++ {
			v := k.Eval(x[acts[a]], x[acts[b]])
			if a == b {
				v += noiseVar
			}
			kt.SetSym(a, b, v)
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(kt) {
		panic("not positive definite")
	}
	kx := mat.NewDense(t, n, nil)
	for a := 0; a < t; a++ {
		for j := 0; j < n; j++ {
			kx.Set(a, j, k.Eval(x[acts[a]], x[j]))
		}
	}
	var alpha, sol mat.Dense
	if err := ch.SolveTo(&alpha, mat.NewDense(t, 1, ys)); err != nil {
		panic(err)
	}
	if err := ch.SolveTo(&sol, kx); err != nil {
		panic(err)
	}
	mean = make([]float64, n)
	vr = make([]float64, n)
	for j := 0; j < n; j++ {
		var m, q float64
		for a := 0; a < t; a++ {
			m += kx.At(a, j) * alpha.At(a, 0)
			q += kx.At(a, j) * sol.At(a, j)
		}
		mean[j] = m
		vr[j] = k.Eval(x[j], x[j]) - q
	}
	return mean, vr
}

func randPoints(rng *rand.Rand, n, d int) [][]float64 {
	x := make([][]float64, n)
	for i := range x {
		x[i] = make([]float64, d)
		for j := range x[i] {
			x[i][j] = 2*rng.Float64() - 1
		}
	}
	return x
}

// relErr is |a−b| relative to the scale of the quantity (the prior
// variance for variances, 1 + |b| for means), so that values that are
// exactly 0 in theory are judged against their natural scale.
func relErr(a, b, scale float64) float64 { return math.Abs(a-b) / scale }

func TestObserveMatchesScratch(t *testing.T) {
	// Tolerance 1e-9 relative: SPEC §2. The incremental update and the
	// fresh solve compute the same Cholesky factor in a different order.
	cases := []struct {
		k        kernel.Kernel
		n, d, t  int
		noiseStd float64
		repeats  bool
	}{
		{kernel.SE{Variance: 1, Lengthscale: 0.5}, 60, 2, 200, 0.1, true},
		{kernel.SE{Variance: 2, Lengthscale: 1}, 40, 3, 300, 0.3, true},
		{kernel.Matern32{Variance: 1, Lengthscale: 0.7}, 80, 2, 150, 0.05, false},
		{kernel.Matern52{Variance: 0.5, Lengthscale: 0.3}, 50, 1, 250, 0.1, true},
		{kernel.Linear{Variance: 1}, 30, 3, 100, 0.2, true},
		{kernel.Polynomial{Variance: 1, Offset: 1, Degree: 3}, 30, 2, 120, 0.2, true},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s/n%d/t%d", c.k.Name(), c.n, c.t), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, uint64(c.n)))
			x := randPoints(rng, c.n, c.d)
			m := gp.New(c.k, x, c.noiseStd)
			withCov := gp.New(c.k, x, c.noiseStd) // full-covariance mode, switched on midway
			var acts []int
			var ys []float64
			for s := 0; s < c.t; s++ {
				i := rng.IntN(c.n)
				if c.repeats && s > 0 && rng.Float64() < 0.3 {
					i = acts[rng.IntN(len(acts))]
				}
				y := rng.NormFloat64()
				m.Observe(i, y)
				if s == c.t/3 {
					withCov.KeepCovariance()
				}
				withCov.Observe(i, y)
				acts = append(acts, i)
				ys = append(ys, y)
			}
			mean, vr := scratch(c.k, x, m.NoiseVar(), acts, ys)
			for j := range x {
				scale := m.Prior()[j]
				if scale == 0 {
					scale = 1
				}
				if e := relErr(m.Mean()[j], mean[j], 1+math.Abs(mean[j])); e > 1e-9 {
					t.Errorf("mean[%d] = %v, scratch %v (rel %g)", j, m.Mean()[j], mean[j], e)
				}
				if e := relErr(m.Var()[j], vr[j], scale); e > 1e-9 {
					t.Errorf("var[%d] = %v, scratch %v (rel %g)", j, m.Var()[j], vr[j], e)
				}
				if e := relErr(withCov.Mean()[j], mean[j], 1+math.Abs(mean[j])); e > 1e-9 {
					t.Errorf("covariance mode: mean[%d] = %v, scratch %v (rel %g)", j, withCov.Mean()[j], mean[j], e)
				}
				if e := relErr(withCov.Var()[j], vr[j], scale); e > 1e-9 {
					t.Errorf("covariance mode: var[%d] = %v, scratch %v (rel %g)", j, withCov.Var()[j], vr[j], e)
				}
			}
		})
	}
}

func TestOneObservationClosedForm(t *testing.T) {
	// One observation y at x_0: μ(x) = k(x,x_0) y/(k_00+σ²),
	// σ²(x) = k(x,x) − k(x,x_0)²/(k_00+σ²). With σ = 0 the model uses the
	// jitter floor JitterScale·max k(x,x), so the observed point keeps a
	// variance of about that size, and its mean equals y to ~1e-10.
	x := [][]float64{{0}, {0.5}, {2}}
	k := kernel.SE{Variance: 1, Lengthscale: 1}
	for _, sigma := range []float64{0, 0.1, 1} {
		m := gp.New(k, x, sigma)
		m.Observe(0, 2)
		nv := math.Max(sigma*sigma, gp.JitterScale)
		for j := range x {
			kj := math.Exp(-x[j][0] * x[j][0] / 2)
			wantM := kj * 2 / (1 + nv)
			wantV := 1 - kj*kj/(1+nv)
			if math.Abs(m.Mean()[j]-wantM) > 1e-12 || math.Abs(m.Var()[j]-wantV) > 1e-12 {
				t.Errorf("σ=%v x=%v: got (%v, %v), want (%v, %v)", sigma, x[j][0], m.Mean()[j], m.Var()[j], wantM, wantV)
			}
		}
	}
}

func TestHypotheticalLeavesModelUnchanged(t *testing.T) {
	// The hypothetical posterior must equal a real Observe on a copy, to
	// 1e-12 absolute (the same rank-one update, with the gain taken as
	// c·(y−μ)/d rather than (c/√d)·((y−μ)/√d): a few ulps apart), and
	// leave the model as it was.
	rng := rand.New(rand.NewPCG(3, 4))
	x := randPoints(rng, 30, 2)
	k := kernel.Matern52{Variance: 1, Lengthscale: 0.4}
	m, ref := gp.New(k, x, 0.1), gp.New(k, x, 0.1)
	full := gp.New(k, x, 0.1)
	full.KeepCovariance()
	for s := 0; s < 20; s++ {
		i, y := rng.IntN(30), rng.NormFloat64()
		m.Observe(i, y)
		ref.Observe(i, y)
		full.Observe(i, y)
	}
	fu := full.Hypothetical(7, 1.5-full.Mean()[7])
	before := append([]float64(nil), m.Mean()...)
	beforeVar := append([]float64(nil), m.Var()...)
	hu := m.Hypothetical(7, 1.5-m.Mean()[7])
	hm, hv := make([]float64, 30), make([]float64, 30)
	for j := range x {
		hm[j], hv[j] = hu.Mean(j), hu.Var(j)
	}
	ref.Observe(7, 1.5)
	for j := range x {
		if m.Mean()[j] != before[j] || m.Var()[j] != beforeVar[j] {
			t.Fatalf("model changed at %d", j)
		}
		if math.Abs(fu.Mean(j)-hm[j]) > 1e-12 || math.Abs(fu.Var(j)-hv[j]) > 1e-12 {
			t.Errorf("covariance mode hypothetical[%d] = (%v,%v), want (%v,%v)", j, fu.Mean(j), fu.Var(j), hm[j], hv[j])
		}
		if math.Abs(hm[j]-ref.Mean()[j]) > 1e-12 || math.Abs(hv[j]-ref.Var()[j]) > 1e-12 {
			t.Errorf("hypothetical[%d] = (%v,%v), observe gives (%v,%v)", j, hm[j], hv[j], ref.Mean()[j], ref.Var()[j])
		}
	}
	if m.T() != 20 {
		t.Errorf("T = %d after a hypothetical, want 20", m.T())
	}
}

// TestGrowToMatchesReserve checks that growing V as observations come
// (studies) gives bit-for-bit the posterior of a model reserved up front
// (experiments): the growth only moves floats.
func TestGrowToMatchesReserve(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	x := make([][]float64, 50)
	for i := range x {
		x[i] = []float64{rng.Float64(), rng.Float64()}
	}
	k := kernel.SE{Variance: 1, Lengthscale: 0.3}
	for _, steps := range []int{1, 7, 8, 9, 40} {
		a, b := gp.New(k, x, 0.1), gp.New(k, x, 0.1)
		a.Reserve(40)
		b.GrowTo(40)
		for s := 0; s < steps; s++ {
			i, y := rng.IntN(len(x)), rng.NormFloat64()
			a.Observe(i, y)
			b.Observe(i, y)
		}
		for j := range x {
			if a.Mean()[j] != b.Mean()[j] || a.Var()[j] != b.Var()[j] {
				t.Fatalf("%d steps, action %d: reserved (%v, %v), grown (%v, %v)", steps, j, a.Mean()[j], a.Var()[j], b.Mean()[j], b.Var()[j])
			}
		}
	}
}

// TestBytes checks the estimate against what a reserved model allocates:
// Reserve(t) and t observations allocate within the estimate, and the
// estimate is not more than twice the allocation (so that refusals are
// not spurious).
func TestBytes(t *testing.T) {
	for _, c := range []struct{ n, t int }{{100, 50}, {1000, 200}} {
		x := make([][]float64, c.n)
		for i := range x {
			x[i] = []float64{float64(i)}
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		m := gp.New(kernel.SE{Variance: 1, Lengthscale: 3}, x, 0.1)
		m.Reserve(c.t)
		for s := 0; s < c.t; s++ {
			m.Observe((s*7)%c.n, 1)
		}
		runtime.ReadMemStats(&after)
		allocs := int64(after.TotalAlloc - before.TotalAlloc)
		est := gp.Bytes(c.n, c.t, false)
		if allocs > est || est > 2*allocs {
			t.Errorf("N = %d, t = %d: allocated %d bytes, estimate %d", c.n, c.t, allocs, est)
		}
	}
}
