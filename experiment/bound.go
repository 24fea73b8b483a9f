package experiment

import (
	"fmt"
	"io"
	"math"
	"text/tabwriter"

	"github.com/safegp/safegp/internal/plural"

	"github.com/safegp/safegp/bandit"
	"github.com/safegp/safegp/internal/fielderr"
	"github.com/safegp/safegp/theory"
)

// BoundReport holds the theory quantities of SPEC §7 for one realization of
// a configured problem, and the T' each configured exploration rule gives.
type BoundReport struct {
	Realization int     `json:"realization"`
	N           int     `json:"n"`
	Dim         int     `json:"d"`
	M           int     `json:"m"`
	SeedSize    int     `json:"seed_size"`
	Horizon     int     `json:"horizon"`
	NoiseStd    float64 `json:"noise_std"`
	Delta       float64 `json:"delta"`
	Epsilon     float64 `json:"epsilon"`
	BetaT       float64 `json:"beta_T"`
	GammaT      float64 `json:"gamma_T_bound"`
	B           float64 `json:"B"`
	C1          float64 `json:"C1"`
	// ObjectiveThreshold is h_f, when f ≥ h_f is a safety condition.
	ObjectiveThreshold *float64 `json:"objective_threshold,omitempty"`
	// NoiseStds, when kernel blocks give their own σ, is every GP's: [0]
	// for f (NoiseStd, which γ_T and C_1 take), [1+i] for g_i (which its
	// t_ε and ε_0 take).
	NoiseStds []float64 `json:"noise_stds,omitempty"`
	// Constraints holds Theorem 2's or 4's quantities per constraint, and
	// last for f ≥ h_f with an objective threshold (the objective's
	// kernel and σ); Error says why a constraint has no T' (λ_− ≤ 0, for
	// example).
	Constraints []ConstraintBound `json:"constraints"`
	// TPrime is the theory's T' (the largest over constraints), 0 if some
	// constraint has none; Regret is B·T' + √(C_1·T·β_T·γ_T) then.
	TPrime int     `json:"t_prime,omitempty"`
	Regret float64 `json:"regret_bound,omitempty"`
	// Guarantee is false when a hand-fixed feature map misses Theorem 4's
	// ε_0 condition: the numbers are then the formulas without the promise.
	Guarantee bool `json:"guarantee"`
	// TStar is SafeOpt-MC's t* on this realization (Berkenkamp et al.
	// 2016, Theorem 1; bandit.TStar), the length exploration: theory
	// gives safeopt-mc; TStarError says why there is none.
	TStar      *theory.TStar `json:"t_star,omitempty"`
	TStarError string        `json:"t_star_error,omitempty"`
	// Rules: for each configured algorithm with an exploration phase, the
	// length it gives on this realization (plateau rules are run to find out).
	Rules []RuleLength `json:"rules"`
	// Frequentist is the model's frequentist β (model.beta: {rkhs_norm,
	// noise_bound}), nil for another β.
	Frequentist *FrequentistBound `json:"frequentist_beta,omitempty"`
}

// FrequentistBound is what a frequentist β (bandit.Frequentist) amounts to
// on a realization: √β before the first observation, and the largest it
// can reach after T, whatever the observations (β itself depends on
// them: a run's is computed round by round).
type FrequentistBound struct {
	Bound      string  `json:"bound"`
	RKHSNorm   float64 `json:"rkhs_norm"`
	NoiseBound float64 `json:"noise_bound"`
	SqrtBeta1  float64 `json:"sqrt_beta_1"`
	SqrtBetaT  float64 `json:"sqrt_beta_T_at_most"`
}

// ConstraintBound is one constraint's part of a BoundReport.
type ConstraintBound struct {
	*theory.Exploration
	// Objective marks the entry of f ≥ h_f, an objective threshold.
	Objective bool   `json:"objective,omitempty"`
	Error     string `json:"error,omitempty"`
}

