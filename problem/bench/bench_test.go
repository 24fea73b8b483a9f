package bench

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/safegp/safegp/internal/racetest"
)

// TestFunctions checks each benchmark at its known optima and at a few
// points computed by hand, after febo's sign and scaling.
func TestFunctions(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		dim  int
		x    []float64
		want float64
		tol  float64
	}{
		// The six-hump camel's minima −1.0316 at (±0.0898, ∓0.7126), negated.
		{"camelback", 2, []float64{0.0898, -0.7126}, 1.0316, 1e-4},
		{"camelback", 2, []float64{-0.0898, 0.7126}, 1.0316, 1e-4},
		{"camelback", 0, []float64{0, 0}, 0, 0},
		// (2, 1): y = (4 − 8.4 + 16/3)·4 + 2 + 0 = 5.7333…, clipped at −2.5.
		{"camelback", 2, []float64{2, 1}, -2.5, 0},
		// (1, 0): y = 4 − 2.1 + 1/3 = 2.2333…, f = −2.2333….
		{"camelback", 2, []float64{1, 0}, -(4 - 2.1 + 1.0/3), 1e-15},
		// Hartmann-6's minimum −3.32237 at x*, divided by −3.32237.
		{"hartmann6", 6, []float64{0.20169, 0.150011, 0.476874, 0.275332, 0.311652, 0.6573}, 1, 1e-5},
		{"hartmann6", 0, []float64{0.20169, 0.150011, 0.476874, 0.275332, 0.311652, 0.6573}, hartmannXStarValue / hartmannScale, 1e-15},
		{"gaussian", 3, []float64{0, 0, 0}, 1, 0},
		{"gaussian", 2, []float64{0.5, 0.5}, math.Exp(-2), 1e-15},
	} {
		f, err := Lookup(c.name, c.dim)
		if err != nil {
			t.Fatal(err)
		}
		if got := f.Eval(c.x); math.Abs(got-c.want) > c.tol {
			t.Errorf("%s%v = %.10g, want %.10g ± %g", c.name, c.x, got, c.want, c.tol)
		}
		for _, xs := range f.XStar {
			if got := f.Eval(xs); math.Abs(got-f.FStar) > 1e-4 {
				t.Errorf("%s at XStar %v = %.10g, FStar %.10g", c.name, xs, got, f.FStar)
			}
		}
	}
}

// TestFStarIsMax samples each box: no point beats FStar (no safe point,
// for a benchmark with constraints).
func TestFStarIsMax(t *testing.T) {
	t.Parallel()
	for _, name := range Names {
		f, err := Lookup(name, 4)
		if name != "gaussian" {
			f, err = Lookup(name, 0)
		}
		if err != nil {
			t.Fatal(err)
		}
		x := make([]float64, f.Dim)
		// A deterministic low-discrepancy sweep (Weyl sequence).
		for k := 1; k <= 20000; k++ {
			for j := range x {
				frac := math.Mod(float64(k)*math.Sqrt(float64(2+3*j)), 1)
				x[j] = f.Bounds[j][0] + frac*(f.Bounds[j][1]-f.Bounds[j][0])
			}
			safe := true
			for i := range f.M() {
				safe = safe && f.EvalG(i, x) >= 0
			}
			if v := f.Eval(x); safe && v > f.FStar+1e-9 {
				t.Fatalf("%s%v = %v > FStar %v", name, x, v, f.FStar)
			}
		}
	}
}

func TestLookupErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		dim  int
	}{{"camelback", 3}, {"hartmann6", 2}, {"gaussian", 0}, {"gaussian", MaxDim + 1}, {"branin", 2}} {
		if _, err := Lookup(c.name, c.dim); !errors.Is(err, ErrUnknown) {
			t.Errorf("Lookup(%q, %d) = %v, want ErrUnknown", c.name, c.dim, err)
		}
	}
}

