package bench

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// SampleName is the benchmark drawn afresh for every realization: a
// sample of a Gaussian process (GPSample).
const SampleName = "gp-sample"

// Sample's constants: the random Fourier features of a draw, and the
// search for its maximum (multi-start projected gradient ascent).
const (
	sampleFeatures = 2000
	sampleStarts   = 32
	sampleSteps    = 150
)

// GPSample draws f from a Gaussian process on [0, 1]^dim with the
// squared-exponential kernel of variance v and lengthscale l, shifted so
// that f(centre) = 0: f(x) = √(2v/M) Σ_m w_m cos(ω_m·x + b_m) − c, with
// M = 2000 random Fourier features (Rahimi and Recht, NIPS 2007: ω_m ~
// N(0, I/l²), b_m ~ U[0, 2π), w_m ~ N(0, 1)), whose covariance is the
// kernel's up to O(1/√M). The shift keeps the box's centre a safe seed
// for every draw under a threshold ≤ 0. FStar and XStar are the best of
// 32 projected gradient ascents (the centre and 31 uniform starts, 150
// steps each): a reference optimum, not a certified one. All draws come
// from rng.
func GPSample(dim int, v, l float64, rng *rand.Rand) (*Function, error) {
	if dim < 1 || dim > MaxDim || !(v > 0) || !(l > 0) || math.IsInf(v, 0) || math.IsInf(l, 0) {
		return nil, fmt.Errorf("%w: %s: want 1 ≤ dim ≤ %d, variance > 0 and lengthscale > 0, got %d, %v, %v", ErrUnknown, SampleName, MaxDim, dim, v, l)
	}
	s, centre := newRFF(dim, v, l, rng)
	f := &Function{Name: SampleName, Dim: dim, Bounds: make([][2]float64, dim), eval: s.eval}
	for j := range f.Bounds {
		f.Bounds[j] = [2]float64{0, 1}
	}
	f.XStar = [][]float64{s.maximize(centre, rng, l)}
	f.FStar = s.eval(f.XStar[0])
	return f, nil
}

// newRFF draws the features of a GPSample and shifts it to 0 at the
// centre of [0, 1]^dim, which it returns too.
func newRFF(dim int, v, l float64, rng *rand.Rand) (*rff, []float64) {
	m := sampleFeatures
	s := &rff{d: dim, omega: make([]float64, m*dim), b: make([]float64, m), w: make([]float64, m), a: math.Sqrt(2 * v / float64(m))}
	for k := range m {
		for j := range dim {
			s.omega[k*dim+j] = rng.NormFloat64() / l
		}
		s.b[k] = 2 * math.Pi * rng.Float64()
		s.w[k] = rng.NormFloat64()
	}
	centre := make([]float64, dim)
	for j := range centre {
		centre[j] = 0.5
	}
	s.shift = s.eval(centre)
	return s, centre
}

// SampleShape is the shape of a GPSample in dim dimensions — its name,
// dimension and box — for checks before any draw; it has no values
// (Eval panics) and no maximum.
func SampleShape(dim int) (*Function, error) {
	if dim < 1 || dim > MaxDim {
		return nil, fmt.Errorf("%w: %s: want 1 ≤ dim ≤ %d, got %d", ErrUnknown, SampleName, MaxDim, dim)
	}
	f := &Function{Name: SampleName, Dim: dim, Bounds: make([][2]float64, dim),
		eval: func([]float64) float64 { panic("bench: a gp-sample shape has no values: draw one with GPSample") }}
	for j := range f.Bounds {
		f.Bounds[j] = [2]float64{0, 1}
	}
	return f, nil
}

// rff is a function of random Fourier features.
type rff struct {
	d        int
	omega    []float64 // M rows of d frequencies
	b, w     []float64
	a, shift float64
}

func (s *rff) eval(x []float64) float64 {
	var sum float64
	for k, wk := range s.w {
		om := s.omega[k*s.d : (k+1)*s.d]
		var z float64
		for j, o := range om {
			z += o * x[j]
		}
		sum += wk * math.Cos(z+s.b[k])
	}
	return s.a*sum - s.shift
}

// grad writes f's gradient at x into g.
func (s *rff) grad(g, x []float64) {
	clear(g)
	for k, wk := range s.w {
		om := s.omega[k*s.d : (k+1)*s.d]
		var z float64
		for j, o := range om {
			z += o * x[j]
		}
		c := -s.a * wk * math.Sin(z+s.b[k])
		for j, o := range om {
			g[j] += c * o
		}
	}
}

// maximize returns the best point of sampleStarts projected gradient
// ascents on [0, 1]^d from centre and uniform starts, each of sampleSteps
// steps of length l/10 along the normalized gradient, halved on a step
// that does not improve.
func (s *rff) maximize(centre []float64, rng *rand.Rand, l float64) []float64 {
	best, bestV := slices.Clone(centre), s.eval(centre)
	x, y, g := make([]float64, s.d), make([]float64, s.d), make([]float64, s.d)
	for start := range sampleStarts {
		for j := range x {
			x[j] = centre[j]
			if start > 0 {
				x[j] = rng.Float64()
			}
		}
		fx, h := s.eval(x), l/10
		for range sampleSteps {
			s.grad(g, x)
			n := math.Sqrt(dot(g, g))
			if !(n > 0) {
				break
			}
			for j := range y {
				y[j] = min(max(x[j]+h*g[j]/n, 0), 1)
			}
			if fy := s.eval(y); fy > fx {
				copy(x, y)
				fx = fy
			} else {
				h /= 2
			}
		}
		if fx > bestV {
			best, bestV = slices.Clone(x), fx
		}
	}
	return best
}

func dot(a, b []float64) (s float64) {
	for j := range a {
		s += a[j] * b[j]
	}
	return s
}
