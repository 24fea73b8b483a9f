package bandit

// ParallelObserve exposes the N·t from which the GPs are updated
// concurrently, so that tests can check they cross it.
const ParallelObserve = parallelObserve

// WithdrawPending drops every pending ask of a policy New built, as if
// they had never been handed out (the IDs go on from the last): the batch
// benchmarks time batches from 0 pending at a fixed t with it.
func WithdrawPending(p Policy) {
	l := p.(*loop)
	l.pending = l.pending[:0]
	l.m.hall.dirty = true
}

// ForgetRound makes a SafeOpt-family policy forget what it computed for
// the current round (M_t, G_t, the outside actions within reach, the
// expander tests' answers), so that the next choice costs what a round's
// first does: the batch benchmarks time whole rounds with it.
func ForgetRound(p Policy) {
	if o, ok := p.(*loop).rule.(*safeOpt); ok {
		o.mRound, o.gRound, o.reachRound, o.knownRound, o.boundRound = 0, 0, 0, 0, 0
	}
}
