package gp

import (
	"fmt"
	"math"
	"reflect"
	"runtime"
	"slices"
	"sync"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"

	"github.com/safegp/safegp/internal/gemv"
	"github.com/safegp/safegp/internal/vec"
	"github.com/safegp/safegp/kernel"
)

// JitterScale sets the smallest noise variance the model uses, relative to
// the largest prior variance on the decision set: σ² is raised to
// JitterScale·max_x k(x,x) when it is smaller. It keeps the Cholesky factor
// of the Gram matrix well defined for exact observations (σ = 0) of repeated
// actions, and leaves any σ of practical size untouched.
const JitterScale = 1e-10

// parWork is the number of multiply-adds below which a product is not
// worth splitting across goroutines.
const parWork = 1 << 20

// Model is the posterior of a zero-mean GP over the decision set
// D = {x_0 … x_{N−1}} after t observations (paper §1.1, SPEC §2), each at
// a point of D or anywhere else, with its own noise variance σ²_s.
//
// It keeps the Cholesky factor L of K(X_t, X_t) + diag(σ²_s), a = L⁻¹y and
// V = L⁻¹K(X_t, D). Adding an observation at x appends one row to each and
// never refactorizes: with l = L⁻¹k(X_t, x) (the column V[:, i] when x is
// action i, else a forward substitution in O(t²)),
//
//	c       = k(x, D) − Vᵀ l               (prior minus explained covariance)
//	L_tt    = √(max(k(x,x) − ‖l‖², 0) + σ²_t)   (new row of L: [lᵀ L_tt])
//	v_t     = c / L_tt,  a_t = (y − lᵀa) / L_tt
//	μ      += a_t v_t,   σ² −= v_t²
//
// at cost O(N·t) for the whole of D. The observed points, y, the noise
// variances and L are what OnSet needs to move the data onto another
// decision set, and LogMarginalLikelihood to score it. L is not stored
// whole: the row of an observation at action i is the column V[:, i] as it
// stood then, which V still holds (its rows never change once appended),
// so only the rows of observations outside D are kept, and a model that
// observes only actions of D keeps O(N·t) floats, not O(t²).
//
// A Model is not safe for concurrent use.
type Model struct {
	k kernel.Kernel
	x [][]float64
	// flat is x back to back (points of one dimension, N·d floats), for
	// kernel.RowFlat: a row then reads 16 bytes a point in the plane
	// instead of a slice header and a separately allocated point, which
	// the update's pass over V evicts from the caches every time (the
	// rows of an N = 10⁵ run took 17 ns an entry from x, 5 from a cache).
	// nil when the points differ in dimension or have none.
	flat     []float64
	noiseVar float64 // σ² for Observe, raised to jitter
	jitter   float64 // JitterScale·max_D k(x,x): the least noise variance

	prior []float64 // k(x,x)
	mean  []float64
	vr    []float64 // posterior variance, may dip below 0 by rounding
	// sd is √max(σ², 0), kept with vr: the update computes it where it
	// writes vr, in the bands that run on every core, so the policies'
	// passes over D (bounds, safe sets, argmaxes, several per round and
	// run on one core) read it instead of taking N square roots each.
	sd []float64

	v     []float64   // t×N row-major V
	a     []float64   // L⁻¹y
	lidx  []int       // per observation: its action, whose V column is its row of L; −1 if lrow holds it
	lrow  [][]float64 // per observation: its row of L below the diagonal when not a column of V, else nil
	ldiag []float64   // per observation: L_ss
	pts   [][]float64 // observed points: rows of x, or the model's copies
	y     []float64   // observations
	nv    []float64   // their noise variances (raised to jitter)
	cov   []float64   // scratch: one covariance row
	col   []float64   // scratch: V[:, x] or L⁻¹k(X_t, x)
	sigma []float64   // N×N posterior covariance, when kept (KeepCovariance)
	fin   finish      // scratch: the update's pass constants (finishing)
	ci    [1]float64  // scratch: Add's entry c_i, computed before the pass
	// vt is Vᵀ when kept (KeepTransposed): N rows of vtStride floats.
	vt       []float64
	vtStride int
	krows    []float64 // kept prior rows k(x_i, D), N floats each (KeepPriorRows)
	kslot    []int32   // per action: its row in krows, −1 for none; nil when none are kept
	rows     int       // observations v, a, l, pts, y, nv and col have room for
	maxT     int       // with GrowTo: the most observations rows are grown to
	// covFrom, when > 0, is the number of observations from which the
	// model keeps the full covariance (KeepCovarianceFrom).
	covFrom int

	// tracked are points outside D whose posterior the model keeps
	// current (Track).
	tracked []trackedPoint
	lscr    []float64   // scratch: one row of L
	pscr    [][]float64 // scratch: the points CovarianceAt reads

	bands  []band         // scratch: explained's column bands (bands.go)
	bandWG sync.WaitGroup // explained waits for its bands on it
}

// trackedPoint is one point Track follows: w = L⁻¹k(X_t, x) and the
// posterior there.
type trackedPoint struct {
	x        []float64
	w        []float64
	mean, vr float64
}

