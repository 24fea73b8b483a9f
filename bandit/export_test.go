package bandit

// ParallelObserve exposes the N·t from which the GPs are updated
// concurrently, so that tests can check they cross it.
const ParallelObserve = parallelObserve
