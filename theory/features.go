package theory

import (
	"errors"
	"fmt"
	"github.com/safegp/safegp/internal/vec"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/integrate/quad"
	"gonum.org/v1/gonum/mat"

	"github.com/safegp/safegp/kernel"
)

// FeatureMap is an explicit (or approximate) feature map φ with
// k(x, y) ≈ φ(x)ᵀφ(y).
type FeatureMap interface {
	// Dim is the dimension of φ(x).
	Dim() int
	// Map writes φ(x) into dst (length Dim) and returns it.
	Map(dst, x []float64) []float64
}

// Linear is the feature map of v·xᵀy: φ(x) = √v·x, d_g = d.
type Linear struct {
	Variance float64
	D        int
}

// Dim implements FeatureMap.
func (f Linear) Dim() int { return f.D }

// Map implements FeatureMap.
func (f Linear) Map(dst, x []float64) []float64 {
	s := math.Sqrt(f.Variance)
	for i, xi := range x {
		dst[i] = s * xi
	}
	return dst
}

// Polynomial is the explicit feature map of v·(xᵀy + c)^p: one feature per
// multi-index α with |α| ≤ p, √(v·p!/((p−|α|)!·α!)·c^{p−|α|})·x^α, so
// d_g = C(d+p, d).
type Polynomial struct {
	alphas [][]int
	coef   []float64
}

// NewPolynomial builds the map for kernel k in dimension d.
func NewPolynomial(k kernel.Polynomial, d int) *Polynomial {
	f := &Polynomial{}
	alpha := make([]int, d)
	var rec func(i, left int)
	rec = func(i, left int) {
		if i == d {
			a := append([]int(nil), alpha...)
			deg := 0
			lf := 0.0 // log of α!
			for _, ai := range a {
				deg += ai
				lf += lgammaInt(ai + 1)
			}
			c := k.Variance * math.Exp(lgammaInt(k.Degree+1)-lgammaInt(k.Degree-deg+1)-lf) * math.Pow(k.Offset, float64(k.Degree-deg))
			f.alphas = append(f.alphas, a)
			f.coef = append(f.coef, math.Sqrt(c))
			return
		}
		for a := 0; a <= left; a++ {
			alpha[i] = a
			rec(i+1, left-a)
		}
	}
	rec(0, k.Degree)
	return f
}

func lgammaInt(n int) float64 {
	v, _ := math.Lgamma(float64(n))
	return v
}

// Dim implements FeatureMap.
func (f *Polynomial) Dim() int { return len(f.alphas) }

// Map implements FeatureMap.
func (f *Polynomial) Map(dst, x []float64) []float64 {
	for j, a := range f.alphas {
		v := f.coef[j]
		for i, ai := range a {
			for ; ai > 0; ai-- {
				v *= x[i]
			}
		}
		dst[j] = v
	}
	return dst
}

// QFF is the quadrature Fourier feature map of an SE kernel (paper appendix
// "Uniform approximations", after Mutný and Krause 2018). With the n̄ roots
// z of the n̄-th Hermite polynomial per dimension, the n̄^d grid points ω and
// weights ν(ω) = ∏_j 2^{n̄−1}n̄!/(n̄²H_{n̄−1}(ω_j)²), the appendix's map is
// √(v·ν(ω))·(cos(√2/ℓ·ωᵀx), sin(√2/ℓ·ωᵀx)) over all ω. The grid is
// symmetric, and ω and −ω give the same cosine and opposite sines, so that
// map has linearly dependent features and λ̃_− = 0 for every seed set. This
// map keeps one of each pair with weight 2ν (and ω = 0 once, cosine only):
// the same kernel approximation, exactly, in dimension n̄^d — the D_g of the
// paper's Lemma — with a feature covariance that can be non-singular.
type QFF struct {
	omega   [][]float64 // kept nodes, scaled by √2/ℓ; omega[0] may be 0
	weights []float64   // √(v·ν) or √(2v·ν)
	zero    bool        // omega[0] is the zero frequency (no sine feature)
}

