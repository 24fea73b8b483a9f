// Package bench holds the benchmark functions of the LineBO paper's
// protocol (Kirschner, Mutný, Hiller, Ischebeck, Krause, ICML 2019,
// arXiv 1902.03229) as its code, kirschnj/LineBO (the febo package),
// defines them for maximization: each with its box, its known maximum and,
// where known, where it is attained.
//
// Every function is evaluated at any point of its dimension without
// allocating; the definitions cite the febo file and class they follow.
//
// Layer 1 (docs/layout.md): it imports internal packages only.
package bench

import (
	"errors"
	"fmt"
	"math"

	"github.com/safegp/safegp/internal/quote"
)

// ErrUnknown marks a benchmark name or dimension that does not exist.
var ErrUnknown = errors.New("unknown benchmark")

// Names lists the benchmarks Lookup knows.
var Names = []string{"camelback", "hartmann6", "gaussian", "itl-1d-hard", "itl-2d-island"}

// MaxDim bounds the dimension of the gaussian benchmark, the one whose
// dimension is free.
const MaxDim = 1000

// Function is one benchmark: f on the box Bounds, maximized.
type Function struct {
	Name   string
	Dim    int
	Bounds [][2]float64
	// FStar is max f over the box; XStar the points where it is attained
	// (one or more, to the precision the literature gives them).
	FStar float64
	XStar [][]float64
	eval  func(x []float64) float64
	// cons are the constraints g_i, safe where g_i(x) ≥ 0, of the few
	// benchmarks that have any (itl-2d-island); FStar and XStar are then
	// f's maximum where every g_i ≥ 0.
	cons []func(x []float64) float64
}

// M is the number of constraints.
func (f *Function) M() int { return len(f.cons) }

// EvalG returns g_i(x) (like Eval, unchecked).
func (f *Function) EvalG(i int, x []float64) float64 { return f.cons[i](x) }

// Custom returns the benchmark name on the box bounds with maximum fstar
// attained at xstar and values eval: a function defined by data elsewhere
// (the LoSBO suite's, problem/losbo) played as the others are. eval must
// not allocate.
func Custom(name string, bounds [][2]float64, fstar float64, xstar [][]float64, eval func(x []float64) float64) *Function {
	return &Function{Name: name, Dim: len(bounds), Bounds: bounds, FStar: fstar, XStar: xstar, eval: eval}
}

// Eval returns f(x); x must have Dim coordinates (it is not checked: the
// callers are hot loops that checked their points once).
func (f *Function) Eval(x []float64) float64 { return f.eval(x) }

// Lookup returns benchmark name in dimension dim; dim 0 means the
// benchmark's own (2 for camelback, 6 for hartmann6; gaussian needs one).
func Lookup(name string, dim int) (*Function, error) {
	switch name {
	case "camelback":
		if dim != 0 && dim != 2 {
			return nil, fmt.Errorf("%w: camelback is 2-dimensional, got dim %d", ErrUnknown, dim)
		}
		return &Function{
			Name: name, Dim: 2, Bounds: [][2]float64{{-2, 2}, {-1, 1}},
			FStar: camelbackMax,
			XStar: [][]float64{{0.0898, -0.7126}, {-0.0898, 0.7126}},
			eval:  camelback,
		}, nil
	case "hartmann6":
		if dim != 0 && dim != 6 {
			return nil, fmt.Errorf("%w: hartmann6 is 6-dimensional, got dim %d", ErrUnknown, dim)
		}
		b := make([][2]float64, 6)
		for j := range b {
			b[j] = [2]float64{0, 1}
		}
		return &Function{
			Name: name, Dim: 6, Bounds: b,
			FStar: hartmannXStarValue / hartmannScale,
			XStar: [][]float64{{0.20169, 0.150011, 0.476874, 0.275332, 0.311652, 0.6573}},
			eval:  hartmann6,
		}, nil
	case "gaussian":
		if dim < 1 || dim > MaxDim {
			return nil, fmt.Errorf("%w: gaussian needs a dim in 1…%d, got %d", ErrUnknown, MaxDim, dim)
		}
		b := make([][2]float64, dim)
		for j := range b {
			b[j] = [2]float64{-1, 1}
		}
		return &Function{Name: name, Dim: dim, Bounds: b, FStar: 1, XStar: [][]float64{make([]float64, dim)}, eval: gaussian}, nil
	case "itl-1d-hard":
		if dim != 0 && dim != 1 {
			return nil, fmt.Errorf("%w: itl-1d-hard is 1-dimensional, got dim %d", ErrUnknown, dim)
		}
		fstar, xstar := itlMax()
		return &Function{Name: name, Dim: 1, Bounds: [][2]float64{{-2, 8}}, FStar: fstar, XStar: [][]float64{{xstar}}, eval: itl1DHard}, nil
	case "itl-2d-island":
		if dim != 0 && dim != 2 {
			return nil, fmt.Errorf("%w: itl-2d-island is 2-dimensional, got dim %d", ErrUnknown, dim)
		}
		f := &Function{Name: name, Dim: 2, Bounds: [][2]float64{{-3, 3}, {-3, 3}}, eval: islandF, cons: []func([]float64) float64{islandG}}
		f.FStar, f.XStar = islandMax()
		return f, nil
	}
	return nil, fmt.Errorf("%w %s (one of %v)", ErrUnknown, quote.Short(name), Names)
}

