// Package defaults is what a study stated in parameters (study.Spec with
// parameters, an objective, limits and seeds) gets for what it leaves
// out: its model — kernels on the unit cube, noise, δ, the fits'
// schedule, caps and variance floors — and its search, sgp-ucb on a
// candidate grid or line-bo's clouds on a box. Each value says where it
// was measured and what the alternatives did (BenchmarkTuneControllers,
// docs/tuning.md); the package resolves nothing else, so that the
// defaults can be read, and changed, in one place.
package defaults
