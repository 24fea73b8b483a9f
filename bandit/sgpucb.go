package bandit

import (
	"github.com/safegp/safegp/gp"
	"github.com/safegp/safegp/internal/argmax"
)

// SGPUCB is paper Algorithm 1 (SPEC §4): T' rounds of pure exploration on
// the seed set, then GP-UCB on the estimated safe set D^s_t.
type SGPUCB struct {
	models
	next        cached
	uncertainty bool
	keepSeed    bool
	phase       phase
	safe        []bool
	isSeed      []bool
	size        int
	updated     int // the round update last prepared
}

func newSGPUCB(env *Env, uncertainty bool, rule Exploration, keepSeed bool) *SGPUCB {
	s := &SGPUCB{
		models:      newModels(env, true),
		uncertainty: uncertainty,
		keepSeed:    keepSeed,
		phase:       newPhase(rule, env.Horizon),
		safe:        make([]bool, len(env.X)),
		isSeed:      make([]bool, len(env.X)),
	}
	for _, i := range env.Seed {
		s.isSeed[i] = true
	}
	s.update()
	return s
}

// Next implements Policy.
func (s *SGPUCB) Next() int {
	t := s.update()
	if a, ok := s.next.get(t); ok {
		return a
	}
	if s.phase.in(t) {
		return s.next.set(t, s.explore())
	}
	a := s.argmaxUpper(func(i int) bool { return s.safe[i] || (s.keepSeed && s.isSeed[i]) })
	if a < 0 {
		// D^s_t is empty (T' too short): fall back to the seed set (SPEC §4).
		a = s.argmaxUpper(func(i int) bool { return s.isSeed[i] })
	}
	return s.next.set(t, a)
}

// update prepares round t = observations + 1 — β_t, D^s_t and the phase
// rule — once per round, and returns t. It uses no randomness.
func (s *SGPUCB) update() int {
	t := s.t + 1
	if s.updated == t {
		return t
	}
	s.updated = t
	s.beta()
	s.size = s.gpSafe(s.safe)
	s.phase.start(t, s.size)
	return t
}

// Inspect implements Policy.
func (s *SGPUCB) Inspect() Snapshot { return s.snapshot(s.update(), s.safe) }

// explore is the phase-1 rule: a uniformly random seed action, or the seed
// action of largest constraint uncertainty max_i σ_{g_i,t−1}.
func (s *SGPUCB) explore() int {
	seed := s.env.Seed
	if !s.uncertainty {
		return seed[s.env.Rand.IntN(len(seed))]
	}
	return argmax.List(seed, s.constraintStd)
}

// constraintStd is max_i σ_{g_i,t−1}(x) (0 when there is no constraint).
func (s *SGPUCB) constraintStd(i int) float64 {
	u := 0.0
	for _, g := range s.g {
		u = max(u, g.Std(i))
	}
	return u
}

// Observe implements Policy. It also prepares the next round, so that the
// policy's state changes only here: Next and Inspect merely read it (a
// study replayed from its records then matches the live one exactly).
func (s *SGPUCB) Observe(i int, y float64, z []float64) {
	s.observe(i, y, z)
	s.update()
}

// SafeSetSize implements Policy: |D^s_t| of the last round asked.
func (s *SGPUCB) SafeSetSize() int { return s.size }

// ExplorationRounds implements Policy: T', or the rounds explored so far
// while the plateau rule has not ended phase 1.
func (s *SGPUCB) ExplorationRounds() int { return s.phase.rounds(s.t) }

// Models returns the posteriors of f and of each g_i (read-only: plotting
// and inspection use them).
func (s *SGPUCB) Models() (*gp.Model, []*gp.Model) { return s.f, s.g }

// SafeSet returns D^s_t as computed by the last Next (read-only).
func (s *SGPUCB) SafeSet() []bool { return s.safe }
