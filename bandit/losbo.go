package bandit

import (
	"fmt"
	"math"
	"slices"

	"github.com/safegp/safegp/internal/fielderr"
	"github.com/safegp/safegp/internal/memlimit"
	"github.com/safegp/safegp/internal/spatial"
	"github.com/safegp/safegp/internal/vec"
)

// LoSBO — Lipschitz-only safe Bayesian optimization (C. Fiedler, J. Menn,
// L. Kreisköther, S. Trimpe, "On Safety in Safe Bayesian Optimization",
// TMLR 2024, Algorithm 1): SafeOpt whose safe set rests on a known
// Lipschitz bound L_i of each safety condition and a known bound E on the
// measurement noise instead of on the GP,
//
//	S_t = D^w ∪ ⋂_i ⋃_{x' measured} {x : y_i(x') − E − L_i‖x − x'‖ ≥ h_i},
//
// y_i(x') every measurement of condition i at x' (so S_t only grows). If
// |y_i(x') − g_i(x')| ≤ E and g_i is L_i-Lipschitz, then g_i(x) ≥ y_i(x') −
// E − L_i‖x − x'‖ ≥ h_i: the safe set holds with certainty, whatever the
// kernel, β or noise model of the GP, which only chooses among safe
// actions through SafeOpt's maximizers M_t and Lipschitz expanders G_t
// (x ∈ S_t with u_{g_i,t}(x) − L_i‖x − x'‖ ≥ h_i ∀i for some x' ∉ S_t,
// the bounds of round t not intersected over time), the most uncertain
// of M_t ∪ G_t played.
//
// The authors' code (osisbo/on-safety-in-safe-bayesian-optimization,
// losbo/gp_opt.py, safety "pure-lipschitz") handles one safety condition;
// with several, a measurement certifies each condition on its own (the
// per-condition union above, the same as SafeOpt's lipschitz mode), which
// is sound by the argument above applied to each g_i and holds every
// x certified by a single x' for all conditions at once. Two differences
// from that code, both documented in docs/algorithms.md: the seeds D^w are
// in S_t (safegp's seeds are known safe; the code never re-plays its x0),
// and the code finds only the one expander it plays (the widest), which
// picks the same action except on exact ties of width.
type losboState struct {
	l []float64 // L_i per safety condition (models.safety)
	e []float64 // E per safety condition
	// emb, with LoSBOBounds, holds each action embedded for each
	// condition (emb[c][i]), its bound the ℓ1 distance there; nil for
	// L_i‖x − x'‖.
	emb    [][][]float64
	bounds *LoSBOBounds
	buf    []float64
	// cert[c][x] records that a measurement certified x for condition c;
	// seen is the number of measurements folded into it.
	cert [][]bool
	seen int
	// With emb: a k-d tree over the actions embedded for the first
	// condition and live, the actions still outside S_t (syncLive). An ℓ1
	// ball lies inside the Euclidean ball of the same radius, so the
	// expander test looks only at the actions outside S_t in that ball.
	tree *spatial.Tree
	live *spatial.Live
}

// LoSBOBounds are LoSBO's Lipschitz and noise bounds in a caller's terms:
// for safety condition c (models' order: the constraints, then f ≥ h_f),
// |g_c(x) − g_c(x')| ≤ ‖Embed(c, x) − Embed(c, x')‖₁ and every measurement
// of g_c is within NoiseBounds[c] of its value, both in the policy's
// units. A study stated in parameters embeds a point as L_{c,j}·x_j, x_j
// its parameter j in raw units, over the outcome's scale: the bound
// Σ_j L_j|x_j − x'_j| its user gives (docs/algorithms.md, LoSBO).
type LoSBOBounds struct {
	Embed       func(c int, x, dst []float64) []float64
	NoiseBounds []float64
}

