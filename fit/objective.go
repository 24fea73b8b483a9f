package fit

import (
	"github.com/safegp/safegp/internal/chol"
	"math"
	"slices"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
)

// family is a stationary kernel's radial profile. With r² the squared
// scaled distance (Σ_j Δ_j²/ℓ_j², or ‖Δ‖²/ℓ² isotropic) and s_j = Δ_j²/ℓ_j²,
// each has k = v·φ(r²) and ∂k/∂log ℓ_j = v·ψ(r²)·s_j:
//
//	se        φ = e^{−r²/2}                ψ = e^{−r²/2}
//	matern32  φ = (1+√3r)e^{−√3r}          ψ = 3e^{−√3r}
//	matern52  φ = (1+√5r+5r²/3)e^{−√5r}    ψ = (5/3)(1+√5r)e^{−√5r}
//
// (differentiate φ in r, and ∂r/∂log ℓ_j = −s_j/r; the 1/r cancels, so ψ is
// finite at r = 0). R&W 2006 eq. 4.9, 4.17.
type family int

const (
	famSE family = iota
	famMatern32
	famMatern52
)

// families maps the kernel names Fit accepts to their profiles.
var families = map[string]family{"se": famSE, "matern32": famMatern32, "matern52": famMatern52}

// names lists the kernel names Fit accepts, in the order errors show them.
var names = []string{"se", "matern32", "matern52"}

// data is what a fit evaluates against, fixed for the whole fit: the
// observations, and the squared differences of every pair of inputs, which
// do not depend on the parameters. They are computed once, so that building
// K reads one packed array in order instead of subtracting rows of x
// scattered in memory at every evaluation.
type data struct {
	t, d   int
	fam    family
	ard    bool      // more than one lengthscale's sums per pair (groups)
	groups []int     // coordinate j's lengthscale, nil isotropic
	p      int       // lengthscales: d (ARD), the groups', or 1
	y      []float64 // observations
	known  []float64 // known noise variances, raised to the floor; nil when the noise is fitted
	// d2 holds, for each pair i < k in row order (pair index
	// p = i·t − i(i+1)/2 + k − i − 1), Σ_{j in group g} (x_ij − x_kj)² for
	// g = 0 … p−1 (ARD: one coordinate per group; p values per pair,
	// pair-major) or ‖x_i − x_k‖² (isotropic: one).
	d2 []float64
}

// pairs is the number of pairs i < k among t points.
func pairs(t int) int { return t * (t - 1) / 2 }

// newData precomputes the pairwise squared differences. x must be t×d;
// groups, if not nil, ties coordinate j to lengthscale groups[j] (0 … p−1,
// ARD the identity), and each pair then holds p sums of squared
// differences, one per lengthscale; nil is isotropic, one sum.
func newDataGroups(x [][]float64, y, known []float64, fam family, groups []int) *data {
	t, d := len(x), len(x[0])
	if groups != nil && slices.Max(groups) == 0 {
		groups = nil // one group: isotropic, summed as such
	}
	dt := &data{t: t, d: d, fam: fam, ard: groups != nil, groups: groups, p: 1, y: y, known: known}
	if groups != nil {
		dt.p = slices.Max(groups) + 1
	}
	dt.d2 = make([]float64, pairs(t)*dt.p)
	p := 0
	for i := 0; i < t; i++ {
		xi := x[i]
		for k := i + 1; k < t; k++ {
			xk := x[k]
			if groups != nil {
				row := dt.d2[p*dt.p : p*dt.p+dt.p]
				for j, g := range groups {
					e := xi[j] - xk[j]
					row[g] += e * e
				}
			} else {
				var s float64
				for j, v := range xi {
					e := v - xk[j]
					s += e * e
				}
				dt.d2[p] = s
			}
			p++
		}
	}
	return dt
}

// newData is newDataGroups with one lengthscale per coordinate (ard) or
// one for all.
func newData(x [][]float64, y, known []float64, fam family, ard bool) *data {
	return newDataGroups(x, y, known, fam, ardGroups(ard, len(x[0])))
}

// ardGroups is ARD's groups, one per coordinate, or nil (isotropic).
func ardGroups(ard bool, d int) []int {
	if !ard {
		return nil
	}
	g := make([]int, d)
	for j := range g {
		g[j] = j
	}
	return g
}

// work is one evaluator's scratch space, reused by every evaluation of the
// restarts one worker runs: a fit allocates it once per worker, and an
// evaluation allocates nothing.
type work struct {
	dt *data
	a  []float64 // t×t: K (upper triangle), then its Cholesky factor, then K⁻¹
	kv []float64 // per pair: v·φ(r²)
	gv []float64 // per pair: v·ψ(r²); aliases kv for se, where ψ = φ
	al []float64 // α = K⁻¹y
	il []float64 // 1/ℓ_j²
	gl []float64 // per lengthscale: Σ_pairs W·gv·Δ² (gradient accumulators)

	// par is the goroutines the factorization and the inverse of a
	// Gram matrix of at least tiledFrom points run on (chol), scratch the
	// inverse's; below that, gonum's serial Potrf and Potri.
	par     int
	scratch []float64

	// The state of a: the log-parameters it was built for, and whether it
	// holds the Cholesky factor (ok) or has been inverted in place.
	at       []float64
	factored bool // a holds the Cholesky factor of K(at), al and lml are valid
	inverted bool // a holds K(at)⁻¹
	lml      float64
}

