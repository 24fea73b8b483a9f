package bandit

import (
	"sync"

	"github.com/safegp/safegp/gp"
)

// movedGPs returns the GPs a policy New(in, model, set, …, opt) would hold
// after being told, outside the loop at their points (Index −1), the
// observations the global GPs hold (f, then each g_i, in model's order),
// moved there from the global GPs with gp.Model.OnSet (O(N·t²) each, no re-solving,
// concurrently), or nil when New and a tell of every observation must
// build them. The global GPs were told the same observations in the same
// order as the inner policy would be (AddAt each), so their L and L⁻¹y
// are the inner GPs' to the bit, and OnSet accumulates V, μ and σ² in
// Add's order: the moved GPs are the ones the tells would build, when the
// noise settings agree (the jitter floor depends on the set's prior
// variances; a stationary kernel's are all equal). The kept covariance is
// K − VᵀV accumulated in the order of the tells' rank-one updates, so it
// is the same too. The inner policy's state must depend on the final
// posterior alone (historyFree): lipschitz mode intersects bounds over
// the rounds, and the plateau rule watches the safe-set size round by
// round.
//
// line-bo moves its global GPs onto each line's grid with it, and the
// contextual policy onto D × {c} for each new context c.
func movedGPs(in *Spec, model Model, global []*gp.Model, set DecisionSet, opt Options) *prebuilt {
	t := global[0].T()
	if t == 0 || !historyFree(in) {
		return nil
	}
	for j, g := range global {
		k := model.Objective
		if j > 0 {
			k = model.Constraints[j-1]
		}
		fresh := gp.New(k, set.X, model.Sigma(j))
		if fresh.Jitter() != g.Jitter() || fresh.NoiseVar() != g.NoiseVar() {
			return nil
		}
	}
	// The safety GPs of gp mode keep their covariance (newSafeOpt): made
	// here, concurrently, newSafeOpt's call is a no-op.
	keep := func(j int) bool {
		return in.algorithm().SafeSets && (j > 0 || opt.ObjectiveThreshold != nil)
	}
	rows := opt.Horizon + max(opt.WarmStart, 0)
	moved := make([]*gp.Model, len(global))
	move := func(j int) {
		o := moved[j]
		if o == nil {
			o = global[j].OnSet(set.X)
		}
		o.GrowTo(rows)
		o.Reserve(min(opt.Expect, rows))
		if keep(j) {
			o.KeepCovariance()
		}
		moved[j] = o
	}
	// A constraint GP with the objective's kernel, points and noise has
	// its L: its V' and σ² are the objective's (OnSetFrom copies them).
	if len(global) == 2 {
		moved[0] = global[0].OnSet(set.X)
		if c := global[1].OnSetFrom(global[0], moved[0], set.X); c != nil {
			moved[1] = c
			move(0)
			move(1)
			return &prebuilt{f: moved[0], g: moved[1:], t: t}
		}
	}
	var wg sync.WaitGroup
	for j := 1; j < len(global); j++ {
		wg.Go(func() { move(j) })
	}
	move(0)
	wg.Wait()
	return &prebuilt{f: moved[0], g: moved[1:], t: t}
}
