package bandit

import (
	"cmp"
	"math"
	"slices"
)

// gpModeOld makes the SafeOpt family in gp mode take the path it took
// before issue 13: every safe action tested as an expander each round,
// against the N×N posterior covariance kept by every safety GP. Only the
// test comparing the two paths sets it.
var gpModeOld = false

// keepCovarianceMax is the largest N·(safety GPs) for which gp mode keeps
// the N×N covariance (gp.Model.KeepCovariance): below it the O(N²)
// rank-one update per observation is cheaper than the rows the batch path
// (batch.go, which needs every expander) computes on demand, and it costs at
// most 8·N² bytes per GP, 8 MB at the limit. Above it the rows are computed
// on demand, O(t) per entry read.
var keepCovarianceMax = 1000

// keepCovariance reports whether gp mode keeps the full covariance of its
// safety GPs over n actions: see keepCovarianceMax.
func keepCovariance(n, gps int) bool {
	return gpModeOld || n*gps <= keepCovarianceMax
}

// gpScratch is the expander test's state in gp mode, reused from round to
// round so that the choice allocates nothing once it has grown.
type gpScratch struct {
	// reach lists the actions outside S_t that a hypothetical observation
	// could make safe, for the round reachRound: those with
	// u_{g_i,t}(x') ≥ h_i for every safety condition (see reachable).
	reach      []int
	reachRound int
	surv, idx  []int     // the reach entries still possible; idx with the candidate appended
	cov        []float64 // a covariance row at idx
	cands      []scored  // safe actions in the order argmax meets its maximum
}

// scored is an action with its score, for sorting candidates.
type scored struct {
	v float64
	i int
}

// before is the order in which argmax.Func (internal/argmax) prefers
// actions: the larger score first, NaN after every number, and the lower
// index on ties. The argmax of a score over a set is the set's first
// member in this order.
func before(a, b scored) int {
	switch {
	case a.v > b.v || (b.v != b.v && a.v == a.v):
		return -1
	case b.v > a.v || (a.v != a.v && b.v == b.v):
		return 1
	}
	return cmp.Compare(a.i, b.i)
}

// reachable sets reach for the current round. A hypothetical observation
// z = u_g(x) at x moves the bounds at x' to μ' = μ + c·β^{1/2}σ_x/(σ_x²+σ²)
// and σ'² = σ_{x'}² − c²/(σ_x²+σ²), with |c| ≤ σ_x σ_{x'} (Cauchy–Schwarz):
// so μ' ≤ μ + β^{1/2}σ_{x'} and ℓ'(x') ≤ u(x'). An action with
// u_{g_i}(x') < h_i can never pass the expander test for g_i, whatever x
// is (up to rounding at the ulp level: the test below compares the same
// floats as before for the actions it keeps).
func (o *safeOpt) reachable() {
	if o.reachRound == o.updated {
		return
	}
	o.reachRound = o.updated
	o.reach = o.reach[:0]
	for _, p := range o.out {
		ok := true
		for _, sc := range o.safety {
			if o.hi[sc.j][p] < sc.h { // NaN is kept: the test decides
				ok = false
				break
			}
		}
		if ok {
			o.reach = append(o.reach, p)
		}
	}
}

// expanderTest is the expander test of safe action x in gp mode.
func (o *safeOpt) expanderTest(x int) bool {
	if gpModeOld {
		return o.gpExpander(x)
	}
	o.reachable()
	return o.gpExpanderAt(x)
}

