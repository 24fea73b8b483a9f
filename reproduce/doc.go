// Package reproduce runs every experiment of the paper — the illustration,
// the regret comparison in three regimes with its implementation-choice
// ablations, the linear-kernel and the phase-1 comparisons — and writes
// their figures and a report that checks each of the paper's claims
// (SPEC §6). A reproduction can run as shards of its runs and be merged
// (Options.Shard, Merge; shard.go).
//
// Layer 9 (docs/layout.md): it may import experiment, plot, bandit, kernel,
// problem, theory and internal packages; never study, store, server or
// sweep.
package reproduce
