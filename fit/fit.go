package fit

import (
	"context"
	"errors"
	"fmt"
	"github.com/safegp/safegp/internal/chol"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"

	"github.com/safegp/safegp/internal/quote"

	"github.com/safegp/safegp/internal/memlimit"
	"github.com/safegp/safegp/kernel"
	"github.com/safegp/safegp/problem"
)

// ErrInvalid is returned (wrapped) for data or options a fit cannot use.
var ErrInvalid = errors.New("invalid fit")

// ErrFailed is returned (wrapped) when no restart reached a usable point.
var ErrFailed = errors.New("fit failed")

// Limits.
const (
	// MaxPoints bounds the observations of one fit: a fit keeps about
	// 1.5–2·t² floats per worker (K, then K⁻¹ in its place, and the
	// kernel's values per pair) and an evaluation costs t³ flops with its
	// gradient. On the project's machine (2 cores, shared) a fit with ARD
	// in 3 dimensions and 5 restarts took 18 s at t = 1 000 and 2.4 min at
	// t = 2 000; at 5 000 it takes about half an hour.
	MaxPoints = 5000
	// MaxRestarts bounds Options.Restarts.
	MaxRestarts = 1000
	// DefaultRestarts is the number of restarts when Options.Restarts is 0.
	DefaultRestarts = 5
)

// Options configure a fit. The zero value fits an isotropic se kernel
// with the default prior, DefaultRestarts restarts, seed 0, on every core.
type Options struct {
	Kernel string // "se" (default when empty), "matern32" or "matern52"
	ARD    bool   // one lengthscale per input dimension
	// Groups, if not nil, ties input dimension j to lengthscale
	// Groups[j] (0 … p−1, each used): dimensions of one group share a
	// lengthscale, as a study stated in parameters' numeric coordinates
	// do apart from each choice's. It overrides ARD; the Result has one
	// lengthscale per dimension.
	Groups   []int
	Restarts int    // optimizer runs in all (0: DefaultRestarts): the first from a fixed start, the others from the prior
	Prior    Prior  // PriorDefault (MAP) or PriorNone (maximum likelihood)
	Seed     uint64 // seeds the restarts' start points
	Workers  int    // restarts run in parallel (0: GOMAXPROCS); the result does not depend on it
	// MaxMemory refuses a fit whose memory estimate (Bytes) is above it;
	// 0 means memlimit.Default.
	MaxMemory int64
	// MaxLengthscale, if > 0, bounds every lengthscale above, in the
	// inputs' units: data that vary little (a constraint far from its
	// limit wherever it was measured) would otherwise be fitted with
	// lengthscales long enough to extrapolate them, and the safe set
	// with them, over the whole domain. A study stated in parameters
	// bounds them by half the unit cube's width.
	MaxLengthscale float64
	// RangeLengthscale, if > 0, bounds lengthscale ℓ_j also by this
	// multiple of the inputs' range along dimension j, but never below
	// RangeFloor: no correlation much longer than the data have spanned,
	// so that a model is not extrapolated far beyond what it has seen (a
	// constraint that falls along a dimension the points barely cover),
	// while points that all coincide along a dimension still let it
	// correlate over RangeFloor. Without ARD, the diagonal's range.
	RangeLengthscale, RangeFloor float64
}

// Result is a fitted GP model of one function.
type Result struct {
	// Spec is the fitted kernel: Kernel, Lengthscale (one, or one per
	// dimension with ARD), Variance, and NoiseStd, the fitted noise
	// standard deviation σ. With known noise (Fit's noiseVar non-nil),
	// NoiseStd is nil: the noise was not a parameter, and each observation
	// keeps its own.
	Spec kernel.Spec
	// LogMarginalLikelihood is log p(y | θ) at the fitted parameters.
	LogMarginalLikelihood float64
	// LogPosterior is LogMarginalLikelihood plus the log prior density of
	// the log-parameters (equal to it with PriorNone): what the fit
	// maximizes.
	LogPosterior float64
	// Runs reports every restart, in the order their start points were
	// drawn; Best indexes the one kept.
	Runs []Run
	Best int
	// Warnings say where the fit is doubtful: a parameter at its floor,
	// data far from the zero prior mean.
	Warnings []string
}

