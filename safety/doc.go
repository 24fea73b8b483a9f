// Package safety runs the safety benchmark of issue 28 (docs/safety.md):
// problems drawn from one GP and modelled with another — the right
// model as the control, lengthscales 2× and 3× too long, a kernel
// variance 4× too small, the noise believed 3× smaller, kernels fitted
// to the first measurements — and the paper's own setting, each with the
// paper's five algorithms, SafeOpt in both modes, LoSBO, the two
// constrained-EI baselines and, with a frequentist β, SGP-UCB and SafeOpt.
// It writes each scenario's experiment folder, a figure and REPORT.md,
// whose table gives per algorithm and scenario the runs with a violation,
// the violating rounds and the regret.
//
// The scenarios are the embedded examples/safety/*.yaml; the frequentist
// runs are those files with model.beta replaced (FrequentistBeta).
package safety
