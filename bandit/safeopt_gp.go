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

// covarianceBudget is the most memory, in bytes, gp mode spends on the
// N×N covariance of its safety GPs (8·N² bytes each,
// gp.Model.KeepCovariance): 256 MiB, N ≤ 5 792 with one constraint. Within
// it the covariance is kept once computing rows on demand costs more than
// keeping it would (see keepIfCheaper); beyond it, never.
var covarianceBudget int64 = 256 << 20

// keepAfter is how many times the O(N²) per-GP cost of keeping the
// covariance one round the rows computed on demand in a round must cost
// before the covariance is kept. Keeping it costs N² multiply-adds per
// observation and GP (the rank-one update) plus N²·t/2 once to build; a
// row on demand costs t per entry read. A tested variable: the comparison
// test keeps the covariance after the first round that computed a row.
var keepAfter int64 = 2

// covarianceBytes is the memory gp mode's kept covariance takes over n
// actions with gps safety GPs.
func covarianceBytes(n, gps int) int64 { return 8 * int64(gps) * int64(n) * int64(n) }

// keepIfCheaper keeps the covariance of every safety GP from now on when
// the rows computed on demand last round (o.work entry·observation
// products) cost more than keepAfter rounds of keeping it, and it fits in
// covarianceBudget. The rows are the same floats either way
// (gp.Model.CovarianceAt), so the choice never changes what is played.
func (o *safeOpt) keepIfCheaper() {
	work := o.work
	o.work = 0
	n, gps := len(o.set.X), len(o.safety)
	if o.kept || work <= keepAfter*int64(gps)*int64(n)*int64(n) || covarianceBytes(n, gps) > covarianceBudget {
		return
	}
	for _, c := range o.safety {
		// The covariance serves every entry from now on; Vᵀ goes first,
		// so that the two are never held at once (safeSetBytes).
		c.gp.DropTransposed()
		c.gp.KeepCovariance()
	}
	o.kept = true
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
	pool       []int     // the safe actions outside M_t, chooseGP's scratch
	// known caches the expander test's answers for the round knownRound
	// (0: not tested, 1: in G_t, −1: not), which depend on the real
	// observations only: the asks of a batch test each action once.
	known      []int8
	knownRound int
	one        [1]int // the candidate, as an index list
	// work counts the rows computed on demand since the last
	// keepIfCheaper, in entry·observation products; kept is set once the
	// covariance is kept.
	work int64
	kept bool
	// sdev and sprior hold, per safety condition and action, the factors
	// of the expander test's bound that do not depend on the candidate,
	// √(max(σ²(x'), 0) + E·k(x',x')) and √k(x',x'), for the round
	// boundRound at the actions of its reach (see gpExpanderAt).
	sdev, sprior [][]float64
	boundRound   int
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
// where they are read: per safety condition, at the actions of reach that
// passed every earlier condition and that the bound below does not rule
// out. Cost O(|reach|) for the bounds and O(t) per covariance entry,
// against O(N·t) for a whole row or O(N²) per observation to keep the
// covariance.
//
// The bound: the test at x' reads c = Cov(x, x') only through
// μ(x') + gain·c and σ²(x') − c²/den (gain ≥ 0, den > 0), and every float
// operation there is monotone, so the computed lower bound at x' is at
// most the same expressions evaluated with c = B, for any B ≥ |c|. In exact
// arithmetic |c| ≤ σ(x)σ(x') (Cauchy–Schwarz, the posterior covariance
// being positive semidefinite); the computed c, σ²(x) and σ²(x') are sums
// of t + 1 products, each within (t+2)·ε·k of its exact value (ε the unit
// roundoff, k the prior variances; Higham, Accuracy and Stability of
// Numerical Algorithms, §3.1), so
//
//	B = √((σ²(x) + E·k(x,x))·(σ²(x') + E·k(x',x'))) + E·√(k(x,x)·k(x',x')),
//	E = 8·(t+2)·ε,
//
// bounds the computed |c| with a margin of a factor 8. An x' whose bound
// fails the test fails it with the computed c too, and is skipped. B is
// computed as √(σ²(x) + E·k(x,x))·a(x') + E·√k(x,x)·√k(x',x'), with a(x')
// and √k(x',x') once per round (boundFactors) instead of once per
// candidate: the same value but for a few units in the last place, which
// the margin covers as it covers the roundings of B itself. And as
// m − √β·√v ≤ m in floats, an x' with m < h fails before its v is
// computed. Which x' are skipped can change; which pass, never.
func (o *safeOpt) gpExpanderAt(x int) bool {
	o.surv = append(o.surv[:0], o.reach...)
	o.one[0] = x
	one := o.one[:]
	for k, c := range o.safety {
		if len(o.surv) == 0 {
			return false
		}
		// gp.Model.Hypothetical's update, the same expressions.
		var cxx [1]float64
		c.gp.CovarianceAt(cxx[:], x, one)
		den := math.Max(cxx[0], 0) + c.gp.NoiseVar()
		gain := o.sqb * c.gp.Std(x) / den
		mean, vr, prior := c.gp.Mean(), c.gp.Var(), c.gp.Prior()
		e := 8 * float64(c.gp.T()+2) * 0x1p-53
		o.idx = o.idx[:0]
		if c.gp.CovarianceKept() {
			// Each entry is a read: the bound would only add work.
			o.idx = append(o.idx, o.surv...)
		} else {
			o.boundFactors()
			sdev, sprior := o.sdev[k], o.sprior[k]
			sx, spx := math.Sqrt(math.Max(vr[x], 0)+e*prior[x]), e*math.Sqrt(prior[x])
			invDen, sqb2 := (1+1e-6)/den, o.sqb*o.sqb*(1-1e-6)
			for _, p := range o.surv {
				b := sx*sdev[p] + spx*sprior[p]
				m := mean[p] + gain*b
				if !(m >= c.h) { // NaN fails too
					continue
				}
				// The test at the bound, m − √β·√max(σ²−b²/den, 0) ≥ h,
				// without its division and square root (boundSquared):
				// every x' that passes it passes this, and more are
				// only tested exactly below.
				v, r := vr[p]-b*b*invDen, (m-c.h)+1e-9*(math.Abs(m)+math.Abs(c.h))+0x1p-500
				if sqb2*max(v, 0) <= r*r {
					o.idx = append(o.idx, p)
				}
			}
		}
		if len(o.idx) == 0 {
			return false
		}
		// The last condition decides: the first action that passes it
		// makes x an expander, so its entries are computed a chunk at a
		// time (each entry is the same float whatever the chunk).
		chunk := len(o.idx)
		last := k == len(o.safety)-1
		if last && !c.gp.CovarianceKept() {
			chunk = expanderChunk
		}
		keep := o.surv[:0]
		for lo := 0; lo < len(o.idx); lo += chunk {
			idx := o.idx[lo:min(lo+chunk, len(o.idx))]
			o.cov = slices.Grow(o.cov[:0], len(idx))[:len(idx)]
			row := c.gp.CovarianceAt(o.cov, x, idx)
			if !c.gp.CovarianceKept() {
				o.work += int64(len(idx)+1) * int64(c.gp.T())
			}
			for q, p := range idx {
				ck := row[q]
				m, v := mean[p]+gain*ck, vr[p]-ck*ck/den
				if m-o.sqb*math.Sqrt(max(v, 0)) >= c.h { // false for NaN
					if last {
						return true
					}
					keep = append(keep, p)
				}
			}
		}
		o.surv = keep
	}
	return len(o.surv) > 0
}

// boundSquared: gpExpanderAt's cheaper form of the test at the bound
// keeps every x' the test keeps. Write ε = 2⁻⁵³ and T for the test in
// floats, fl(m − q) ≥ h with q = fl(√β·fl(√max(v, 0))), v = fl(σ² −
// fl(b²)/den). (1+10⁻⁶)/den rounds to more than 1/den, so b²·invDen
// rounds to at least b²/den and the v computed with it is at most T's
// (rounding is monotone). As h is a float, T gives m − q ≥ h − ε(|m|+q);
// q is √β·√max(v, 0) to within two roundings; so
// β·max(v, 0) ≤ (m − h + ε|m|)²/(1−ε)⁶. The left side here carries
// (1 − 10⁻⁶) and three roundings, r at least (1−ε)³(m − h + ε|m|) with
// 10⁻⁹ ≥ ε, and r·r one rounding: the inequality holds with room 10⁻⁶
// against (1+ε)¹⁰. 2⁻⁵⁰⁰ keeps r² a normal float, so that a left side
// small enough to underflow is kept too; NaN fails both tests.

// boundFactors computes, once per round, gpExpanderAt's factors of the
// bound at the actions of reach for every safety condition.
func (o *safeOpt) boundFactors() {
	if o.boundRound == o.updated {
		return
	}
	o.boundRound = o.updated
	n := len(o.set.X)
	if len(o.sdev) != len(o.safety) {
		o.sdev, o.sprior = make([][]float64, len(o.safety)), make([][]float64, len(o.safety))
	}
	for k, c := range o.safety {
		if len(o.sdev[k]) != n {
			o.sdev[k], o.sprior[k] = make([]float64, n), make([]float64, n)
		}
		vr, prior := c.gp.Var(), c.gp.Prior()
		e := 8 * float64(c.gp.T()+2) * 0x1p-53 // gpExpanderAt's
		for _, p := range o.reach {
			o.sdev[k][p] = math.Sqrt(math.Max(vr[p], 0) + e*prior[p])
			o.sprior[k][p] = math.Sqrt(prior[p])
		}
	}
}

// expanderChunk is how many covariance entries the expander test's last
// condition computes at a time: small enough to stop soon after the first
// action that passes, large enough that each pass over the rows of V
// (t rows, one gathered entry per action) reads whole cache lines' worth.
// A variable for the comparison test, which makes chunks small.
var expanderChunk = 256

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
// G_t itself is not kept; the answers of the tests are, for the round
// (isExpander), so that the other asks of a batch (batch_gp.go) reuse
// them.
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
		// The safe actions outside M_t, listed without a branch on
		// membership (as safeSet lists the actions outside S_t), then
		// scored in the same order.
		n := len(o.safe)
		o.pool = slices.Grow(o.pool[:0], n)[:n]
		k := 0
		for i, in := range o.safe {
			o.pool[k] = i
			k += b2i(in) &^ b2i(o.inM[i])
		}
		o.cands = o.cands[:0]
		for _, i := range o.pool[:k] {
			if c := (scored{o.width(i), i}); aM < 0 || before(c, best) < 0 {
				o.cands = append(o.cands, c)
			}
		}
		slices.SortFunc(o.cands, before)
		for _, c := range o.cands {
			if o.isExpander(c.i) {
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
				if o.isExpander(c.i) {
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