// tiledFrom is the size of a Gram matrix from which chol factors and
// inverts it, in tiles spread over the workers: below it gonum's
// Potrf and Potri, as fast there (chol's BenchmarkFactorInverse: 7.8
// against 7.7 GFLOP/s at 256 on 2 workers, 7.9 against 9.9 at 384), and
// whose bits the golden fits of up to 300 points were taken with. Chosen
// by t alone, so that the result does not depend on the workers.
const tiledFrom = 384

// newWork returns the scratch space of one evaluator on dt, whose
// factorizations use par goroutines: a fit gives every restart all its
// workers, so that one running alone (the last climb, a single finish)
// has every core, while restarts side by side share them through the
// scheduler. The result does not depend on par (chol).
func newWork(dt *data, par int) *work {
	t := dt.t
	w := &work{
		dt:  dt,
		par: max(par, 1),
		a:   make([]float64, t*t),
		kv:  make([]float64, pairs(t)),
		al:  make([]float64, t),
		il:  make([]float64, dt.p),
		gl:  make([]float64, dt.p),
		at:  make([]float64, 2+dt.p),
	}
	if dt.fam == famSE {
		w.gv = w.kv
	} else {
		w.gv = make([]float64, pairs(t))
	}
	return w
}

// nparams is the number of log-parameters: log v, log ℓ_j, and log σ² when
// the noise is fitted.
func (dt *data) nparams() int {
	if dt.known != nil {
		return 1 + dt.p
	}
	return 2 + dt.p
}

// sameParams reports whether the state in w was computed for theta.
func (w *work) sameParams(theta []float64) bool {
	if !w.factored && !w.inverted {
		return false
	}
	for i, v := range theta {
		if w.at[i] != v {
			return false
		}
	}
	return true
}

// logML sets w to the Cholesky factor of K(θ) and returns the log marginal
// likelihood (R&W 2006 eq. 2.30)
//
//	log p(y | θ) = −½ yᵀK⁻¹y − Σ_i log L_ii − (t/2) log 2π,
//
// K = v·Φ + diag(σ²), at log-parameters θ = (log v, log ℓ_1…p[, log σ²]).
// ok is false when K is not numerically positive definite. It allocates
// nothing: O(t²·p) to build K, t³/3 flops to factor it.
func (w *work) logML(theta []float64) (lml float64, ok bool) {
	if w.sameParams(theta) && w.factored {
		return w.lml, true
	}
	dt := w.dt
	t := dt.t
	copy(w.at, theta)
	w.factored, w.inverted = false, false
	v := math.Exp(theta[0])
	for j := range w.il {
		w.il[j] = math.Exp(-2 * theta[1+j])
	}
	var noise float64
	if dt.known == nil {
		noise = math.Exp(theta[1+dt.p])
	}
	if math.IsInf(v, 0) || math.IsInf(noise, 0) {
		return 0, false
	}
	w.buildPairs(v)
	p := 0
	for i := 0; i < t; i++ {
		row := w.a[i*t : (i+1)*t]
		if dt.known != nil {
			row[i] = v + dt.known[i]
		} else {
			row[i] = v + noise
		}
		n := t - i - 1
		copy(row[i+1:], w.kv[p:p+n])
		p += n
	}
	if !w.factor() {
		return 0, false
	}
	copy(w.al, dt.y)
	lapack64.Potrs(blas64.Triangular{N: t, Stride: t, Data: w.a, Uplo: blas.Upper, Diag: blas.NonUnit}, blas64.General{Rows: t, Cols: 1, Stride: 1, Data: w.al})
	var q, logDet float64
	for i, yi := range dt.y {
		q += yi * w.al[i]
		logDet += math.Log(w.a[i*t+i])
	}
	lml = -0.5*q - logDet - 0.5*float64(t)*math.Log(2*math.Pi)
	if math.IsNaN(lml) || math.IsInf(lml, 0) {
		return 0, false
	}
	w.lml, w.factored = lml, true
	return lml, true
}

// factor overwrites a's upper triangle, K, with its Cholesky factor U
// (K = UᵀU): 1/3 t³ flops.
func (w *work) factor() bool {
	t := w.dt.t
	if t < tiledFrom {
		_, ok := lapack64.Potrf(blas64.Symmetric{N: t, Stride: t, Data: w.a, Uplo: blas.Upper})
		return ok
	}
	return chol.Factor(w.a, t, w.par)
}