// New returns the prior model for kernel k on decision set x, with
// observation-noise standard deviation noiseStd ≥ 0. The model keeps x; the
// caller must not change it.
func New(k kernel.Kernel, x [][]float64, noiseStd float64) *Model {
	m := newOn(k, x)
	maxPrior := 0.0
	for _, p := range m.prior {
		maxPrior = math.Max(maxPrior, p)
	}
	if maxPrior == 0 {
		maxPrior = 1
	}
	m.jitter = JitterScale * maxPrior
	m.noiseVar = math.Max(noiseStd*noiseStd, m.jitter)
	return m
}

// newOn returns the prior over x without noise settings.
func newOn(k kernel.Kernel, x [][]float64) *Model {
	n := len(x)
	m := &Model{
		k:     k,
		x:     x,
		prior: make([]float64, n),
		mean:  make([]float64, n),
		vr:    make([]float64, n),
		sd:    make([]float64, n),
		cov:   make([]float64, n),
	}
	for i, xi := range x {
		m.prior[i] = k.Eval(xi, xi)
	}
	m.flat = flatten(x)
	copy(m.vr, m.prior)
	m.setStd(0, n)
	return m
}

// flatten returns x's points back to back, or nil if they are not all of
// one dimension d ≥ 1.
func flatten(x [][]float64) []float64 {
	if len(x) == 0 || len(x[0]) == 0 {
		return nil
	}
	d := len(x[0])
	flat := make([]float64, 0, len(x)*d)
	for _, p := range x {
		if len(p) != d {
			return nil
		}
		flat = append(flat, p...)
	}
	return flat
}

// PointsBytes is the memory a model over n actions in d dimensions keeps
// for its flat copy of them (besides Bytes).
func PointsBytes(n, d int) int64 { return 8 * int64(n) * int64(d) }

// Reserve preallocates room for t observations in total, so that Observe
// and Add do not allocate until then.
func (m *Model) Reserve(t int) {
	if t > m.rows {
		m.reserve(t)
	}
}

// reserve gives every per-observation slice room for t observations.
func (m *Model) reserve(t int) {
	n := len(m.x)
	if cap(m.v) < t*n {
		v := takeSlab(slabV, len(m.v), t*n)
		copy(v, m.v)
		m.v = v
	}
	grow := func(s []float64, c int) []float64 {
		if cap(s) >= c {
			return s
		}
		g := make([]float64, len(s), c)
		copy(g, s)
		return g
	}
	m.a = grow(m.a, t)
	m.y = grow(m.y, t)
	m.nv = grow(m.nv, t)
	m.ldiag = grow(m.ldiag, t)
	if cap(m.lidx) < t {
		g := make([]int, len(m.lidx), t)
		copy(g, m.lidx)
		m.lidx = g
	}
	if cap(m.lrow) < t {
		g := make([][]float64, len(m.lrow), t)
		copy(g, m.lrow)
		m.lrow = g
	}
	if cap(m.pts) < t {
		g := make([][]float64, len(m.pts), t)
		copy(g, m.pts)
		m.pts = g
	}
	if cap(m.col) < t {
		m.col = make([]float64, 0, t)
	}
	m.reservePriorRows(t)
	m.rows = max(m.rows, t)
}

// GrowTo makes the model allocate room for observations as they come,
// doubling its rows up to t in total, instead of for all t up front as
// Reserve does: for a model that may stop long before t (a study that never
// reaches its horizon). Memory then stays within twice what the
// observations so far need, and within t rows.
func (m *Model) GrowTo(t int) { m.maxT = t }

// room makes room for one more observation, before m.col is filled (grow
// replaces it).
func (m *Model) room() {
	if len(m.a) == m.rows {
		m.grow()
	}
}

// grow makes room for one more observation, doubling the rows (at most
// maxT when GrowTo set it), so that a series of Observe calls copies
// O(N·t + t²) floats in all.
func (m *Model) grow() {
	rows := len(m.a)
	want := max(2*rows, 8)
	if m.maxT > 0 {
		want = min(want, m.maxT)
	}
	m.reserve(max(want, rows+1))
}

// Bytes estimates the memory of a model over n actions holding t
// observations at points of D, with the full covariance when keepCov
// (KeepCovariance): the N-vectors, V (t·N floats) and the per-observation
// vectors. It is what Reserve(t) allocates, plus N² floats for the
// covariance. An observation outside D (AddAt) adds its point's d floats
// and its row of L (up to t floats): OutsideBytes counts them. A model
// made by OnSet holds every row of L (t²/2 floats), which neither counts.
func Bytes(n, t int, keepCov bool) int64 {
	// 5 N-vectors (k(x,x), μ, σ², σ, a covariance row) and two of
	// headroom, V, 6 t-vectors (a, y, σ², L_ss, action, scratch), t
	// point and row headers (3 words each), and room for allocation
	// rounding: 4 KiB for the small slices and a page (8 KiB, 1024 floats)
	// for V, which the runtime rounds up to whole pages.
	t64 := int64(t)
	f := int64(7)*int64(n) + t64*int64(n) + 12*t64 + 512 + 1024
	if keepCov {
		f += int64(n) * int64(n)
	}
	return 8 * f
}

// OutsideBytes estimates what out observations at points outside D
// (AddAt) add to Bytes(n, t, keepCov) for a model of at most t
// observations in d dimensions: each keeps a copy of its point and its
// row of L, as many floats as observations before it. At most t − 1
// each, and at worst the out latest places: out·(t−1) − out·(out−1)/2
// floats in all, with an eighth more for the allocator's size classes.
func OutsideBytes(d, t, out int) int64 {
	out = min(out, t)
	if out <= 0 {
		return 0
	}
	o, t64 := int64(out), int64(t)
	rows := o*(t64-1) - o*(o-1)/2
	return 8 * (rows + rows/8 + o*(int64(d)+4))
}

