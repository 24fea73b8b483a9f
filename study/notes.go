package study

import (
	"fmt"
	"math"
	"slices"

	"github.com/safegp/safegp/bandit"
	"github.com/safegp/safegp/internal/plural"
	"github.com/safegp/safegp/kernel"
)

// StallRounds is how many observations in a row a study's safe set may go
// without growing before its ask answers and its summary say so (notes):
// ten rounds are several times what SGP-UCB's expansion needs per
// action on a safe set that can grow (paper §4, T′ per expansion), and
// few enough that a user running tens of trials hears of it early.
const StallRounds = 10

// trackSafeSet records the safe set's size after an observation, for
// the stall notes: its largest so far and the observation count when it
// last grew. On a box, which has no safe-set size, the count is when the
// best safe point last moved. Not with a context, whose safe set changes
// with the context.
func (s *Study) trackSafeSet() {
	if s.res.ContextKernel != nil {
		return
	}
	if s.res.Box != nil {
		if x, _, ok := bandit.Best(s.pol); ok && !slices.Equal(x, s.bestX) {
			s.bestX, s.grewAt = append(s.bestX[:0], x...), s.nObs
		}
		return
	}
	s.pol.Inspect(&s.safeSnap, bandit.SafeSet)
	if n := s.safeSnap.SafeSetSize; n > s.safeMax {
		s.safeMax, s.grewAt = n, s.nObs
	}
}

// notes are what a study's answers and summary say of its seeds, its
// progress and its model: the seed notes, the stall notes, then the
// calibration note.
func (s *Study) notes() []string {
	return append(append(s.seedNotes(), s.stallNotes()...), s.calibrationNote()...)
}

// seedNotes says which seeds broke a limit when measured, once per seed
// (its first such tell in force). A study takes its seeds as safe
// as the safe set S_0 every policy starts from (paper §2); one measured
// unsafe is excluded from then on (failed.go), and the user must hear
// that the premise failed, in every answer, until the tell is retracted.
func (s *Study) seedNotes() []string {
	if s.viol+s.nFail == 0 {
		return nil // no violation nor failure in force: the common case, without a pass over the events
	}
	var notes []string
	seen := map[string]bool{}
	for k := range s.events {
		e := &s.events[k]
		if !s.unsafe(e) || !s.atSeed(e) {
			continue
		}
		key := fmt.Sprint(e.Index)
		if s.res.Box != nil {
			key = fmt.Sprint(e.X)
		}
		if seen[key] {
			continue
		}
		seen[key] = true
		const then = "the study will not ask it again, and once no seed is left safe and nothing else is certified it asks nothing (409): create a new study whose seeds are safe (docs/safety.md)"
		if n, ok := s.u.seedNote(s, e, then); ok {
			notes = append(notes, n)
			continue
		}
		what := "broke a threshold"
		if e.Kind == "fail" {
			what = "failed"
		}
		switch {
		case s.res.Box != nil:
			notes = append(notes, fmt.Sprintf("the seed point %v %s when measured (observation %d): %s", e.X, what, e.Seq, then))
		default:
			notes = append(notes, fmt.Sprintf("the seed action %d %s when measured (observation %d): %s", e.Index, what, e.Seq, then))
		}
	}
	return notes
}

// stallNotes says why a study may not be making progress: its safe set
// has not grown for StallRounds observations or more, with the likely
// causes its records show and what to change. Nil when it is growing.
func (s *Study) stallNotes() []string {
	if s.res.ContextKernel != nil || s.nObs-s.grewAt < StallRounds {
		return nil
	}
	if s.res.Box == nil && s.safeMax >= len(s.res.X) {
		return nil // everything is safe: nothing left to grow into
	}
	unit := s.u.unit()
	var notes []string
	if s.res.Box != nil {
		notes = append(notes, fmt.Sprintf("the best safe %s has not moved for %s: the lines searched since may run along parameters the objective hardly depends on, or the model vouches for no better point on them (docs/limits.md, \"A study that does not grow\"); likely causes of the latter below",
			unit, plural.Count(s.nObs-s.grewAt, "observation")))
	} else {
		notes = append(notes, fmt.Sprintf("the safe set has not grown for %s: it holds %s of %d (docs/limits.md, \"A study that does not grow\"); likely causes below",
			plural.Count(s.nObs-s.grewAt, "observation"), plural.Count(s.knownSafe(), unit), len(s.res.X)))
	}
	names := s.gpNames()
	// A constraint whose values spread further from its limit than its
	// kernel's variance allows: the GP cannot believe any other action
	// is as safe as the ones measured.
	g := s.constraintData()
	for i, vals := range g {
		if len(vals) < 2 || i >= len(s.model.Constraints) {
			continue
		}
		v := 1.0
		if p := s.model.Constraints[i].Variance; p != nil {
			v = *p
		}
		rms := 0.0
		for _, x := range vals {
			rms += x * x
		}
		rms = math.Sqrt(rms / float64(len(vals)))
		if rms > 2*math.Sqrt(v) {
			what := s.u.constraintLabel(names, i)
			notes = append(notes, fmt.Sprintf("%s's values lie %.3g from its limit on average, and its kernel's standard deviation is %.3g: raise its variance to about %.3g, or fit the model (model.fit)", what, rms, math.Sqrt(v), rms*rms))
		}
	}
	if s.res.Spec.ObjectiveThreshold != nil {
		// f ≥ h_f is a safety condition: a setting is tried only once
		// f's lower bound clears it too, and a seed near that limit,
		// for how fast f changes, leaves little room.
		notes = append(notes, fmt.Sprintf("the objective's limit is a safety condition too: a setting is tried only once the model vouches that %s keeps it; a seed whose %s lies near that limit, for how fast it changes there, leaves little room: start from a seed further inside, or drop the objective's limit if a constraint already guards what it does", names[0], names[0]))
	}
	seeds := len(s.res.Seed)
	if s.res.Box != nil {
		seeds = len(s.res.Box.Seeds)
	}
	if seeds == 1 {
		notes = append(notes, "the study started from one seed: give more settings known to be safe (seeds), spread over the space")
	}
	if b := s.model.Beta; b == nil || b.Paper {
		notes = append(notes, "β follows the paper's schedule, which is conservative: a fixed β (beta: 16) expands faster, but on the controllers of docs/fitting.md every fixed β from 4 to 16 broke a limit in some runs where the paper's broke none; more seeds, spread over the space, are the safer way")
	}
	if s.model.Fit == nil {
		notes = append(notes, "the kernels are as configured: fit them to the data (model.fit: {when: auto})")
	}
	notes = append(notes, s.res.Notes()...)
	notes = append(notes, s.lengthscaleNote(names))
	return notes
}

