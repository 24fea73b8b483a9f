package bandit

import (
	"math"
	"slices"

	"github.com/safegp/safegp/gp"
	"github.com/safegp/safegp/internal/argmax"
	"github.com/safegp/safegp/internal/vec"
)

type variant int

const (
	variantSafeOpt variant = iota // Sui et al. 2015
	variantMC                     // Berkenkamp et al. 2016, with the paper's switch at t*
	variantStage                  // Sui et al. 2018
)

// safeOpt is the SafeOpt family of SPEC §5: SafeOpt, SafeOpt-MC and
// StageOpt share the confidence intervals, the safe set S_t, the
// maximizers M_t and the expanders G_t, and differ in how they choose.
type safeOpt struct {
	*models
	variant variant
	lip     bool      // safe_set: lipschitz (else gp)
	l       []float64 // L_i per safety condition (models.safety), lipschitz mode
	lipIdx  *lipIndex // lipschitz mode's neighbour search (lipsets.go); nil: scan all pairs
	phase   phase     // t* (SafeOpt-MC) or stage 1 (StageOpt)
	eps     float64
	// losbo, when set, makes this LoSBO (losbo.go): S_t from the
	// measurements, a Lipschitz and a noise bound; the GP's bounds, not
	// intersected over time, only choose among safe actions.
	losbo *losboState

	gps    []gpView    // f, g_1 … g_m
	lo, hi [][]float64 // bounds per GP, same order
	safe   []bool      // S_t
	prev   []int       // members of S_{t−1}
	out    []int       // actions outside S_t
	size   int
	isSeed []bool
	inM    []bool
	inG    []bool
	// updated is the round update last prepared: S_t grows from S_{t−1},
	// so it must be computed exactly once per round.
	updated int
	// mRound and gRound are the rounds M_t and G_t were last computed
	// for: the asks of a batch share them (batch.go).
	mRound, gRound int
	gpScratch
}

// gpView names a model's parts the set computations read.
type gpView struct {
	prior []float64 // k(x,x)
	// scale is scale(k(x,x)) per action, the widths' divisor: the prior
	// does not change, so its square roots are taken once, not per
	// width (two a safe action a round).
	scale []float64
	model gpModel
}

// gpModel is what the set computations read of a GP.
type gpModel interface {
	Mean() []float64
	Var() []float64
	Std(i int) float64
	Stds() []float64
	CovarianceRow(i int) []float64
	NoiseVar() float64
}

// newSafeOpt builds variant v with the exploration rule of t* or stage 1,
// in lipschitz mode with the constants l (L_i, one per safety condition)
// when lip, else in gp mode; LoSBO with lb (lip set, variant SafeOpt).
func newSafeOpt(m *models, v variant, rule Exploration, lip bool, l []float64, lb *losboState) *safeOpt {
	n := len(m.set.X)
	o := &safeOpt{
		models:  m,
		variant: v,
		lip:     lip,
		l:       l,
		phase:   newPhase(rule, m.opt.Horizon),
		eps:     m.opt.Epsilon,
		safe:    make([]bool, n),
		isSeed:  make([]bool, n),
		inM:     make([]bool, n),
		inG:     make([]bool, n),
		losbo:   lb,
	}
	if o.lip && lb == nil && !bruteLipschitz {
		o.lipIdx = newLipIndex(m.set.X, len(o.safety))
	}
	if !o.lip && gpModeOld {
		// The GP expander test reads a covariance row per candidate, of
		// f's GP too when f ≥ h_f is a safety condition: the old path
		// keeps it whole from the start (safeopt_gp.go keeps it only
		// where that is cheaper).
		for _, c := range o.safety {
			c.gp.KeepCovariance()
		}
		o.kept = true
	}
	if !o.lip && !gpModeOld {
		// The expander test gathers covariance entries at the actions it
		// cannot rule out: on Vᵀ each is one contiguous pass
		// (gp.Model.KeepTransposed), on V one cache line per observation.
		for _, c := range o.safety {
			if !c.gp.CovarianceKept() {
				c.gp.KeepTransposed()
			}
		}
	}
	o.gps = append(o.gps, newGPView(o.f.Prior(), o.f))
	for _, g := range o.g {
		o.gps = append(o.gps, newGPView(g.Prior(), g))
	}
	for range o.gps {
		lo, hi := make([]float64, n), make([]float64, n)
		for i := range lo {
			lo[i], hi[i] = math.Inf(-1), math.Inf(1)
		}
		o.lo, o.hi = append(o.lo, lo), append(o.hi, hi)
	}
	for _, i := range m.set.Seed {
		o.isSeed[i] = true
		o.safe[i] = true
	}
	o.update()
	return o
}

