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
	pts, nv := make([][]float64, len(acts)), make([]float64, len(acts))
	for s, i := range acts {
		pts[s], nv[s] = x[i], noiseVar
	}
	mean, vr, _, _ = scratchAt(k, x, pts, nv, ys)
	return mean, vr
}

// scratchAt computes the posterior over x from observations ys at points
// pts with noise variances nv by a fresh Cholesky solve of
// K(X_t,X_t)+diag(nv), the log marginal likelihood
// −½yᵀα − ½log det − (t/2)log 2π, and the factor's condition estimate
// (which sets how close the incremental model can be expected to agree).
func scratchAt(k kernel.Kernel, x, pts [][]float64, nv, ys []float64) (mean, vr []float64, lml, cond float64) {
	t, n := len(pts), len(x)
	mean = make([]float64, n)
	vr = make([]float64, n)
	for j := range x {
		vr[j] = k.Eval(x[j], x[j])
	}
	if t == 0 {
		return mean, vr, 0, 1
	}
	kt := mat.NewSymDense(t, nil)
	for a := 0; a < t; a++ {
		for b := a; b < t; b++ {
			v := k.Eval(pts[a], pts[b])
			if a == b {
				v += nv[a]
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
			kx.Set(a, j, k.Eval(pts[a], x[j]))
		}
	}
	var alpha, sol mat.Dense
	if err := ch.SolveTo(&alpha, mat.NewDense(t, 1, ys)); err != nil {
		panic(err)
	}
	if err := ch.SolveTo(&sol, kx); err != nil {
		panic(err)
	}
	for j := 0; j < n; j++ {
		var m, q float64
		for a := 0; a < t; a++ {
			m += kx.At(a, j) * alpha.At(a, 0)
			q += kx.At(a, j) * sol.At(a, j)
		}
		mean[j] = m
		vr[j] -= q
	}
	var fit float64
	for a := 0; a < t; a++ {
		fit += ys[a] * alpha.At(a, 0)
	}
	lml = -0.5*fit - 0.5*ch.LogDet() - 0.5*float64(t)*math.Log(2*math.Pi)
	return mean, vr, lml, ch.Cond()
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
	t.Parallel()
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

// checkPosterior compares m's posterior over x and its log marginal
// likelihood with a fresh solve from the model's own record of the data
// (Points, NoiseVars, Y), which the test checks separately, to tol
// relative: means against 1 + |μ|, variances against the prior k(x,x),
// the log likelihood against 1 + |log p|.
func checkPosterior(t *testing.T, what string, k kernel.Kernel, x [][]float64, m *gp.Model, tol, maxCond float64) {
	t.Helper()
	mean, vr, lml, cond := scratchAt(k, x, m.Points(), m.NoiseVars(), m.Y())
	if cond > maxCond {
		t.Fatalf("%s: condition number %.3g above %.3g, which the tolerance assumes", what, cond, maxCond)
	}
	for j := range x {
		scale := m.Prior()[j]
		if scale == 0 {
			scale = 1
		}
		if e := relErr(m.Mean()[j], mean[j], 1+math.Abs(mean[j])); e > tol {
			t.Errorf("%s: mean[%d] = %v, scratch %v (rel %g)", what, j, m.Mean()[j], mean[j], e)
		}
		if e := relErr(m.Var()[j], vr[j], scale); e > tol {
			t.Errorf("%s: var[%d] = %v, scratch %v (rel %g)", what, j, m.Var()[j], vr[j], e)
		}
	}
	if e := relErr(m.LogMarginalLikelihood(), lml, 1+math.Abs(lml)); e > tol {
		t.Errorf("%s: log marginal likelihood %v, scratch %v (rel %g)", what, m.LogMarginalLikelihood(), lml, e)
	}
	checkPredict(t, what, k, len(x[0]), m, tol)
}

// checkPredict compares PredictAt and Predict at probe points in d
// dimensions — new random ones and some of the observed points — with a
// fresh solve, as checkPosterior does over the set.
func checkPredict(t *testing.T, what string, k kernel.Kernel, d int, m *gp.Model, tol float64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(uint64(m.T()), 3))
	probe := randPoints(rng, 20, d)
	for s := 0; s < 5 && m.T() > 0; s++ {
		probe = append(probe, m.Points()[rng.IntN(m.T())])
	}
	mean, vr, _, _ := scratchAt(k, probe, m.Points(), m.NoiseVars(), m.Y())
	bm, bv := make([]float64, len(probe)), make([]float64, len(probe))
	m.Predict(bm, bv, probe)
	for j, p := range probe {
		mu, v := m.PredictAt(p)
		scale := k.Eval(p, p)
		if scale == 0 {
			scale = 1
		}
		for _, c := range []struct {
			name      string
			got, want float64
			scale     float64
		}{
			{"PredictAt mean", mu, mean[j], 1 + math.Abs(mean[j])},
			{"PredictAt var", v, vr[j], scale},
			{"Predict mean", bm[j], mean[j], 1 + math.Abs(mean[j])},
			{"Predict var", bv[j], vr[j], scale},
		} {
			if e := relErr(c.got, c.want, c.scale); e > tol {
				t.Errorf("%s: %s at probe %d = %v, scratch %v (rel %g)", what, c.name, j, c.got, c.want, e)
			}
		}
	}
}

// TestAddMatchesScratch mixes observations at actions of D (Observe, and
// Add with their own noise variance) and at points outside D (AddAt),
// moves the model onto another decision set (OnSet) midway and goes on
// observing there; the posterior over the current set, the log marginal
// likelihood, and the posterior at probe points off the set (PredictAt
// one by one, Predict as a batch; checkPredict) must agree with a
// from-scratch Cholesky solve.
//
// Tolerance 1e-9 relative (SPEC §2). Both sides factorize the same
// matrix K(X_t,X_t) + diag(σ²_s) in a different order, and a backward-
// stable Cholesky solve loses about κ·u, u = 1.1e-16, to rounding. The
// noise variances here are at least 0.05², which bounds κ by
// 1 + t·max k(x,x)/0.0025; gonum's 1-norm estimate of κ is at most 4e5
// in these cases, and checkPosterior refuses to judge above 1e6, where
// κ·u ≈ 1e-10 still leaves a factor 10 below the tolerance (the worst
// error measured is 2e-12).
func TestAddMatchesScratch(t *testing.T) {
	t.Parallel()
	const tol, maxCond = 1e-9, 1e6
	cases := []struct {
		k       kernel.Kernel
		n, d, t int
		outside float64 // share of observations at points outside the set
		onSet   int     // observations before moving to a new set of n2 points
		n2      int
		keepCov bool // full covariance kept from the start
	}{
		{kernel.SE{Variance: 1, Lengthscale: 0.5}, 60, 2, 200, 0.3, 120, 90, false},
		{kernel.SE{Variance: 2, Lengthscale: 1}, 40, 3, 300, 0.5, 150, 25, true},
		{kernel.Matern32{Variance: 1, Lengthscale: 0.7}, 80, 2, 150, 0.2, 50, 80, false},
		{kernel.Matern52{Variance: 0.5, Lengthscale: 0.3}, 50, 1, 250, 0.4, 200, 70, true},
		{kernel.Linear{Variance: 1}, 30, 3, 100, 0.5, 40, 30, false},
		{kernel.Polynomial{Variance: 1, Offset: 1, Degree: 3}, 30, 2, 120, 0.3, 60, 45, false},
		{kernel.SE{Variance: 1, Lengthscale: 0.3}, 50, 2, 120, 1, 60, 50, false},  // outside D only
		{kernel.SE{Variance: 1, Lengthscale: 0.3}, 20, 2, 100, 0.5, 0, 40, false}, // OnSet of the prior
	}
	noises := []float64{-1, 0.05 * 0.05, 0.01, 0.04, 0.25} // −1: the model's
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s/n%d/t%d/out%g", c.k.Name(), c.n, c.t, c.outside), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(5, uint64(c.n+c.t)))
			x := randPoints(rng, c.n, c.d)
			m := gp.New(c.k, x, 0.1)
			if c.keepCov {
				m.KeepCovariance()
			}
			var pts [][]float64
			var ys, nvs []float64
			for s := 0; s < c.t; s++ {
				if s == c.onSet {
					old := m
					x = randPoints(rng, c.n2, c.d)
					x = append(x, pts[:min(len(pts), 5)]...) // some observed points in the new set
					m = m.OnSet(x)
					checkPosterior(t, fmt.Sprintf("just after OnSet at t=%d", s), c.k, x, m, tol, maxCond)
					if old.T() != m.T() || m.N() != len(x) {
						t.Fatalf("OnSet: T %d→%d, N %d (set of %d)", old.T(), m.T(), m.N(), len(x))
					}
				}
				nv := noises[rng.IntN(len(noises))]
				y := rng.NormFloat64()
				var p []float64
				switch r := rng.Float64(); {
				case r < c.outside:
					p = randPoints(rng, 1, c.d)[0]
					m.AddAt(p, y, nv)
				case nv < 0 && r < (1+c.outside)/2:
					i := rng.IntN(len(x))
					p = x[i]
					m.Observe(i, y)
				default:
					i := rng.IntN(len(x))
					if rng.Float64() < 0.3 {
						i = rng.IntN(4) // repeated actions
					}
					p = x[i]
					m.Add(i, y, nv)
				}
				if nv < 0 {
					nv = m.NoiseVar()
				}
				pts, ys, nvs = append(pts, p), append(ys, y), append(nvs, nv)
			}
			// The model's record of the data is what was given.
			if m.T() != c.t || len(m.Points()) != c.t {
				t.Fatalf("T = %d, %d points, want %d", m.T(), len(m.Points()), c.t)
			}
			for s := range pts {
				if m.Y()[s] != ys[s] || m.NoiseVars()[s] != nvs[s] || fmt.Sprint(m.Points()[s]) != fmt.Sprint(pts[s]) {
					t.Fatalf("observation %d: (%v, %v, %v), want (%v, %v, %v)", s, m.Points()[s], m.Y()[s], m.NoiseVars()[s], pts[s], ys[s], nvs[s])
				}
			}
			checkPosterior(t, "at the end", c.k, x, m, tol, maxCond)
		})
	}
}