// NewQFF builds the map for SE kernel k in dimension d with nodes per
// dimension. The weights are Gauss–Hermite weights (for e^{−z²}) divided by
// √π, which equal the appendix's ν. An ARD kernel (k.ARD, d entries) scales
// coordinate j of the nodes by √2/ℓ_j instead of √2/ℓ: its map on D is the
// isotropic map of ℓ = 1 on the rescaled set {(x_j/ℓ_j)_j}, which the ARD
// kernel on D equals.
func NewQFF(k kernel.SE, d, nodes int) *QFF {
	z, w := make([]float64, nodes), make([]float64, nodes)
	quad.Hermite{}.FixedLocations(z, w, math.Inf(-1), math.Inf(1))
	// Gonum returns the roots in ascending order, symmetric about 0; the
	// middle one of an odd count is 0 up to rounding.
	mid := -1
	if nodes%2 == 1 {
		mid = nodes / 2
		z[mid] = 0
	}
	total := 1
	for i := 0; i < d; i++ {
		total *= nodes
	}
	q := &QFF{}
	scale := make([]float64, d)
	for j := range scale {
		scale[j] = math.Sqrt2 / k.Lengthscale
		if k.ARD != nil {
			scale[j] = math.Sqrt2 / k.ARD[j]
		}
	}
	idx := make([]int, d)
	for i := 0; i < total; i++ {
		rem := i
		for j := d - 1; j >= 0; j-- {
			idx[j] = rem % nodes
			rem /= nodes
		}
		// Keep ω = 0 and the ω whose first non-zero coordinate is positive.
		sign := 0
		for _, id := range idx {
			if id != mid {
				sign = 1
				if id < nodes/2 {
					sign = -1
				}
				break
			}
		}
		if sign < 0 {
			continue
		}
		om := make([]float64, d)
		nu := k.Variance
		for j, id := range idx {
			om[j] = scale[j] * z[id]
			nu *= w[id] / math.SqrtPi
		}
		if sign == 0 {
			q.zero = true
			q.omega = append([][]float64{om}, q.omega...)
			q.weights = append([]float64{math.Sqrt(nu)}, q.weights...)
			continue
		}
		q.omega = append(q.omega, om)
		q.weights = append(q.weights, math.Sqrt(2*nu))
	}
	return q
}

// Dim implements FeatureMap.
func (q *QFF) Dim() int {
	if q.zero {
		return 2*len(q.omega) - 1
	}
	return 2 * len(q.omega)
}

// Map implements FeatureMap: cosines of every kept node, then sines of the
// non-zero ones.
func (q *QFF) Map(dst, x []float64) []float64 {
	n := len(q.omega)
	k := n
	for i, om := range q.omega {
		a := vec.Dot(om, x)
		dst[i] = q.weights[i] * math.Cos(a)
		if i == 0 && q.zero {
			continue
		}
		dst[k] = q.weights[i] * math.Sin(a)
		k++
	}
	return dst
}

// RFF is the random Fourier feature map of a stationary kernel (Rahimi and
// Recht 2008; paper appendix): D/2 frequencies ω_j drawn from the kernel's
// spectral density, φ(x) = √(2v/D)·(sin ω_jᵀx, cos ω_jᵀx)_j.
type RFF struct {
	omega [][]float64
	scale float64
}