func (o *safeOpt) base() *models { return o.models }

// choose implements rule.
func (o *safeOpt) choose() (int, error) {
	t := o.update()
	if !o.lip && !gpModeOld {
		return o.chooseGP(t), nil
	}
	var a int
	switch {
	case o.variant == variantSafeOpt || (o.variant == variantMC && o.phase.in(t)):
		o.maximizers()
		o.expanders()
		o.mRound, o.gRound = t, t
		a = o.argmax(o.width, o.inGM)
	case o.variant == variantMC:
		a = o.argmax(o.loF, o.inSafe)
	case o.phase.in(t):
		o.expanders()
		o.gRound = t
		a = o.argmax(o.constraintWidth, o.inExpanders)
		if a < 0 || o.constraintWidth(a) <= o.eps {
			o.phase.stop(t)
			a = o.argmax(o.hiF, o.inSafe)
		}
	default:
		a = o.argmax(o.hiF, o.inSafe)
	}
	return a, nil
}

func (o *safeOpt) inSafe(i int) bool      { return o.safe[i] }
func (o *safeOpt) inGM(i int) bool        { return o.inG[i] || o.inM[i] }
func (o *safeOpt) inExpanders(i int) bool { return o.inG[i] }

// loF and hiF are ℓ_{f,t} and u_{f,t} as bounds keeps them (intersected
// over time in lipschitz mode).
func (o *safeOpt) loF(i int) float64 { return o.lo[0][i] }
func (o *safeOpt) hiF(i int) float64 { return o.hi[0][i] }

// update prepares round t = observations + 1 — β_t, the bounds, S_t and the
// phase rule — once per round, and returns t.
func (o *safeOpt) update() int {
	t := o.t + 1
	if o.updated == t {
		return t
	}
	o.updated = t
	if !o.lip {
		o.keepIfCheaper() // the rows of round t − 1 (safeopt_gp.go)
	}
	o.beta()
	o.bounds()
	o.safeSet()
	o.phase.start(t, o.size)
	return t
}

// inspect implements rule: S_t, and t* for SafeOpt-MC, the stage-1
// length for StageOpt, 0 for SafeOpt.
func (o *safeOpt) inspect(dst *Snapshot, d Detail) {
	explored := 0
	if o.variant != variantSafeOpt {
		explored = o.phase.rounds(o.t)
	}
	o.snapshot(dst, d, o.update(), o.safe, o.size, explored)
	if d == Full {
		// ℓ_f as bounds keeps it, intersected over time in lipschitz mode.
		copy(dst.LowerF, o.lo[0])
	}
}

// bounds sets [ℓ_t, u_t] = μ ∓ β_t^{1/2}σ for every GP: intersected with
// the previous interval in lipschitz mode (Sui et al. 2015), recomputed in gp
// mode. When the intersection is empty — the data contradict the earlier
// bounds, which the analysis rules out with high probability but a
// mis-specified model produces — the current interval replaces it, so that
// ℓ ≤ u always holds and M_t is never empty.
func (o *safeOpt) bounds() {
	intersect := o.lip && o.losbo == nil // LoSBO recomputes them, as its authors do
	for j, g := range o.gps {
		mean, sd, lo, hi := g.model.Mean(), g.model.Stds(), o.lo[j], o.hi[j]
		for i := range lo {
			w := o.sqb * sd[i]
			l, u := mean[i]-w, mean[i]+w
			if intersect {
				// The builtin max and min, inlined, where math.Max and
				// math.Min are calls: they differ only for NaN against
				// an infinity, and no bound is NaN (μ and σ of finite
				// observations; lo starts at −∞, hi at +∞).
				if nl, nu := max(lo[i], l), min(hi[i], u); nl <= nu {
					l, u = nl, nu
				}
			}
			lo[i], hi[i] = l, u
		}
	}
}