// N is the number of actions in the decision set.
func (m *Model) N() int { return len(m.x) }

// T is the number of observations so far.
func (m *Model) T() int { return len(m.a) }

// NoiseVar is the noise variance Observe uses (σ², raised to the jitter
// floor).
func (m *Model) NoiseVar() float64 { return m.noiseVar }

// Jitter is the least noise variance the model uses: for New,
// JitterScale·max_D k(x,x), or JitterScale when that maximum is 0; a model
// made by OnSet keeps its source's.
func (m *Model) Jitter() float64 { return m.jitter }

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
// It is √max(σ², 0), kept current by the update (no square root here).
func (m *Model) Std(i int) float64 { return m.sd[i] }

// Stds returns Std over D, for a pass over every action (a call per
// action through an interface costs such a pass more than its
// arithmetic). The slice is the model's own, as for Mean.
func (m *Model) Stds() []float64 { return m.sd }

// setStd sets sd from vr for the actions lo … hi−1.
func (m *Model) setStd(lo, hi int) {
	for j, v := range m.vr[lo:hi] {
		m.sd[lo+j] = math.Sqrt(max(v, 0))
	}
}

// Points returns the observed points x_1 … x_t, in order: rows of D for
// Observe and Add, the model's copies for AddAt. The slices are the
// model's own: read them, do not change them.
func (m *Model) Points() [][]float64 { return m.pts }

// Y returns the observations y_1 … y_t, in order. The slice is the
// model's own: read it, do not change it.
func (m *Model) Y() []float64 { return m.y }

// NoiseVars returns the noise variance of each observation, in order, as
// the model uses it (raised to the jitter floor). The slice is the model's
// own: read it, do not change it.
func (m *Model) NoiseVars() []float64 { return m.nv }

// KeepCovariance makes the model hold the full N×N posterior covariance
// from now on: it costs N² floats and an O(N²) rank-one update per
// observation, and makes every covariance row an O(N) copy instead of an
// O(N·t) product. Worth it when many rows are needed per round (SafeOpt's
// expander test, SPEC §5) and N is moderate.
func (m *Model) KeepCovariance() {
	if m.sigma != nil {
		return
	}
	n, t := len(m.x), len(m.a)
	sigma := takeSlab(slabSigma, n*n, n*n) // every entry is written below
	// Entry (i, j) is Covariance's, k(x_i, x_j) − Σ_s V[s,i]·V[s,j],
	// summed over s in order. It equals entry (j, i) to the bit: the
	// kernels are symmetric to the bit ((x−y)² = (y−x)², xᵀy = yᵀx term by
	// term), (−a)·b = (−b)·a exactly, and the sums run in the same order.
	// So only the upper triangle is computed, row i from column i on, and
	// mirrored: half the work of N full rows, the same floats
	// (TestKeepCovarianceIsCovariance). The rows are independent, so large
	// models split them across goroutines, in bands of equal work.
	rows := func(lo, hi int) {
		col := make([]float64, t)
		for i := lo; i < hi; i++ {
			for s := range t {
				col[s] = m.v[s*n+i]
			}
			m.explainedRange(sigma[i*n+i:(i+1)*n], m.x[i], nil, col, i, n)
		}
	}
	w := min(runtime.GOMAXPROCS(0), n*n*t/(2*parWork)+1, n)
	// Band k ends at row n·(1 − √(1 − k/w)): the triangle's area, and so
	// the work, is then split evenly.
	band := func(k int) int { return int(float64(n) * (1 - math.Sqrt(1-float64(k)/float64(w)))) }
	var wg sync.WaitGroup
	for k := 1; k < w; k++ {
		lo, hi := band(k), band(k+1)
		if k == w-1 {
			hi = n
		}
		wg.Go(func() { rows(lo, hi) })
	}
	rows(0, min(band(1), n)) // band(1) = n when w = 1
	wg.Wait()
	for i := range n {
		for j := i + 1; j < n; j++ {
			sigma[j*n+i] = sigma[i*n+j]
		}
	}
	m.sigma = sigma
}

// KeepCovarianceFrom makes the model keep the full N×N posterior
// covariance (KeepCovariance) once it holds t observations: from then on
// an observation costs an O(N²) rank-one update instead of the O(N·t)
// product with V, so that a long run — an import of many rows into a
// study, its replay — costs time linear in its observations rather than
// quadratic. The switch costs one O(N²·t) pass, at t; its memory, N²
// floats, is at most what V holds by then when t ≥ N.
//
// It changes no float: KeepCovariance's entries are Covariance's to the
// bit, and the rank-one update Σ_ij += (−v_i)·v_j is the very step the
// product k(x_i, x_j) − Σ_s V[s,i]·V[s,j] takes next, in the same order
// (TestKeepCovarianceFrom compares with a model that never switches).
func (m *Model) KeepCovarianceFrom(t int) { m.covFrom = t }

// switchCovariance keeps the covariance when KeepCovarianceFrom's count
// is reached; called before an observation is added.
func (m *Model) switchCovariance() {
	if m.sigma == nil && m.covFrom > 0 && len(m.a) >= m.covFrom {
		m.KeepCovariance()
	}
}

