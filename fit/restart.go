package fit

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"sync"

	"gonum.org/v1/gonum/optimize"
)

// fitter holds what every restart shares; each worker brings its own work.
type fitter struct {
	ctx   context.Context // stops the fit (Fit)
	dt    *data
	sc    scales
	prior Prior
	sub   *fitter // the same on a subset of the points, or nil
}

// The optimizer's coordinates z are the log-parameters θ shifted by their
// data scales and with the floors built in, so that every z ∈ ℝⁿ is a valid
// model and the floors are never crossed:
//
//	v   = v0·e^{z_0}
//	ℓ_j = floor_j + median_j·e^{z_j}
//	σ²  = floor_σ² + v0·e^{z_n}
//
// With a cap on the lengthscales, ℓ_j = floor_j + u/(1 + u/c) with
// u = median_j·e^{z_j} and c = cap − floor_j: the same near the floor,
// and never beyond the cap.

// theta maps z to θ = (log v, log ℓ_j[, log σ²]), and returns in jac the
// derivatives dθ_i/dz_i.
func (f *fitter) theta(theta, jac, z []float64) {
	theta[0] = z[0] + math.Log(f.sc.v0)
	jac[0] = 1
	for j := range f.sc.lmed {
		e := f.sc.lmed[j] * math.Exp(z[1+j])
		if f.sc.lcap != nil && !math.IsInf(f.sc.lcap[j], 1) {
			c := f.sc.lcap[j] - f.sc.lfloor[j]
			l := f.sc.lfloor[j] + e/(1+e/c)
			theta[1+j], jac[1+j] = math.Log(l), e/((1+e/c)*(1+e/c))/l
			continue
		}
		l := f.sc.lfloor[j] + e
		theta[1+j], jac[1+j] = math.Log(l), e/l
	}
	if n := 1 + len(f.sc.lmed); n < len(z) {
		e := f.sc.v0 * math.Exp(z[n])
		s := f.sc.nfloor + e
		theta[n], jac[n] = math.Log(s), e/s
	}
}

// z is the inverse of theta, for start points: each parameter is raised
// to twice its floor first.
func (f *fitter) z(theta []float64) []float64 {
	z := make([]float64, len(theta))
	z[0] = theta[0] - math.Log(f.sc.v0)
	for j := range f.sc.lmed {
		l := math.Max(math.Exp(theta[1+j]), 2*f.sc.lfloor[j])
		w := l - f.sc.lfloor[j]
		if f.sc.lcap != nil && !math.IsInf(f.sc.lcap[j], 1) {
			c := f.sc.lcap[j] - f.sc.lfloor[j]
			w = math.Min(w, 0.999*c)
			w /= 1 - w/c
		}
		z[1+j] = math.Log(w / f.sc.lmed[j])
	}
	if n := 1 + len(f.sc.lmed); n < len(z) {
		s := math.Max(math.Exp(theta[n]), 2*f.sc.nfloor)
		z[n] = math.Log((s - f.sc.nfloor) / f.sc.v0)
	}
	for i, v := range z {
		z[i] = math.Max(-zmax+1, math.Min(zmax-1, v))
	}
	return z
}

// evaluator is one restart's objective, the negative log posterior over
// z, with its scratch.
type evaluator struct {
	f               *fitter
	w               *work
	theta, jac, gth []float64
	evals           int
}

func (e *evaluator) inBox(z []float64) bool {
	for _, v := range z {
		if !(math.Abs(v) <= zmax) {
			return false
		}
	}
	return true
}

// value is the log posterior (and the log marginal likelihood) at z; ok is
// false outside the box or where K is not positive definite.
func (e *evaluator) value(z []float64) (lpost, lml float64, ok bool) {
	if !e.inBox(z) {
		return 0, 0, false
	}
	e.f.theta(e.theta, e.jac, z)
	lml, ok = e.w.logML(e.theta)
	if !ok {
		return 0, 0, false
	}
	lpost = lml
	if e.f.prior == PriorDefault {
		lpost += e.f.sc.logPrior(nil, e.theta, e.f.dt.known == nil)
	}
	return lpost, lml, true
}

func (e *evaluator) fn(z []float64) float64 {
	if fitTestHook != nil {
		fitTestHook()
	}
	e.evals++
	lpost, _, ok := e.value(z)
	if !ok {
		return math.Inf(1)
	}
	return -lpost
}

func (e *evaluator) grad(g, z []float64) {
	e.f.theta(e.theta, e.jac, z)
	if _, ok := e.w.grad(e.gth, e.theta); !ok || !e.inBox(z) {
		// Not reached in practice: gonum asks for a gradient only where
		// the value was finite. A zero gradient ends the run there.
		clear(g)
		return
	}
	if e.f.prior == PriorDefault {
		e.f.sc.logPrior(e.gth, e.theta, e.f.dt.known == nil)
	}
	for i, v := range e.gth {
		g[i] = -v * e.jac[i]
	}
}

// Convergence, as SciPy's L-BFGS-B defaults that scikit-learn uses: stop
// when the gradient's largest entry is below gradTol, or when an iteration
// improves the objective by less than relTol of its size.
const (
	gradTol  = 1e-5
	relTol   = 1e-10
	maxIters = 1000
)