// invert overwrites a's upper triangle, U, with K⁻¹ = U⁻¹U⁻ᵀ: 2/3 t³
// flops.
func (w *work) invert() bool {
	t := w.dt.t
	if t < tiledFrom {
		_, ok := lapack64.Potri(blas64.Triangular{N: t, Stride: t, Data: w.a, Uplo: blas.Upper, Diag: blas.NonUnit})
		return ok
	}
	if w.scratch == nil {
		w.scratch = make([]float64, t*chol.Tile)
	}
	return chol.Inverse(w.a, t, w.par, w.scratch)
}

// buildPairs fills kv (and gv) for variance v and the inverse squared
// lengthscales in il: on par goroutines from tiledFrom points on, each
// pair on its own (the same bits on any number).
func (w *work) buildPairs(v float64) {
	np := len(w.kv)
	if w.dt.t < tiledFrom || w.par == 1 {
		w.pairRange(v, 0, np)
		return
	}
	const chunk = 1 << 14
	chol.Parallel((np+chunk-1)/chunk, w.par, func(c int) {
		w.pairRange(v, c*chunk, min(np, (c+1)*chunk))
	})
}

// pairRange is buildPairs for the pairs p0 … p1−1.
func (w *work) pairRange(v float64, p0, p1 int) {
	dt := w.dt
	for p := p0; p < p1; p++ {
		var r2 float64
		if dt.ard {
			row := dt.d2[p*dt.p : p*dt.p+dt.p]
			for j, il := range w.il {
				r2 += row[j] * il
			}
		} else {
			r2 = dt.d2[p] * w.il[0]
		}
		switch dt.fam {
		case famSE:
			w.kv[p] = v * math.Exp(-0.5*r2)
		case famMatern32:
			s := math.Sqrt(3 * r2)
			e := v * math.Exp(-s)
			w.kv[p] = (1 + s) * e
			w.gv[p] = 3 * e
		case famMatern52:
			s := math.Sqrt(5 * r2)
			e := v * math.Exp(-s)
			w.kv[p] = (1 + s + 5*r2/3) * e
			w.gv[p] = (5.0 / 3) * (1 + s) * e
		}
	}
}

// grad stores in g the gradient of the log marginal likelihood with respect
// to θ (R&W 2006 eq. 5.9),
//
//	∂/∂θ_j log p(y | θ) = ½ tr((ααᵀ − K⁻¹) ∂K/∂θ_j),   α = K⁻¹y,
//
// with ∂K/∂log v = v·Φ, ∂K/∂log ℓ_j = v·Ψ∘S_j (S_j the matrix of
// Δ_j²/ℓ_j²), ∂K/∂log σ² = σ²I. Each trace is a sum over the pairs of the
// elementwise product, so the work beyond the inverse (2t³/3 flops from the
// factor) is O(t²·p). It reuses the factor of a preceding logML at the same
// θ, and returns false where logML would.
func (w *work) grad(g, theta []float64) (lml float64, ok bool) {
	if lml, ok = w.logML(theta); !ok {
		return 0, false
	}
	dt := w.dt
	t := dt.t
	if !w.inverted {
		if !w.invert() {
			w.factored = false
			return 0, false
		}
		w.factored, w.inverted = false, true
	}
	v := math.Exp(theta[0])
	// Diagonal: W_ii = α_i² − (K⁻¹)_ii; ∂K_ii/∂log v = v, ∂K_ii/∂log σ² = σ²,
	// ∂K_ii/∂log ℓ_j = 0.
	var diag float64
	for i := 0; i < t; i++ {
		diag += w.al[i]*w.al[i] - w.a[i*t+i]
	}
	// Off the diagonal each pair appears twice in the trace, which cancels
	// the ½.
	var gvar float64
	clear(w.gl)
	p := 0
	for i := 0; i < t; i++ {
		ai := w.al[i]
		inv := w.a[i*t+i+1 : (i+1)*t]
		kv := w.kv[p : p+len(inv)]
		gv := w.gv[p : p+len(inv)]
		switch {
		case dt.ard:
			d := dt.p
			d2 := dt.d2[p*d : (p+len(inv))*d]
			for k, ik := range inv {
				wk := ai*w.al[i+1+k] - ik
				gvar += wk * kv[k]
				c := wk * gv[k]
				row := d2[k*d : k*d+d]
				for j := range row {
					w.gl[j] += c * row[j]
				}
			}
		default:
			d2 := dt.d2[p : p+len(inv)]
			var acc float64
			for k, ik := range inv {
				wk := ai*w.al[i+1+k] - ik
				gvar += wk * kv[k]
				acc += wk * gv[k] * d2[k]
			}
			w.gl[0] += acc
		}
		p += len(inv)
	}
	g[0] = 0.5*v*diag + gvar
	for j, il := range w.il {
		g[1+j] = w.gl[j] * il
	}
	if dt.known == nil {
		g[1+dt.p] = 0.5 * math.Exp(theta[1+dt.p]) * diag
	}
	return lml, true
}