// Run is one restart.
type Run struct {
	// ClimbEvaluations counts the objective's evaluations (each with its
	// gradient, but for line-search trials) of the climb on the subset,
	// and ClimbLogPosterior is the log posterior on the subset where the
	// climb ended: 0 and NaN without a subset (fewer than 200 points).
	ClimbEvaluations  int
	ClimbLogPosterior float64
	// Same is −1, or the earlier restart whose climb ended at the same
	// optimum: this one shares its result.
	Same int
	// Finished says whether the run was finished on all the data (else its
	// climb was not among the best, or it is the Same as another).
	Finished              bool
	Evaluations           int     // on all the data
	LogMarginalLikelihood float64 // at the end on all the data; NaN if not finished
	LogPosterior          float64 // at the end on all the data; NaN if not finished
	Status                string  // how the optimizer stopped on all the data
	Err                   error   // why a finished run reached no usable point
}

// Bytes estimates the memory of a fit of t points in d dimensions: the
// squared differences of the pairs (d per pair with ARD, else one), and per
// worker K (t² floats) and the kernel's values per pair (one, or two for
// the Matérn kernels); from climbFrom points, the same again for the
// subset of half the points.
func Bytes(t, d int, ard bool, kernelName string, workers int) int64 {
	one := func(t int64) int64 {
		pr := t * (t - 1) / 2
		p := int64(1)
		if ard {
			p = int64(d)
		}
		per := int64(2)
		if kernelName == "se" || kernelName == "" {
			per = 1
		}
		// Per worker: K (t²), the pairs' kernel values, α and the
		// accumulators, and the tiled inverse's scratch (chol).
		w := memlimit.Mul(int64(workers), memlimit.Mul(8, t*t+per*pr+8*t+int64(chol.Tile)*t))
		return memlimit.Mul(8, memlimit.Mul(pr, p)) + w
	}
	b := one(int64(t))
	if t >= climbFrom {
		b += one(int64(t+1) / 2)
	}
	return b
}

// Fit estimates the variance, the lengthscale(s) and, unless noiseVar is
// given, the noise variance of a zero-mean GP from observations y at inputs
// x (t×d, t ≥ 2), by maximizing the log posterior (or, with PriorNone, the
// log marginal likelihood) with L-BFGS from Options.Restarts start points
// and keeping the best. noiseVar, if not nil, holds each observation's
// known noise variance σ²_s ≥ 0 (raised to the noise floor), and the noise
// is not fitted. y is not centred: the model's prior mean is 0 (see the
// package documentation). Fit does not keep x, y or noiseVar.
//
// A fit costs O(t³) per evaluation and may take seconds: it stops, with
// ctx's error, when ctx is done (a study's ask whose client went away, a
// server shutting down, Ctrl-C), checking before each restart and at each
// iteration of the optimizer. An uncancelled fit is unchanged by ctx.
func Fit(ctx context.Context, x [][]float64, y []float64, noiseVar []float64, opt Options) (Result, error) {
	fam, workers, err := settle(x, y, noiseVar, &opt)
	if err != nil {
		return Result{}, err
	}
	t, d := len(x), len(x[0])
	groups := opt.Groups
	if groups == nil {
		groups = ardGroups(opt.ARD, d)
	}
	sc := newScalesGroups(x, y, groups)
	if opt.MaxLengthscale > 0 || opt.RangeLengthscale > 0 {
		sc.capLengthscales(opt)
	}
	if !(sc.v0 >= 1e-200) {
		return Result{}, fmt.Errorf("%w: every value is 0 or within 1e-100 of it: nothing to fit (scale the data)", ErrInvalid)
	}
	var known []float64
	if noiseVar != nil {
		known = make([]float64, t)
		for i, v := range noiseVar {
			known[i] = math.Max(v, sc.nfloor)
		}
	}
	fs := &fitter{ctx: ctx, dt: newDataGroups(x, y, known, fam, groups), sc: sc, prior: opt.Prior}

	// Every start point, and the subset, is drawn before any restart runs,
	// each from its own stream, so that the result depends on the seed
	// alone, not on the workers, and the subset not on the restarts.
	rng := rand.New(rand.NewPCG(opt.Seed, streamStarts))
	starts := make([][]float64, opt.Restarts)
	starts[0] = sc.fixedStart(x, known == nil)
	for r := 1; r < opt.Restarts; r++ {
		starts[r] = sc.draw(rng, known == nil)
	}
	if t >= climbFrom {
		fs.sub = fs.subset(x, y, known, rand.New(rand.NewPCG(opt.Seed, streamSubset)))
	}
	runs := make([]Run, opt.Restarts)
	ends := make([][]float64, opt.Restarts)
	order := fs.climbAll(runs, starts, workers)
	// The finishCount best climbs are finished; should none of them reach
	// a usable point (not seen in practice), the others are tried too.
	first := order
	if fs.sub != nil && len(first) > finishCount {
		first = order[:finishCount]
	}
	best := fs.finishAll(runs, ends, starts, first, workers)
	if best < 0 && len(first) < len(order) {
		best = fs.finishAll(runs, ends, starts, order[len(first):], workers)
	}
	if err := ctx.Err(); err != nil {
		return Result{}, fmt.Errorf("fit stopped: %w", err)
	}
	copySame(runs)
	if best < 0 {
		return Result{}, noPoint(runs, order)
	}
	return fs.result(ends[best], runs, best, opt, y), nil
}