// TestGPSampleErrors: GPSample and SampleShape refuse a dimension out of
// 1…MaxDim, GPSample a variance or lengthscale that is not a finite
// number > 0; a shape has the unit box and no values.
func TestGPSampleErrors(t *testing.T) {
	t.Parallel()
	inf, nan := math.Inf(1), math.NaN()
	for _, c := range []struct {
		dim  int
		v, l float64
	}{{0, 1, 1}, {MaxDim + 1, 1, 1}, {2, 0, 1}, {2, nan, 1}, {2, inf, 1}, {2, 1, -1}, {2, 1, nan}, {2, 1, inf}} {
		if f, err := GPSample(c.dim, c.v, c.l, rand.New(rand.NewPCG(1, 2))); !errors.Is(err, ErrUnknown) || f != nil {
			t.Errorf("GPSample(%d, %v, %v): function %v, %v; want none, ErrUnknown", c.dim, c.v, c.l, f != nil, err)
		}
	}
	for _, dim := range []int{0, -1, MaxDim + 1} {
		if f, err := SampleShape(dim); !errors.Is(err, ErrUnknown) || f != nil {
			t.Errorf("SampleShape(%d): function %v, %v; want none, ErrUnknown", dim, f != nil, err)
		}
	}
	f, err := SampleShape(3)
	if err != nil || f.Dim != 3 || f.Name != SampleName || len(f.Bounds) != 3 || f.Bounds[2] != [2]float64{0, 1} {
		t.Fatalf("SampleShape(3) = %+v, %v", f, err)
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "has no values") {
			t.Errorf("Eval of a shape: panic %v, want one saying it has no values", r)
		}
	}()
	f.Eval([]float64{0.5, 0.5, 0.5})
}

func TestEvalDoesNotAllocate(t *testing.T) {
	for _, name := range Names {
		f, _ := Lookup(name, 0)
		if name == "gaussian" {
			f, _ = Lookup(name, 6)
		}
		x := make([]float64, f.Dim)
		if n := testing.AllocsPerRun(100, func() { f.Eval(x) }); n != 0 {
			t.Errorf("%s: %v allocations per Eval", name, n)
		}
	}
}