// expander is SafeOpt's Lipschitz expander test of safe action i: some
// x' ∉ S_t with u_{g_c,t}(x_i) − L_c‖x_i − x'‖ ≥ h_c for every condition c
// (with LoSBOBounds, ‖e_c(x_i) − e_c(x')‖₁ in place of L_c‖x_i − x'‖),
// searched in a k-d tree of the actions outside S_t.
func (lb *losboState) expander(o *safeOpt, i int) bool {
	c0 := o.safety[0]
	if lb.emb == nil {
		// Every x' that passes the first condition's test lies within
		// (u − h)/L_0 of x_i (Radius2: the roundings' margin): the
		// candidates are the live actions in that ball, tested exactly
		// as the scan of every x' ∉ S_t did.
		x := o.set.X
		return lb.live.Any(x[i], spatial.Radius2(o.hi[c0.j][i], c0.h, o.l[0]), func(p int) bool {
			d := vec.Dist(x[i], x[p])
			for c, sc := range o.safety {
				if !certifies(o.hi[sc.j][i], o.l[c], d, sc.h) {
					return false
				}
			}
			return true
		})
	}
	// With LoSBOBounds: every x' that passes the first condition's test,
	// ‖e_0(x_i) − e_0(x')‖₁ ≤ u − h, is within that Euclidean distance,
	// ‖·‖₂ ≤ ‖·‖₁.
	return lb.live.Any(lb.emb[0][i], spatial.Radius2(o.hi[c0.j][i], c0.h, 1), func(p int) bool {
		for c, sc := range o.safety {
			if !certifies(o.hi[sc.j][i], 1, l1(lb.emb[c][i], lb.emb[c][p]), sc.h) {
				return false
			}
		}
		return true
	})
}

// l1 is ‖a − b‖₁.
func l1(a, b []float64) float64 {
	s := 0.0
	for j, v := range a {
		s += math.Abs(v - b[j])
	}
	return s
}

// measurements are the points and values a policy was told, in order.
type measurements struct {
	x [][]float64 // each measurement's point (a decision-set action's is shared)
	f []float64
	g [][]float64 // per measurement, one value per constraint
}

func (m *measurements) add(x []float64, o *Observation) {
	m.x = append(m.x, x)
	m.f = append(m.f, o.F)
	m.g = append(m.g, slices.Clone(o.G))
}

// of is measurement k's value of safety condition c: g_i's, or f's for
// f ≥ h_f.
func (m *measurements) of(k int, c safetyGP) float64 {
	if c.j > 0 {
		return m.g[k][c.j-1]
	}
	return m.f[k]
}

// checkLoSBO checks LoSBO's options: a Lipschitz bound (a number or one
// per safety condition; auto only in a simulation, where the problem
// knows them) and the noise bound E.
func checkLoSBO(s *Spec, _ int) error {
	if s.Lipschitz == nil {
		return fielderr.New(ErrConfig, "lipschitz", "missing: losbo needs a Lipschitz bound of each safety condition (a number, a list with one per condition, or auto in a simulation)")
	}
	if s.NoiseBound == nil {
		return fielderr.New(ErrConfig, "noise_bound", "missing: losbo needs a bound E on the measurement noise (every measurement within E of the true value)")
	}
	if e := *s.NoiseBound; !(e >= 0) || math.IsInf(e, 0) {
		return fielderr.New(ErrConfig, "noise_bound", "want a finite number ≥ 0, got %v", e)
	}
	return nil
}

