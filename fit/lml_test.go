package fit

import (
	"errors"
	"fmt"
	"math"
	"math/cmplx"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/safegp/safegp/kernel"
)

// denseLML is the log marginal likelihood and its gradient computed from
// scratch, independently of the package: K from kernel.New's Eval, its
// Cholesky factor and inverse from gonum's mat, ∂K/∂θ_j by the complex
// step (Squire & Trapp 1998: Im f(θ + ih)/h, exact to rounding for
// h = 1e-30, since nothing is subtracted), then R&W 2006 eq. 2.30 and 5.9
// term by term. theta = (log v, log ℓ_1…p[, log σ²]); known, if not nil,
// replaces σ² by each observation's noise variance.
func denseLML(t *testing.T, name string, x [][]float64, y, known, theta []float64, p int) (float64, []float64) {
	t.Helper()
	n, d := len(x), len(x[0])
	spec := kernel.Spec{Kernel: name, Lengthscale: make(kernel.Lengthscale, p)}
	v := math.Exp(theta[0])
	spec.Variance = &v
	for j := range p {
		spec.Lengthscale[j] = math.Exp(theta[1+j])
	}
	k, err := kernel.New(spec)
	if err != nil {
		t.Fatal(err)
	}
	noise := func(i int) float64 {
		if known != nil {
			return known[i]
		}
		return math.Exp(theta[1+p])
	}
	K := mat.NewSymDense(n, nil)
	for i := range n {
		for j := i; j < n; j++ {
			K.SetSym(i, j, k.Eval(x[i], x[j]))
		}
		K.SetSym(i, i, K.At(i, i)+noise(i))
	}
	var ch mat.Cholesky
	if !ch.Factorize(K) {
		t.Fatal("K not positive definite")
	}
	yv := mat.NewVecDense(n, y)
	var alpha mat.VecDense
	if err := ch.SolveVecTo(&alpha, yv); err != nil {
		t.Fatal(err)
	}
	lml := -0.5*mat.Dot(yv, &alpha) - 0.5*ch.LogDet() - 0.5*float64(n)*math.Log(2*math.Pi)
	var kinv mat.SymDense
	if err := ch.InverseTo(&kinv); err != nil {
		t.Fatal(err)
	}
	// ∂K/∂θ_j by the complex step, from a complex-valued kernel written
	// here from SPEC §2's formulas.
	kc := func(a, b []float64, th []complex128) complex128 {
		var r2 complex128
		for c := range d {
			l := cmplx.Exp(th[1+min(c, p-1)])
			e := complex(a[c]-b[c], 0) / l
			r2 += e * e
		}
		vv := cmplx.Exp(th[0])
		switch name {
		case "se":
			return vv * cmplx.Exp(-r2/2)
		case "matern32":
			s := cmplx.Sqrt(3 * r2)
			return vv * (1 + s) * cmplx.Exp(-s)
		default:
			s := cmplx.Sqrt(5 * r2)
			return vv * (1 + s + 5*r2/3) * cmplx.Exp(-s)
		}
	}
	const h = 1e-30
	grad := make([]float64, len(theta))
	th := make([]complex128, len(theta))
	for j := range theta {
		for i, v := range theta {
			th[i] = complex(v, 0)
		}
		th[j] += complex(0, h)
		var tr float64
		for a := range n {
			for b := range n {
				dk := imag(kc(x[a], x[b], th)) / h
				if a == b && known == nil && j == 1+p {
					dk += noise(a) // ∂σ²/∂log σ² = σ²
				}
				w := alpha.AtVec(a)*alpha.AtVec(b) - kinv.At(a, b)
				tr += w * dk
			}
		}
		grad[j] = 0.5 * tr
	}
	return lml, grad
}

// testData draws t inputs in [0, 1]^d, one of them given twice (a repeated
// measurement), and values and noise variances.
func testData(rng *rand.Rand, t, d int) (x [][]float64, y, noise []float64) {
	x = make([][]float64, t)
	for i := range x {
		x[i] = make([]float64, d)
		for j := range x[i] {
			x[i][j] = rng.Float64()
		}
	}
	copy(x[t-1], x[0])
	y = make([]float64, t)
	noise = make([]float64, t)
	for i := range y {
		y[i] = math.Sin(3*x[i][0]) + 0.3*rng.NormFloat64()
		noise[i] = 0.01 + 0.1*rng.Float64()
	}
	return x, y, noise
}