// explainedRange is explained for the actions lo … hi−1: it writes
// k(x, x_j) − Σ_s l_s·V[s, j] into dst (length hi − lo), the same floats
// as explained's entries j (the sum runs over s in the same order). kx,
// when not nil, is the whole row k(x, D) (KeepPriorRows), copied instead
// of evaluated.
func (m *Model) explainedRange(dst, x, kx, l []float64, lo, hi int) []float64 {
	n, t := len(m.x), len(l)
	switch {
	case kx != nil:
		copy(dst, kx[lo:hi])
	case m.flat != nil && len(x) > 0:
		d := len(x)
		kernel.RowFlat(m.k, dst, x, m.flat[lo*d:hi*d])
	default:
		kernel.Row(m.k, dst, x, m.x[lo:hi])
	}
	if t == 0 || hi == lo {
		return dst
	}
	// dst −= Vᵀl over the band's columns: gonum's transposed Gemv to the
	// bit, faster on AVX2 (internal/gemv).
	gemv.AddNegT(dst, m.v[lo:(t-1)*n+hi], n, l)
	return dst
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
	m.column(i)
	return m.explained(dst, m.x[i], m.keptRow(i), m.col)
}

// column gathers V[:, i] = L⁻¹k(X_t, x_i) into m.col.
func (m *Model) column(i int) {
	n, t := len(m.x), len(m.a)
	m.col = m.col[:0]
	if m.vt != nil {
		m.col = append(m.col, m.vt[i*m.vtStride:i*m.vtStride+t]...)
		return
	}
	for s := range t {
		m.col = append(m.col, m.v[s*n+i])
	}
}

// explained writes k(x, D) − Vᵀ l into dst and returns it, for
// l = L⁻¹k(X_t, x): the prior covariance of x with D minus the part the
// observations explain. Cost O(N·t). dst may be the row of V after the
// t rows the product reads (Add writes it there).
//
// For large N·t the columns are split into bands, one per core, each an
// explainedRange: the kernel row is compute-bound (exp) and the product
// bound by memory, and one GP's update alone — a study with a single GP,
// the third GP of two constraints on two cores — would leave a core idle.
// Entry j is the same float whatever the bands: its kernel entry does not
// depend on the others, and Gemv's transposed product accumulates column
// j over the rows of V in an order fixed by t alone
// (TestAddSameForAnyWorkers). kx is k(x, D) when the model keeps it
// (priorRow), else nil.
func (m *Model) explained(dst, x, kx, l []float64) []float64 {
	return m.explainedFinish(dst, x, kx, l, nil)
}

// explainedFinish is explained followed, when f is not nil, by the
// update's pass over D on the product (finishRange), each band finishing
// its own entries while they are in its core's cache: the pass is O(N)
// per observation and so runs on every core with the product instead of
// on one after it.
func (m *Model) explainedFinish(dst, x, kx, l []float64, f *finish) []float64 {
	n, w := len(m.x), m.workers(len(l))
	if w <= 1 {
		m.explainedRange(dst, x, kx, l, 0, n)
		if f != nil {
			m.finishRange(f, dst, 0, n)
		}
		return dst
	}
	m.explainedBands(dst, x, kx, l, w, f)
	return dst
}

// workers is the number of bands explained splits a product with t
// observations into.
func (m *Model) workers(t int) int {
	n := len(m.x)
	w := min(runtime.GOMAXPROCS(0), n*t/parWork+1)
	if testWorkers > 0 {
		w = testWorkers
	}
	return min(w, n)
}

// finish is what the update's pass over D needs beside the covariance c
// of the new observation: α = (y − μ(x))/L_tt, 1/L_tt, and the
// observation's number, its column in Vᵀ when that is kept.
type finish struct {
	alpha, inv float64
	s          int
}

// finishing returns the pass's constants for an observation y with L_tt
// ltt and prior mean mu, in the model's scratch (nothing is allocated per
// update), first making room in Vᵀ for the new column.
func (m *Model) finishing(y, ltt, mu float64) *finish {
	s := len(m.a)
	if m.vt != nil && s >= m.vtStride {
		m.relayout(max(m.rows, 2*m.vtStride))
	}
	m.fin = finish{alpha: (y - mu) / ltt, inv: 1 / ltt, s: s}
	return &m.fin
}

// finishRange is the update's pass over the actions lo … hi−1, c holding
// their entries of k(x, D) − Vᵀl: it scales them into v_t = c/L_tt in
// place, adds α·v_t to the mean and subtracts v_t² from the variance
// (SPEC §2's rank-one update), and copies v_t into Vᵀ when it is kept.
// Each entry's floats are those of the same operations in any band.
func (m *Model) finishRange(f *finish, c []float64, lo, hi int) {
	alpha, inv := f.alpha, f.inv
	mean, vr, sd := m.mean[lo:hi], m.vr[lo:hi], m.sd[lo:hi]
	c = c[:hi-lo]
	for j := range c {
		r := c[j] * inv
		c[j] = r
		mean[j] += alpha * r
		v := vr[j] - r*r
		vr[j] = v
		// The builtin max is inlined where math.Max is a call (5 % of
		// a sweep's CPU); against the finite 0 they agree to the bit,
		// −0 and NaN included.
		sd[j] = math.Sqrt(max(v, 0))
	}
	if m.vt != nil {
		vt, stride := m.vt[f.s:], m.vtStride
		for j, r := range c {
			vt[(lo+j)*stride] = r
		}
	}
}