// losboRule builds LoSBO on a finite set.
func losboRule(b *building) (rule, error) {
	s := b.spec
	if b.safety == 0 {
		return nil, fmt.Errorf("%w: losbo needs a safety condition (a constraint, or an objective threshold)", ErrConfig)
	}
	var l []float64
	if s.Lipschitz.Auto {
		if b.truth == nil || len(b.truth.Lipschitz) != b.safety {
			return nil, fmt.Errorf("%w: lipschitz: auto needs the true constraints, which this problem does not provide; give a number", ErrConfig)
		}
		l = slices.Clone(b.truth.Lipschitz)
	} else {
		var err error
		if l, err = s.Lipschitz.constants(b.safety); err != nil {
			return nil, err
		}
	}
	if b.pre != nil {
		// LoSBO reads every measurement, which prebuilt GPs do not carry
		// (historyFree is false for it, so this does not happen).
		return nil, fmt.Errorf("losbo: built on GPs that hold measurements it was not told")
	}
	m := newModelsFrom(b.model, b.set, b.opt, nil)
	m.log = &measurements{}
	n := len(b.set.X)
	lb := &losboState{l: l, e: make([]float64, b.safety), cert: make([][]bool, b.safety)}
	for c := range lb.e {
		lb.e[c] = *s.NoiseBound
	}
	if bd := b.opt.LoSBO; bd != nil {
		if len(bd.NoiseBounds) != b.safety {
			return nil, fmt.Errorf("%w: losbo: %d noise bounds for %d safety conditions", ErrConfig, len(bd.NoiseBounds), b.safety)
		}
		lb.bounds, lb.e = bd, slices.Clone(bd.NoiseBounds)
		for c := range l {
			l[c] = 1 // in the embedding
		}
		lb.emb = make([][][]float64, b.safety)
		for c := range lb.emb {
			lb.emb[c] = make([][]float64, n)
			for i, x := range b.set.X {
				lb.emb[c][i] = bd.Embed(c, x, nil)
			}
		}
	}
	for c := range lb.cert {
		lb.cert[c] = make([]bool, n)
	}
	return newSafeOpt(m, variantSafeOpt, Exploration{}, true, l, lb), nil
}

// losboBytes is what LoSBO holds beside SafeOpt's lipschitz-mode state:
// one certificate flag per action and safety condition. (The measurements
// it logs grow with the rounds, not with n: a few words each.)
func losboBytes(s *Spec, n, m int, hf bool, rows int) int64 {
	safety := m
	if hf {
		safety++
	}
	b := memlimit.Add(safeSetBytes(&Spec{Name: SafeOpt, SafeSet: "lipschitz"}, n, m, hf, rows), memlimit.Mul(int64(n), int64(safety)))
	// With LoSBOBounds, the expander test's k-d tree and live set over
	// the actions (estimated at 8 embedded coordinates).
	return memlimit.Add(b, memlimit.Add(spatial.Bytes(n, 8), spatial.LiveBytes(n)))
}

// losboSafeSet folds the measurements told since the last round into the
// certificates and sets S_t (losboState).
func (o *safeOpt) losboSafeSet() {
	lb, log, x := o.losbo, o.log, o.set.X
	for ; lb.seen < len(log.x); lb.seen++ {
		k := lb.seen
		p := log.x[k]
		for c, sc := range o.safety {
			b, l, cert := log.of(k, sc)-lb.e[c], lb.l[c], lb.cert[c]
			if fails(b, sc.h, l) { // certifies nothing, not even p
				continue
			}
			if lb.emb != nil {
				lb.buf = lb.bounds.Embed(c, p, lb.buf[:0])
				for i := range x {
					if !cert[i] && certifies(b, 1, l1(lb.emb[c][i], lb.buf), sc.h) {
						cert[i] = true
					}
				}
				continue
			}
			for i := range x {
				if !cert[i] && certifies(b, l, vec.Dist(x[i], p), sc.h) {
					cert[i] = true
				}
			}
		}
	}
	for i := range x {
		in := true
		for c := range o.safety {
			if !lb.cert[c][i] {
				in = false
				break
			}
		}
		o.safe[i] = in || o.isSeed[i]
	}
}

// syncLive makes the expander test's live set the actions outside S_t
// (o.out), once S_t is final for the round. S_t only grows but for an
// exclusion (failed.go), which puts a safe action out again: then the
// set is built anew.
func (lb *losboState) syncLive(o *safeOpt) {
	if lb.tree == nil {
		pts := o.set.X
		if lb.emb != nil {
			pts = lb.emb[0]
		}
		lb.tree = spatial.New(pts)
		lb.live = lb.tree.NewLive()
	}
	for _, p := range o.out {
		if !lb.live.Has(p) {
			lb.live = lb.tree.NewLive()
			break
		}
	}
	for i, in := range o.safe {
		if in {
			lb.live.Remove(i)
		}
	}
}
