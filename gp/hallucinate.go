package gp

import (
	"math"
	"runtime"
	"slices"
	"sync"

	"gonum.org/v1/gonum/floats"
)

// Hallucinated is the posterior variance of a Model conditioned, on top of
// its observations, on pending points whose values are not known yet:
// hallucinated observations, as in GP-BUCB (Desautels, Krause and Burdick,
// Parallelizing Exploration–Exploitation Tradeoffs in Gaussian Process
// Bandit Optimization, JMLR 15, 2014, §4.1). Each pending point is observed
// with the model's noise σ² at its posterior mean, so the mean does not
// move and only the variance shrinks near the pending points: the next
// point of a batch is chosen where the batch has not yet looked.
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
// its observation), kept apart from the model.
//
// The variance is kept at the rows given to Reset: every action of D, or
// only some (the candidates a policy chooses among). The k-th point costs
// one covariance row over them — O(R·t) for R rows, or an O(R) copy with
// KeepCovariance — and k vector updates of length R; the columns c_l are
// kept (k·R floats, HallucinatedBytes) so that the next point adds to the
// batch instead of starting over. The pending points need not be among the
// rows, nor in D (AddAt). The variance at an action is the same float
// whatever the other rows are, and whether the pending actions are among
// them or not (TestHallucinatedSameWhateverRows): a caller may keep more
// rows than it reads.
//
// A Hallucinated belongs to the model it was Reset on and holds only until
// that model's next observation: Add panics on a model that has observed
// since (call Reset). It reuses its slices across Reset: in steady state
// (batches and rows no larger than before) nothing is allocated.
type Hallucinated struct {
	m    *Model
	t    int       // m.T() at Reset
	all  bool      // the rows are every action of D
	rows []int     // the actions whose variance is kept, ascending; all: 0 … N−1 implied
	runs []run     // rows as runs of consecutive actions
	pos  []int     // action → its row, −1 for none (nil when all)
	n    int       // the number of rows
	cols []float64 // k×n row-major: row l is c_l at the rows
	// g holds c_l(p_k) for l ≤ k, row k at offset k(k+1)/2: the
	// covariances of the pending points among themselves, which the
	// recursion needs also for points not among the rows.
	g   []float64
	s   []float64   // s_l
	idx []int       // each point's action, −1 outside D
	pts [][]float64 // each point
	// w holds L⁻¹k(X_t, p) of the points outside D (t floats each, nil
	// for an action of D): σ_t(p, p') = k(p, p') − wᵀw'.
	w    [][]float64
	wscr []float64 // V[:, i] of an action added beside points outside D
	vr   []float64 // σ²_hall at the rows
}

// Reset starts h over on model m with no pending point, keeping the
// variance at every action of D: Var is then m's posterior variance.
func (h *Hallucinated) Reset(m *Model) {
	h.reset(m)
	h.all, h.n = true, m.N()
	h.rows = h.rows[:0]
	h.vr = append(h.vr[:0], m.vr...)
}

// ResetRows is Reset keeping the variance at the actions rows only
// (ascending, distinct, in 0 … N−1): Var()[r] is then at action rows[r].
// h keeps a copy of rows.
func (h *Hallucinated) ResetRows(m *Model, rows []int) {
	h.reset(m)
	h.all, h.n = false, len(rows)
	h.rows = append(h.rows[:0], rows...)
	if len(h.pos) != m.N() {
		h.pos = make([]int, m.N())
		for i := range h.pos {
			h.pos[i] = -1
		}
	}
	h.vr = h.vr[:0]
	h.runs = h.runs[:0]
	for r, i := range rows {
		if i < 0 || i >= m.N() || (r > 0 && i <= rows[r-1]) {
			panic("gp: Hallucinated.ResetRows: rows not ascending actions of D")
		}
		h.pos[i] = r
		h.vr = append(h.vr, m.vr[i])
		if k := len(h.runs) - 1; k >= 0 && h.runs[k].at+h.runs[k].n == i {
			h.runs[k].n++
		} else {
			h.runs = append(h.runs, run{at: i, r: r, n: 1})
		}
	}
}

