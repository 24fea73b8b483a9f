package bandit

import "github.com/safegp/safegp/internal/argmax"

// sgpUCB is paper Algorithm 1 (SPEC §4): T' rounds of pure exploration on
// the seed set, then GP-UCB on the estimated safe set D^s_t.
type sgpUCB struct {
	*models
	uncertainty bool
	keepSeed    bool
	explore2    bool // Spec.Repeats "explore": phase 2 explores rather than repeat
	phase       phase
	safe        []bool
	isSeed      []bool
	size        int
	updated     int // the round update last prepared
}

func newSGPUCB(m *models, uncertainty bool, rule Exploration, keepSeed, explore bool) *sgpUCB {
	n := len(m.set.X)
	s := &sgpUCB{
		models:      m,
		uncertainty: uncertainty,
		keepSeed:    keepSeed,
		explore2:    explore,
		phase:       newPhase(rule, m.opt.Horizon),
		safe:        make([]bool, n),
		isSeed:      make([]bool, n),
	}
	for _, i := range m.set.Seed {
		s.isSeed[i] = true
	}
	s.update()
	return s
}

func (s *sgpUCB) base() *models { return s.models }

// choose implements rule.
func (s *sgpUCB) choose() (int, error) {
	t := s.update()
	if s.phase.in(t) {
		if a := s.explore(); a >= 0 {
			return a, nil
		}
		// Every seed was excluded (failed.go): phase 2 on D^s_t.
	}
	a := s.argmaxUpper(s.inPhase2)
	if a >= 0 && s.known(s.f.Std(a)) {
		if e := argmax.Func(len(s.set.X), s.inPhase2, s.constraintStd); e >= 0 && s.teaches(func(c safetyGP) float64 { return c.gp.Std(e) }) {
			a = e
		}
	}
	if a < 0 {
		// D^s_t is empty (T' too short): fall back to the seed set (SPEC §4).
		// −1 when it is empty too: ErrNoSafeAction.
		a = s.argmaxUpper(s.inSeed)
	}
	return a, nil
}

// known reports whether phase 2's choice, whose σ_{f,t−1} is sd, is one
// the repeats rule "explore" replaces (Spec.Repeats): f's posterior
// variance there below half its noise variance, where one more
// measurement shrinks that variance by at most a third and grows D^s_t
// only as far as the setting's neighbours were already certified. Only
// with a safety condition: without one D^s_t cannot grow.
func (s *sgpUCB) known(sd float64) bool {
	return s.explore2 && len(s.safety) > 0 && sd*sd < 0.5*s.f.NoiseVar()
}

// teaches reports whether the setting of largest constraint uncertainty,
// whose σ for safety condition c is std(c), is one the repeats rule
// measures instead: some condition's posterior variance there at least
// half its noise variance. Where every condition is known too (a safe
// set of the seeds alone, measured again and again) exploring teaches
// nothing either, and the round keeps the paper's choice: repeating the
// setting of largest uncertainty would only measure the noise of a seed
// near its limit until one measurement fell below it.
func (s *sgpUCB) teaches(std func(c safetyGP) float64) bool {
	for _, c := range s.safety {
		if sd := std(c); sd*sd >= 0.5*c.gp.NoiseVar() {
			return true
		}
	}
	return false
}

func (s *sgpUCB) inPhase2(i int) bool { return s.safe[i] || (s.keepSeed && s.inSeed(i)) }
func (s *sgpUCB) inSeed(i int) bool   { return s.isSeed[i] && s.allowed(i) }

// update prepares round t = observations + 1 — β_t, D^s_t and the phase
// rule — once per round, and returns t. It uses no randomness.
func (s *sgpUCB) update() int {
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

// inspect implements rule: D^s_t, and T' or the rounds explored so far
// while the plateau rule has not ended phase 1.
func (s *sgpUCB) inspect(dst *Snapshot, d Detail) {
	s.snapshot(dst, d, s.update(), s.safe, s.size, s.phase.rounds(s.t))
}

// explore is the phase-1 rule: a uniformly random seed action, or the seed
// action of largest constraint uncertainty max_i σ_{g_i,t−1} (f's σ among
// them with an objective threshold: f ≥ h_f is one more constraint); −1
// when every seed was excluded.
func (s *sgpUCB) explore() int {
	seed := s.seeds()
	if len(seed) == 0 {
		return -1
	}
	if !s.uncertainty {
		return seed[s.opt.Rand.IntN(len(seed))]
	}
	return argmax.List(seed, s.constraintStd)
}

// constraintStd is max_i σ_{g_i,t−1}(x) over the safety conditions (0
// when there is none).
func (s *sgpUCB) constraintStd(i int) float64 {
	u := 0.0
	for _, c := range s.safety {
		u = max(u, c.gp.Std(i))
	}
	return u
}

// prepare implements rule. Preparing the next round as soon as an
// observation is told keeps the state's changes in Tell: choose and
// inspect merely read it (a study replayed from its records then matches
// the live one exactly).
func (s *sgpUCB) prepare() { s.update() }