// itl1DHard is the 1d_hard problem of J. Hübotter, B. Sukhija, L. Treven,
// Y. As, A. Krause, "Transductive Active Learning: Theory and
// Applications", NeurIPS 2024 (jonhue/transductive-active-learning,
// examples/unknown_constraints/bo/1d_hard/experiment.py, f_oracle): four
// normal densities minus 0.95 on [−2, 8], safe where it is ≥ 0 (the
// objective is its own constraint). Its largest bump (x ≈ 0.4) lies in
// another safe region than the one its runs start in (4.5 … 6).
func itl1DHard(x []float64) float64 {
	v := x[0]
	return 5*normPDF(v, 0.4, 0.85) + 1.45*normPDF(v, 2.5, 0.9) + 1.8*normPDF(v, 3.2, 0.55) + 4.5*normPDF(v, 5.5, 0.93) - 0.95
}

// normPDF is the density of N(mu, sd²) at x, as jax.scipy.stats.norm.pdf.
func normPDF(x, mu, sd float64) float64 {
	z := (x - mu) / sd
	return math.Exp(-z*z/2) / (sd * math.Sqrt(2*math.Pi))
}

// itlMax is itl1DHard's maximum on [−2, 8] and where (scanMax; the
// function is smooth and unimodal about its best grid point).
func itlMax() (float64, float64) {
	x := []float64{0}
	return scanMax(func(v float64) float64 { x[0] = v; return itl1DHard(x) }, -2, 8, 100000, true)
}

// scanMax maximizes f over [lo, hi]: the best of n + 1 evenly spaced
// points (n with closed false, for a period [lo, hi)), refined by 100
// steps of golden-section search over the two cells beside it. It
// returns the larger of the two values and where the search ended.
func scanMax(f func(float64) float64, lo, hi float64, n int, closed bool) (float64, float64) {
	best, at := math.Inf(-1), 0.0
	last := n - 1
	if closed {
		last = n
	}
	for i := 0; i <= last; i++ {
		x := lo + (hi-lo)*float64(i)/float64(n)
		if v := f(x); v > best {
			best, at = v, x
		}
	}
	a, b := at-(hi-lo)/float64(n), at+(hi-lo)/float64(n)
	g := (math.Sqrt(5) - 1) / 2
	for range 100 {
		c, d := b-g*(b-a), a+g*(b-a)
		if f(c) > f(d) {
			b = d
		} else {
			a = c
		}
	}
	at = (a + b) / 2
	return math.Max(best, f(at)), at
}

// camelbackMax is febo's Camelback._max_value (1.03162842), to the
// digits of the six-hump camel's minimum −1.0316284535 (Dixon and Szegő
// 1978, as tabulated by Surjanovic and Bingham's library).
const camelbackMax = 1.0316284534898774

// camelback is the six-hump camel function negated and clipped below at
// −2.5, on [−2, 2] × [−1, 1]: febo/environment/benchmarks/functions.py,
// class Camelback, f: max(−y, −2.5) with
// y = (4 − 2.1x² + x⁴/3)x² + xy + (−4 + 4y²)y².
func camelback(x []float64) float64 {
	a, b := x[0], x[1]
	a2, b2 := a*a, b*b
	y := (4-2.1*a2+a2*a2/3)*a2 + a*b + (-4+4*b2)*b2
	return math.Max(-y, -2.5)
}

