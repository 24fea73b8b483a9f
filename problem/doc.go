// Package problem defines a safe bandit instance — decision set, objective,
// constraints, thresholds and seed set — and draws, reads and analyzes them
// (SPEC §1, §6, §9).
//
// An objective threshold h_f (Problem.HF) makes f ≥ h_f one more safety
// condition (SPEC §5, "Safe objective"): every quantity of SPEC §1 — D^s_0,
// D^s_ε, x*, the L_i, R̄_ε(S_0) and f*_ε, and the violations Safe counts —
// is defined with f added to the list of constraint functions
// (Problem.Safety). A problem then needs no constraint: files
// x1…xd,f[,seed] are read as such.
//
// A contextual problem (Contextual, GenerateContext) is one problem per
// context of a finite set C, drawn jointly on D × C, sharing the decision
// set and a seed set safe in every context.
//
// Layer 2 (docs/layout.md): it imports kernel and internal packages only,
// never a policy (bandit) or anything above.
package problem
