// Package sweep runs a base experiment configuration over the Cartesian
// product of axes — key paths into the configuration and their values —
// as a research sweep does (issue 14): every cell is built by setting the
// key paths in the base's YAML tree and decoding the result as an
// ordinary configuration, every cell is checked before anything runs,
// each runs as `safegp run` runs a configuration (experiment.Execute)
// into its own folder, and a table and figure across cells summarise the
// final average regret R_T/T, violations and exploration lengths.
//
// Units lists a sweep's runs in the canonical order the team's sharding
// counts them in (cell, then algorithm, then realization).
//
// The package knows the experiment package and the output-folder rules
// (internal/outdir); it holds no algorithm of its own.
//
// Layer 9 (docs/layout.md): it may import experiment, plot and internal
// packages; never study, store, server or reproduce.
package sweep