// safeSet updates S_t (SPEC §5) and the list of actions outside it. The
// g_i range over the safety conditions, f ≥ h_f included.
func (o *safeOpt) safeSet() {
	x := o.set.X
	if o.losbo != nil {
		o.losboSafeSet()
	} else if o.lipIdx != nil {
		o.lipSafeSet()
	} else if o.lip {
		// S_t = S_{t−1} ∪ ⋂_i ⋃_{x'∈S_{t−1}} {x : ℓ_{g_i,t}(x') − L_i‖x − x'‖ ≥ h_i}
		o.prev = o.prev[:0]
		for i, in := range o.safe {
			if in {
				o.prev = append(o.prev, i)
			}
		}
		for i := range x {
			if o.safe[i] {
				continue
			}
			all := true
			for c, sc := range o.safety {
				lo, hc, l := o.lo[sc.j], sc.h, o.l[c]
				any := false
				for _, p := range o.prev {
					if certifies(lo[p], l, vec.Dist(x[i], x[p]), hc) { // false for NaN
						any = true
						break
					}
				}
				if !any {
					all = false
					break
				}
			}
			o.safe[i] = all
		}
	} else {
		// S_t = D^w ∪ {x : ℓ_{g_i,t}(x) ≥ h_i ∀i}, a condition at a
		// time. Safe and unsafe actions alternate in no order along x,
		// so the pass stores each comparison rather than branching on
		// it (a mispredicted branch an action cost a gp-mode run at
		// N = 10⁴ more than the comparisons).
		safe := o.safe[:len(x)]
		for i := range safe {
			safe[i] = true // each condition then removes what it fails
		}
		for _, sc := range o.safety {
			lo, h := o.lo[sc.j][:len(x)], sc.h
			for i, l := range lo {
				safe[i] = b2i(safe[i])&b2i(l >= h) != 0 // NaN is not safe
			}
		}
		for i, seed := range o.isSeed {
			safe[i] = b2i(safe[i])|b2i(seed) != 0
		}
	}
	if o.banned != nil {
		// Excluded points (failed.go) leave S_t, which otherwise only
		// grows: a failed or unsafe seed is never chosen again.
		for i, b := range o.banned {
			o.safe[i] = o.safe[i] && !b
		}
	}
	// The actions outside S_t, written without a branch on membership
	// (see above): every index is stored at the list's end, which grows
	// by one only for an action outside.
	n := len(o.safe)
	o.out = slices.Grow(o.out[:0], n)[:n]
	k := 0
	for i, in := range o.safe {
		o.out[k] = i
		k += 1 - b2i(in)
	}
	o.out = o.out[:k]
	o.size = n - k
	if o.losbo != nil && o.lipIdx == nil {
		o.losbo.syncLive(o)
	}
}

// maximizers sets M_t = {x ∈ S_t : u_f(x) ≥ max_{S_t} ℓ_f}.
func (o *safeOpt) maximizers() {
	// max of ℓ_f over S_t: an action outside counts as −∞, which
	// changes no maximum (math.Max(b, −∞) = b, NaN included), so that
	// nothing branches on membership (see safeSet).
	best, lo := math.Inf(-1), o.lo[0][:len(o.safe)]
	for i, in := range o.safe {
		best = math.Max(best, pick(in, lo[i], math.Inf(-1))) // its branches, on NaN and infinities, are predictable
	}
	hi := o.hi[0][:len(o.safe)]
	for i, in := range o.safe {
		o.inM[i] = b2i(in)&b2i(hi[i] >= best) != 0 // no branch: see safeSet
	}
	// With ℓ ≤ u (see bounds) the argmax of ℓ_f is in M_t; should NaNs
	// have emptied it, fall back to the whole safe set.
	for _, in := range o.inM {
		if in {
			return
		}
	}
	copy(o.inM, o.safe)
}