// testWorkers, when > 0, is the number of bands explained splits every
// product into, whatever its size: tests set it to check that the floats
// do not depend on the split.
var testWorkers int

// noise returns the noise variance an observation uses: the model's for
// noiseVar < 0, else noiseVar raised to the jitter floor.
func (m *Model) noise(noiseVar float64, op string) float64 {
	switch {
	case math.IsNaN(noiseVar) || math.IsInf(noiseVar, 1):
		panic(fmt.Sprintf("gp: %s: noise variance %v", op, noiseVar))
	case noiseVar < 0:
		return m.noiseVar
	}
	return math.Max(noiseVar, m.jitter)
}

// Observe adds the observation y of action i with the model's noise
// variance and updates the posterior over D in O(N·t): Add(i, y, −1).
func (m *Model) Observe(i int, y float64) { m.Add(i, y, -1) }

// Add adds the observation y of action i, with noise variance noiseVar
// (raised to the jitter floor; < 0 for the model's), and updates the
// posterior over D in O(N·t): the new row of L is the column V[:, i] the
// model already holds. Add does not allocate within Reserve.
func (m *Model) Add(i int, y, noiseVar float64) {
	n := len(m.x)
	if i < 0 || i >= n {
		panic("gp: Add: action index out of range")
	}
	nv := m.noise(noiseVar, "Add")
	m.switchCovariance()
	m.room()
	// The row of L is V[:, i], which record need not copy (see lidx).
	c := m.nextRow()
	if m.sigma != nil {
		copy(c, m.sigma[i*n:(i+1)*n]) // the kept covariance has the row
		d := math.Max(c[i], 0) + nv
		m.record(m.x[i], i, y, nv, c, math.Sqrt(d), m.mean[i], nil)
		return
	}
	m.column(i)
	kx := m.priorRow(i)
	if w := m.workers(len(m.col)); w > 1 {
		// L_tt needs c_i before the bands' pass over D scales c:
		// computed alone first, the same float as the product's entry
		// i (each entry is, whatever the band: see explained).
		ci := m.explainedRange(m.ci[:], m.x[i], kx, m.col, i, i+1)
		ltt, mu := math.Sqrt(math.Max(ci[0], 0)+nv), m.mean[i]
		f := m.finishing(y, ltt, mu)
		m.explainedBands(c, m.x[i], kx, m.col, w, f)
		m.record(m.x[i], i, y, nv, c, ltt, mu, f)
		return
	}
	m.explainedRange(c, m.x[i], kx, m.col, 0, n)
	d := math.Max(c[i], 0) + nv
	m.record(m.x[i], i, y, nv, c, math.Sqrt(d), m.mean[i], nil)
}

// nextRow extends V by the row of the coming observation, given room for
// it, and returns it for the covariance c = k(x, D) − Vᵀl, which record
// then scales into v_t in place: written where it stays, it is never
// copied (an O(N) pass less per update).
func (m *Model) nextRow() []float64 {
	start := len(m.v)
	m.v = m.v[:start+len(m.x)]
	return m.v[start:]
}

// AddAt adds the observation y at point x, which need not be in D, with
// noise variance noiseVar (raised to the jitter floor; < 0 for the
// model's), and updates the posterior over D in O(N·t + t²): a forward
// substitution gives l = L⁻¹k(X_t, x). The model keeps a copy of x. x
// must be finite and have the dimension of D (and of the points observed
// before); AddAt panics otherwise, so callers check user input first.
func (m *Model) AddAt(x []float64, y, noiseVar float64) {
	m.checkPoint(x, "AddAt")
	nv := m.noise(noiseVar, "AddAt")
	x = append([]float64(nil), x...)
	m.switchCovariance()
	m.room()
	l := m.solveAt(x)
	d := math.Max(m.k.Eval(x, x)-floats.Dot(l, l), 0) + nv
	ltt, mu := math.Sqrt(d), floats.Dot(l, m.a)
	f := m.finishing(y, ltt, mu)
	c := m.explainedFinish(m.nextRow(), x, nil, l, f)
	m.record(x, -1, y, nv, c, ltt, mu, f)
}

// dim is the dimension of the points the model has seen, or −1 for none.
func (m *Model) dim() int {
	switch {
	case len(m.x) > 0:
		return len(m.x[0])
	case len(m.pts) > 0:
		return len(m.pts[0])
	}
	return -1
}

// solveAt writes l = L⁻¹k(X_t, x) into the scratch m.col and returns it:
// the kernel column of the observed points and one forward substitution,
// O(t²).
func (m *Model) solveAt(x []float64) []float64 {
	m.col = m.col[:len(m.a)]
	l := m.col
	for s, p := range m.pts {
		l[s] = m.k.Eval(p, x)
	}
	m.solveL(l)
	return l
}

// solveL overwrites b (length t) with L⁻¹b by forward substitution, O(t²).
func (m *Model) solveL(b []float64) {
	n := len(m.x)
	for s := range b {
		var dot float64
		if r := m.lrow[s]; r != nil {
			dot = floats.Dot(r, b[:s])
		} else {
			// Row s of L is V[:s, i] for the action i observed then.
			for q, i := 0, m.lidx[s]; q < s; q++ {
				dot += m.v[q*n+i] * b[q]
			}
		}
		b[s] = (b[s] - dot) / m.ldiag[s]
	}
}

