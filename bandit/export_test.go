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
