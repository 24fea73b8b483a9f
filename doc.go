// Package safegp holds the example experiment configurations, embedded so
// that `safegp reproduce` runs the paper's experiments from a bare binary;
// the library itself lives in the packages below it (kernel, gp, problem,
// bandit, experiment, theory, plot, reproduce, study, server).
//
// Comments throughout cite "SPEC §n": section n of the project's
// specification, docs/algorithms.md, which defines exactly what is
// computed. docs/README.md indexes the rest of the documentation.
package safegp
