package study

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/safegp/safegp/store"
	"github.com/safegp/safegp/study/api"
)

// The values of Spec.AfterViolation.
const (
	AfterContinue = "continue"
	AfterBest     = "best"
)

// Failed trials, unsafe seeds and the way back after a violation
// (docs/safety.md). A failed trial is an event of kind "fail": its ask
// (or its setting, outside the loop) and no values. The policy takes it
// as bandit.Observation.Failed — a measurement past every limit, its
// point never chosen again — and a seed measured unsafe is told with
// bandit.Observation.Exclude; both are replayed the same way, so that a
// rebuilt study excludes what the live one did.

// validateFailed checks failed tell t as event seq: an ask, or a setting
// outside the loop, and no values.
func (s *Study) validateFailed(t *api.TellRequest, seq int, horizon bool) (store.Event, error) {
	if t.F != nil || t.G != nil || t.Values != nil || t.NoiseStd != nil {
		return store.Event{}, fmt.Errorf("%w: a failed trial has no values: leave out f, g, values and noise_std", api.ErrBadTell)
	}
	// The point is checked as a tell's would be, with placeholder values
	// that are not recorded.
	u := *t
	u.Failed = false
	if nm := s.res.Named; nm != nil {
		u.Values = map[string]float64{}
		for _, name := range nm.outcomes.Names() {
			u.Values[name] = 0
		}
	} else {
		zero := 0.0
		u.F, u.G = &zero, make([]float64, s.outcomeValues())
	}
	e, err := s.u.validate(s, &u, seq, horizon)
	if err != nil {
		return e, err
	}
	e.Kind, e.F, e.G, e.NoiseStd, e.Violation = "fail", 0, nil, nil, false
	return e, nil
}

// atSeed reports whether event e is at a seed: a seed action of a finite
// decision set, or a seed point of a box.
func (s *Study) atSeed(e *store.Event) bool {
	if b := s.res.Box; b != nil {
		return slices.ContainsFunc(b.Seeds, func(x []float64) bool { return slices.Equal(x, e.X) })
	}
	return e.Index >= 0 && slices.Contains(s.res.Seed, e.Index)
}

// unsafe reports whether event e, in force, says its point is not safe:
// a failed trial, or a tell past a limit.
func (s *Study) unsafe(e *store.Event) bool {
	return (e.Kind == "fail" || e.Kind == "tell" && e.Violation) && s.retracted[e.Seq] == 0
}

// samePoint reports whether two events are at the same point: the same
// action (or point outside the decision set) in the same context.
func samePoint(a, b *store.Event) bool {
	return a.Index == b.Index && slices.Equal(a.X, b.X) && slices.Equal(a.Context, b.Context)
}

// excludedSeed reports whether seed action i (a finite decision set's)
// was measured unsafe or failed, by a tell in force: never asked again.
func (s *Study) excludedSeed(i int) bool {
	return slices.ContainsFunc(s.events, func(e store.Event) bool { return e.Index == i && s.unsafe(&e) })
}

// bestSafe is the observation in force of the best objective among those
// that kept every limit and whose setting never failed nor broke a limit
// in another measurement, nil if none: the setting after_violation: best
// goes back to.
func (s *Study) bestSafe() *store.Event {
	var bad []*store.Event
	for k := range s.events {
		if e := &s.events[k]; s.unsafe(e) {
			bad = append(bad, e)
		}
	}
	var best *store.Event
	for k := range s.events {
		e := &s.events[k]
		if e.Kind != "tell" || s.retracted[e.Seq] != 0 || e.Violation || slices.ContainsFunc(bad, func(b *store.Event) bool { return samePoint(b, e) }) {
			continue
		}
		if best == nil || s.better(e.F, best.F) {
			best = e
		}
	}
	return best
}

// better reports whether objective value a is better than b as told: the
// study's goal in parameters, else f maximized.
func (s *Study) better(a, b float64) bool {
	if nm := s.res.Named; nm != nil {
		return nm.outcomes.Better(a, b)
	}
	return a > b
}

