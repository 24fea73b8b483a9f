package study

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
// last CalibrationWindow tells in force, the count outside is compared
// with its distribution under the model (Poisson-binomial): when a count
// as large has probability below CalibrationLevel, the model is
// implausible, and show, the ask answers (a note) and the tell answers
// say so, with what to do.
const (
	CalibrationWindow = 20
	CalibrationLevel  = 0.01
	// calibrationMin is the fewest tells the check judges.
	calibrationMin = 5
)

// calibPoint is one tell's check.
type calibPoint struct {
	outside bool
	p       float64 // P(outside) under the model
	gps     []int   // the GPs whose value lay outside (0: f, 1+i: g_i), nil for none
}

// Calibration is the check over the recent tells (show's summary).
type Calibration struct {
	Window   int     `json:"window"`   // tells judged: the last in force, at most CalibrationWindow
	Outside  int     `json:"outside"`  // of them, with a value outside its interval
	Expected float64 `json:"expected"` // the count the model expects
	// PValue is the probability under the model of at least Outside.
	PValue float64 `json:"p_value"`
	// Implausible is PValue < CalibrationLevel: the model is likely
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

// calibrate records the check of tell seq from its residuals rs (nothing
// when there are none).
func (s *Study) calibrate(seq int, rs *residuals) {
	if rs == nil {
		return
	}
	var gps []int
	q := 1.0
	for _, r := range rs.rs {
		if math.Abs(r.v-r.mean) > rs.sqrtBeta*r.sd {
			gps = append(gps, r.gpj)
		}
		q *= 1 - math.Erfc(rs.sqrtBeta/math.Sqrt2)
	}
	s.calib[seq] = calibPoint{outside: gps != nil, p: 1 - q, gps: gps}
}

// calibration returns the check over the last CalibrationWindow tells in
// force that have one, nil for fewer than calibrationMin.
func (s *Study) calibration() *Calibration {
	var ps []float64
	outside := 0
	names := s.gpNames()
	var by map[string]int
	for k := len(s.events) - 1; k >= 0 && len(ps) < CalibrationWindow; k-- {
		e := &s.events[k]
		if e.Kind != "tell" || s.retracted[e.Seq] != 0 {
			continue
		}
		c, ok := s.calib[e.Seq]
		if !ok {
			continue
		}
		ps = append(ps, c.p)
		if c.outside {
			outside++
			if by == nil {
				by = make(map[string]int)
			}
			seen := ""
			for _, j := range c.gps {
				// A constraint with a min and a max is two GPs of one
				// outcome, adjacent: counted once per tell.
				if n := names[j]; n != seen {
					by[n]++
					seen = n
				}
			}
		}
	}
	if len(ps) < calibrationMin {
		return nil
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
	c.Implausible = c.PValue < CalibrationLevel
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

// calibrationNote is the note of an implausible check, nil otherwise:
// what it means for the study's algorithm, and what to do.
func (s *Study) calibrationNote() []string {
	c := s.calibration()
	if c == nil || !c.Implausible {
		return nil
	}
	safety, alg := s.res.Spec.Algorithm.Safety()
	// Every tell outside was outside in f alone: f is the only outcome
	// counted (no constraint shares the objective's name).
	fOnly := len(c.ByOutcome) == 1 && c.ByOutcome[0].Outcome == s.gpNames()[0]
	var what string
	switch {
	case fOnly && s.res.Spec.ObjectiveThreshold == nil && safety != bandit.SafetyNone:
		// No safety condition rests on f's model.
		what = "only the objective's values did: the limits' models explain their measurements so far, and the safe set does not rest on the objective's model; the choices among safe settings do: refit the kernels (model.fit) or widen β to search better"
	default:
		what = calibrationAdvice(safety, alg)
	}
	return []string{fmt.Sprintf("the model looks wrong: %d of the last %d measurements fell outside their confidence intervals (%s), where it expects %.2g (probability %.2g under the model); %s",
		c.Outside, c.Window, c.Outcomes(), c.Expected, c.PValue, what)}
}

// calibrationAdvice is what to do about a model that looks wrong, for
// the algorithm alg, by what its guarantee rests on.
func calibrationAdvice(safety bandit.Safety, alg string) string {
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
