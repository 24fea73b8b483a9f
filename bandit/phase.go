package bandit

// phase decides when an exploration phase ends (SPEC §4): T' for SGP-UCB,
// t* for SafeOpt-MC, stage 1 for StageOpt. A fixed rule knows the length in
// advance; the plateau rule watches the safe-set size.
type phase struct {
	rule     Exploration
	horizon  int
	length   int  // valid when decided
	decided  bool // the phase has a known end
	runStart int  // plateau: first round k with sizes k … now all equal
	lastSize int
}

func newPhase(rule Exploration, horizon int) phase {
	p := phase{rule: rule, horizon: horizon, runStart: 1, lastSize: -1}
	p.length, p.decided = rule.Length(horizon)
	return p
}

// start is called at the start of round t with the size of the safe set the
// round will use (|S_1| … |S_t| are then known). The plateau rule ends the
// phase after round t−1 when the size has not changed over the last window
// rounds (|S_{t−window}| = … = |S_t|), or when t−1 reaches the cap or the
// horizon.
func (p *phase) start(t, size int) {
	if p.decided || p.rule.Plateau == nil {
		return
	}
	if size != p.lastSize {
		p.runStart, p.lastSize = t, size
	}
	pl := p.rule.Plateau
	if t-1 >= min(pl.Cap, p.horizon) || (t-1 >= 1 && t-p.runStart >= pl.Window) {
		p.length, p.decided = t-1, true
	}
}

// stop ends the phase after round t−1 (StageOpt's early end).
func (p *phase) stop(t int) {
	if !p.decided || p.length > t-1 {
		p.length, p.decided = t-1, true
	}
}

// in reports whether round t belongs to the phase; call start(t) first.
func (p *phase) in(t int) bool { return !p.decided || t <= p.length }

// rounds is the phase length, or the rounds spent in it so far (done
// observations) while its end is unknown.
func (p *phase) rounds(done int) int {
	if p.decided {
		return min(p.length, done)
	}
	return done
}
