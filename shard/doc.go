// Package shard is the one home of work units, shards and their merge,
// for every command that runs configurations: run, reproduce and sweep.
//
// A command's work is a list of units in a canonical
// order — for one configuration, the (algorithm a, realization r) pairs,
// algorithm-major: unit a·R + r; for several (reproduce's experiments, a
// sweep's cells), numbered on from one to the next, a configuration's
// units starting at base. Units are dealt by realization: unit (a, r) of
// the configuration at base belongs to shard ((base + r) mod n) + 1, so
// that every algorithm of one realization runs in one shard, which draws
// and analyses that realization's problem once (dealing single units
// round-robin sent a realization's five algorithms to five shards, each
// drawing its problem: +16 % CPU for 7 shards of the paper's regime),
// and the realizations, of equal cost across them, are dealt round-robin,
// which balances the shards. (A sweep deals a run its cells share with
// the first cell that has it, so that one shard plays it for all, and a
// sweep of many cells deals whole cells, which a shard then writes
// finished (Info.Finished): the sweep package's dealing.) A run
// depends only on the seed, a and r (stream), so a shard's runs are, bit
// for bit, those of the whole experiment, and a merge puts them back in
// order.
//
// This package deals the units (Shard), describes a shard folder
// (shard.json: Info, Read, Write), checks that a set of folders is one
// whole (Check), reads the shards' runs back in unit order (Lines) and
// copies a folder a shard wrote finished (CopyFinished). What a run is,
// and what a merge computes from the runs, are the callers'.
//
// Layer 1 (docs/layout.md): it imports internal packages only.
package shard
