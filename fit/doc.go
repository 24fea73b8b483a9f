// Package fit estimates a Gaussian process's hyperparameters from data:
// the variance v, the lengthscale ℓ (one, or one per input dimension with
// ARD) and the noise variance σ² of a zero-mean GP with an se, matern32 or
// matern52 kernel (SPEC §2), by type-II maximum a posteriori estimation,
// or maximum likelihood without a prior.
//
// # Objective
//
// With K = v·Φ(ℓ) + σ²I over the t observations, Fit maximizes
//
//	log p(y | θ) + log p(θ),   log p(y | θ) = −½ yᵀK⁻¹y − ½ log|K| − (t/2) log 2π
//
// (Rasmussen & Williams 2006, eq. 2.30) over the log-parameters
// θ = (log v, log ℓ_1 … log ℓ_p, log σ²), with the gradient of eq. 5.9,
// ½ tr((ααᵀ − K⁻¹) ∂K/∂θ_j), α = K⁻¹y, by L-BFGS (gonum's optimize).
// With known noise (Fit's noiseVar) the diagonal holds each observation's
// σ²_s and θ has no log σ². One evaluation costs the Cholesky factor of K
// (t³/3 flops) and, with the gradient, K⁻¹ from it (2t³/3 more); the
// pairwise squared differences of the inputs are computed once per fit.
//
// The prior mean is 0, as everywhere in safegp: Fit does not centre y.
// Data far from 0 are explained by a large variance and long lengthscales,
// which widens every confidence interval; centre them first (subtract a
// constant c, such as the mean of the measured values, from every value,
// and the same c from the function's safety threshold h, since g ≥ h is
// g − c ≥ h − c) and, if their scale is far from 1, divide values and
// threshold by the same s > 0. Fit warns when the values' mean is more than
// twice their standard deviation away from 0.
//
// # Priors
//
// PriorNone is maximum likelihood: log p(θ) = 0. PriorDefault, in the
// style of Optuna's GP sampler (optuna/_gp/prior.py: a gamma prior on the
// kernel scale and on the noise variance, for standardized values) and of
// the dimension-scaled log-normal lengthscale prior of C. Hvarfner, E. O.
// Hellsten, L. Nardi, "Vanilla Bayesian Optimization Performs Great in
// High Dimensions" (ICML 2024), which Optuna and BoTorch adopted, puts
// independent priors on the parameters scaled to the data, since safegp
// does not standardize them:
//
//	v / v0        ~ Gamma(shape 2, rate 2)       mean 1
//	σ² / v0       ~ Gamma(shape 1.1, rate 10)    mean 0.11
//	log ℓ_j       ~ Normal(log m_j, 3)
//
// v0 is the mean of y², the values' second moment about the prior mean 0
// (so v0 is the variance of centred data). m_j is the inputs' range along
// dimension j times √d with ARD, as Hvarfner et al. scale the median with
// √d so that the scaled distance of a typical pair stays near 1 as d
// grows; isotropic, the diagonal of the inputs' bounding box. The variance
// 3 of log ℓ_j is theirs (a factor e^√3 ≈ 5.7 per standard deviation).
// Optuna's noise prior for standardized values is Gamma(1.1, 30), mean
// 0.037; ours has rate 10, mean 0.11 of v0, because real systems measured
// by sensors are noisier than the deterministic objectives Optuna tunes,
// and in safe optimization an underestimated noise makes the confidence
// intervals, and so the safe set, too optimistic. GPy offers the same
// families (Gamma, LogGaussian) without defaults.
//
// The densities are over the log-parameters, the coordinates Fit maximizes
// in: for u ~ Gamma(a, b), log u has log density a·log u − b·u + const,
// so the prior's mode in those coordinates is the mean a/b, and a > 0
// keeps v and σ² away from 0 and ∞. LogPosterior includes every
// normalizing constant.
//
// # Floors
//
// No parameter can cross its floor, so a fit never collapses:
//
//	σ² ≥ 1e-6·v0, fitted or known (a known variance below it is raised to it)
//	ℓ_j ≥ 1e-3 × the inputs' range along dimension j (ARD), or
//	ℓ ≥ 1e-3 × the smallest non-zero range (isotropic)
//
// The noise floor is Optuna's minimum noise (1e-6 for standardized values)
// and bounds K's condition number by about 1 + 10⁶·t·v/v0, so that its
// Cholesky factor exists even for repeated inputs measured exactly. The
// lengthscale floor is three orders of magnitude below the inputs' extent:
// a function varying that fast is one the data can resolve only where
// points lie closer than about 1e-3 × range (in one dimension, MaxPoints
// evenly spread points are 2e-4 × range apart; in more, points are
// sparser), and once ℓ is below the spacing of the points the likelihood
// is flat (K is v·I + σ²I on distinct points) and
// the optimizer would drift. A dimension along which every point is the
// same has no range; its lengthscale, which the data cannot determine,
// uses the largest range instead. Fit warns when a parameter ends within 1 %
// of its floor, and when the variance ends below 1e-6·v0 (no floor: a fit
// that finds no signal says so).
//
// The floors are built into the optimizer's coordinates: v = v0·e^{z_0},
// ℓ_j = floor_j + m_j·e^{z_j}, σ² = floor + v0·e^{z_σ}, so that every
// point L-BFGS tries is a valid model. |z| beyond 30 (a factor 10¹³ from
// the data's scale) evaluates to +∞, and so does a K that is not
// numerically positive definite; the line search then steps back.
//
// # Restarts
//
// Options.Restarts optimizer runs start from: first a fixed point (v = v0,
// σ² = v0/10, ℓ = the median distance between the points, or with ARD
// the median |x_j − x'_j| times √d), then points drawn from the default
// prior (also for PriorNone). With at least 200 points, every run first
// climbs on a random half of the points, where an evaluation costs an
// eighth of one on all of them (L-BFGS, stopped when the gradient's largest
// entry is below 1e-2), and runs whose climbs end at the same optimum
// (within 1e-3 in log posterior and a factor e^0.5 in every parameter) are
// merged; the two distinct climbs with the highest log posterior on the
// half are then finished on all the points (L-BFGS, stopped when the
// gradient's largest entry is below 1e-5, as SciPy's L-BFGS-B defaults
// that scikit-learn uses, or when two iterations in a row improve the
// objective by less than 1e-10 relative). With fewer points every run is
// finished on all of them. The best finished run is kept. Start points and
// the half are drawn from Options.Seed up front, and the runs are
// deterministic, so the result depends on the seed alone, not on
// Options.Workers.
//
// # Limits
//
// A fit takes at most MaxPoints points; Bytes estimates its memory, which
// Options.MaxMemory bounds.
//
// Layer 3 (docs/layout.md): it imports kernel, problem and internal
// packages only; it knows no policy, configuration or study.
package fit
