package calib

import (
	"fmt"
	"math"
	"strings"

	"github.com/safegp/safegp/bandit"
)

// The calibration check (issue 28): every guarantee a study's algorithm
// gives rests on its model, and a model that is wrong shows it by
// measurements that fall outside their confidence intervals more often
// than it allows. For each tell the study records, before the policy
// learns it, whether any of its values lay outside μ ± √β_t·sd — sd the
// predictive standard deviation √(σ²_post + σ²_noise) at its point, √β_t
// the round's (residuals) — and the probability of that under the model,
// p = 1 − (1 − erfc(√β_t/√2))^G over its G GPs (independent). Over the
// last Window tells in force, the count outside is compared
// with its distribution under the model (Poisson-binomial): when a count
// as large has probability below Level, the model is
// implausible, and show, the ask answers (a note) and the tell answers
// say so, with what to do.
const (
	Window = 20
	Level  = 0.01
	// MinTells is the fewest tells the check judges.
	MinTells = 5
)

// Point is one tell's check: whether any of its values lay outside its
// interval, the probability of that under the model, and the GPs whose
// value did (0: f, 1+i: g_i; nil for none).
type Point struct {
	Outside bool
	P       float64
	GPs     []int
}

// Residual is one value of a tell against the model's prediction at its
// point: GP GP's value V, the predictive mean and standard deviation.
type Residual struct {
	GP          int
	V, Mean, SD float64
}

// Check is the check of one tell from its residuals at √β_t sqrtBeta:
// outside when |v − μ| > √β_t·sd for any GP, with probability
// 1 − Π(1 − erfc(√β_t/√2)) over its GPs.
func Check(rs []Residual, sqrtBeta float64) Point {
	var gps []int
	q := 1.0
	for _, r := range rs {
		if math.Abs(r.V-r.Mean) > sqrtBeta*r.SD {
			gps = append(gps, r.GP)
		}
		q *= 1 - math.Erfc(sqrtBeta/math.Sqrt2)
	}
	return Point{Outside: gps != nil, P: 1 - q, GPs: gps}
}

// Calibration is the check over the recent tells (show's summary).
type Calibration struct {
	Window   int     `json:"window"`   // tells judged: the last in force, at most Window
	Outside  int     `json:"outside"`  // of them, with a value outside its interval
	Expected float64 `json:"expected"` // the count the model expects
	// PValue is the probability under the model of at least Outside.
	PValue float64 `json:"p_value"`
	// Implausible is PValue < Level: the model is likely
	// wrong.
	Implausible bool `json:"implausible"`
	// ByOutcome counts, per outcome with any, the tells of Outside whose
	// value of it lay outside its interval, in the outcomes' order: by
	// name in a study stated in parameters, else f, g1, g2, … — the
	// objective's model wrong costs speed, a limit's puts safety at
	// stake.
	ByOutcome []OutcomeCount `json:"by_outcome,omitempty"`
}

// OutcomeCount is one outcome's count of Calibration.ByOutcome.
type OutcomeCount struct {
	Outcome string `json:"outcome"`
	Outside int    `json:"outside"`
}

// Outcomes says c.ByOutcome in words: "overshoot in 4, settle_time in 1".
func (c *Calibration) Outcomes() string {
	parts := make([]string, len(c.ByOutcome))
	for i, o := range c.ByOutcome {
		parts[i] = fmt.Sprintf("%s in %d", o.Outcome, o.Outside)
	}
	return strings.Join(parts, ", ")
}

// Of is the check over points, the most recent first (at most Window of
// the tells in force), for the GPs named names (a constraint with a min
// and a max is two adjacent GPs of one name); nil for fewer than
// MinTells.
func Of(points []Point, names []string) *Calibration {
	if len(points) < MinTells {
		return nil
	}
	outside := 0
	var by map[string]int
	ps := make([]float64, len(points))
	for i, c := range points {
		ps[i] = c.P
		if !c.Outside {
			continue
		}
		outside++
		if by == nil {
			by = make(map[string]int)
		}
		seen := ""
		for _, j := range c.GPs {
			// A constraint with a min and a max is two GPs of one
			// outcome, adjacent: counted once per tell.
			if n := names[j]; n != seen {
				by[n]++
				seen = n
			}
		}
	}
	c := &Calibration{Window: len(ps), Outside: outside, PValue: tailAtLeast(ps, outside)}
	for j, n := range names {
		// Listed once: a constraint with a min and a max is two
		// adjacent GPs of one outcome.
		if k := by[n]; k > 0 && (j == 0 || names[j-1] != n) {
			c.ByOutcome = append(c.ByOutcome, OutcomeCount{n, k})
		}
	}
	for _, p := range ps {
		c.Expected += p
	}
	c.Implausible = c.PValue < Level
	return c
}

// tailAtLeast is P(X ≥ k) for X the number of successes of independent
// trials with probabilities ps (Poisson-binomial), by the recursion over
// the trials of the distribution of the count: O(len(ps)²).
func tailAtLeast(ps []float64, k int) float64 {
	if k <= 0 {
		return 1
	}
	dist := make([]float64, len(ps)+1)
	dist[0] = 1
	for n, p := range ps {
		for j := n + 1; j >= 1; j-- {
			dist[j] = dist[j]*(1-p) + dist[j-1]*p
		}
		dist[0] *= 1 - p
	}
	var tail float64
	for j := k; j < len(dist); j++ {
		tail += dist[j]
	}
	return min(tail, 1)
}

// Note is the note of an implausible check c, "" otherwise: what it means
// for the algorithm alg, whose safety rests on safety, and what to do.
// objective names f's GP, and objectiveLimit says whether f ≥ h_f is a
// safety condition.
func Note(c *Calibration, safety bandit.Safety, alg, objective string, objectiveLimit bool) string {
	if c == nil || !c.Implausible {
		return ""
	}
	// Every tell outside was outside in f alone: f is the only outcome
	// counted (no constraint shares the objective's name).
	fOnly := len(c.ByOutcome) == 1 && c.ByOutcome[0].Outcome == objective
	var what string
	switch {
	case fOnly && !objectiveLimit && safety != bandit.SafetyNone:
		// No safety condition rests on f's model.
		what = "only the objective's values did: the limits' models explain their measurements so far, and the safe set does not rest on the objective's model; the choices among safe settings do: refit the kernels (model.fit) or widen β to search better"
	default:
		what = advice(safety, alg)
	}
	return fmt.Sprintf("the model looks wrong: %d of the last %d measurements fell outside their confidence intervals (%s), where it expects %.2g (probability %.2g under the model); %s",
		c.Outside, c.Window, c.Outcomes(), c.Expected, c.PValue, what)
}

// advice is what to do about a model that looks wrong, for
// the algorithm alg, by what its guarantee rests on.
func advice(safety bandit.Safety, alg string) string {
	var what string
	switch safety {
	case bandit.SafetyBounds:
		what = alg + "'s safe set rests on its Lipschitz and noise bounds, not on the model, and holds while those are true; its choices among safe actions do rest on the model: refit the kernels (model.fit) or widen β"
	case bandit.SafetyNone:
		what = alg + " gives no safety guarantee, and with a wrong model its probabilities of feasibility are wrong too: refit the kernels (model.fit), or switch to a safe algorithm (losbo, with a Lipschitz bound and a noise bound, rests on no model)"
	default:
		what = "the safety guarantee rests on the model: refit the kernels (model.fit), widen β, or give a Lipschitz bound and a noise bound and switch to losbo, whose safe set does not rest on the model (docs/safety.md)"
	}
	return what
}