// lRow writes row s of L below the diagonal (s floats) into dst and
// returns it.
func (m *Model) lRow(dst []float64, s int) []float64 {
	dst = dst[:s]
	if r := m.lrow[s]; r != nil {
		copy(dst, r)
		return dst
	}
	n, i := len(m.x), m.lidx[s]
	for q := range dst {
		dst[q] = m.v[q*n+i]
	}
	return dst
}

// record records observation y at point x (action i of D, or −1) with
// noise variance nv, given room for it, l = L⁻¹k(X_t, x) in m.col when
// i < 0 (for an action the row of L stays in V),
// c = k(x, D) − Vᵀl in V's next row (nextRow), L_tt and the posterior
// mean μ(x) = lᵀa before it: it appends the rows of L and a, scales c
// into v_t and updates the posterior over D (see Model).
//
// When f is not nil the pass over D that scales c and updates the
// posterior has run already, fused into the product that computed c
// (explainedFinish), with f's α and 1/L_tt.
func (m *Model) record(x []float64, i int, y, nv float64, c []float64, ltt, mu float64, f *finish) {
	n := len(m.x)
	alpha := (y - mu) / ltt
	var row []float64 // a row of L that V will not hold
	if i < 0 {
		row = append([]float64(nil), m.col...)
	}
	m.lidx = append(m.lidx, i)
	m.lrow = append(m.lrow, row)
	m.ldiag = append(m.ldiag, ltt)
	vt := c
	if f == nil {
		f = m.finishing(y, ltt, mu)
		m.finishRange(f, c, 0, n)
	}
	if m.sigma != nil {
		// Σ ← Σ − v_t v_tᵀ
		blas64.Ger(-1, blas64.Vector{N: n, Inc: 1, Data: vt}, blas64.Vector{N: n, Inc: 1, Data: vt},
			blas64.General{Rows: n, Cols: n, Stride: n, Data: m.sigma})
	}
	m.a = append(m.a, alpha)
	m.pts = append(m.pts, x)
	m.y = append(m.y, y)
	m.nv = append(m.nv, nv)
	if len(m.tracked) > 0 {
		t := len(m.a) - 1
		m.lscr = m.lRow(slices.Grow(m.lscr[:0], t), t)
		for k := range m.tracked {
			m.trackRow(&m.tracked[k], t, m.lscr)
		}
	}
}

// Track makes the model keep its posterior at the point x, which need not
// be in D, current from now on, and returns the point's number for
// Tracked (0, 1, … in the order of the calls). Adding x costs O(t²) and
// every observation after it O(t) per point tracked; each point keeps t
// floats. The values are those Predict would compute at x, to the bit:
// W = L⁻¹k(X_t, x) accumulated in Predict's order. The model keeps a copy
// of x, which must be finite and of the model's dimension (Track panics
// otherwise). OnSet does not carry tracked points over.
func (m *Model) Track(x []float64) int {
	m.checkPoint(x, "Track")
	p := trackedPoint{x: slices.Clone(x), vr: m.k.Eval(x, x), w: make([]float64, 0, max(m.rows, len(m.a)))}
	for s := range m.a {
		m.lscr = m.lRow(slices.Grow(m.lscr[:0], s), s)
		m.trackRow(&p, s, m.lscr)
	}
	m.tracked = append(m.tracked, p)
	return len(m.tracked) - 1
}

// Tracked returns the posterior mean and variance at tracked point k (the
// variance may dip below 0 by rounding, as Var's does).
func (m *Model) Tracked(k int) (mean, variance float64) {
	p := &m.tracked[k]
	return p.mean, p.vr
}

// trackRow appends W[s] for point p, given row s of L below the diagonal
// in l: (k(x_s, x) − Σ_q L_sq W[q])·(1/L_ss), the terms added in q order
// and skipped for L_sq = 0 as Predict's Gemv does, then its share of the
// mean and variance.
func (m *Model) trackRow(p *trackedPoint, s int, l []float64) {
	r := m.k.Eval(m.pts[s], p.x)
	for q, lq := range l {
		if tmp := -lq; tmp != 0 {
			r += float64(tmp * p.w[q]) // float64(): no fused multiply-add
		}
	}
	r *= 1 / m.ldiag[s]
	p.w = append(p.w, r)
	p.mean += m.a[s] * r
	p.vr -= r * r
}

// PredictAt returns the posterior mean and variance of the latent function
// at the point x, which need not be in D: with l = L⁻¹k(X_t, x) by one
// forward substitution, μ(x) = lᵀa and σ²(x) = k(x,x) − ‖l‖² (the variance
// may dip below 0 by rounding, as Var's does: clamp it before a square
// root). Cost O(t²) and no allocation within Reserve: it uses the model's
// scratch row, so it is no more safe for concurrent use than the rest.
// The model is unchanged. x must be finite and have the dimension of D;
// PredictAt panics otherwise, so callers check user input first.
func (m *Model) PredictAt(x []float64) (mean, variance float64) {
	m.checkPoint(x, "PredictAt")
	l := m.solveAt(x)
	return floats.Dot(l, m.a), m.k.Eval(x, x) - floats.Dot(l, l)
}