// Climbing on a subset (package documentation, "Restarts"): with at
// least climbFrom points, every restart first climbs on a random half of
// them, where an evaluation costs an eighth of one on all of them; only the
// finishCount best distinct climbs are then finished on all the points.
const (
	climbFrom   = 200
	finishCount = 2
	// climbGradTol ends a climb: where it ends only needs to be close
	// enough for the finish on all the data.
	climbGradTol = 1e-2
	// sameValue and sameZ tell climbs that ended at the same optimum:
	// within sameValue in log posterior and sameZ in every coordinate
	// (a factor e^0.5 in every parameter). Value alone is not enough: a
	// climb may end anywhere along a flat valley of the subset's
	// objective, whose points can finish at different optima.
	sameValue = 1e-3
	sameZ     = 0.5
)

// subset is the fitter on a random half of the points (rounded up).
func (f *fitter) subset(x [][]float64, y, known []float64, rng *rand.Rand) *fitter {
	t := len(x)
	idx := rng.Perm(t)[:(t+1)/2]
	slices.Sort(idx)
	m := len(idx)
	xs, ys := make([][]float64, m), make([]float64, m)
	var ks []float64
	if known != nil {
		ks = make([]float64, m)
	}
	for i, k := range idx {
		xs[i], ys[i] = x[k], y[k]
		if known != nil {
			ks[i] = known[k]
		}
	}
	// The same scales as on all the points, so that a point z means the
	// same parameters on both.
	return &fitter{ctx: f.ctx, dt: newDataGroups(xs, ys, ks, f.dt.fam, f.dt.groups), sc: f.sc, prior: f.prior}
}

// climbAll runs the climbs, marks in runs the ones that end where an
// earlier one did (Same), replaces each start by where its climb ended,
// and returns the restarts worth finishing, best first: without a subset
// all of them, in order; with one, the distinct climbs, best first.
func (f *fitter) climbAll(runs []Run, starts [][]float64, workers int) []int {
	for r := range runs {
		runs[r] = Run{Same: -1, ClimbLogPosterior: math.NaN(), LogMarginalLikelihood: math.NaN(), LogPosterior: math.NaN()}
	}
	if f.sub == nil {
		all := make([]int, len(runs))
		for r := range all {
			all[r] = r
		}
		return all
	}
	ends := make([][]float64, len(runs))
	forEach(f.ctx, len(runs), workers, func() *work { return newWork(f.sub.dt, workers) }, func(r int, w *work) {
		ends[r] = f.sub.climb(&runs[r], w, starts[r])
	})
	var distinct []int
	for r := range runs {
		for _, q := range distinct {
			if sameClimb(ends[r], ends[q], runs[r].ClimbLogPosterior, runs[q].ClimbLogPosterior) {
				runs[r].Same = q
				break
			}
		}
		if runs[r].Same < 0 {
			distinct = append(distinct, r)
		}
	}
	// Best climbs first; a failed one (NaN) last; ties by restart order.
	slices.SortStableFunc(distinct, func(a, b int) int {
		la, lb := runs[a].ClimbLogPosterior, runs[b].ClimbLogPosterior
		switch {
		case la > lb || (la == la && lb != lb):
			return -1
		case lb > la || (lb == lb && la != la):
			return 1
		}
		return 0
	})
	for _, r := range distinct {
		starts[r] = ends[r]
	}
	return distinct
}

// finishAll finishes the restarts todo in parallel and returns the best
// of them (the highest log posterior, the lowest index on ties), or −1
// when none reached a usable point.
func (f *fitter) finishAll(runs []Run, ends, starts [][]float64, todo []int, workers int) int {
	forEach(f.ctx, len(todo), workers, func() *work { return newWork(f.dt, workers) }, func(i int, w *work) {
		r := todo[i]
		ends[r] = f.finish(&runs[r], w, starts[r])
	})
	best := -1
	for _, r := range todo {
		if runs[r].Err != nil {
			continue
		}
		if best < 0 || runs[r].LogPosterior > runs[best].LogPosterior || (runs[r].LogPosterior == runs[best].LogPosterior && r < best) {
			best = r
		}
	}
	return best
}

// climb runs L-BFGS on f's data (the subset) from start, records the
// climb in run, and returns the log-parameters it ended at (start itself
// when it failed).
func (f *fitter) climb(run *Run, w *work, start []float64) []float64 {
	e := newEvaluator(f, w)
	res, _ := minimize(e, f.z(start), climbGradTol)
	run.ClimbEvaluations = e.evals
	if res == nil {
		return start
	}
	lpost, _, ok := e.value(res.X)
	if !ok {
		return start
	}
	run.ClimbLogPosterior = lpost
	f.theta(e.theta, e.jac, res.X)
	return slices.Clone(e.theta)
}

