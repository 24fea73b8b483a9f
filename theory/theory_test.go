package theory_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/safegp/safegp/kernel"
	"github.com/safegp/safegp/theory"
)

func TestBetaHand(t *testing.T) {
	t.Parallel()
	// Hand values of 2·log((m+1)·N·t²·π²/(6δ)) (Python's math).
	cases := []struct {
		t, m, n int
		delta   float64
		want    float64
	}{
		{1, 1, 100, 0.01, 20.802375710013745},
		{7, 2, 50, 0.1, 23.405481975343346},
		{1000, 1, 2, 0.1, 36.00418062909791},
	}
	for _, c := range cases {
		if got := theory.Beta(c.t, c.m, c.n, c.delta); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("β_%d = %v, want %v", c.t, got, c.want)
		}
	}
}

func TestBoundsHand(t *testing.T) {
	t.Parallel()
	// γ bound: N=10, T=100, σ=1, max k=1: 10·log(1001) = 69.0875477931522.
	// C_1(σ=1) = 8/log 2 = 11.541560327111707.
	// B(N=50, v=1, δ=0.1) = 2·√(2·log 100)/0.1 = 60.69352...
	if got := theory.GammaBound(100, 10, 1, 1); math.Abs(got-69.0875477931522) > 1e-9 {
		t.Errorf("γ bound %v", got)
	}
	if got := theory.C1(1); math.Abs(got-11.541560327111707) > 1e-12 {
		t.Errorf("C1 %v", got)
	}
	if got, want := theory.B(50, 1, 0.1), 2*math.Sqrt(2*math.Log(100))/0.1; math.Abs(got-want) > 1e-12 {
		t.Errorf("B %v, want %v", got, want)
	}
	if got := theory.RegretBound(2, 10, 100, 3, 4, 5); math.Abs(got-(20+math.Sqrt(6000))) > 1e-12 {
		t.Errorf("regret bound %v", got)
	}
}

func randBox(rng *rand.Rand, n, d int) [][]float64 {
	x := make([][]float64, n)
	for i := range x {
		x[i] = make([]float64, d)
		for j := range x[i] {
			x[i][j] = rng.Float64()
		}
	}
	return x
}

func TestExactFeatureMaps(t *testing.T) {
	t.Parallel()
	// Linear and polynomial maps reproduce their kernels exactly (to
	// rounding: 1e-12 relative), with d_g = d and C(d+p, d).
	rng := rand.New(rand.NewPCG(1, 2))
	x := randBox(rng, 15, 3)
	poly := kernel.Polynomial{Variance: 0.7, Offset: 0.5, Degree: 3}
	cases := []struct {
		k   kernel.Kernel
		f   theory.FeatureMap
		dim int
	}{
		{kernel.Linear{Variance: 2}, theory.Linear{Variance: 2, D: 3}, 3},
		{poly, theory.NewPolynomial(poly, 3), 20}, // C(6, 3)
		{kernel.Polynomial{Variance: 1, Offset: 1, Degree: 2}, theory.NewPolynomial(kernel.Polynomial{Variance: 1, Offset: 1, Degree: 2}, 3), 10},
	}
	for _, c := range cases {
		if c.f.Dim() != c.dim {
			t.Errorf("%s: dimension %d, want %d", c.k.Name(), c.f.Dim(), c.dim)
		}
		if e := theory.MaxError(c.f, c.k, x); e > 1e-12 {
			t.Errorf("%s: max error %g", c.k.Name(), e)
		}
	}
}

