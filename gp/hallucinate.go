package gp

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/floats"
)

// Hallucinated is the posterior variance over D of a Model conditioned, on
// top of its observations, on pending points whose values are not known
// yet: hallucinated observations, as in GP-BUCB (Desautels, Krause and
// Burdick, Parallelizing Exploration–Exploitation Tradeoffs in Gaussian
// Process Bandit Optimization, JMLR 15, 2014, §4.1). Each pending point is
// observed with the model's noise σ² at its posterior mean, so the mean
// does not move and only the variance shrinks near the pending points: the
// next point of a batch is chosen where the batch has not yet looked.
//
// Adding the pending points p_1, p_2, … one at a time, with σ_t the
// model's posterior covariance,
//
//	c_k(x)       = σ_t(x, p_k) − Σ_{l<k} c_l(x)·c_l(p_k)/s_l
//	s_k          = c_k(p_k) + σ²
//	σ²_hall(x)   = σ²_t(x) − Σ_k c_k(x)²/s_k
//
// which is the rank-one update of Model (c_k is the posterior covariance
// column at p_k after conditioning on p_1 … p_{k−1}, s_k the variance of
// its observation), kept apart from the model. Add costs one covariance
// row (O(N·t), or an O(N) copy with KeepCovariance) and k vector updates of
// length N for the k-th point; the columns c_l over D are kept (k·N floats,
// HallucinatedBytes) so that the next point adds to the batch instead of
// starting over.
//
// A Hallucinated belongs to the model it was Reset on and holds only until
// that model's next observation: Add panics on a model that has observed
// since (call Reset). It reuses its slices across Reset: in steady state
// (batches no larger than before) nothing is allocated.
type Hallucinated struct {
	m    *Model
	t    int       // m.T() at Reset
	n    int       // N
	cols []float64 // k×N row-major: row l is c_l over D
	// g holds c_l(p_k) for l ≤ k, row k at offset k(k+1)/2: the
	// covariances of the pending points among themselves, which the
	// recursion needs also for points outside D (where cols is not).
	g   []float64
	s   []float64   // s_l
	idx []int       // each point's action, −1 outside D
	pts [][]float64 // the points outside D (nil for an action)
	// w holds L⁻¹k(X_t, p) of the points outside D (t floats each, nil
	// for an action): σ_t(p, p') = k(p, p') − wᵀw' between two of them.
	w  [][]float64
	vr []float64 // σ²_hall over D
}

// Reset starts h over on model m, with no pending point: Var is then m's
// posterior variance.
func (h *Hallucinated) Reset(m *Model) {
	h.m, h.t, h.n = m, m.T(), m.N()
	h.cols, h.g, h.s, h.idx = h.cols[:0], h.g[:0], h.s[:0], h.idx[:0]
	clear(h.pts)
	h.pts = h.pts[:0]
	h.w = h.w[:0]
	h.vr = append(h.vr[:0], m.vr...)
}

// Reserve makes room for k pending points, so that Add does not allocate
// until then.
func (h *Hallucinated) Reserve(k int) {
	h.cols = slices.Grow(h.cols, max(k*h.n-len(h.cols), 0))
	h.g = slices.Grow(h.g, max(k*(k+1)/2-len(h.g), 0))
	h.s = slices.Grow(h.s, max(k-len(h.s), 0))
	h.idx = slices.Grow(h.idx, max(k-len(h.idx), 0))
	h.pts = slices.Grow(h.pts, max(k-len(h.pts), 0))
	h.w = slices.Grow(h.w, max(k-len(h.w), 0))
}

// HallucinatedBytes estimates the memory of a Hallucinated over n actions
// holding k pending points of D: the k columns and the variance over D and
// the k×k covariances among the points. A point outside D adds its copy
// and t floats of L⁻¹k(X_t, p).
func HallucinatedBytes(n, k int) int64 {
	return 8 * (int64(k+1)*int64(n) + int64(k)*int64(k+1)/2 + 4*int64(k) + 512)
}

// Len is the number of pending points added since Reset.
func (h *Hallucinated) Len() int { return len(h.s) }

// Model is the model h was Reset on, nil before the first Reset.
func (h *Hallucinated) Model() *Model { return h.m }

// Current reports whether h holds for m as it is: Reset on m, and m has
// not observed since.
func (h *Hallucinated) Current(m *Model) bool { return h.m == m && m.T() == h.t }

