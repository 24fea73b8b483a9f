package gp

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/safegp/safegp/kernel"
)

// JitterScale sets the smallest noise variance the model uses, relative to
// the largest prior variance on the decision set: σ² is raised to
// JitterScale·max_x k(x,x) when it is smaller. It keeps the Cholesky factor
// of the Gram matrix well defined for exact observations (σ = 0) of repeated
// actions, and leaves any σ of practical size untouched.
const JitterScale = 1e-10

// Model is the posterior of a zero-mean GP over the decision set
// D = {x_0 … x_{N−1}} after t observations (paper §1.1, SPEC §2).
//
// It keeps V = L⁻¹K(X_t, D), where L is the Cholesky factor of
// K(X_t, X_t) + σ²I, and a = L⁻¹y. Adding an observation appends one row to
// each, at cost O(N·t), and never refactorizes:
//
//	c       = k(x, D) − Vᵀ V[:, x]          (prior minus explained covariance)
//	L_tt    = √(c_x + σ²)
//	v_t     = c / L_tt,  a_t = (y − μ(x)) / L_tt
//	μ      += a_t v_t,   σ² −= v_t²
//
// A Model is not safe for concurrent use.
type Model struct {
	k        kernel.Kernel
	x        [][]float64
	noiseVar float64

	prior []float64 // k(x,x)
	mean  []float64
	vr    []float64 // posterior variance, may dip below 0 by rounding

	v     []float64 // t×N row-major V
	a     []float64 // L⁻¹y
	acts  []int
	cov   []float64 // scratch: one covariance row
	col   []float64 // scratch: V[:, x]
	sigma []float64 // N×N posterior covariance, when kept (KeepCovariance)
	maxT  int       // with GrowTo: the most observations rows are grown to
}

// New returns the prior model for kernel k on decision set x, with
// observation-noise standard deviation noiseStd ≥ 0. The model keeps x; the
// caller must not change it.
func New(k kernel.Kernel, x [][]float64, noiseStd float64) *Model {
	n := len(x)
	m := &Model{
		k:     k,
		x:     x,
		prior: make([]float64, n),
		mean:  make([]float64, n),
		vr:    make([]float64, n),
		cov:   make([]float64, n),
	}
	maxPrior := 0.0
	for i, xi := range x {
		m.prior[i] = k.Eval(xi, xi)
		maxPrior = math.Max(maxPrior, m.prior[i])
	}
	copy(m.vr, m.prior)
	if maxPrior == 0 {
		maxPrior = 1
	}
	m.noiseVar = math.Max(noiseStd*noiseStd, JitterScale*maxPrior)
	return m
}

// Reserve preallocates room for t observations in total, so that Observe
// does not allocate until then.
func (m *Model) Reserve(t int) {
	n := len(m.x)
	if cap(m.v) < t*n {
		v := make([]float64, len(m.v), t*n)
		copy(v, m.v)
		m.v = v
	}
	grow := func(s []float64) []float64 {
		if cap(s) >= t {
			return s
		}
		g := make([]float64, len(s), t)
		copy(g, s)
		return g
	}
	m.a = grow(m.a)
	if cap(m.acts) < t {
		g := make([]int, len(m.acts), t)
		copy(g, m.acts)
		m.acts = g
	}
	if cap(m.col) < t {
		m.col = make([]float64, 0, t)
	}
}

// GrowTo makes the model allocate room for observations as they come,
// doubling its rows up to t in total, instead of for all t up front as
// Reserve does: for a model that may stop long before t (a study that never
// reaches its horizon). Memory then stays within twice what the
// observations so far need, and within t rows.
func (m *Model) GrowTo(t int) { m.maxT = t }

// grow makes room for one more row of V, doubling the rows (at most maxT
// when GrowTo set it), so that a series of Observe calls copies O(N·t)
// floats in all.
func (m *Model) grow() {
	n := len(m.x)
	rows := len(m.v) / n
	want := max(2*rows, 8)
	if m.maxT > 0 {
		want = min(want, m.maxT)
	}
	want = max(want, rows+1)
	v := make([]float64, len(m.v), want*n)
	copy(v, m.v)
	m.v = v
}

// Bytes estimates the memory of a model over n actions holding t
// observations, with the full covariance when keepCov (KeepCovariance):
// the N-vectors, V (t·N floats) and the per-observation vectors. It is
// what Reserve(t) allocates, plus N² floats for the covariance.
func Bytes(n, t int, keepCov bool) int64 {
	// 5 N-vectors, V, 3 t-vectors, and room for allocation rounding.
	f := int64(6)*int64(n) + int64(t)*int64(n) + 4*int64(t) + 512
	if keepCov {
		f += int64(n) * int64(n)
	}
	return 8 * f
}

// N is the number of actions in the decision set.
func (m *Model) N() int { return len(m.x) }

// T is the number of observations so far.
func (m *Model) T() int { return len(m.acts) }

// NoiseVar is the noise variance the model uses (σ², raised to the jitter
// floor).
func (m *Model) NoiseVar() float64 { return m.noiseVar }

// Kernel returns the model's kernel.
func (m *Model) Kernel() kernel.Kernel { return m.k }

// Mean returns the posterior mean μ_t over D. The slice is the model's own:
// read it, do not keep it across Observe.
func (m *Model) Mean() []float64 { return m.mean }

// Var returns the posterior variance σ²_t over D (clamp at 0 before taking a
// square root). The slice is the model's own, as for Mean.
func (m *Model) Var() []float64 { return m.vr }

// Prior returns k(x, x) over D. The slice is the model's own.
func (m *Model) Prior() []float64 { return m.prior }