// TestOnSetSameSet checks that OnSet onto the model's own decision set
// reproduces the posterior bit for bit (V' is built with the floats Add
// computes, in the same order), and that the two models are independent
// afterwards: observations on one leave the other as it was.
func TestOnSetSameSet(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 8))
	x := randPoints(rng, 40, 2)
	k := kernel.Matern52{Variance: 1, Lengthscale: 0.4}
	a := gp.New(k, x, 0.1)
	for s := range 60 {
		if s%3 == 0 {
			a.AddAt(randPoints(rng, 1, 2)[0], rng.NormFloat64(), 0.02)
		} else {
			a.Observe(rng.IntN(40), rng.NormFloat64())
		}
	}
	b, ref := a.OnSet(x), a.OnSet(x)
	for j := range x {
		if a.Mean()[j] != b.Mean()[j] || a.Var()[j] != b.Var()[j] {
			t.Fatalf("action %d: OnSet gives (%v, %v), the model (%v, %v)", j, b.Mean()[j], b.Var()[j], a.Mean()[j], a.Var()[j])
		}
	}
	if a.LogMarginalLikelihood() != b.LogMarginalLikelihood() {
		t.Errorf("log marginal likelihood %v after OnSet, %v before", b.LogMarginalLikelihood(), a.LogMarginalLikelihood())
	}
	// Diverge: a and b each get observations the other does not.
	for range 10 {
		a.Observe(rng.IntN(40), rng.NormFloat64())
		b.AddAt(randPoints(rng, 1, 2)[0], rng.NormFloat64(), -1)
	}
	ra := ref.OnSet(x)
	for j := range x {
		if ref.Mean()[j] != ra.Mean()[j] || ref.Var()[j] != ra.Var()[j] {
			t.Fatalf("a copy changed at %d", j)
		}
	}
	if a.T() != 70 || b.T() != 70 || ref.T() != 60 {
		t.Errorf("T = %d, %d, %d; want 70, 70, 60", a.T(), b.T(), ref.T())
	}
	checkPosterior(t, "a", k, x, a, 1e-9, 1e6)
	checkPosterior(t, "b", k, x, b, 1e-9, 1e6)
}

