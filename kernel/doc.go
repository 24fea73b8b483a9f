// Package kernel provides the covariance functions used to model the
// objective and the constraints as Gaussian processes (SPEC §2).
//
// The stationary kernels (se, matern32, matern52) take one lengthscale ℓ,
// or one ℓ_j per input dimension (ARD: r² = Σ_j (x_j − y_j)²/ℓ_j²), which
// must number the decision set's dimension (CheckDim). A Spec, the
// configuration form, may also carry the noise σ of the measurements of
// the function it models (noise_std), in place of the model's.
//
// Product is the kernel k_x·k_c of a GP on points (x, c) with a context c
// (NewContext builds k_c: stationary, variance 1), which equals k_x to the
// bit when the contexts are equal.
//
// Layer 1 (docs/layout.md): it imports internal packages only.
package kernel