// settle fills in opt's defaults (kernel, restarts) and checks it and the
// data before any work, reporting the first problem in the order Fit
// documents; it returns the kernel's family and the number of workers.
func settle(x [][]float64, y, noiseVar []float64, opt *Options) (family, int, error) {
	if opt.Kernel == "" {
		opt.Kernel = "se"
	}
	fam, ok := families[opt.Kernel]
	if !ok {
		return fam, 0, fmt.Errorf("%w: kernel %s: want one of %v", ErrInvalid, quote.Short(opt.Kernel), names)
	}
	if err := checkData(x, y, noiseVar); err != nil {
		return fam, 0, err
	}
	switch {
	case opt.Restarts == 0:
		opt.Restarts = DefaultRestarts
	case opt.Restarts < 0 || opt.Restarts > MaxRestarts:
		return fam, 0, fmt.Errorf("%w: restarts: want 1…%d, got %d", ErrInvalid, MaxRestarts, opt.Restarts)
	}
	if opt.Prior != PriorDefault && opt.Prior != PriorNone {
		return fam, 0, fmt.Errorf("%w: prior: unknown %v", ErrInvalid, opt.Prior)
	}
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, opt.Restarts)
	t, d := len(x), len(x[0])
	limit := opt.MaxMemory
	if limit <= 0 {
		limit = memlimit.Default
	}
	if b := Bytes(t, d, opt.ARD || opt.Groups != nil, opt.Kernel, workers); b > limit {
		return fam, 0, fmt.Errorf("%w: a fit of %d points in %d dimensions with %d workers needs about %s, above the limit of %s", memlimit.ErrTooLarge, t, d, workers, memlimit.Format(b), memlimit.Format(limit))
	}
	if err := checkCaps(*opt); err != nil {
		return fam, 0, err
	}
	if err := checkGroups(opt.Groups, d); err != nil {
		return fam, 0, err
	}
	return fam, workers, nil
}

// checkGroups accepts nil, or one group per dimension, numbered 0 … p−1
// with each used.
func checkGroups(groups []int, d int) error {
	if groups == nil {
		return nil
	}
	if len(groups) != d {
		return fmt.Errorf("%w: groups: %d for %d dimensions: give one per dimension", ErrInvalid, len(groups), d)
	}
	used := make([]bool, d)
	for j, g := range groups {
		if g < 0 || g >= d {
			return fmt.Errorf("%w: groups[%d] = %d: want 0 … %d", ErrInvalid, j, g, d-1)
		}
		used[g] = true
	}
	if p := slices.Max(groups) + 1; slices.Contains(used[:p], false) {
		return fmt.Errorf("%w: groups %v: number them 0 … %d, each used", ErrInvalid, groups, p-1)
	}
	return nil
}

// checkCaps checks the lengthscale caps' options, when one is set: finite,
// not negative, and a range cap with a positive floor.
func checkCaps(opt Options) error {
	if !(opt.MaxLengthscale > 0 || opt.RangeLengthscale > 0) {
		return nil
	}
	if !(opt.MaxLengthscale < math.Inf(1)) || !(opt.RangeLengthscale < math.Inf(1)) || !(opt.RangeFloor < math.Inf(1)) ||
		opt.MaxLengthscale < 0 || opt.RangeLengthscale < 0 || opt.RangeFloor < 0 || (opt.RangeLengthscale > 0 && !(opt.RangeFloor > 0)) {
		return fmt.Errorf("%w: MaxLengthscale %v, RangeLengthscale %v, RangeFloor %v", ErrInvalid, opt.MaxLengthscale, opt.RangeLengthscale, opt.RangeFloor)
	}
	return nil
}