// TestAddAtClosedForm checks one observation y at a point x_0 outside D
// with its own noise variance against the closed forms
// μ(x) = k(x,x_0)y/(k_00+σ²), σ²(x) = k(x,x) − k(x,x_0)²/(k_00+σ²) and
// log p(y) = −½y²/(k_00+σ²) − ½log(k_00+σ²) − ½log 2π, to 1e-12 absolute
// (a handful of operations on numbers of order 1). A noise variance
// below the jitter floor is raised to it, and a negative one means the
// model's.
func TestAddAtClosedForm(t *testing.T) {
	t.Parallel()
	x := [][]float64{{0}, {0.5}, {2}}
	x0 := []float64{0.25}
	k := kernel.SE{Variance: 1, Lengthscale: 1}
	sd := 0.1
	for _, c := range []struct{ noiseVar, want float64 }{
		{0.3, 0.3},
		{0, gp.JitterScale},
		{1e-14, gp.JitterScale},
		{-1, sd * sd}, // the model's σ², computed as New does
	} {
		m := gp.New(k, x, sd)
		p := append([]float64(nil), x0...)
		m.AddAt(p, 2, c.noiseVar)
		p[0] = 99 // the model keeps its own copy
		if got := m.Points()[0][0]; got != x0[0] {
			t.Errorf("the model's point follows the caller's slice: %v", got)
		}
		if got := m.NoiseVars()[0]; got != c.want {
			t.Errorf("noise variance %v: model uses %v, want %v", c.noiseVar, got, c.want)
		}
		nv := c.want
		for j := range x {
			kj := math.Exp(-(x[j][0] - x0[0]) * (x[j][0] - x0[0]) / 2)
			wantM := kj * 2 / (1 + nv)
			wantV := 1 - kj*kj/(1+nv)
			if math.Abs(m.Mean()[j]-wantM) > 1e-12 || math.Abs(m.Var()[j]-wantV) > 1e-12 {
				t.Errorf("σ²=%v x=%v: got (%v, %v), want (%v, %v)", c.noiseVar, x[j][0], m.Mean()[j], m.Var()[j], wantM, wantV)
			}
		}
		wantL := -0.5*4/(1+nv) - 0.5*math.Log(1+nv) - 0.5*math.Log(2*math.Pi)
		if got := m.LogMarginalLikelihood(); math.Abs(got-wantL) > 1e-12 {
			t.Errorf("σ²=%v: log marginal likelihood %v, want %v", c.noiseVar, got, wantL)
		}
	}
	if got := gp.New(k, x, 0.1).LogMarginalLikelihood(); got != 0 {
		t.Errorf("log marginal likelihood of no data = %v, want 0", got)
	}
}

