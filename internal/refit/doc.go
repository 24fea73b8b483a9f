// Package refit re-estimates a run's kernels from its own observations
// when its model's fit block asks for it (model.fit, config.Fit): one
// fit.Fit per GP, with the block's kernel family and options, each from a
// seed derived from the run's. An experiment's run and a study both call
// it; package config holds the block and its checks, and runs nothing.
//
// Layer 5 (docs/layout.md): it imports config, fit and kernel only.
package refit
