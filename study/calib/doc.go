// Package calib is the calibration check of a study's model (docs/
// safety.md): for each tell, whether any of its values fell outside its
// confidence interval before the policy learned it (Check), and over the
// recent tells, whether such a count is plausible under the model (Of,
// the Poisson-binomial tail) — and, when it is not, what that means for
// the algorithm and what to do (Note). It computes and words; the study
// keeps the points and says which tells are in force.
//
// Layer 5 (docs/layout.md): it imports bandit (what an algorithm's safety
// rests on) and nothing else of the module.
package calib