// expanders sets G_t ⊆ S_t: the safe actions whose optimistic constraint
// values (f's with an objective threshold) could certify some action
// outside S_t. Every candidate is tested (in lipschitz mode, every one
// within reach: lipExpander).
func (o *safeOpt) expanders() {
	x := o.set.X
	for i, in := range o.safe {
		o.inG[i] = false
		if !in || len(o.out) == 0 {
			continue
		}
		if o.lipIdx != nil {
			o.inG[i] = o.lipExpander(i)
			continue
		}
		if o.lip {
			// ∃x' ∉ S_t ∀i: u_{g_i,t}(x) − L_i‖x − x'‖ ≥ h_i
			if o.losbo != nil {
				o.inG[i] = o.losbo.expander(o, i)
				continue
			}
			for _, p := range o.out {
				d := vec.Dist(x[i], x[p])
				ok := true
				for c, sc := range o.safety {
					if !certifies(o.hi[sc.j][i], o.l[c], d, sc.h) {
						ok = false
						break
					}
				}
				if ok {
					o.inG[i] = true
					break
				}
			}
			continue
		}
		o.inG[i] = o.expanderTest(i)
	}
}

// gpExpander reports whether hypothetical observations z_i = u_{g_i,t}(x)
// at action x (model noise, same β_t) would give some x' ∉ S_t
// ℓ_{g_i}(x') ≥ h_i for every safety condition i (f's GP for f ≥ h_f).
// The rank-one update of each posterior (gp.Model.Hypothetical, innovation
// z_i − μ_{g_i}(x) = β_t^{1/2}σ_{g_i}(x)) is applied only where it is read.
func (o *safeOpt) gpExpander(x int) bool {
	var buf [4]hypothetical
	us := buf[:0]
	for _, c := range o.safety {
		us = append(us, hypothetical{c.gp.Hypothetical(x, o.sqb*c.gp.Std(x)), c.h})
	}
	for _, p := range o.out {
		ok := true
		for k := range us {
			u := &us[k]
			if !(u.Mean(p)-o.sqb*math.Sqrt(max(u.Var(p), 0)) >= u.h) {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// hypothetical is one safety condition's posterior after a hypothetical
// observation, with its threshold beside it: the expander test's inner
// loop reads both (cachegrind: reading the threshold from models.safety
// there cost 1.7 % more instructions in a gp-mode run).
type hypothetical struct {
	gp.Update
	h float64
}

// width is w_t(x) = max_j (u_j − ℓ_j)/√k_j(x,x) over f and every g_i.
//
// max over one GP is its width (math.Max(−∞, w) = w for every float, NaN
// and −0 included), so the first is taken as it is.
func (o *safeOpt) width(i int) float64 {
	w := (o.hi[0][i] - o.lo[0][i]) / o.gps[0].scale[i]
	for j := 1; j < len(o.gps); j++ {
		w = math.Max(w, (o.hi[j][i]-o.lo[j][i])/o.gps[j].scale[i])
	}
	return w
}

// pick is a if in, else b, selected by a mask of the bits rather than a
// branch (see safeSet).
func pick(in bool, a, b float64) float64 {
	m := -uint64(b2i(in)) // all ones for true, zero for false
	return math.Float64frombits(math.Float64bits(a)&m | math.Float64bits(b)&^m)
}

// b2i is 1 for true, 0 for false, computed without a branch.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// constraintWidth is StageOpt's stage-1 score, max_i (u_{g_i} − ℓ_{g_i})/√k_{g_i}(x,x)
// over the safety conditions (f's width for f ≥ h_f).
func (o *safeOpt) constraintWidth(i int) float64 {
	w := math.Inf(-1)
	for _, c := range o.safety {
		j := c.j
		w = math.Max(w, (o.hi[j][i]-o.lo[j][i])/o.gps[j].scale[i])
	}
	return w
}

// newGPView is the view of model, with prior k(x,x) and its scales.
func newGPView(prior []float64, model gpModel) gpView {
	sc := make([]float64, len(prior))
	for i, p := range prior {
		sc[i] = scale(p)
	}
	return gpView{prior: prior, scale: sc, model: model}
}

func scale(prior float64) float64 {
	if prior <= 0 {
		return 1
	}
	return math.Sqrt(prior)
}

// argmax returns the action of largest score among those in the set, the
// lowest index on ties, or −1 for an empty set.
func (o *safeOpt) argmax(score func(i int) float64, in func(i int) bool) int {
	return argmax.Func(len(o.set.X), in, score)
}

// prepare implements rule. S_t grows from S_{t−1} exactly once per round:
// preparing it as soon as an observation is told leaves choose and
// inspect only reading the state.
func (o *safeOpt) prepare() { o.update() }