func TestQFFWithinLemmaBound(t *testing.T) {
	t.Parallel()
	// On [0,1]^d the QFF error must stay below the lemma's bound; the bound
	// is informative once n̄ > 1/ℓ².
	rng := rand.New(rand.NewPCG(3, 4))
	for _, c := range []struct {
		d, nodes int
		l        float64
	}{{1, 4, 1}, {1, 8, 0.7}, {2, 6, 1}, {2, 10, 0.6}} {
		k := kernel.SE{Variance: 1, Lengthscale: c.l}
		q := theory.NewQFF(k, c.d, c.nodes)
		if q.Dim() != int(math.Pow(float64(c.nodes), float64(c.d))) {
			t.Errorf("dimension %d", q.Dim())
		}
		bound := theory.QFFErrorBound(c.d, c.nodes, c.l)
		if e := theory.MaxError(q, k, randBox(rng, 40, c.d)); e > bound {
			t.Errorf("d=%d n̄=%d ℓ=%v: error %g above the bound %g", c.d, c.nodes, c.l, e, bound)
		}
	}
}

func TestQFFWeightsMatchAppendix(t *testing.T) {
	t.Parallel()
	// The map uses Gauss–Hermite weights/√π; the appendix writes
	// ν(z) = 2^{n−1}n!/(n²H_{n−1}(z)²). In 1-D the map keeps the nodes
	// z ≥ 0 with weight 2ν (ν for z = 0), and φ_i(0)² is that weight; the
	// node itself is recovered from the angle at x = 0.1, where 0.1·√2·z
	// stays within (−π, π). The weights of all n nodes sum to 1 = k(0,0).
	for _, n := range []int{2, 5, 9} {
		q := theory.NewQFF(kernel.SE{Variance: 1, Lengthscale: 1}, 1, n)
		if q.Dim() != n {
			t.Errorf("n=%d: dimension %d", n, q.Dim())
		}
		phi := q.Map(make([]float64, q.Dim()), []float64{0})
		phi1 := q.Map(make([]float64, q.Dim()), []float64{0.1})
		kept := (n + 1) / 2
		sum, sines := 0.0, kept
		for i := 0; i < kept; i++ {
			weight := phi[i] * phi[i]
			sum += weight
			z := 0.0
			if !(n%2 == 1 && i == 0) {
				z = math.Atan2(phi1[sines], phi1[i]) / (0.1 * math.Sqrt2)
				sines++
			}
			h := hermite(n-1, z)
			nu := math.Pow(2, float64(n-1)) * factorial(n) / (float64(n*n) * h * h)
			want := 2 * nu
			if z == 0 {
				want = nu
			}
			if math.Abs(weight-want) > 1e-9*want {
				t.Errorf("n=%d node %v: weight %v, appendix formula %v", n, z, weight, want)
			}
		}
		if math.Abs(sum-1) > 1e-12 {
			t.Errorf("n=%d: weights sum to %v", n, sum)
		}
	}
}

func hermite(n int, z float64) float64 {
	h0, h1 := 1.0, 2*z
	if n == 0 {
		return h0
	}
	for k := 1; k < n; k++ {
		h0, h1 = h1, 2*z*h1-2*float64(k)*h0
	}
	return h1
}

func factorial(n int) float64 {
	f := 1.0
	for i := 2; i <= n; i++ {
		f *= float64(i)
	}
	return f
}

func TestRFFErrorShrinks(t *testing.T) {
	t.Parallel()
	// Mean squared error of an unbiased Monte Carlo estimate falls as 1/D:
	// going from D = 64 to D = 6400 it should fall ~100×. We require 30× to
	// 300× (fixed seeds, so the test is deterministic).
	rng := rand.New(rand.NewPCG(5, 6))
	x := randBox(rng, 30, 2)
	for _, k := range []kernel.Kernel{kernel.SE{Variance: 1, Lengthscale: 0.5}, kernel.Matern52{Variance: 1, Lengthscale: 0.5}} {
		mse := func(size int) float64 {
			var s float64
			var n int
			for rep := uint64(0); rep < 5; rep++ {
				f, err := theory.NewRFF(k, 2, size, rand.New(rand.NewPCG(7, rep)))
				if err != nil {
					t.Fatal(err)
				}
				phis := make([][]float64, len(x))
				for i := range x {
					phis[i] = f.Map(make([]float64, size), x[i])
				}
				for i := range x {
					for j := range x {
						a, b := phis[i], phis[j]
						var p float64
						for q := range a {
							p += a[q] * b[q]
						}
						e := p - k.Eval(x[i], x[j])
						s += e * e
						n++
					}
				}
			}
			return s / float64(n)
		}
		ratio := mse(64) / mse(6400)
		if ratio < 30 || ratio > 300 {
			t.Errorf("%s: MSE ratio %v between D=64 and D=6400, want ~100", k.Name(), ratio)
		}
	}
}