// gpExpanderAt is gpExpander's decision, the same floats compared, with
// the covariance rows computed on demand (gp.Model.CovarianceAt) and only
// where they are read: at the actions of reach for the first safety
// condition, then for each further one only at the actions that passed
// every earlier one. Cost O(|reach|·t) per condition, against O(N·t) for
// a whole row or O(N²) per observation to keep the covariance.
func (o *safeOpt) gpExpanderAt(x int) bool {
	o.surv = append(o.surv[:0], o.reach...)
	for _, c := range o.safety {
		if len(o.surv) == 0 {
			return false
		}
		o.idx = append(append(o.idx[:0], o.surv...), x)
		o.cov = slices.Grow(o.cov[:0], len(o.idx))[:len(o.idx)]
		row := c.gp.CovarianceAt(o.cov, x, o.idx)
		// gp.Model.Hypothetical's update, the same expressions.
		cxx := row[len(row)-1]
		den := math.Max(cxx, 0) + c.gp.NoiseVar()
		gain := o.sqb * c.gp.Std(x) / den
		mean, vr := c.gp.Mean(), c.gp.Var()
		keep := o.surv[:0]
		for k, p := range o.surv {
			ck := row[k]
			m, v := mean[p]+gain*ck, vr[p]-ck*ck/den
			if m-o.sqb*math.Sqrt(math.Max(v, 0)) >= c.h { // false for NaN
				keep = append(keep, p)
			}
		}
		o.surv = keep
	}
	return len(o.surv) > 0
}

// chooseGP is choose in gp mode. SafeOpt (and SafeOpt-MC before t*)
// plays argmax_{G_t ∪ M_t} w_t: M_t is cheap, so its argmax a_M is found
// first, and only safe actions outside M_t that argmax would prefer to
// a_M are tested as expanders, in argmax's order (see before); the first
// that passes is the argmax over G_t ∪ M_t, and if none does a_M is. This
// is how the Python SafeOpt library searches, and it plays what testing
// every action would. StageOpt's stage 1 likewise tests the safe actions
// in decreasing constraint width; G_t is known empty only after every
// test failed, and a candidate within ε ends the search (every later one
// is within ε too, so the stage ends either way) unless some width is NaN.
// G_t itself is not kept: the batch path (sets) computes it whole.
func (o *safeOpt) chooseGP(t int) int {
	switch {
	case o.variant == variantSafeOpt || (o.variant == variantMC && o.phase.in(t)):
		o.maximizers()
		o.mRound = t
		aM := o.argmax(o.width, o.inMaximizers)
		if len(o.out) == 0 {
			return aM
		}
		o.reachable()
		if len(o.reach) == 0 {
			return aM
		}
		best := scored{i: aM}
		if aM >= 0 {
			best.v = o.width(aM)
		}
		o.cands = o.cands[:0]
		for i, in := range o.safe {
			if !in || o.inM[i] {
				continue
			}
			if c := (scored{o.width(i), i}); aM < 0 || before(c, best) < 0 {
				o.cands = append(o.cands, c)
			}
		}
		slices.SortFunc(o.cands, before)
		for _, c := range o.cands {
			if o.gpExpanderAt(c.i) {
				return c.i
			}
		}
		return aM
	case o.variant == variantMC:
		return o.argmax(o.loF, o.inSafe)
	case o.phase.in(t):
		a := -1
		if len(o.out) > 0 {
			o.reachable()
		}
		if len(o.out) > 0 && len(o.reach) > 0 {
			o.cands = o.cands[:0]
			nan := false
			for i, in := range o.safe {
				if in {
					c := scored{o.constraintWidth(i), i}
					nan = nan || c.v != c.v
					o.cands = append(o.cands, c)
				}
			}
			if !nan {
				// Within ε the stage ends whichever expander argmax
				// would pick: only the wider candidates are tested.
				o.cands = slices.DeleteFunc(o.cands, func(c scored) bool { return c.v <= o.eps })
			}
			slices.SortFunc(o.cands, before)
			for _, c := range o.cands {
				if o.gpExpanderAt(c.i) {
					a = c.i
					break
				}
			}
		}
		if a < 0 || o.constraintWidth(a) <= o.eps {
			o.phase.stop(t)
			a = o.argmax(o.hiF, o.inSafe)
		}
		return a
	}
	return o.argmax(o.hiF, o.inSafe)
}

func (o *safeOpt) inMaximizers(i int) bool { return o.inM[i] }