// Std returns the posterior standard deviation at action i.
func (m *Model) Std(i int) float64 { return math.Sqrt(math.Max(m.vr[i], 0)) }

// Actions returns the indices observed so far, in order.
func (m *Model) Actions() []int { return m.acts }

// KeepCovariance makes the model hold the full N×N posterior covariance
// from now on: it costs N² floats and an O(N²) rank-one update per
// observation, and makes every covariance row an O(N) copy instead of an
// O(N·t) product. Worth it when many rows are needed per round (SafeOpt's
// expander test, SPEC §5) and N is moderate.
func (m *Model) KeepCovariance() {
	if m.sigma != nil {
		return
	}
	n := len(m.x)
	sigma := make([]float64, n*n)
	for i := range n {
		m.Covariance(sigma[i*n:(i+1)*n], i)
	}
	m.sigma = sigma
}

// CovarianceRow returns the posterior covariance between action i and every
// action, in a slice owned by the model: read it before the next call to
// any method.
func (m *Model) CovarianceRow(i int) []float64 {
	if m.sigma != nil {
		n := len(m.x)
		return m.sigma[i*n : (i+1)*n]
	}
	return m.Covariance(m.cov, i)
}

// Covariance writes the posterior covariance between action i and every
// action of D into dst (length N) and returns it: k(x_i, D) − Vᵀ V[:, i].
// Cost O(N·t).
func (m *Model) Covariance(dst []float64, i int) []float64 {
	n := len(m.x)
	if len(dst) != n {
		panic("gp: Covariance: dst has wrong length")
	}
	if m.sigma != nil {
		copy(dst, m.sigma[i*n:(i+1)*n])
		return dst
	}
	xi := m.x[i]
	for j, xj := range m.x {
		dst[j] = m.k.Eval(xi, xj)
	}
	t := len(m.acts)
	if t == 0 {
		return dst
	}
	m.col = m.col[:0]
	for s := 0; s < t; s++ {
		m.col = append(m.col, m.v[s*n+i])
	}
	vm := blas64.General{Rows: t, Cols: n, Stride: n, Data: m.v[:t*n]}
	blas64.Gemv(blas.Trans, -1, vm, blas64.Vector{N: t, Inc: 1, Data: m.col}, 1, blas64.Vector{N: n, Inc: 1, Data: dst})
	return dst
}

// Observe adds the observation y of action i and updates the posterior
// over D in O(N·t).
func (m *Model) Observe(i int, y float64) {
	n := len(m.x)
	if i < 0 || i >= n {
		panic("gp: Observe: action index out of range")
	}
	c := m.Covariance(m.cov, i)
	d := math.Max(c[i], 0) + m.noiseVar
	l := math.Sqrt(d)
	alpha := (y - m.mean[i]) / l
	if cap(m.v)-len(m.v) < n {
		m.grow()
	}
	start := len(m.v)
	m.v = append(m.v, c...)
	row := m.v[start : start+n]
	inv := 1 / l
	for j := range row {
		r := row[j] * inv
		row[j] = r
		m.mean[j] += alpha * r
		m.vr[j] -= r * r
	}
	if m.sigma != nil {
		// Σ ← Σ − v_t v_tᵀ
		blas64.Ger(-1, blas64.Vector{N: n, Inc: 1, Data: row}, blas64.Vector{N: n, Inc: 1, Data: row},
			blas64.General{Rows: n, Cols: n, Stride: n, Data: m.sigma})
	}
	m.a = append(m.a, alpha)
	m.acts = append(m.acts, i)
}

// Update is the posterior change that one hypothetical observation at an
// action would make, with the model's noise, read one action at a time
// (SafeOpt's expander test, SPEC §5). It holds the model's slices: read it
// before the model's next method call.
type Update struct {
	c         []float64 // posterior covariance row of the observed action
	mean, vr  []float64
	gain, den float64
}

// Hypothetical returns the update that observing action i at innovation
// dy = y − μ(x_i) would make, leaving the model unchanged. It costs one
// covariance row (O(N) with KeepCovariance, else O(N·t)) and allocates
// nothing; each Mean or Var is then O(1).
func (m *Model) Hypothetical(i int, dy float64) Update {
	c := m.CovarianceRow(i)
	den := math.Max(c[i], 0) + m.noiseVar
	return Update{c: c, mean: m.mean, vr: m.vr, gain: dy / den, den: den}
}

// Mean is the posterior mean at action j after the update:
// μ(x_j) + c_j·dy/(c_ii + σ²).
func (u *Update) Mean(j int) float64 { return u.mean[j] + u.gain*u.c[j] }

// Var is the posterior variance at action j after the update:
// σ²(x_j) − c_j²/(c_ii + σ²). It may dip below 0 by rounding, as Var does.
func (u *Update) Var(j int) float64 {
	c := u.c[j]
	return u.vr[j] - c*c/u.den
}

// pop removes the last observation in O(N), undoing Observe up to
// rounding. Benchmarks use it to time Observe at a fixed t.
func (m *Model) pop() {
	t := len(m.acts) - 1
	n := len(m.x)
	row := m.v[t*n : (t+1)*n]
	if m.sigma != nil {
		blas64.Ger(1, blas64.Vector{N: n, Inc: 1, Data: row}, blas64.Vector{N: n, Inc: 1, Data: row},
			blas64.General{Rows: n, Cols: n, Stride: n, Data: m.sigma})
	}
	alpha := m.a[t]
	for j, r := range row {
		m.mean[j] -= alpha * r
		m.vr[j] += r * r
	}
	m.v = m.v[:t*n]
	m.a, m.acts = m.a[:t], m.acts[:t]
}