// RuleLength is the exploration length of one configured algorithm.
type RuleLength struct {
	Label  string `json:"label"`
	Rule   string `json:"rule"`
	Rounds int    `json:"rounds"`
	Error  string `json:"error,omitempty"`
}

// Bound computes the BoundReport of realization r. feat picks the feature
// map for stationary constraint kernels.
func Bound(c *Config, r int, feat theory.Features) (*BoundReport, error) {
	if c.Problem.Context != nil {
		return nil, fielderr.New(ErrConfig, "problem.context", "the bounds of SPEC §7 (Theorems 1, 2 and 4) are for a problem without contexts: compute them on the configuration without problem.context")
	}
	if c.Model.Fit.Active() {
		// The bounds of SPEC §7 hold for the kernels the model knows; a
		// model refitted during the run has no such bound (docs/fitting.md,
		// "Refitting during a run").
		return nil, fielderr.New(ErrConfig, "model.fit", "the bounds need the true kernel, and when: %s replaces it during the run, which voids them: compute the bound on the configuration without model.fit (for the configured kernels)", c.Model.Fit.When)
	}
	fixed, err := c.LoadProblem()
	if err != nil {
		return nil, err
	}
	in, err := c.Instance(r, fixed)
	if err != nil {
		return nil, err
	}
	st := c.Setting(r, in)
	p := in.Problem
	maxF := 0.0
	for _, x := range p.X {
		maxF = math.Max(maxF, st.Model.Objective.Eval(x, x))
	}
	sigma, delta := st.Model.Sigma(0), st.Model.Delta
	rep := &BoundReport{
		Realization: r, N: p.N(), Dim: p.Dim(), M: p.M(), ObjectiveThreshold: p.HF, SeedSize: len(p.Seed), Horizon: c.Horizon,
		NoiseStd: sigma, NoiseStds: st.Model.NoiseStds, Delta: delta, Epsilon: p.Epsilon,
		BetaT:     theory.Beta(c.Horizon, p.M(), p.N(), delta),
		GammaT:    theory.GammaBound(c.Horizon, p.N(), sigma, maxF),
		B:         theory.B(p.N(), maxF, delta),
		C1:        theory.C1(sigma),
		Guarantee: true,
	}
	if f := st.Model.Beta.Freq; f != nil {
		lam, kmax := make([]float64, p.M()+1), make([]float64, p.M()+1)
		for j := range lam {
			s := st.Model.Sigma(j)
			lam[j] = s * s
			k := st.Model.Objective
			if j > 0 {
				k = st.Model.Constraints[j-1]
			}
			for _, x := range p.X {
				kmax[j] = math.Max(kmax[j], k.Eval(x, x))
			}
		}
		fb := &FrequentistBound{Bound: f.BoundName(), RKHSNorm: f.RKHSNorm, NoiseBound: f.NoiseBound}
		if fb.SqrtBeta1, err = f.WorstCase(lam, kmax, p.N(), 0, delta); err != nil {
			return nil, err
		}
		if fb.SqrtBetaT, err = f.WorstCase(lam, kmax, p.N(), c.Horizon, delta); err != nil {
			return nil, err
		}
		rep.Frequentist = fb
	}
	ok := true
	// f ≥ h_f is one more constraint with the objective's kernel, as in
	// bandit.TheoryLength; β_T's m stays the number of g_i (SPEC §3).
	kernels := st.Model.Constraints
	if p.HF != nil {
		kernels = append(kernels[:len(kernels):len(kernels)], st.Model.Objective)
	}
	for i, k := range kernels {
		e, err := theory.ExplorationLength(theory.Problem{
			X: p.X, Seed: p.Seed, Kernel: k, NoiseStd: st.Model.Sigma((1 + i) % (p.M() + 1)), Delta: delta, // f last: σ_f
			Epsilon: p.Epsilon, Horizon: c.Horizon, M: p.M(), MeasureEps0: true,
		}, feat)
		cb := ConstraintBound{Exploration: e, Objective: i == p.M()}
		if err != nil {
			cb.Error = err.Error()
			ok = false
		} else {
			rep.TPrime = max(rep.TPrime, e.TPrime)
			rep.Guarantee = rep.Guarantee && e.Guarantee
		}
		rep.Constraints = append(rep.Constraints, cb)
	}
	if ok {
		rep.Regret = theory.RegretBound(rep.B, rep.TPrime, c.Horizon, rep.C1, rep.BetaT, rep.GammaT)
	} else {
		rep.TPrime = 0
	}
	rep.TStar, rep.TStarError = tStar(st, in)
	for i := range c.Algorithms {
		a := &c.Algorithms[i]
		if a.Exploration.IsZero() {
			continue
		}
		rl := RuleLength{Label: a.DisplayLabel(), Rule: ruleNameFor(a)}
		run, err := Play(a, c.Setting(r, in), OnProblem(p, in.Info), c.Noise(r), nil)
		if err != nil {
			rl.Error = err.Error()
		} else {
			rl.Rounds = run.ExplorationRounds
		}
		rep.Rules = append(rep.Rules, rl)
	}
	return rep, nil
}