// TestAddModelNoiseIsObserve: Add with a negative noise variance, or with
// the model's own, is Observe, bit for bit.
func TestAddModelNoiseIsObserve(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(9, 10))
	x := randPoints(rng, 30, 2)
	k := kernel.SE{Variance: 1, Lengthscale: 0.4}
	sd := 0.2
	a, b, c := gp.New(k, x, sd), gp.New(k, x, sd), gp.New(k, x, sd)
	for range 50 {
		i, y := rng.IntN(30), rng.NormFloat64()
		a.Observe(i, y)
		b.Add(i, y, -1)
		c.Add(i, y, sd*sd)
	}
	for j := range x {
		if a.Mean()[j] != b.Mean()[j] || a.Var()[j] != b.Var()[j] || a.Mean()[j] != c.Mean()[j] || a.Var()[j] != c.Var()[j] {
			t.Fatalf("action %d: Observe (%v, %v), Add (%v, %v) and (%v, %v)", j, a.Mean()[j], a.Var()[j], b.Mean()[j], b.Var()[j], c.Mean()[j], c.Var()[j])
		}
	}
}

// TestObserveDoesNotAllocate: within Reserve, Observe, Add and a
// hypothetical update allocate nothing, with or without the full
// covariance (hot loops write into storage they own). AllocsPerRun
// averages over calls and rounds down, which would hide slices grown now
// and then by append; a second check counts every allocation of a whole
// reserved run (least of three tries, since the test runner's goroutines
// may allocate meanwhile).
func TestObserveDoesNotAllocate(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	x := randPoints(rng, 50, 2)
	k := kernel.SE{Variance: 1, Lengthscale: 0.3}
	for _, keepCov := range []bool{false, true} {
		m := gp.New(k, x, 0.1)
		if keepCov {
			m.KeepCovariance()
		}
		m.Reserve(500)
		for _, c := range []struct {
			name string
			f    func()
		}{
			{"Observe", func() { m.Observe(rng.IntN(50), rng.NormFloat64()) }},
			{"Add", func() { m.Add(rng.IntN(50), rng.NormFloat64(), 0.05) }},
			{"Hypothetical", func() {
				u := m.Hypothetical(rng.IntN(50), 0.3)
				_ = u.Mean(3) + u.Var(4)
			}},
		} {
			if a := testing.AllocsPerRun(100, c.f); a != 0 {
				t.Errorf("keepCov=%v: %s allocates %v times per call", keepCov, c.name, a)
			}
		}
		least := uint64(math.MaxUint64)
		for range 3 {
			m := gp.New(k, x, 0.1)
			if keepCov {
				m.KeepCovariance()
			}
			m.Reserve(300)
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			for s := range 300 {
				if s%2 == 0 {
					m.Observe(rng.IntN(50), 1)
				} else {
					m.Add(rng.IntN(50), 1, 0.05)
				}
			}
			runtime.ReadMemStats(&after)
			least = min(least, after.Mallocs-before.Mallocs)
		}
		if least != 0 {
			t.Errorf("keepCov=%v: 300 reserved observations allocate %d times", keepCov, least)
		}
	}
}