// Hartmann-6's constants (hpolib.benchmarks.synthetic_functions.Hartmann6,
// the function febo wraps; the same as Surjanovic and Bingham's).
var (
	hartmannAlpha = [4]float64{1.0, 1.2, 3.0, 3.2}
	hartmannA     = [4][6]float64{
		{10, 3, 17, 3.50, 1.7, 8},
		{0.05, 10, 17, 0.1, 8, 14},
		{3, 3.5, 1.7, 10, 17, 8},
		{17, 8, 0.05, 10, 0.1, 14},
	}
	hartmannP = [4][6]float64{
		{0.1312, 0.1696, 0.5569, 0.0124, 0.8283, 0.5886},
		{0.2329, 0.4135, 0.8307, 0.3736, 0.1004, 0.9991},
		{0.2348, 0.1451, 0.3522, 0.2883, 0.3047, 0.6650},
		{0.4047, 0.8828, 0.8732, 0.5743, 0.1091, 0.0381},
	}
)

const (
	// hartmannScale is hpolib's f_opt magnitude, 3.32237: febo's
	// Hartmann6 (febo/environment/benchmarks/hpolib.py) divides −H6 by
	// it (_old_max_value = −f_opt), so that the maximum is about 1.
	hartmannScale = 3.32237
	// hartmannXStarValue is −H6 at the XStar given (to 6 digits), as
	// computed by hartmann6 itself (TestFunctions checks it).
	hartmannXStarValue = 3.322368011391339
)

// hartmann6 is −H6(x)/3.32237 on [0, 1]⁶ with
// H6(x) = −Σ_i α_i exp(−Σ_j A_ij (x_j − P_ij)²): febo's Hartmann6
// (febo/environment/benchmarks/hpolib.py, HpolibBenchmark.f negates
// hpolib's value, Hartmann6.f divides by 3.32237).
func hartmann6(x []float64) float64 {
	var s float64
	for i := range hartmannAlpha {
		var e float64
		for j := 0; j < 6; j++ {
			d := x[j] - hartmannP[i][j]
			e += hartmannA[i][j] * d * d
		}
		s += hartmannAlpha[i] * math.Exp(-e)
	}
	return s / hartmannScale
}

// gaussian is exp(−4‖x‖²) on [−1, 1]^d, maximum 1 at 0: febo's Gaussian
// (febo/environment/benchmarks/functions.py, class Gaussian, f).
func gaussian(x []float64) float64 {
	var s float64
	for _, v := range x {
		s += v * v
	}
	return math.Exp(-4 * s)
}

// islandF and islandG are the 2d_island problem of the same paper
// (examples/unknown_constraints/bo/2d_island/experiment.py, f_oracle):
// f = 100·N(x; (2, 2), [[1, 0.5], [0.5, 1]]), g = 100·N(x; 0, I) − 2.5,
// safe where g ≥ 0 — an island of radius ≈ 1.92 around 0, f's peak
// outside it.
func islandF(x []float64) float64 {
	// Σ⁻¹ = (4/3)·[[1, −0.5], [−0.5, 1]], det Σ = 0.75.
	a, b := x[0]-2, x[1]-2
	q := (4.0 / 3.0) * (a*a - a*b + b*b)
	return 100 * math.Exp(-q/2) / (2 * math.Pi * math.Sqrt(0.75))
}

func islandG(x []float64) float64 {
	return 100*math.Exp(-(x[0]*x[0]+x[1]*x[1])/2)/(2*math.Pi) - 2.5
}

// islandMax is f's maximum where g ≥ 0. f grows towards (2, 2) and g
// shrinks with the radius, so the maximum lies on the island's edge
// r₀ = √(−2·log(0.025·2π)) (g = 0); over its angle f has one maximum
// (scanMax over 100 000 angles).
func islandMax() (float64, [][]float64) {
	r := math.Sqrt(-2 * math.Log(0.025*2*math.Pi))
	at := func(th float64) []float64 { return []float64{r * math.Cos(th), r * math.Sin(th)} }
	fmax, th := scanMax(func(th float64) float64 { return islandF(at(th)) }, 0, 2*math.Pi, 100000, false)
	return fmax, [][]float64{at(th)}
}