// WriteText writes the report as the aligned table `safegp bound` prints:
// one row per quantity with the formula it comes from (SPEC §7), then each
// constraint's theorem, the theory's T' and regret bound, and each
// exploration rule's length.
func (rep *BoundReport) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	hf := ""
	if rep.ObjectiveThreshold != nil {
		hf = fmt.Sprintf(" and f ≥ h_f = %g", *rep.ObjectiveThreshold)
	}
	fmt.Fprintf(tw, "problem\trealization %d: N = %d actions in d = %d, m = %s%s, |D^w| = %d\n", rep.Realization, rep.N, rep.Dim, plural.Count(rep.M, "constraint"), hf, rep.SeedSize)
	if rep.NoiseStds == nil {
		fmt.Fprintf(tw, "model\tσ = %g, δ = %g, ε = %g, T = %d\n", rep.NoiseStd, rep.Delta, rep.Epsilon, rep.Horizon)
	} else {
		fmt.Fprintf(tw, "model\tσ_f = %g", rep.NoiseStds[0])
		for i, s := range rep.NoiseStds[1:] {
			fmt.Fprintf(tw, ", σ_g%d = %g", i+1, s)
		}
		fmt.Fprintf(tw, ", δ = %g, ε = %g, T = %d\n", rep.Delta, rep.Epsilon, rep.Horizon)
	}
	fmt.Fprintf(tw, "β_T\t%.4g\t2·log((m+1)·N·T²·π²/(6δ))\n", rep.BetaT)
	if fb := rep.Frequentist; fb != nil {
		fmt.Fprintf(tw, "frequentist √β_1\t%.4g\t%s bound, B = %g, R = %g (the model's β; the paper's β_T above for comparison)\n", fb.SqrtBeta1, fb.Bound, fb.RKHSNorm, fb.NoiseBound)
		fmt.Fprintf(tw, "frequentist √β_T\t≤ %.4g\twhatever the T observations (a run's follows its data)\n", fb.SqrtBetaT)
		if fb.Bound == "chowdhury-gopalan" {
			fmt.Fprintf(tw, "\tnote\tthe theorem computes σ with noise variance 1 + 2/T; with the model's σ² it is the formula, not the theorem's promise (docs/algorithms.md §3)\n")
		}
	}
	fmt.Fprintf(tw, "γ_T bound\t%.4g\tN·log(1 + σ⁻²·T·N·max k_f)\n", rep.GammaT)
	fmt.Fprintf(tw, "B\t%.4g\t2·√(max k_f)·√(2·log 2N)/δ\n", rep.B)
	fmt.Fprintf(tw, "C_1\t%.4g\t8/log(1 + σ⁻²)\n", rep.C1)
	for i, c := range rep.Constraints {
		c.writeText(tw, i)
	}
	if rep.Regret > 0 {
		fmt.Fprintf(tw, "T' (theory)\t%d\n", rep.TPrime)
		promise := "probability ≥ 1 − 3δ"
		if !rep.Guarantee {
			promise = "not a guarantee: a feature map misses the ε_0 condition"
		}
		fmt.Fprintf(tw, "regret bound\t%.4g\tB·T' + √(C_1·T·β_T·γ_T), %s\n", rep.Regret, promise)
	} else {
		fmt.Fprintf(tw, "T' (theory)\tnone: the guarantee does not apply to this seed set\n")
	}
	rep.writeTStar(tw)
	for _, rl := range rep.Rules {
		if rl.Error != "" {
			fmt.Fprintf(tw, "rule %s\t%s: %s\n", rl.Label, rl.Rule, rl.Error)
			continue
		}
		fmt.Fprintf(tw, "rule %s\t%s: %d rounds on this realization\n", rl.Label, rl.Rule, rl.Rounds)
	}
	return tw.Flush()
}