// TestBadInputPanics: a point of the wrong dimension or not finite, or a
// noise variance that is NaN or +Inf, would corrupt L for good; the model
// refuses them loudly (callers check user input before).
func TestBadInputPanics(t *testing.T) {
	t.Parallel()
	k := kernel.SE{Variance: 1, Lengthscale: 1}
	x := [][]float64{{0, 0}, {1, 1}}
	for _, c := range []struct {
		name string
		f    func(m *gp.Model)
	}{
		{"AddAt short point", func(m *gp.Model) { m.AddAt([]float64{0}, 1, -1) }},
		{"AddAt long point", func(m *gp.Model) { m.AddAt([]float64{0, 0, 0}, 1, -1) }},
		{"AddAt NaN noise", func(m *gp.Model) { m.AddAt([]float64{0, 0}, 1, math.NaN()) }},
		{"AddAt infinite point", func(m *gp.Model) { m.AddAt([]float64{0, math.Inf(-1)}, 1, -1) }},
		{"Add +Inf noise", func(m *gp.Model) { m.Add(0, 1, math.Inf(1)) }},
		{"Add index", func(m *gp.Model) { m.Add(2, 1, -1) }},
		{"OnSet dimension", func(m *gp.Model) { m.AddAt([]float64{0, 0}, 1, -1); m.OnSet([][]float64{{0}}) }},
		{"empty set, AddAt dimension", func(*gp.Model) {
			m := gp.New(k, nil, 0.1)
			m.AddAt([]float64{0, 0}, 1, -1)
			m.AddAt([]float64{0}, 1, -1)
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("no panic")
				}
			}()
			c.f(gp.New(k, x, 0.1))
		})
	}
}

func TestOneObservationClosedForm(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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

// TestGrowToMatchesReserve checks that growing V and L as observations
// come (studies) gives bit-for-bit the posterior of a model reserved up
// front (experiments): the growth only moves floats.
func TestGrowToMatchesReserve(t *testing.T) {
	t.Parallel()
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
			switch s % 3 {
			case 0:
				a.Observe(i, y)
				b.Observe(i, y)
			case 1:
				a.Add(i, y, 0.03)
				b.Add(i, y, 0.03)
			default:
				p := []float64{rng.Float64(), rng.Float64()}
				a.AddAt(p, y, -1)
				b.AddAt(p, y, -1)
			}
		}
		for j := range x {
			if a.Mean()[j] != b.Mean()[j] || a.Var()[j] != b.Var()[j] {
				t.Fatalf("%d steps, action %d: reserved (%v, %v), grown (%v, %v)", steps, j, a.Mean()[j], a.Var()[j], b.Mean()[j], b.Var()[j])
			}
		}
	}
}