// run is a run of rows at consecutive actions: rows r … r+n−1 are the
// actions at … at+n−1. A policy's candidates (a safe set on a grid) come
// in runs, along which V's rows are read as contiguous slices.
type run struct{ at, r, n int }

// reset clears the points and the previous rows' positions.
func (h *Hallucinated) reset(m *Model) {
	if !h.all {
		for _, i := range h.rows {
			h.pos[i] = -1
		}
	}
	h.m, h.t = m, m.T()
	h.cols, h.g, h.s, h.idx = h.cols[:0], h.g[:0], h.s[:0], h.idx[:0]
	clear(h.pts)
	h.pts = h.pts[:0]
	clear(h.w)
	h.w = h.w[:0]
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
// holding k pending points, for a model of t observations: the k columns
// and the variance over D, the rows' positions, the k×k covariances among
// the points and, for points not among the rows, L⁻¹k(X_t, p) (t floats
// each).
func HallucinatedBytes(n, k, t int) int64 {
	k64 := int64(k)
	return 8 * (k64*int64(n) + 3*int64(n) + k64*(k64+1)/2 + k64*int64(t) + 4*k64 + 512)
}

// Len is the number of pending points added since Reset.
func (h *Hallucinated) Len() int { return len(h.s) }

// Current reports whether h holds for m as it is: Reset on m, and m has
// not observed since.
func (h *Hallucinated) Current(m *Model) bool { return h.m == m && m.T() == h.t }

// Var returns σ²_hall at the rows (every action of D after Reset, rows[r]
// at r after ResetRows). It may dip below 0 by rounding, as Model.Var's
// does: clamp it before a square root. The slice is h's own: read it, do
// not keep it across Add or Reset.
func (h *Hallucinated) Var() []float64 { return h.vr }

// row returns action i's row, −1 for none.
func (h *Hallucinated) row(i int) int {
	switch {
	case i < 0:
		return -1
	case h.all:
		return i
	}
	return h.pos[i]
}

// Add adds a pending point at action i of D.
func (h *Hallucinated) Add(i int) {
	h.check("Add")
	m := h.m
	if i < 0 || i >= m.N() {
		panic("gp: Hallucinated.Add: action index out of range")
	}
	k := len(h.s)
	c := h.column(k)
	m.covarianceRows(c, i, h.rowsOrAll(), h.runs)
	own := h.row(i)
	// L⁻¹k(X_t, x_i) = V[:, i]: needed beside a point outside D only
	// (the covariances with actions of D are entries, see add), and not
	// kept.
	var w []float64
	if slices.Contains(h.idx[:k], -1) {
		h.wscr = slices.Grow(h.wscr[:0], m.T())[:m.T()]
		w = h.wscr
		for s := range w {
			w[s] = m.v[s*m.N()+i]
		}
	}
	cov := func(p []float64) float64 { return m.k.Eval(m.x[i], p) }
	self := func() float64 { return m.entry(i, i) }
	h.add(k, c, i, m.x[i], w, own, cov, self)
}

// entry is the posterior covariance σ_t(x_i, x_j) of two actions of D, the
// same float as entry j of a covariance row at i over any rows
// (covarianceRows: the kernel, then V[s,i]·V[s,j] subtracted in s order,
// or the kept covariance's entry). The pending points' covariances among
// themselves are computed so whether or not the points are among the
// rows: then σ²_hall at an action is the same float whatever the other
// rows are (every row's value is computed on its own, in the same
// operation order), and a policy may hallucinate over a larger candidate
// set than another and still read the same variances.
//
// Why it matters: were σ_t(p_l, p_k) computed one way for a point among
// the rows (the row's sum, in s order) and another for one outside them
// (k − wᵀw_l by a vectorized dot product, summed in another order), s_k
// and every c_k would differ in the last bits between two row sets
// whenever a pending point is among one and not the other.
func (m *Model) entry(i, j int) float64 {
	n := len(m.x)
	if m.sigma != nil {
		return m.sigma[i*n+j]
	}
	d := m.k.Eval(m.x[i], m.x[j])
	for s := range m.a {
		if l := m.v[s*n+i]; l != 0 { // explainedBand skips a zero l_s too
			d -= l * m.v[s*n+j]
		}
	}
	return d
}

// explainedAt is entry j of explainedRows(·, x, l, …): k(x, x_j) −
// Σ_s l_s·V[s, j], in s order, for a point x outside D with
// l = L⁻¹k(X_t, x).
func (m *Model) explainedAt(x, l []float64, j int) float64 {
	n := len(m.x)
	d := m.k.Eval(x, m.x[j])
	for s, ls := range l {
		if ls != 0 {
			d -= ls * m.v[s*n+j]
		}
	}
	return d
}

// AddAt adds a pending point at x, which need not be in D: its covariance
// with the rows is the kernel row less what the observations explain,
// k(x, ·) − Vᵀ L⁻¹k(X_t, x), O(R·t + t²). x must be finite and of D's
// dimension; AddAt panics otherwise, as Model.AddAt does. h keeps a copy.
func (h *Hallucinated) AddAt(x []float64) {
	h.check("AddAt")
	m := h.m
	m.checkPoint(x, "Hallucinated.AddAt")
	k := len(h.s)
	x = slices.Clone(x)
	w := slices.Clone(m.solveAt(x))
	c := h.column(k)
	m.explainedRows(c, x, w, h.rowsOrAll(), h.runs)
	cov := func(p []float64) float64 { return m.k.Eval(x, p) }
	self := func() float64 { return m.k.Eval(x, x) - floats.Dot(w, w) }
	h.add(k, c, -1, x, w, -1, cov, self)
}

// rowsOrAll is the rows for the model's row products: nil for all of D.
func (h *Hallucinated) rowsOrAll() []int {
	if h.all {
		return nil
	}
	return h.rows
}

// add records point k, at action i (−1 outside D) and point x, given
// c = σ_t(rows, x), w = L⁻¹k(X_t, x) when x is outside D or an earlier
// point is, x's row own, its kernel with another point, and σ_t(x, x).
func (h *Hallucinated) add(k int, c []float64, i int, x, w []float64, own int, cov func(p []float64) float64, self func() float64) {
	row := h.gRow(k)
	// σ_t(p_l, x): from c where p_l is among the rows, else, for p_l an
	// action of D, the float c would hold there computed on its own
	// (entry, explainedAt), else k(x, p_l) − wᵀw_l.
	for l := range k {
		switch r := h.row(h.idx[l]); {
		case r >= 0:
			row[l] = c[r]
		case i >= 0 && h.idx[l] >= 0:
			row[l] = h.m.entry(i, h.idx[l])
		case h.idx[l] >= 0:
			row[l] = h.m.explainedAt(x, w, h.idx[l])
		default:
			row[l] = cov(h.pts[l]) - floats.Dot(w, h.w[l])
		}
	}
	if own >= 0 {
		row[k] = c[own]
	} else {
		row[k] = self()
	}
	h.idx = append(h.idx, i)
	h.pts = append(h.pts, x)
	if i >= 0 {
		// Later points read an action's covariances as entries (entry,
		// explainedAt), not from w.
		w = nil
	}
	h.w = append(h.w, w)
	h.finish(k, row, c)
}

// check panics unless h holds for its model as it is.
func (h *Hallucinated) check(op string) {
	if h.m == nil || h.m.T() != h.t {
		panic("gp: Hallucinated." + op + ": not Reset on the model as it is (it has observed since)")
	}
}

// column returns room for c_k at the rows, row k of cols.
func (h *Hallucinated) column(k int) []float64 {
	h.cols = slices.Grow(h.cols, h.n)[:(k+1)*h.n]
	return h.cols[k*h.n : (k+1)*h.n]
}

// gRow returns room for row k of g (k+1 floats).
func (h *Hallucinated) gRow(k int) []float64 {
	off := k * (k + 1) / 2
	h.g = slices.Grow(h.g, k+1)[:off+k+1]
	return h.g[off : off+k+1]
}

// finish turns row k of g, holding σ_t(p_l, p_k) for l ≤ k, into c_l(p_k),
// turns c (σ_t(rows, p_k)) into c_k at the rows, and takes c_k²/s_k off
// the variance.
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
		// c −= c_l·(c_l(p_k)/s_l): σ_t(rows, p_k) conditioned on p_l.
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

// covarianceRows writes σ_t(x_j, x_i) for the actions j of rows (nil:
// every action) into dst: Covariance, restricted. runs are the rows' runs
// of consecutive actions. Large products split their rows across
// goroutines.
func (m *Model) covarianceRows(dst []float64, i int, rows []int, runs []run) {
	n := len(m.x)
	if m.sigma != nil {
		if rows == nil {
			copy(dst, m.sigma[i*n:(i+1)*n])
			return
		}
		sr := m.sigma[i*n : (i+1)*n]
		for r, j := range rows {
			dst[r] = sr[j]
		}
		return
	}
	m.column(i)
	m.explainedRows(dst, m.x[i], m.col, rows, runs)
}

// explainedRows writes k(x, x_j) − Σ_s l_s·V[s, j] for the actions j of
// rows (nil: every action) into dst, for l = L⁻¹k(X_t, x); runs are the
// rows' runs of consecutive actions. The rows are independent: a product
// of at least parRows multiply-adds is split in bands across goroutines.
func (m *Model) explainedRows(dst, x, l []float64, rows []int, runs []run) {
	r := len(dst)
	w := min(runtime.GOMAXPROCS(0), r*len(l)/parRows+1, max(r, 1))
	if w <= 1 {
		m.explainedBand(dst, x, l, rows, runs, 0, r)
		return
	}
	var wg sync.WaitGroup
	for k := 1; k < w; k++ {
		wg.Go(func() { m.explainedBand(dst, x, l, rows, runs, k*r/w, (k+1)*r/w) })
	}
	m.explainedBand(dst, x, l, rows, runs, 0, r/w)
	wg.Wait()
}

// parRows is the number of multiply-adds from which explainedRows splits
// its rows across goroutines: a quarter of parWork, since reading V's
// rows at scattered columns is bound by memory, not arithmetic (about
// 1.5 ns a multiply-add on the project's machine, so some 0.4 ms of work
// against a goroutine's microseconds).
const parRows = parWork / 4

// minRun is the mean run length from which explainedBand reads V's rows
// run by run (a vectorized axpy per run) rather than action by action.
const minRun = 4

// explainedBand is explainedRows for the rows lo … hi−1.
func (m *Model) explainedBand(dst, x, l []float64, rows []int, runs []run, lo, hi int) {
	if rows == nil {
		m.explainedRange(dst[lo:hi], x, nil, l, lo, hi)
		return
	}
	n := len(m.x)
	d, rs := dst[lo:hi], rows[lo:hi]
	for k, j := range rs {
		d[k] = m.k.Eval(x, m.x[j])
	}
	if len(runs)*minRun <= len(rows) {
		for s, ls := range l {
			if ls == 0 {
				continue
			}
			vs := m.v[s*n : (s+1)*n]
			for _, u := range runs {
				a, b := max(u.r, lo), min(u.r+u.n, hi)
				if a < b {
					floats.AddScaled(dst[a:b], -ls, vs[u.at+a-u.r:u.at+b-u.r])
				}
			}
		}
		return
	}
	for s, ls := range l {
		if ls == 0 {
			continue
		}
		vs := m.v[s*n : (s+1)*n]
		for k, j := range rs {
			d[k] -= ls * vs[j]
		}
	}
}