// finish runs L-BFGS on all the data from the log-parameters start,
// records it in run, and returns the point z it ended at.
func (f *fitter) finish(run *Run, w *work, start []float64) []float64 {
	run.Finished = true
	e := newEvaluator(f, w)
	res, err := minimize(e, f.z(start), gradTol)
	run.Evaluations = e.evals
	if res == nil {
		run.Err = err
		return nil
	}
	run.Status = res.Status.String()
	// The optimizer's best point, evaluated again: its value and the log
	// marginal likelihood apart from the prior.
	lpost, lml, ok := e.value(res.X)
	if !ok {
		if err == nil {
			err = errors.New("the covariance matrix is not positive definite at the end point")
		}
		run.Err = err
		return nil
	}
	if err != nil {
		// A line search that can make no more progress ends the run at its
		// best point, which is a result like any other.
		run.Status += " (" + err.Error() + ")"
	}
	run.LogPosterior, run.LogMarginalLikelihood = lpost, lml
	return slices.Clone(res.X)
}

func minimize(e *evaluator, z0 []float64, gtol float64) (*optimize.Result, error) {
	prob := optimize.Problem{Func: e.fn, Grad: e.grad}
	settings := &optimize.Settings{
		GradientThreshold: gtol,
		Converger:         &stopConverge{ctx: e.f.ctx, Converger: &optimize.FunctionConverge{Relative: relTol, Absolute: relTol, Iterations: 2}},
		MajorIterations:   maxIters,
		FuncEvaluations:   5 * maxIters,
	}
	return optimize.Minimize(prob, z0, settings, &optimize.LBFGS{GradStopThreshold: gtol})
}

func newEvaluator(f *fitter, w *work) *evaluator {
	n := f.dt.nparams()
	return &evaluator{f: f, w: w, theta: make([]float64, n), jac: make([]float64, n), gth: make([]float64, n)}
}

// sameClimb reports whether two climbs, ended at z-points a and b with log
// posteriors la and lb, reached the same optimum.
func sameClimb(a, b []float64, la, lb float64) bool {
	if !(math.Abs(la-lb) <= sameValue) {
		return false
	}
	for i, v := range a {
		if math.Abs(v-b[i]) > sameZ {
			return false
		}
	}
	return true
}

// forEach runs job(i, s) for i = 0 … n−1 on up to workers goroutines, each
// with its own scratch s from newScratch.
func forEach[S any](ctx context.Context, n, workers int, newScratch func() S, job func(i int, s S)) {
	next := make(chan int, n)
	for i := range n {
		next <- i
	}
	close(next)
	var wg sync.WaitGroup
	for range min(workers, n) {
		wg.Go(func() {
			s := newScratch()
			for i := range next {
				if ctx.Err() != nil {
					continue // drain: a stopped fit starts no restart
				}
				job(i, s)
			}
		})
	}
	wg.Wait()
}

// fixedStart is the first restart's start point: v = v0, the data's second
// moment; σ² = v0/10; ℓ = the median distance between the points (ARD:
// the median |Δ_j| times √d, so that the scaled distance of a typical pair
// is about 1), each raised to twice its floor.
func (s scales) fixedStart(x [][]float64, fitNoise bool) []float64 {
	p := len(s.lmed)
	theta := make([]float64, 1+p, 2+p)
	theta[0] = math.Log(s.v0)
	for j := range p {
		m := medianDistance(x, j, p)
		if p > 1 {
			m *= math.Sqrt(float64(p))
		}
		if !(m > 0) {
			m = s.lmed[j]
		}
		theta[1+j] = math.Log(math.Max(m, 2*s.lfloor[j]))
	}
	if fitNoise {
		theta = append(theta, math.Log(math.Max(s.v0/10, 2*s.nfloor)))
	}
	return theta
}

// medianDistance is the median over pairs of |x_ij − x_kj| (p > 1) or of
// ‖x_i − x_k‖ (p = 1), over at most 20 000 pairs taken evenly: a start
// point needs no more precision.
func medianDistance(x [][]float64, j, p int) float64 {
	t := len(x)
	np := pairs(t)
	stride := max(1, np/20000)
	ds := make([]float64, 0, min(np, 20000+1))
	q := 0
	for i := 0; i < t; i++ {
		for k := i + 1; k < t; k++ {
			if q%stride == 0 {
				var v float64
				if p > 1 {
					v = math.Abs(x[i][j] - x[k][j])
				} else {
					for c := range x[i] {
						e := x[i][c] - x[k][c]
						v += e * e
					}
					v = math.Sqrt(v)
				}
				ds = append(ds, v)
			}
			q++
		}
	}
	slices.Sort(ds)
	return ds[len(ds)/2]
}

// fitTestHook, when a test sets it, runs at every evaluation of the
// objective (TestFitStops cancels a fit from within).
var fitTestHook func()

// stopConverge is the optimizer's convergence test, which ends a run when
// ctx is done (Fit then returns ctx's error): gonum's optimize checks it
// at every major iteration. Otherwise it is the wrapped test's answer.
type stopConverge struct {
	ctx context.Context
	optimize.Converger
}

func (c *stopConverge) Converged(loc *optimize.Location) optimize.Status {
	if c.ctx.Err() != nil {
		return optimize.RuntimeLimit
	}
	return c.Converger.Converged(loc)
}