// TestPredictAtDoesNotAllocate: PredictAt runs on the model's scratch
// row, so a study may call it per tell and a benchmark per point.
func TestPredictAtDoesNotAllocate(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	x := randPoints(rng, 50, 2)
	m := gp.New(kernel.SE{Variance: 1, Lengthscale: 0.4}, x, 0.1)
	m.Reserve(40)
	for s := 0; s < 40; s++ {
		if s%2 == 0 {
			m.AddAt(randPoints(rng, 1, 2)[0], rng.NormFloat64(), 0.01)
		} else {
			m.Observe(rng.IntN(50), rng.NormFloat64())
		}
	}
	p := []float64{0.1, 0.2}
	if a := testing.AllocsPerRun(100, func() { m.PredictAt(p) }); a != 0 {
		t.Errorf("PredictAt: %v allocations per call, want 0", a)
	}
}

// TestOutsideBytes checks the estimate of the observations outside D
// against what AddAt allocates beyond Bytes, with every observation
// outside D (the worst case).
func TestOutsideBytes(t *testing.T) {
	for _, c := range []struct{ n, d, t int }{{100, 2, 50}, {50, 3, 400}, {10, 1, 1000}} {
		rng := rand.New(rand.NewPCG(1, uint64(c.t)))
		x := randPoints(rng, c.n, c.d)
		pts := randPoints(rng, c.t, c.d)
		allocs := int64(math.MaxInt64)
		for range 3 {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			m := gp.New(kernel.SE{Variance: 1, Lengthscale: 0.5}, x, 0.1)
			m.Reserve(c.t)
			for _, p := range pts {
				m.AddAt(p, 1, -1)
			}
			runtime.ReadMemStats(&after)
			allocs = min(allocs, int64(after.TotalAlloc-before.TotalAlloc))
		}
		est := gp.Bytes(c.n, c.t, false) + gp.OutsideBytes(c.d, c.t, c.t)
		if allocs > est || est > 2*allocs {
			t.Errorf("N = %d, d = %d, t = %d, all outside: allocated %d bytes, estimate %d", c.n, c.d, c.t, allocs, est)
		}
	}
}

// TestBytes checks the estimate against what a reserved model allocates:
// Reserve(t) and t observations allocate within the estimate, and the
// estimate is not more than twice the allocation (so that refusals are
// not spurious). With t > N the factor L (t²/2 floats) outweighs V, so
// the estimate must count it. Each case is measured three times and the
// least kept: other goroutines (the test runner's) only add to
// TotalAlloc.
func TestBytes(t *testing.T) {
	for _, c := range []struct{ n, t int }{{100, 50}, {1000, 200}, {50, 400}} {
		x := make([][]float64, c.n)
		for i := range x {
			x[i] = []float64{float64(i)}
		}
		allocs := int64(math.MaxInt64)
		for range 3 {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			m := gp.New(kernel.SE{Variance: 1, Lengthscale: 3}, x, 0.1)
			m.Reserve(c.t)
			for s := 0; s < c.t; s++ {
				m.Observe((s*7)%c.n, 1)
			}
			runtime.ReadMemStats(&after)
			allocs = min(allocs, int64(after.TotalAlloc-before.TotalAlloc))
		}
		est := gp.Bytes(c.n, c.t, false)
		if allocs > est || est > 2*allocs {
			t.Errorf("N = %d, t = %d: allocated %d bytes, estimate %d", c.n, c.t, allocs, est)
		}
	}
}

