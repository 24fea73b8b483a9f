// Package config holds the sections and checks that an experiment's
// configuration (package experiment) and a study's specification (package
// study) share, so that both check them one way (SPEC §8, §9): the model
// section, the horizon, the thresholds with the optional objective
// threshold h_f (CheckSafety), ε, and the names and kernel of contexts
// (Context, CheckContextNames). It sits below both, so that
// neither imports the other.
//
// Errors name the key relative to the section they check and unwrap to
// ErrInvalid; each caller puts them under its key and makes them its own
// kind with fielderr.Recast.
//
// Layer 4 (docs/layout.md): it may import bandit, fit, kernel, problem and
// internal packages; never experiment, study, store or server.
package config
