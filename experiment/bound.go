package experiment

import (
	"fmt"
	"math"

	"github.com/safegp/safegp/bandit"
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
	// Constraints holds Theorem 2's or 4's quantities per constraint; Error
	// says why a constraint has no T' (λ_− ≤ 0, for example).
	Constraints []ConstraintBound `json:"constraints"`
	// TPrime is the theory's T' (the largest over constraints), 0 if some
	// constraint has none; Regret is B·T' + √(C_1·T·β_T·γ_T) then.
	TPrime int     `json:"t_prime,omitempty"`
	Regret float64 `json:"regret_bound,omitempty"`
	// Guarantee is false when a hand-fixed feature map misses Theorem 4's
	// ε_0 condition: the numbers are then the formulas without the promise.
	Guarantee bool `json:"guarantee"`
	// Rules: for each configured algorithm with an exploration phase, the
	// length it gives on this realization (plateau rules are run to find out).
	Rules []RuleLength `json:"rules"`
}

// ConstraintBound is one constraint's part of a BoundReport.
type ConstraintBound struct {
	*theory.Exploration
	Error string `json:"error,omitempty"`
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
	sigma, delta := st.Model.NoiseStd, st.Model.Delta
	rep := &BoundReport{
		Realization: r, N: p.N(), Dim: p.Dim(), M: p.M(), SeedSize: len(p.Seed), Horizon: c.Horizon,
		NoiseStd: sigma, Delta: delta, Epsilon: p.Epsilon,
		BetaT:     theory.Beta(c.Horizon, p.M(), p.N(), delta),
		GammaT:    theory.GammaBound(c.Horizon, p.N(), sigma, maxF),
		B:         theory.B(p.N(), maxF, delta),
		C1:        theory.C1(sigma),
		Guarantee: true,
	}
	ok := true
	for _, k := range st.Model.Constraints {
		e, err := theory.ExplorationLength(theory.Problem{
			X: p.X, Seed: p.Seed, Kernel: k, NoiseStd: sigma, Delta: delta,
			Epsilon: p.Epsilon, Horizon: c.Horizon, M: p.M(), MeasureEps0: true,
		}, feat)
		cb := ConstraintBound{Exploration: e}
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
	for i := range c.Algorithms {
		a := &c.Algorithms[i]
		if a.Exploration.IsZero() {
			continue
		}
		rl := RuleLength{Label: a.DisplayLabel(), Rule: ruleName(a.Exploration)}
		run, err := Play(a, c.Setting(r, in), p, in.Info, c.Noise(r), nil)
		if err != nil {
			rl.Error = err.Error()
		} else {
			rl.Rounds = run.ExplorationRounds
		}
		rep.Rules = append(rep.Rules, rl)
	}
	return rep, nil
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