// logUniform draws from [lo, hi] uniformly in log.
func logUniform(rng *rand.Rand, lo, hi float64) float64 {
	return math.Exp(math.Log(lo) + rng.Float64()*(math.Log(hi)-math.Log(lo)))
}

// closeRel reports whether got is within tol of want relative to scale.
func closeRel(got, want, scale, tol float64) bool {
	return math.Abs(got-want) <= tol*scale
}

// TestLogMLDense compares the log marginal likelihood and its gradient
// with denseLML at random parameters, for each kernel, isotropic and ARD,
// fitted and known noise. Tolerance 1e-8 relative (the issue's): the value
// relative to itself, each gradient entry relative to the larger of itself
// and 1 % of the gradient's largest entry (an entry that small is a sum of
// terms of the large entries' size and carries their rounding).
func TestLogMLDense(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	for _, name := range names {
		for _, ard := range []bool{false, true} {
			for _, known := range []bool{false, true} {
				for rep := range 3 {
					t.Run(fmt.Sprintf("%s/ard=%v/known=%v/%d", name, ard, known, rep), func(t *testing.T) {
						const n, d = 25, 3
						x, y, nv := testData(rng, n, d)
						if !known {
							nv = nil
						}
						p := 1
						if ard {
							p = d
						}
						dt := newData(x, y, nv, families[name], ard)
						theta := make([]float64, dt.nparams())
						theta[0] = math.Log(logUniform(rng, 0.1, 10))
						for j := range p {
							theta[1+j] = math.Log(logUniform(rng, 0.1, 2))
						}
						if !known {
							theta[1+p] = math.Log(logUniform(rng, 1e-4, 1))
						}
						g := make([]float64, len(theta))
						lml, ok := newWork(dt, 1).grad(g, theta)
						if !ok {
							t.Fatal("not positive definite")
						}
						wantL, wantG := denseLML(t, name, x, y, nv, theta, p)
						if !closeRel(lml, wantL, math.Abs(wantL), 1e-8) {
							t.Errorf("log ML %.15g, dense %.15g", lml, wantL)
						}
						checkGrad(t, g, wantG, 1e-8)
					})
				}
			}
		}
	}
}

// checkGrad compares gradients entry by entry, relative to the larger of
// the entry and 1 % of the largest entry.
func checkGrad(t *testing.T, got, want []float64, tol float64) {
	t.Helper()
	var top float64
	for _, v := range want {
		top = math.Max(top, math.Abs(v))
	}
	for j := range want {
		if !closeRel(got[j], want[j], math.Max(math.Abs(want[j]), 0.01*top), tol) {
			t.Errorf("gradient[%d] %.15g, want %.15g (all: %.6g, want %.6g)", j, got[j], want[j], got, want)
		}
	}
}

// TestLogMLStateReuse checks that the factor a value evaluation leaves is
// the one a gradient at the same point reuses, and that moving to another
// point recomputes both.
func TestLogMLStateReuse(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	x, y, _ := testData(rng, 20, 2)
	dt := newData(x, y, nil, famMatern52, true)
	w := newWork(dt, 1)
	a := []float64{0.1, -0.5, -1, -3}
	b := []float64{-0.2, -0.7, -0.4, -2}
	ga, gb, g := make([]float64, 4), make([]float64, 4), make([]float64, 4)
	fresh := func(th, g []float64) float64 {
		l, _ := newWork(dt, 1).grad(g, th)
		return l
	}
	la, lb := fresh(a, ga), fresh(b, gb)
	for _, step := range []struct {
		th, g []float64
		l     float64
		grad  bool
	}{{a, ga, la, false}, {a, ga, la, true}, {b, gb, lb, true}, {b, gb, lb, false}, {a, ga, la, true}, {a, ga, la, false}} {
		var l float64
		if step.grad {
			l, _ = w.grad(g, step.th)
			for j := range g {
				if g[j] != step.g[j] {
					t.Fatalf("gradient at %v: %v, fresh %v", step.th, g, step.g)
				}
			}
		} else {
			l, _ = w.logML(step.th)
		}
		if l != step.l {
			t.Fatalf("log ML at %v: %v, fresh %v", step.th, l, step.l)
		}
	}
}