// backAsk makes the ask event seq of after_violation: best, at the best
// safe setting measured; ok is false when there is none (the study goes
// on with the policy's choice).
func (s *Study) backAsk(seq int) (store.Event, bool) {
	b := s.bestSafe()
	if b == nil {
		return store.Event{}, false
	}
	return store.Event{Seq: seq, Kind: "ask", Ask: s.askBase + seq, Index: b.Index, X: b.X, Context: b.Context}, true
}

// noSafeSetting is the error of an ask when the policy has nothing left
// to choose (bandit.ErrNoSafeAction): it names the seeds and what was
// measured at them.
func (s *Study) noSafeSetting() error {
	var parts []string
	n := 0
	for k := range s.events {
		e := &s.events[k]
		if !s.unsafe(e) || !s.atSeed(e) {
			continue
		}
		if n++; n > 5 {
			continue
		}
		parts = append(parts, s.describe(e))
	}
	if n > 5 {
		parts = append(parts, fmt.Sprintf("and %d more", n-5))
	}
	return fmt.Errorf("%w: study %q: no seed is left safe and the model certifies no other setting, so it asks none of the seeds again (%s); give it a setting known to be safe: a new study seeded there, with these measurements imported (safegp study export, then import)",
		api.ErrNoSafeSetting, s.name, strings.Join(parts, "; "))
}

// describe is tell or failure e in a few words: its trial, its setting
// and what was measured.
func (s *Study) describe(e *store.Event) string {
	where := fmt.Sprintf("action %d", e.Index)
	if e.Index < 0 {
		where = fmt.Sprintf("x = %v", e.X)
	}
	if s.res.Named != nil {
		b, _ := json.Marshal(s.settingOf(e))
		where = string(b)
	}
	where = fmt.Sprintf("trial %d at %s", s.tellTrial[e.Seq], where)
	if e.Kind == "fail" {
		return where + " failed"
	}
	var vals string
	if s.res.Named != nil {
		b, _ := json.Marshal(s.valueMap(e))
		vals = string(b)
	} else {
		vals = fmt.Sprintf("f = %v, g = %v", e.F, e.G)
	}
	return fmt.Sprintf("%s measured unsafe: %s", where, vals)
}

// policyAsks is the number of pending asks the policy chose (a way back
// after a violation is the study's, not the policy's).
func (s *Study) policyAsks() int {
	n := 0
	for _, p := range s.pending {
		if !s.back[p.ask] {
			n++
		}
	}
	return n
}

// bestTrialOf is the trial of the safe observation a way back asks
// again: the first tell in force at ask e's point.
func (s *Study) bestTrialOf(e *store.Event) int {
	for k := range s.events {
		t := &s.events[k]
		if t.Kind == "tell" && s.retracted[t.Seq] == 0 && !t.Violation && t.Index == e.Index && slices.Equal(t.X, e.X) {
			return s.tellTrial[t.Seq]
		}
	}
	return -1
}

// withdrawAfterExclusion withdraws the asks pending at the point of tell
// e when it measured a seed unsafe (excluded): handing one out again
// would ask the seed again. The policy, which holds them, is rebuilt
// without them, as after a retraction; the other pending asks stay (a
// batch's workers may be measuring them), and a failed trial withdraws
// nothing (its own ask is told by it).
func (s *Study) withdrawAfterExclusion(e store.Event, excluded bool) error {
	if !excluded || !slices.ContainsFunc(s.pending, func(p pendingAsk) bool { return samePoint(&s.events[s.asks[p.ask]], &e) }) {
		return nil
	}
	for _, p := range s.pending {
		s.withdrawn[p.ask] = e.Seq
	}
	s.pending = s.pending[:0]
	s.exclusions++
	return s.rebuild()
}

// withdrawal says what event seq, which withdrew an ask, was.
func (s *Study) withdrawal(seq int) string {
	if s.events[seq-1].Kind == "retract" {
		return fmt.Sprintf("retraction %d, since it was chosen with the retracted value", seq)
	}
	return fmt.Sprintf("observation %d, which measured a seed unsafe: the ask was chosen while the seed was taken as safe", seq)
}