// TestKeepCovarianceFrom: a model told to keep its covariance from t0
// observations on switches exactly when it holds t0 (the add of
// observation t0 + 1 is the first one on the kept covariance), and holds
// every float a model that never switches holds — means, variances,
// covariance rows, predictions at other points — to the bit: a study
// recorded before the switch existed replays with it. Both match a
// from-scratch Cholesky solve within TestAddMatchesScratch's tolerance.
func TestKeepCovarianceFrom(t *testing.T) {
	t.Parallel()
	const tol, maxCond = 1e-9, 1e6
	for _, c := range []struct {
		k       kernel.Kernel
		n, t    int
		outside float64
	}{
		{kernel.SE{Variance: 1, Lengthscale: 0.5}, 30, 200, 0},
		{kernel.Matern52{Variance: 2, Lengthscale: 0.4}, 25, 150, 0.2},
		{kernel.Linear{Variance: 1}, 20, 120, 0.1},
		{kernel.SE{Variance: 1, Lengthscale: 0.2}, 800, 1700, 0}, // products in bands across cores (N·t > parWork)
	} {
		t.Run(fmt.Sprintf("%s/n%d", c.k.Name(), c.n), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(11, uint64(c.n)))
			x := randPoints(rng, c.n, 2)
			m, never := gp.New(c.k, x, 0.1), gp.New(c.k, x, 0.1)
			m.KeepCovarianceFrom(2 * c.n)
			for s := 0; s < c.t; s++ {
				if kept := m.CovarianceKept(); kept != (s > 2*c.n) {
					t.Fatalf("after %d observations: covariance kept %v, want it from %d", s, kept, 2*c.n)
				}
				y := rng.NormFloat64()
				if rng.Float64() < c.outside {
					p := randPoints(rng, 1, 2)[0]
					m.AddAt(p, y, -1)
					never.AddAt(p, y, -1)
				} else {
					i := rng.IntN(c.n)
					if rng.Float64() < 0.3 {
						i = rng.IntN(3) // repeated actions
					}
					m.Observe(i, y)
					never.Observe(i, y)
				}
			}
			if !m.CovarianceKept() || never.CovarianceKept() {
				t.Fatal("the switch did not happen, or happened to the other model")
			}
			if c.n <= 30 {
				checkPosterior(t, "after the switch", c.k, x, m, tol, maxCond)
			}
			for i := range c.n {
				if m.Mean()[i] != never.Mean()[i] || m.Var()[i] != never.Var()[i] || m.Std(i) != never.Std(i) {
					t.Fatalf("action %d: (%v, %v) kept, (%v, %v) never", i, m.Mean()[i], m.Var()[i], never.Mean()[i], never.Var()[i])
				}
			}
			row := make([]float64, c.n)
			for _, i := range []int{0, 1, c.n / 2, c.n - 1} {
				got, want := m.CovarianceRow(i), never.Covariance(row, i)
				for j := range want {
					if got[j] != want[j] {
						t.Fatalf("covariance (%d, %d): %v kept, %v computed", i, j, got[j], want[j])
					}
				}
			}
			pts := randPoints(rng, 5, 2)
			mk, vk, mn, vn := make([]float64, 5), make([]float64, 5), make([]float64, 5), make([]float64, 5)
			m.Predict(mk, vk, pts)
			never.Predict(mn, vn, pts)
			for k := range pts {
				if mk[k] != mn[k] || vk[k] != vn[k] {
					t.Fatalf("prediction at %v: (%v, %v) kept, (%v, %v) never", pts[k], mk[k], vk[k], mn[k], vn[k])
				}
			}
		})
	}
}

// TestJointAt: the joint posterior's diagonal is PredictAt's variance and
// its mean PredictAt's mean, to rounding; the covariance is symmetric
// and agrees with the covariance of the posterior over a set holding the
// points (CovarianceRow), which is computed by another route.
func TestJointAt(t *testing.T) {
	t.Parallel()
	k := kernel.SE{Lengthscale: 0.3, Variance: 1.5}
	xs := [][]float64{{0}, {0.2}, {0.45}, {0.7}, {1}}
	m := gp.New(k, xs, 0.01)
	m.KeepCovariance()
	for i, y := range []float64{0.3, -0.2, 0.5} {
		m.Observe(i*2, y)
	}
	pts := [][]float64{{0.2}, {0.45}, {0.7}}
	mean, cov := make([]float64, 3), make([]float64, 9)
	m.JointAt(mean, cov, pts)
	for a, x := range pts {
		mu, v := m.PredictAt(x)
		if math.Abs(mean[a]-mu) > 1e-12 || math.Abs(cov[a*3+a]-v) > 1e-12 {
			t.Errorf("point %v: joint (%v, %v), PredictAt (%v, %v)", x, mean[a], cov[a*3+a], mu, v)
		}
		row := m.CovarianceRow(a + 1) // pts are xs[1:4]
		for b := range pts {
			if math.Abs(cov[a*3+b]-row[b+1]) > 1e-12 {
				t.Errorf("Σ(%v, %v) = %v, the set's covariance %v", x, pts[b], cov[a*3+b], row[b+1])
			}
		}
	}
}