// capLengthscales sets each lengthscale's cap from opt (checked by
// checkCaps), and keeps the floor below the cap and the prior's median
// below half of it.
func (s *scales) capLengthscales(opt Options) {
	s.lcap = make([]float64, len(s.lmed))
	for j := range s.lcap {
		c := math.Inf(1)
		if opt.MaxLengthscale > 0 {
			c = opt.MaxLengthscale
		}
		if opt.RangeLengthscale > 0 {
			c = math.Min(c, math.Max(opt.RangeFloor, opt.RangeLengthscale*s.ranges[j]))
		}
		s.lcap[j] = c
		// The cap stays above the floor, and the prior's median below
		// the cap.
		s.lfloor[j] = math.Min(s.lfloor[j], c/4)
		s.lmed[j] = math.Min(s.lmed[j], c/2)
	}
}

// copySame gives each run that ended where an earlier one did (Run.Same)
// that run's status and scores.
func copySame(runs []Run) {
	for r := range runs {
		if q := runs[r].Same; q >= 0 {
			runs[r].Status, runs[r].Err = runs[q].Status, runs[q].Err
			runs[r].LogMarginalLikelihood, runs[r].LogPosterior = runs[q].LogMarginalLikelihood, runs[q].LogPosterior
		}
	}
}

// noPoint is Fit's error when no run reached a usable point, wrapping the
// first error in climbing order.
func noPoint(runs []Run, order []int) error {
	var err error
	for _, r := range order {
		if err = runs[r].Err; err != nil {
			break
		}
	}
	return fmt.Errorf("%w: no restart of %d reached a point where the covariance matrix is positive definite: %w", ErrFailed, len(runs), err)
}

// Streams of the seeded random numbers (PCG's second word).
const (
	streamStarts = 0x5afe6f17
	streamSubset = 0x5afe5b5e
)

// checkData checks the shapes and values of a fit's data.
func checkData(x [][]float64, y, noiseVar []float64) error {
	t := len(x)
	switch {
	case t < 2:
		return fmt.Errorf("%w: needs at least 2 points, got %d", ErrInvalid, t)
	case t > MaxPoints:
		return fmt.Errorf("%w: %d points, more than the %d a fit takes (memory O(t²), time O(t³)): fit on a subset", ErrInvalid, t, MaxPoints)
	case len(y) != t:
		return fmt.Errorf("%w: %d values for %d points", ErrInvalid, len(y), t)
	case noiseVar != nil && len(noiseVar) != t:
		return fmt.Errorf("%w: %d noise variances for %d points", ErrInvalid, len(noiseVar), t)
	}
	d := len(x[0])
	if d == 0 {
		return fmt.Errorf("%w: points have dimension 0", ErrInvalid)
	}
	for i, xi := range x {
		if len(xi) != d {
			return fmt.Errorf("%w: point %d: dimension %d, want %d", ErrInvalid, i, len(xi), d)
		}
		for j, v := range xi {
			if !problem.InRange(v) {
				return fmt.Errorf("%w: point %d: x%d = %v is not a finite number within ±1e100", ErrInvalid, i, j+1, v)
			}
		}
		if !problem.InRange(y[i]) {
			return fmt.Errorf("%w: value %d: %v is not a finite number within ±1e100", ErrInvalid, i, y[i])
		}
		if noiseVar != nil && !(noiseVar[i] >= 0 && noiseVar[i] <= 1e200) {
			return fmt.Errorf("%w: noise variance %d: %v is not a finite number in 0…1e200", ErrInvalid, i, noiseVar[i])
		}
	}
	return nil
}