// TestGPSample: a draw is 0 at the centre, its reference optimum is at
// least every value of 2 000 uniform points and of the centre, the same
// rng gives the same function, and its values over many draws have the
// kernel's variance at a point (v = 0.8: the sample variance of
// f(x) − f(centre) is 2v(1 − k(x, c)/v) for the SE kernel, to 15 %
// over 300 draws).
func TestGPSample(t *testing.T) {
	t.Parallel()
	racetest.Long(t, "GP samples take 12 s")
	const v, l, d = 0.8, 0.3, 5
	f, err := GPSample(d, v, l, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	c := []float64{0.5, 0.5, 0.5, 0.5, 0.5}
	if got := f.Eval(c); math.Abs(got) > 1e-12 {
		t.Errorf("f(centre) = %v, want 0", got)
	}
	r := rand.New(rand.NewPCG(3, 4))
	x := make([]float64, d)
	for range 2000 {
		for j := range x {
			x[j] = r.Float64()
		}
		if y := f.Eval(x); y > f.FStar {
			t.Fatalf("f(%v) = %v above the reference optimum %v", x, y, f.FStar)
		}
	}
	g, _ := GPSample(d, v, l, rand.New(rand.NewPCG(1, 2)))
	if g.Eval(x) != f.Eval(x) || g.FStar != f.FStar {
		t.Error("the same stream drew another function")
	}
	p := []float64{0.2, 0.6, 0.5, 0.5, 0.9}
	var r2 float64
	for j := range p {
		r2 += (p[j] - c[j]) * (p[j] - c[j])
	}
	want := 2 * v * (1 - math.Exp(-r2/(2*l*l)))
	var sum float64
	rs := rand.New(rand.NewPCG(5, 6))
	const n = 300
	for range n {
		h, _ := newRFF(d, v, l, rs)
		y := h.eval(p)
		sum += y * y
	}
	if got := sum / n; math.Abs(got-want) > 0.15*want {
		t.Errorf("Var f(p) − f(c) = %.4f over %d draws, the kernel's %.4f", got, n, want)
	}
}

// TestITL1DHard compares itl-1d-hard with scipy.stats.norm.pdf's sum
// (computed once: python3 -c with scipy 1.10, Debian's) at 9 points, and
// its FStar and XStar with scipy.optimize.minimize_scalar (bounded, on
// [0, 1], xatol 1e-12). Tolerances: 1e-14 for values of a few exp and
// divisions; 1e-12 for the maximum, 1e-5 for where (the maximum is flat:
// an error δ in x moves f by f”·δ²/2).
func TestITL1DHard(t *testing.T) {
	f, err := Lookup("itl-1d-hard", 0)
	if err != nil {
		t.Fatal(err)
	}
	xs := []float64{-2, 0, 0.4, 2.5, 3.2, 4.5, 5.5, 6, 8}
	want := []float64{-0.9064169035809674, 1.1643123397576123, 1.438969318391533, 0.395152861538272, 0.9316173648555364, 0.26721852524460155, 0.9830588695934497, 0.720939515190498, -0.897943458472436}
	for i, x := range xs {
		if got := f.Eval([]float64{x}); math.Abs(got-want[i]) > 1e-14 {
			t.Errorf("f(%v) = %v, scipy %v", x, got, want[i])
		}
	}
	if math.Abs(f.FStar-1.4409629219771862) > 1e-12 || math.Abs(f.XStar[0][0]-0.4364356481094998) > 1e-5 {
		t.Errorf("max %v at %v, scipy 1.4409629219771862 at 0.4364356481094998", f.FStar, f.XStar[0][0])
	}
}

// TestITL2DIsland compares itl-2d-island's f and g with scipy's
// multivariate_normal.pdf (computed once: Debian's scipy 1.10) at 5
// points, and its safe maximum with a scan of 2 000 001 angles of the
// island's edge in numpy. Tolerances: 1e-13 relative for the densities
// (a different but exact factorization of the quadratic form), 1e-9 for
// the maximum (the scan's step), 1e-4 for where.
func TestITL2DIsland(t *testing.T) {
	f, err := Lookup("itl-2d-island", 0)
	if err != nil {
		t.Fatal(err)
	}
	if f.M() != 1 {
		t.Fatalf("%d constraints, want 1", f.M())
	}
	for _, c := range []struct{ x, fv, gv []float64 }{
		{[]float64{0, 0}, []float64{1.2769411470920382}, []float64{13.415494309189535}},
		{[]float64{1, 1}, []float64{9.435389770895926}, []float64{3.3549831524319167}},
		{[]float64{2, 2}, []float64{18.37762984739307}, []float64{-2.2084975534971805}},
		{[]float64{-1, 0.5}, []float64{0.20415702635578817}, []float64{6.018950219522651}},
		{[]float64{1.5, -0.3}, []float64{0.9845874964431421}, []float64{2.439643287471389}},
	} {
		if got := f.Eval(c.x); math.Abs(got-c.fv[0]) > 1e-13*c.fv[0] {
			t.Errorf("f(%v) = %v, scipy %v", c.x, got, c.fv[0])
		}
		if got := f.EvalG(0, c.x); math.Abs(got-c.gv[0]) > 1e-13*math.Abs(c.gv[0]) {
			t.Errorf("g(%v) = %v, scipy %v", c.x, got, c.gv[0])
		}
	}
	x := f.XStar[0]
	if math.Abs(f.FStar-13.992300211042119) > 1e-9 || math.Abs(x[0]-1.3605154860216004) > 1e-4 || math.Abs(x[1]-1.3605154860216002) > 1e-4 {
		t.Errorf("safe max %v at %v, numpy 13.992300211042119 at (1.36052, 1.36052)", f.FStar, x)
	}
	if g := f.EvalG(0, x); math.Abs(g) > 1e-9 {
		t.Errorf("g = %v at the safe max, want 0 (on the island's edge)", g)
	}
}