func TestMinEigenvalueClosedForm(t *testing.T) {
	t.Parallel()
	e1, e2 := []float64{1, 0}, []float64{0, 1}
	x := [][]float64{e1, e2, {2, 0}, {1, 1}, {-1, 1}}
	cases := []struct {
		name string
		f    theory.FeatureMap
		seed []int
		want float64
	}{
		// Σ = (e1e1ᵀ + e2e2ᵀ)/2 = I/2.
		{"basis", theory.Linear{Variance: 1, D: 2}, []int{0, 1}, 0.5},
		// Collinear seeds: singular.
		{"collinear", theory.Linear{Variance: 1, D: 2}, []int{0, 2}, 0},
		// Σ = ((1,1)(1,1)ᵀ + (−1,1)(−1,1)ᵀ)/2 = I, scaled by v = 3.
		{"diagonals", theory.Linear{Variance: 3, D: 2}, []int{3, 4}, 3},
		// Fewer seeds than dimensions: 0 without a decomposition.
		{"too few", theory.Linear{Variance: 1, D: 2}, []int{1}, 0},
	}
	for _, c := range cases {
		got, err := theory.MinEigenvalue(c.f, x, c.seed)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%s: λ_− = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestExplorationLengthLinear(t *testing.T) {
	t.Parallel()
	// D^w = {e1, e2}, linear kernel: λ_− = 1/2, d_g = 2. With N = 2, m = 1,
	// T = 1000, δ = 0.1, σ = 0.1, ε = 1: β_T = 36.0042, t_ε = 8σ²β_T/(λε²)
	// = 5.7607, t_δ = 16·log 20 = 47.9317, so T' = 48.
	p := theory.Problem{
		X: [][]float64{{1, 0}, {0, 1}}, Seed: []int{0, 1}, Kernel: kernel.Linear{Variance: 1},
		NoiseStd: 0.1, Delta: 0.1, Epsilon: 1, Horizon: 1000, M: 1,
	}
	e, err := theory.ExplorationLength(p, theory.Features{})
	if err != nil {
		t.Fatal(err)
	}
	if e.Theorem != 2 || e.Dim != 2 || math.Abs(e.Lambda-0.5) > 1e-12 || math.Abs(e.TEps-5.7606689006556655) > 1e-9 || math.Abs(e.TDelta-47.931716376863854) > 1e-9 || e.TPrime != 48 {
		t.Errorf("got %+v", e)
	}
	// Variance 4: k(x,x) = 4 on D and D^w, so t_ε and t_δ scale by 4 (the
	// paper assumes k ≤ 1; its proof's bounds carry k(x*,x*) and λ_max(φφᵀ)).
	p.Kernel = kernel.Linear{Variance: 4}
	e4, err := theory.ExplorationLength(p, theory.Features{})
	if err != nil {
		t.Fatal(err)
	}
	// λ_− is 4× larger too, so the scaled t's equal the unit-variance ones.
	if math.Abs(e4.Lambda-2) > 1e-12 || math.Abs(e4.TEps-e.TEps) > 1e-9 || math.Abs(e4.TDelta-e.TDelta) > 1e-9 || e4.KMax != 4 || e4.RMax != 4 {
		t.Errorf("variance 4: got %+v, want the t's of variance 1 (%v, %v)", e4, e.TEps, e.TDelta)
	}
	p.Kernel = kernel.Linear{Variance: 1}
	p.Horizon = 30
	if e, _ := theory.ExplorationLength(p, theory.Features{}); e.TPrime != 30 {
		t.Errorf("T' = %d above the horizon 30", e.TPrime)
	}
	p.Seed = []int{0}
	if _, err := theory.ExplorationLength(p, theory.Features{}); !errors.Is(err, theory.ErrSeedTooSmall) {
		t.Errorf("one seed in 2-D: got %v, want ErrSeedTooSmall", err)
	}
}

func TestExplorationLengthStationary(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(9, 9))
	x := randBox(rng, 60, 1)
	for _, xi := range x {
		xi[0] *= 10 // [0, 10]: on a short interval smooth features are numerically dependent
	}
	seed := make([]int, 40)
	for i := range seed {
		seed[i] = i
	}
	p := theory.Problem{X: x, Seed: seed, Kernel: kernel.SE{Variance: 1, Lengthscale: 0.1},
		NoiseStd: 0.1, Delta: 0.01, Epsilon: 0.01, Horizon: 500, M: 1}
	// ℓ = 0.1 on [0, 10] needs far more QFF nodes than the search allows.
	if _, err := theory.ExplorationLength(p, theory.Features{}); !errors.Is(err, theory.ErrNoGuarantee) {
		t.Errorf("got %v, want ErrNoGuarantee", err)
	}
	// A fixed small QFF gives a number, with the ε_0 condition visibly unmet.
	p.Kernel = kernel.SE{Variance: 1, Lengthscale: 1}
	e, err := theory.ExplorationLength(p, theory.Features{Kind: "qff", Nodes: 5})
	if err != nil {
		t.Fatal(err)
	}
	if e.Theorem != 4 || e.Dim != 5 || !(e.Lambda > 0) || !(e.Eps0Bound > e.Eps0Target) || e.Guarantee {
		t.Errorf("got %+v", e)
	}
	// Theorem 4's formulas given the reported λ̃_− (k ≤ 1: no scaling), with
	// β_T = 2·log(2·60·500²·π²/0.06) = 44.639157 (by hand, Python's math):
	// t̃_ε = 16σ²β_T/(λ̃_−ε²), t̃_δ = (8/λ̃_−)·log(D_g/δ) = (8/λ̃_−)·log 500.
	// λ̃_− ≈ 0.0074 makes t̃_ε ≈ 10⁷, so T' is the horizon, 500.
	const betaT = 44.63915685617053
	if math.Abs(e.BetaT-betaT) > 1e-12 {
		t.Errorf("β_T = %v, want %v", e.BetaT, betaT)
	}
	if want := 16 * 0.01 * betaT / (e.Lambda * 1e-4); math.Abs(e.TEps-want) > 1e-9*want {
		t.Errorf("t̃_ε = %v, want 16σ²β_T/(λ̃ε²) = %v", e.TEps, want)
	}
	if want := 8 / e.Lambda * math.Log(500); math.Abs(e.TDelta-want) > 1e-9*want {
		t.Errorf("t̃_δ = %v, want (8/λ̃)·log(D/δ) = %v", e.TDelta, want)
	}
	if e.TEps < 500 || e.TPrime != 500 {
		t.Errorf("T' = %d (t̃_ε = %v): want the horizon 500", e.TPrime, e.TEps)
	}
	// RFF for a Matérn kernel.
	p.Kernel = kernel.Matern32{Variance: 1, Lengthscale: 1}
	e, err = theory.ExplorationLength(p, theory.Features{Size: 6})
	if err != nil {
		t.Fatal(err)
	}
	if e.Features != "rff" || e.Dim != 6 || !(e.Lambda > 0) || e.Guarantee {
		t.Errorf("got %+v", e)
	}
	// Without a size, RFF cannot promise Theorem 4's ε_0.
	if _, err := theory.ExplorationLength(p, theory.Features{}); !errors.Is(err, theory.ErrNoGuarantee) {
		t.Errorf("default RFF: got %v, want ErrNoGuarantee", err)
	}
}