// result builds the Result of the best run, ending at z.
func (f *fitter) result(z []float64, runs []Run, best int, opt Options, y []float64) Result {
	n := len(z)
	theta, jac := make([]float64, n), make([]float64, n)
	f.theta(theta, jac, z)
	p := len(f.sc.lmed)
	v := math.Exp(theta[0])
	ls := make(kernel.Lengthscale, p)
	for j := range ls {
		ls[j] = math.Exp(theta[1+j])
	}
	spec := ls
	if opt.Groups != nil {
		// One per dimension, its group's.
		spec = make(kernel.Lengthscale, len(opt.Groups))
		for j, g := range opt.Groups {
			spec[j] = ls[g]
		}
	}
	res := Result{
		Spec:                  kernel.Spec{Kernel: opt.Kernel, Lengthscale: spec, Variance: &v},
		LogMarginalLikelihood: runs[best].LogMarginalLikelihood,
		LogPosterior:          runs[best].LogPosterior,
		Runs:                  runs,
		Best:                  best,
	}
	if v < noiseFloor*f.sc.v0 {
		res.Warnings = append(res.Warnings, fmt.Sprintf("variance %.3g is below 1e-6 of the values' mean square %.3g: the fit finds no signal, only noise", v, f.sc.v0))
	}
	for j, l := range ls {
		if l < 1.01*f.sc.lfloor[j] {
			key := "lengthscale"
			if p > 1 {
				key = fmt.Sprintf("lengthscale[%d]", j)
			}
			res.Warnings = append(res.Warnings, fmt.Sprintf("%s %.3g is at its floor (%.3g): the data show no correlation at that scale", key, l, f.sc.lfloor[j]))
		}
	}
	if f.dt.known == nil {
		s2 := math.Exp(theta[1+p])
		sd := math.Sqrt(s2)
		res.Spec.NoiseStd = &sd
		if s2 < 1.01*f.sc.nfloor {
			res.Warnings = append(res.Warnings, fmt.Sprintf("noise variance %.3g is at its floor (%.3g): the fit interpolates the data", s2, f.sc.nfloor))
		}
	}
	var mean float64
	for _, v := range y {
		mean += v
	}
	mean /= float64(len(y))
	if spread := math.Sqrt(math.Max(f.sc.v0-mean*mean, 0)); math.Abs(mean) > 2*spread {
		res.Warnings = append(res.Warnings, fmt.Sprintf("the values' mean %.3g is more than twice their standard deviation %.3g from 0, the model's prior mean: centre the data", mean, spread))
	}
	return res
}

// LogMarginalLikelihood returns log p(y | θ) (Rasmussen & Williams 2006,
// eq. 2.30) of a zero-mean GP with the kernel s (se, matern32 or
// matern52, with its variance, lengthscale(s) and, unless noiseVar is
// given, noise_std) at inputs x, and its gradient (eq. 5.9) with respect to
// the log-parameters (log v, log ℓ_1 … log ℓ_p, then log σ² when the noise
// is s's). It is what Fit maximizes, without prior and floors; it costs
// O(t³) time and O(t²) memory, within the limits of Fit.
func LogMarginalLikelihood(x [][]float64, y, noiseVar []float64, s kernel.Spec) (float64, []float64, error) {
	fam, ok := families[s.Kernel]
	if !ok {
		return 0, nil, fmt.Errorf("%w: kernel %s: want one of %v", ErrInvalid, quote.Short(s.Kernel), names)
	}
	if err := checkData(x, y, noiseVar); err != nil {
		return 0, nil, err
	}
	if _, err := kernel.New(s); err != nil {
		return 0, nil, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	d := len(x[0])
	if err := kernel.CheckDim(s, d); err != nil {
		return 0, nil, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	if noiseVar == nil && s.NoiseStd == nil {
		return 0, nil, fmt.Errorf("%w: noise_std: missing, and no known noise variances given", ErrInvalid)
	}
	ard := len(s.Lengthscale) > 1
	dt := newData(x, y, noiseVar, fam, ard)
	theta := make([]float64, dt.nparams())
	theta[0] = 0
	if s.Variance != nil {
		theta[0] = math.Log(*s.Variance)
	}
	for j, l := range s.Lengthscale {
		theta[1+j] = math.Log(l)
	}
	if noiseVar == nil {
		theta[1+dt.p] = 2 * math.Log(*s.NoiseStd)
	}
	g := make([]float64, len(theta))
	lml, ok := newWork(dt, 1).grad(g, theta)
	if !ok {
		return 0, nil, fmt.Errorf("%w: the covariance matrix is not positive definite (exact values at repeated inputs need a noise variance > 0)", ErrFailed)
	}
	return lml, g, nil
}