// Var returns σ²_hall over D (it may dip below 0 by rounding, as
// Model.Var's does: clamp it before a square root). The slice is h's own:
// read it, do not keep it across Add or Reset.
func (h *Hallucinated) Var() []float64 { return h.vr }

// Add adds a pending point at action i of D.
func (h *Hallucinated) Add(i int) {
	h.check("Add")
	m := h.m
	if i < 0 || i >= h.n {
		panic("gp: Hallucinated.Add: action index out of range")
	}
	k := len(h.s)
	c := h.column(k)
	m.Covariance(c, i) // σ_t(D, p_k)
	row := h.row(k)
	var wk []float64 // L⁻¹k(X_t, p_k), only if a point outside D needs it
	for l := range k {
		if j := h.idx[l]; j >= 0 {
			row[l] = c[j]
			continue
		}
		if wk == nil {
			m.column(i)
			wk = m.col
		}
		row[l] = m.k.Eval(m.x[i], h.pts[l]) - floats.Dot(wk, h.w[l])
	}
	row[k] = c[i]
	h.idx = append(h.idx, i)
	h.pts = append(h.pts, nil)
	h.w = append(h.w, nil)
	h.finish(k, row, c)
}

// AddAt adds a pending point at x, which need not be in D: its covariance
// with D is the kernel row less what the observations explain,
// k(x, D) − Vᵀ L⁻¹k(X_t, x), O(N·t + t²). x must be finite and of D's
// dimension; AddAt panics otherwise, as Model.AddAt does. h keeps a copy.
func (h *Hallucinated) AddAt(x []float64) {
	h.check("AddAt")
	m := h.m
	m.checkPoint(x, "Hallucinated.AddAt")
	k := len(h.s)
	x = slices.Clone(x)
	w := slices.Clone(m.solveAt(x))
	c := h.column(k)
	m.explained(c, x, w) // σ_t(D, x)
	row := h.row(k)
	for l := range k {
		if j := h.idx[l]; j >= 0 {
			row[l] = c[j]
		} else {
			row[l] = m.k.Eval(x, h.pts[l]) - floats.Dot(w, h.w[l])
		}
	}
	row[k] = m.k.Eval(x, x) - floats.Dot(w, w)
	h.idx = append(h.idx, -1)
	h.pts = append(h.pts, x)
	h.w = append(h.w, w)
	h.finish(k, row, c)
}

// check panics unless h holds for its model as it is.
func (h *Hallucinated) check(op string) {
	if h.m == nil || h.m.T() != h.t {
		panic("gp: Hallucinated." + op + ": not Reset on the model as it is (it has observed since)")
	}
}

// column returns room for c_k over D, row k of cols.
func (h *Hallucinated) column(k int) []float64 {
	h.cols = slices.Grow(h.cols, h.n)[:(k+1)*h.n]
	return h.cols[k*h.n : (k+1)*h.n]
}

// row returns room for row k of g (k+1 floats).
func (h *Hallucinated) row(k int) []float64 {
	off := k * (k + 1) / 2
	h.g = slices.Grow(h.g, k+1)[:off+k+1]
	return h.g[off : off+k+1]
}

// finish turns row k of g, holding σ_t(p_l, p_k) for l ≤ k, into c_l(p_k),
// turns c (σ_t(D, p_k)) into c_k over D, and takes c_k²/s_k off the
// variance.
func (h *Hallucinated) finish(k int, row, c []float64) {
	// c_l(p_k) = σ_t(p_l, p_k) − Σ_{j<l} c_j(p_l)·c_j(p_k)/s_j, in l order:
	// row[j] for j < l is c_j(p_k) by then.
	for l := range k {
		gl := h.g[l*(l+1)/2:]
		v := row[l]
		for j := range l {
			v -= gl[j] * row[j] / h.s[j]
		}
		row[l] = v
	}
	ckk := row[k]
	for l := range k {
		r := row[l] / h.s[l]
		ckk -= row[l] * r
		// c −= c_l·(c_l(p_k)/s_l): Σ_t(D, p_k) conditioned on p_l.
		floats.AddScaled(c, -r, h.cols[l*h.n:(l+1)*h.n])
	}
	row[k] = ckk
	s := math.Max(ckk, 0) + h.m.noiseVar
	h.s = append(h.s, s)
	inv := 1 / s
	for j, v := range c {
		h.vr[j] -= v * v * inv
	}
}
