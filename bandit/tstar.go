package bandit

import (
	"fmt"
	"math"

	"github.com/safegp/safegp/theory"
)

// TStar is SafeOpt-MC's t* for exploration: theory (Berkenkamp et al.
// 2016, Theorem 1; SPEC §5): the smallest positive integer with
// t*/(β_{t*}·γ_{|I|t*}) ≥ C_1·(|R̄_0(S_0)| + 1)/ε², with β_t as the model
// configures it, |I| = m + 1 GPs (f and the g_i; f ≥ h_f adds none), γ
// the finite-domain bound on D × I and ε the options' (theory.SafeOptTStar
// says how). reach0 is |R̄_0(S_0)|, which only the true constraints give
// (Truth.Reach0). It fails, wrapping ErrConfig, when reach0 is unknown
// (< 1: S_0 ⊆ R̄_0(S_0) is never empty) and, wrapping theory.ErrNoTStar,
// for a noise-free GP.
func TStar(model Model, set DecisionSet, opt Options, reach0 int) (*theory.TStar, error) {
	if reach0 < 1 {
		return nil, fmt.Errorf("%w: t* needs |R̄_0(S_0)|, the safe set reachable from the seed set under the true constraints, which this problem does not provide (a real system has none): give safeopt-mc exploration {fixed: n} or {plateau: …}", ErrConfig)
	}
	if err := checkSet(&set); err != nil {
		return nil, err
	}
	n, m := len(set.X), len(model.Constraints)
	sig := model.NoiseStds
	if sig == nil {
		sig = []float64{model.NoiseStd}
	}
	// max k_j(x,x) over the GPs: the prior variance of the joint kernel
	// on D × I, which the γ bound takes.
	kMax := 0.0
	for j := 0; j <= m; j++ {
		k := model.Objective
		if j > 0 {
			k = model.Constraints[j-1]
		}
		for _, x := range set.X {
			kMax = math.Max(kMax, k.Eval(x, x))
		}
	}
	if model.Beta.Freq != nil {
		return nil, fmt.Errorf("%w: t* follows a β schedule fixed in advance, and a frequentist β depends on the data (for safeopt-mc's exploration, give {fixed: n} or {plateau: …})", ErrConfig)
	}
	return theory.SafeOptTStar(theory.TStarProblem{
		N: n, GPs: m + 1, Reach0: reach0, Epsilon: opt.Epsilon, NoiseStds: sig, KMax: kMax,
		Beta:  func(t int) float64 { return model.Beta.At(t, m, n, model.Delta) },
		Paper: model.Beta.Paper,
	})
}

// tStarRule turns exploration: theory into the fixed rule of length t*,
// or of the whole horizon when t* > T (SafeOpt-MC then never switches).
func tStarRule(model Model, set DecisionSet, opt Options, truth *Truth) (Exploration, error) {
	reach0 := 0
	if truth != nil {
		reach0 = truth.Reach0
	}
	ts, err := TStar(model, set, opt, reach0)
	if err != nil {
		return Exploration{}, fmt.Errorf("exploration: theory: %w", err)
	}
	length := opt.Horizon
	if ts.Within(opt.Horizon) {
		length = int(ts.T)
	}
	return Exploration{Fixed: &length}, nil
}