// checkPoint panics unless x is finite and of the model's dimension.
func (m *Model) checkPoint(x []float64, op string) {
	if d := m.dim(); d >= 0 && len(x) != d {
		panic(fmt.Sprintf("gp: %s: point of dimension %d, the model's is %d", op, len(x), d))
	}
	for _, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			panic(fmt.Sprintf("gp: %s: point %v is not finite", op, x))
		}
	}
}

// Predict writes the posterior mean and variance at every point of x —
// another finite set, anywhere — into mean and vr (each of length len(x))
// without moving the model: what OnSet(x) would hold in its Mean and Var,
// computed the same way (W = L⁻¹K(X_t, x) row by row, μ = Wᵀa,
// σ² = k(x,x) − colsum(W²)) but keeping neither W's rows past their use
// nor a copy of L. Cost O(P·t²) for P points, with one scratch matrix of
// P·t floats (PredictBytes): callers with user-sized x check it first.
// One point is PredictAt, without the scratch.
func (m *Model) Predict(mean, vr []float64, x [][]float64) {
	if len(mean) != len(x) || len(vr) != len(x) {
		panic("gp: Predict: mean and vr must have one element per point")
	}
	for _, p := range x {
		m.checkPoint(p, "Predict")
	}
	if len(x) == 1 {
		mean[0], vr[0] = m.PredictAt(x[0])
		return
	}
	t, np := len(m.a), len(x)
	for j, p := range x {
		mean[j], vr[j] = 0, m.k.Eval(p, p)
	}
	if t == 0 {
		return
	}
	w := make([]float64, t*np)
	l := make([]float64, t)
	for s, p := range m.pts {
		// k(p, x_j) for every j in one dynamic call, Eval's floats
		// (kernel.Row).
		row := kernel.Row(m.k, w[s*np:(s+1)*np], p, x)
		if s > 0 {
			// row −= W[:s]ᵀ L[s, :s]: row s of L⁻¹K(X_t, x), gonum's
			// transposed Gemv to the bit, four rows of W at a time
			// (internal/gemv): for a few points, as a swarm's
			// particles, gonum's row-by-row axpy of a short row cost
			// 40 % of SafeOptSwarm's run (issue 45's CI).
			gemv.AddNegT(row, w[:s*np], np, m.lRow(l, s))
		}
		inv, alpha := 1/m.ldiag[s], m.a[s]
		for j := range row {
			r := row[j] * inv
			row[j] = r
			mean[j] += alpha * r
			vr[j] -= r * r
		}
	}
}

// PredictBytes estimates the scratch memory of Predict over p points for a
// model of t observations: the P×t matrix W and one row of L.
func PredictBytes(p, t int) int64 {
	if p <= 1 {
		return 0
	}
	return 8 * (int64(p)*int64(t) + int64(t) + 1024)
}

// carry returns the prior over x with this model's noise settings, GrowTo
// limit and observations (a, points, y, noise variances, L's diagonal),
// room reserved for them: what OnSet and OnSetFrom start from, before the
// rows of L and V.
func (m *Model) carry(x [][]float64) *Model {
	o := newOn(m.k, x)
	o.noiseVar, o.jitter, o.maxT = m.noiseVar, m.jitter, m.maxT
	o.reserve(len(m.a))
	o.a = append(o.a, m.a...)
	o.pts = append(o.pts, m.pts...)
	o.y = append(o.y, m.y...)
	o.nv = append(o.nv, m.nv...)
	o.ldiag = append(o.ldiag, m.ldiag...)
	return o
}

// OnSet returns a new model over decision set x with this model's kernel,
// noise settings and observations (points, y, noise variances), in
// O(N·t²) from L without refactorizing: V' = L⁻¹K(X_t, x) row by row,
// μ = V'ᵀa and σ² = k(x,x) − colsum(V'²), accumulated in the order Add
// uses, so that OnSet onto the same set gives the same floats. The new
// model keeps this model's noise variance and jitter floor (the noise
// belongs to the observations, not to the set) and its GrowTo limit, but
// not its full covariance (call KeepCovariance again). It keeps x; the
// caller must not change it. x's points must have the dimension of the
// observed ones; OnSet panics otherwise.
func (m *Model) OnSet(x [][]float64) *Model {
	if d := m.dim(); len(m.pts) > 0 {
		for i, p := range x {
			if len(p) != d {
				panic(fmt.Sprintf("gp: OnSet: point %d of dimension %d, the model's is %d", i, len(p), d))
			}
		}
	}
	o := m.carry(x)
	t, n := len(m.a), len(x)
	o.v = o.v[:t*n]
	// The rows of L are no columns of the new V: o keeps them all,
	// sharing those m keeps as rows (never changed once appended).
	for s := range t {
		r := m.lrow[s]
		if r == nil {
			r = m.lRow(make([]float64, s), s)
		}
		o.lidx = append(o.lidx, -1)
		o.lrow = append(o.lrow, r)
	}
	// Column j of V' (with μ_j and σ²_j) depends on column j of the rows
	// above it only, so large sets split their columns across goroutines:
	// each column is computed exactly as alone, the same floats.
	cols := func(lo, hi int) {
		for s, p := range o.pts {
			row := o.explainedRange(o.v[s*n+lo:s*n+hi], p, nil, o.lrow[s], lo, hi)
			inv, alpha := 1/o.ldiag[s], o.a[s]
			for j := range row {
				r := row[j] * inv
				row[j] = r
				o.mean[lo+j] += alpha * r
				o.vr[lo+j] -= r * r
			}
		}
		o.setStd(lo, hi)
	}
	w := min(runtime.GOMAXPROCS(0), n*t*t/(2*parWork)+1, n)
	var wg sync.WaitGroup
	for k := 1; k < w; k++ {
		wg.Go(func() { cols(k*n/w, (k+1)*n/w) })
	}
	cols(0, n/max(w, 1))
	wg.Wait()
	return o
}