// writeText writes constraint g_{i+1}'s rows (f's, for f ≥ h_f): its
// theorem and feature map, Theorem 4's ε_0, then λ_−, t_ε, t_δ and T', or
// why it has no T'.
func (c *ConstraintBound) writeText(w io.Writer, i int) {
	name := fmt.Sprintf("g%d", i+1)
	if c.Objective {
		name = "f ≥ h_f"
	}
	e := c.Exploration
	if e == nil {
		fmt.Fprintf(w, "%s\t%s\n", name, c.Error)
		return
	}
	fmt.Fprintf(w, "%s\tTheorem %d, %s features", name, e.Theorem, e.Features)
	if e.Dim > 0 {
		fmt.Fprintf(w, ", dimension %d", e.Dim)
	}
	if e.Nodes > 0 {
		fmt.Fprintf(w, " (%d nodes per dimension)", e.Nodes)
	}
	fmt.Fprintln(w)
	if e.Theorem == 4 {
		fmt.Fprintf(w, "  ε_0\tneeded ≤ %.3g", e.Eps0Target)
		if e.Features == "qff" && e.Nodes > 0 {
			fmt.Fprintf(w, "; QFF lemma bound %.3g", e.Eps0Bound)
		}
		if e.Eps0Measured > 0 {
			fmt.Fprintf(w, "; measured on D %.3g", e.Eps0Measured)
		}
		fmt.Fprintln(w)
	}
	if c.Error != "" {
		fmt.Fprintf(w, "  no T'\t%s\n", c.Error)
		return
	}
	fmt.Fprintf(w, "  λ_−\t%.4g\n", e.Lambda)
	fmt.Fprintf(w, "  t_ε, t_δ\t%.4g, %.4g\n", e.TEps, e.TDelta)
	fmt.Fprintf(w, "  T'\t%d\t⌈max(t_ε, t_δ)⌉, at most T\n", e.TPrime)
	if e.KMax > 1 || e.RMax > 1 {
		fmt.Fprintf(w, "  scaling\tk_g(x,x) up to %.3g on D, %.3g on D^w: t_ε and t_δ scaled by them (the paper assumes k ≤ 1)\n", e.KMax, e.RMax)
	}
	if !e.Guarantee {
		fmt.Fprintf(w, "  no guarantee\tthe feature map misses Theorem 4's ε_0 condition: T' is the formula, not a guarantee\n")
	}
}

func ruleName(e bandit.Exploration) string {
	switch {
	case e.Fixed != nil:
		return fmt.Sprintf("fixed %d", *e.Fixed)
	case e.Plateau != nil:
		return fmt.Sprintf("plateau window %d cap %d", e.Plateau.Window, e.Plateau.Cap)
	}
	return "theory"
}

// ruleNameFor names a's rule: theory is T' for sgp-ucb, t* for safeopt-mc.
func ruleNameFor(a *bandit.Spec) string {
	if a.UsesTStar() {
		return "theory (t*)"
	}
	return ruleName(a.Exploration)
}
