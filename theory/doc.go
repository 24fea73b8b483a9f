// Package theory computes the quantities of the paper's regret analysis —
// β_t, the information-gain bound, B, C_1, the regret bound, feature maps
// and their covariance's smallest eigenvalue, the exploration length T'
// of Theorems 2 and 4 (SPEC §7), and SafeOpt-MC's t* of Berkenkamp et al.
// 2016, Theorem 1 (SafeOptTStar, SPEC §5).
//
// The paper's stationary kernels are isotropic. A kernel with one
// lengthscale ℓ_j per input dimension (ARD) is the isotropic kernel of
// ℓ = 1 on the decision set rescaled by 1/ℓ_j in coordinate j, and every
// quantity here that depends on the set (λ̃_−, the QFF lemma's box, the
// measured ε_0) is computed for that set: the QFF and RFF maps scale their
// frequencies per coordinate, and the QFF box is measured in lengthscales.
// Theorem 4 thus applies to ARD kernels unchanged; nothing here assumes
// isotropy beyond that exact rescaling.
//
// Layer 2 (docs/layout.md): it imports kernel and internal packages only,
// never a policy (bandit) or anything above.
package theory