// LogDet returns log det(K(X_t, X_t) + diag(σ²_s)), the Gram matrix of the
// observations with their noise variances, from the Cholesky factor's
// diagonal: 2·Σ_s log L_ss, O(t). (The frequentist β of Fiedler, Scherer
// and Trimpe 2021 reads it: bandit.Beta.)
func (m *Model) LogDet() float64 {
	var logDet float64
	for s := range m.a {
		logDet += math.Log(m.ldiag[s])
	}
	return 2 * logDet
}

// LogMarginalLikelihood returns log p(y | X_t) under the model,
// −½ yᵀ(K + Σ)⁻¹y − ½ log det(K + Σ) − (t/2) log 2π with K = K(X_t, X_t) and
// Σ = diag(σ²_s) (Rasmussen & Williams 2006, eq. 2.30 and Algorithm 2.1):
// from a = L⁻¹y and L, −½‖a‖² − Σ_s log L_ss − (t/2) log 2π, in O(t).
func (m *Model) LogMarginalLikelihood() float64 {
	var q, logDet float64
	for s, as := range m.a {
		q += as * as
		logDet += math.Log(m.ldiag[s])
	}
	return -0.5*q - logDet - 0.5*float64(len(m.a))*math.Log(2*math.Pi)
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

// pop removes the last observation in O(N), undoing Add up to rounding.
// Benchmarks use it to time Observe at a fixed t.
func (m *Model) pop() {
	t := len(m.a) - 1
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
	m.setStd(0, n)
	m.v = m.v[:t*n]
	for k := range m.tracked {
		p := &m.tracked[k]
		r := p.w[t]
		p.mean -= alpha * r
		p.vr += r * r
		p.w = p.w[:t]
	}
	m.lidx, m.lrow, m.ldiag = m.lidx[:t], m.lrow[:t], m.ldiag[:t]
	m.a, m.pts, m.y, m.nv = m.a[:t], m.pts[:t], m.y[:t], m.nv[:t]
}

// OnSetFrom returns what m.OnSet(x) would, given moved = src.OnSet(x) for
// a model src with m's kernel and the same L (the same observed points
// and noise variances, and bitwise the same rows of L), or nil when src
// is not such a model: V' = L⁻¹K(X_t, x) and σ² are then src's floats,
// copied in O(N·t), and only μ = V'ᵀa is accumulated, in OnSet's order.
func (m *Model) OnSetFrom(src, moved *Model, x [][]float64) *Model {
	t, n := len(m.a), len(x)
	if len(src.a) != t || len(moved.x) != n || !reflect.DeepEqual(m.k, src.k) ||
		m.noiseVar != src.noiseVar || m.jitter != src.jitter || m.maxT != src.maxT {
		return nil
	}
	for i := range x {
		if !slices.Equal(x[i], moved.x[i]) {
			return nil
		}
	}
	ra, rb := make([]float64, t), make([]float64, t) // rows of L, compared
	for s := range t {
		if m.ldiag[s] != src.ldiag[s] || m.nv[s] != src.nv[s] || !slices.Equal(m.pts[s], src.pts[s]) {
			return nil
		}
		if !vec.SameBits(m.lRow(ra[:s], s), src.lRow(rb[:s], s)) {
			return nil
		}
	}
	o := m.carry(x)
	o.lidx = append(o.lidx, moved.lidx...)
	o.lrow = append(o.lrow, moved.lrow...)
	o.v = append(o.v[:0], moved.v[:t*n]...)
	copy(o.vr, moved.vr)
	copy(o.sd, moved.sd)
	for s := range t {
		row, alpha := o.v[s*n:(s+1)*n], o.a[s]
		for j, r := range row {
			o.mean[j] += alpha * r
		}
	}
	return o
}

// JointAt writes the joint posterior of the latent function at the points
// x — P of them, anywhere — into mean (length P) and cov (P×P, row
// major): μ_a = l_aᵀa and Σ_ab = k(x_a, x_b) − l_aᵀl_b for l_a =
// L⁻¹k(X_t, x_a). Cost O(P·t² + P²·t), with P·t floats of scratch: for a
// handful of points (a gradient's finite differences), not a set. The
// model is unchanged; x must be finite and of the model's dimension.
func (m *Model) JointAt(mean, cov []float64, x [][]float64) {
	p, t := len(x), len(m.a)
	ls := make([]float64, p*t)
	for a, xa := range x {
		m.checkPoint(xa, "JointAt")
		copy(ls[a*t:(a+1)*t], m.solveAt(xa))
		mean[a] = floats.Dot(ls[a*t:(a+1)*t], m.a)
	}
	for a := range p {
		for b := a; b < p; b++ {
			c := m.k.Eval(x[a], x[b]) - floats.Dot(ls[a*t:(a+1)*t], ls[b*t:(b+1)*t])
			cov[a*p+b], cov[b*p+a] = c, c
		}
	}
}