// NewRFF draws a map of dimension size (even) for an SE or Matérn kernel in
// dimension d. SE frequencies are N(0, ℓ⁻²I); Matérn-ν frequencies are
// multivariate Student-t with 2ν degrees of freedom and scale ℓ⁻¹, drawn as
// z/ℓ·√(2ν/u) with u ~ χ²_{2ν}. An ARD kernel (d lengthscales ℓ_j) has the
// spectral density of ℓ = 1 with coordinate j scaled by 1/ℓ_j — it is the
// isotropic kernel on {(x_j/ℓ_j)_j} — so coordinate j of each frequency is
// divided by ℓ_j; the draws from rng are the same.
func NewRFF(k kernel.Kernel, d, size int, rng *rand.Rand) (*RFF, error) {
	if size < 2 || size%2 != 0 {
		return nil, fmt.Errorf("rff: size must be even and ≥ 2, got %d", size)
	}
	var v, l float64
	dof := 0 // 0: Gaussian
	switch k := k.(type) {
	case kernel.SE:
		v, l = k.Variance, k.Lengthscale
	case kernel.Matern32:
		v, l, dof = k.Variance, k.Lengthscale, 3
	case kernel.Matern52:
		v, l, dof = k.Variance, k.Lengthscale, 5
	default:
		return nil, fmt.Errorf("rff: kernel %q is not stationary", k.Name())
	}
	ard := kernel.ARD(k)
	if ard != nil {
		if len(ard) != d {
			return nil, fmt.Errorf("rff: %w: %d lengthscales for %d input dimensions", kernel.ErrInvalid, len(ard), d)
		}
		l = 1 // the common scale; each coordinate is divided by its ℓ_j
	}
	f := &RFF{scale: math.Sqrt(2 * v / float64(size))}
	for j := 0; j < size/2; j++ {
		s := 1 / l
		if dof > 0 {
			u := 0.0
			for i := 0; i < dof; i++ {
				g := rng.NormFloat64()
				u += g * g
			}
			s *= math.Sqrt(float64(dof) / u)
		}
		om := make([]float64, d)
		for i := range om {
			om[i] = s * rng.NormFloat64()
			if ard != nil {
				om[i] /= ard[i]
			}
		}
		f.omega = append(f.omega, om)
	}
	return f, nil
}

// Dim implements FeatureMap.
func (f *RFF) Dim() int { return 2 * len(f.omega) }

// Map implements FeatureMap.
func (f *RFF) Map(dst, x []float64) []float64 {
	for j, om := range f.omega {
		a := vec.Dot(om, x)
		dst[2*j] = f.scale * math.Sin(a)
		dst[2*j+1] = f.scale * math.Cos(a)
	}
	return dst
}

// ErrNoFeatures marks a kernel without an explicit feature map here.
var ErrNoFeatures = errors.New("no explicit feature map")

// MinEigenvalue returns λ_−, the smallest eigenvalue of the feature
// covariance Σ = E[φ(x̄)φ(x̄)ᵀ] with x̄ uniform on the seed set (paper
// Section 3.1; λ̃_− for an approximate map). It is 0 whenever the seed set
// has fewer actions than the map has dimensions.
func MinEigenvalue(f FeatureMap, x [][]float64, seed []int) (float64, error) {
	dim := f.Dim()
	if len(seed) < dim {
		return 0, nil
	}
	sigma := mat.NewSymDense(dim, nil)
	phi := make([]float64, dim)
	w := 1 / float64(len(seed))
	for _, s := range seed {
		f.Map(phi, x[s])
		sigma.SymRankOne(sigma, w, mat.NewVecDense(dim, phi))
	}
	var eig mat.EigenSym
	if !eig.Factorize(sigma, false) {
		return 0, errors.New("eigendecomposition of the feature covariance failed")
	}
	return math.Max(eig.Values(nil)[0], 0), nil
}

// MaxError returns max over pairs of x of |φ(x)ᵀφ(y) − k(x, y)|: the
// uniform approximation error ε_0 of the map on a decision set.
func MaxError(f FeatureMap, k kernel.Kernel, x [][]float64) float64 {
	phis := make([][]float64, len(x))
	for i := range x {
		phis[i] = f.Map(make([]float64, f.Dim()), x[i])
	}
	worst := 0.0
	for i := range x {
		for j := i; j < len(x); j++ {
			worst = math.Max(worst, math.Abs(vec.Dot(phis[i], phis[j])-k.Eval(x[i], x[j])))
		}
	}
	return worst
}
