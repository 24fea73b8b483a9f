// Package safegp holds the example experiment configurations, embedded so
// that `safegp reproduce` runs the paper's experiments from a bare binary;
// the library itself lives in the packages below it (kernel, gp, problem,
// bandit, experiment, theory, plot, reproduce).
package safegp
