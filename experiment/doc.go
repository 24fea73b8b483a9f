// Package experiment reads an experiment configuration, runs every
// algorithm on every realization of a problem in parallel and
// deterministically, and writes the results (SPEC §6, §9).
//
// With problem.context (context.go), a drawn problem depends on a context
// drawn each round and told to every algorithm before it asks
// (OnContexts), and the regret is contextual: against the safe optimum of
// the round's context.
//
// Runs stream to runs.jsonl as they finish, and results.json and
// summary.csv are made from it one line at a time (ExecuteToDir). An
// experiment's work units, its (algorithm, realization) pairs, can be run
// as shards on separate machines (Options.Units, Shard, WriteOptions.Shard)
// and merged into exactly the unsharded output (Merge; shard.go).
//
// Layer 6 (docs/layout.md): it may import bandit, config, fit, gp, kernel,
// plot, problem, theory and internal packages; never study, store, server,
// reproduce or sweep.
package experiment