// TestObjectiveFiniteDifferences checks the gradient of what the optimizer
// minimizes — the negative log posterior over the floored coordinates z,
// prior included — against central differences. Step h = 1e-5: the
// truncation error is about h²·f‴/6 ≈ 1e-10·|f‴| and the rounding error
// about 1e-16·|f|/h ≈ 1e-11·|f|, so agreement to 1e-6 relative (to the
// larger of the entry and 1) is what differences can show; the exact
// comparison is TestLogMLDense's.
func TestObjectiveFiniteDifferences(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 6))
	for _, name := range names {
		for _, ard := range []bool{false, true} {
			for _, prior := range []Prior{PriorDefault, PriorNone} {
				for _, known := range []bool{false, true} {
					t.Run(fmt.Sprintf("%s/ard=%v/%v/known=%v", name, ard, prior, known), func(t *testing.T) {
						x, y, nv := testData(rng, 30, 3)
						if !known {
							nv = nil
						}
						p := 1
						if ard {
							p = 3
						}
						sc := newScales(x, y, p)
						f := &fitter{dt: newData(x, y, nv, families[name], ard), sc: sc, prior: prior}
						e := newEvaluator(f, newWork(f.dt, 1))
						z := make([]float64, f.dt.nparams())
						for i := range z {
							z[i] = rng.NormFloat64()
						}
						g := make([]float64, len(z))
						e.grad(g, z)
						const h = 1e-5
						zp := make([]float64, len(z))
						for i := range z {
							copy(zp, z)
							zp[i] = z[i] + h
							fp := e.fn(zp)
							zp[i] = z[i] - h
							fm := e.fn(zp)
							fd := (fp - fm) / (2 * h)
							if !closeRel(g[i], fd, math.Max(1, math.Abs(fd)), 1e-6) {
								t.Errorf("∂/∂z_%d = %.10g, central difference %.10g", i, g[i], fd)
							}
						}
					})
				}
			}
		}
	}
}

// TestLogMarginalLikelihoodExported checks the exported function against
// denseLML, with the noise from the spec and known.
func TestLogMarginalLikelihoodExported(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 8))
	x, y, nv := testData(rng, 15, 2)
	v, sd := 1.7, 0.2
	spec := kernel.Spec{Kernel: "matern32", Lengthscale: kernel.Lengthscale{0.3, 0.6}, Variance: &v, NoiseStd: &sd}
	theta := []float64{math.Log(v), math.Log(0.3), math.Log(0.6), 2 * math.Log(sd)}
	lml, g, err := LogMarginalLikelihood(x, y, nil, spec)
	if err != nil {
		t.Fatal(err)
	}
	wl, wg := denseLML(t, "matern32", x, y, nil, theta, 2)
	if !closeRel(lml, wl, math.Abs(wl), 1e-8) {
		t.Errorf("log ML %v, dense %v", lml, wl)
	}
	checkGrad(t, g, wg, 1e-8)

	lml, g, err = LogMarginalLikelihood(x, y, nv, spec)
	if err != nil {
		t.Fatal(err)
	}
	wl, wg = denseLML(t, "matern32", x, y, nv, theta[:3], 2)
	if !closeRel(lml, wl, math.Abs(wl), 1e-8) || len(g) != 3 {
		t.Errorf("known noise: log ML %v, dense %v; gradient %v", lml, wl, g)
	}
	checkGrad(t, g, wg, 1e-8)

	zero := 0.0
	spec.NoiseStd = &zero
	if _, _, err := LogMarginalLikelihood(x, y, nil, spec); err == nil {
		t.Error("exact values at a repeated input: no error")
	}
	spec.NoiseStd = nil
	if _, _, err := LogMarginalLikelihood(x, y, nil, spec); err == nil {
		t.Error("no noise given: no error")
	}
	spec.Kernel = "linear"
	if _, _, err := LogMarginalLikelihood(x, y, nv, spec); err == nil {
		t.Error("linear kernel: no error")
	}
	// The kernel, the data and the dimension are checked, each ErrInvalid.
	spec.Kernel, spec.NoiseStd = "matern32", &sd
	neg := -1.0
	for _, c := range []struct {
		name string
		x    [][]float64
		y    []float64
		edit func(s *kernel.Spec)
	}{
		{"one point", x[:1], y[:1], func(*kernel.Spec) {}},
		{"NaN value", x, append(append([]float64(nil), y[:14]...), math.NaN()), func(*kernel.Spec) {}},
		{"negative variance", x, y, func(s *kernel.Spec) { s.Variance = &neg }},
		{"three lengthscales in 2 dimensions", x, y, func(s *kernel.Spec) { s.Lengthscale = kernel.Lengthscale{1, 1, 1} }},
	} {
		s := spec
		c.edit(&s)
		if _, _, err := LogMarginalLikelihood(c.x, c.y, nil, s); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: %v, want ErrInvalid", c.name, err)
		}
	}
}
