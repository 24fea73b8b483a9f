// Package gp maintains a Gaussian-process posterior over a finite decision
// set, updated incrementally one observation at a time (SPEC §2).
// Observations may lie outside the set and carry their own noise variance;
// the model keeps the Cholesky factor of their Gram matrix, so that it can
// move its data onto another set (Model.OnSet) and score them
// (Model.LogMarginalLikelihood) without refactorizing. Hallucinated
// conditions its variance on pending points whose values are not known
// yet (GP-BUCB's batches).
//
// Layer 2 (docs/layout.md): it imports kernel and internal packages only,
// never a policy (bandit) or anything above.
package gp