// lengthscaleNote says the shortest lengthscale of the model in force,
// the GP's and how far a measurement vouches with it: with data a unit
// from the limit (a study stated in parameters' transform) and the
// paper's √β ≈ 6, a neighbour r away is certified only while k(r) ≥
// 0.986, r below about 0.13 lengthscales for Matérn 5/2
// (docs/fitting.md, "Why the grid is fine").
func (s *Study) lengthscaleNote(names []string) string {
	short, who := math.Inf(1), ""
	var groups []int // a study stated in parameters' choices have lengthscales of their own
	if f := s.model.Fit; f != nil {
		groups = f.Groups
	}
	for j, k := range append([]kernel.Spec{*s.model.Objective}, s.model.Constraints...) {
		for c, l := range k.Lengthscale {
			if len(groups) == len(k.Lengthscale) && groups[c] != 0 {
				continue // a choice's: how far its values correlate, not a step's reach
			}
			if l < short {
				short, who = l, names[j]
			}
		}
	}
	if n, ok := s.u.lengthscaleNote(short, who); ok {
		return n
	}
	return "the lengthscales may be too short for the space: each measurement then vouches for its own neighbourhood only"
}

// constraintData returns each constraint's values in force, in the
// policies' units, less its threshold: how far from the limit.
func (s *Study) constraintData() [][]float64 {
	m := len(s.res.Spec.Thresholds)
	out := make([][]float64, m)
	for k := range s.events {
		e := &s.events[k] // by reference: a copy would escape through the units
		if e.Kind != "tell" || s.retracted[e.Seq] != 0 {
			continue
		}
		o := s.observation(e)
		for i := 0; i < m && i < len(o.G); i++ {
			out[i] = append(out[i], o.G[i]-s.res.Spec.Thresholds[i])
		}
	}
	return out
}

// shortBatch says why an ask call handed out fewer asks than asked:
// want asked for, got handed out, room what the horizon left.
func (s *Study) shortBatch(want, got, leased, room int) string {
	why := ""
	switch {
	case got >= room:
		why = fmt.Sprintf("the horizon of %d leaves room for %s beside the %d observations", s.res.Spec.Horizon, plural.Count(room, "more ask"), s.nObs)
	case leased > 0:
		why = fmt.Sprintf("%s %s leased to other workers, and the policy has no further distinct action to suggest", plural.Count(leased, "pending ask"), plural.Of(leased, "is"))
	case s.res.Spec.Algorithm.MaxBatch() == 1:
		why = s.res.Spec.Algorithm.Name + " asks one point at a time: tell it, then ask again"
	case s.res.Box == nil && s.res.ContextKernel == nil:
		why = fmt.Sprintf("the asks of a batch are distinct actions known to be safe, and the policy had no further one to suggest (%s known safe: the safe set and the seeds)", plural.Count(s.knownSafe(), "action"))
	default:
		why = "the policy had no further distinct point to suggest"
	}
	return fmt.Sprintf("asked for %d, handed out %d: %s", want, got, why)
}

// knownSafe counts the actions known to be safe: the policy's safe set
// and the seed set.
func (s *Study) knownSafe() int {
	s.pol.Inspect(&s.safeSnap, bandit.SafeSet)
	return s.knownSafeIn(&s.safeSnap)
}

// knownSafeIn is knownSafe from a snapshot that holds the safe set.
func (s *Study) knownSafeIn(snap *bandit.Snapshot) int {
	n := snap.SafeSetSize
	for _, i := range s.res.Seed {
		if i < len(snap.Safe) && !snap.Safe[i] && (s.viol+s.nFail == 0 || !s.excludedSeed(i)) {
			n++
		}
	}
	return n
}
