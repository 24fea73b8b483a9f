package experiment

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"

	"github.com/safegp/safegp/bandit"
	"github.com/safegp/safegp/config"
	"github.com/safegp/safegp/internal/memlimit"
	"github.com/safegp/safegp/internal/refit"
	"github.com/safegp/safegp/kernel"
	"github.com/safegp/safegp/problem"
)

// Run is one algorithm played on one realization (SPEC §9).
type Run struct {
	Algorithm   string `json:"algorithm"`
	Label       string `json:"label"`
	Realization int    `json:"realization"`
	// Actions, Regret, ReachableRegret and SafeSetSize are those of a
	// finite problem (never empty there: T ≥ 1); a benchmark function's
	// runs (problem.function) have Points, Values, BestSafe and
	// SimpleRegret instead (onFunction).
	Actions           []int     `json:"actions,omitempty"`
	Regret            []float64 `json:"regret,omitempty"`
	ReachableRegret   []float64 `json:"reachable_regret,omitempty"`
	Violations        int       `json:"violations"`
	SafeSetSize       []int     `json:"safe_set_size,omitempty"`
	ExplorationRounds int       `json:"exploration_rounds"`
	// Points are the points played, Values f there (exact), BestSafe
	// the best safe value after each round and SimpleRegret f* minus it
	// (onFunction's definitions).
	Points       [][]float64 `json:"points,omitempty"`
	Values       []float64   `json:"values,omitempty"`
	BestSafe     []float64   `json:"best_safe,omitempty"`
	SimpleRegret []float64   `json:"simple_regret,omitempty"`
	// ModelRegret, for a finite-set algorithm on a benchmark's grid with
	// a known f*, is f* minus f at the model's guess after each round:
	// the argmax of the posterior mean of f over the policy's safe set
	// (all of D for gp-ucb; the seeds while it is empty), before the
	// round's observation
	// (the transductive-active-learning paper's simple regret, where
	// SimpleRegret is that of the best safe value played); the safe
	// set's size is then in SafeSetSize.
	ModelRegret []float64 `json:"model_regret,omitempty"`
	// SeedBest is f's best value over the seed points, the best safe
	// value before round 1: where the share of the way to f* starts
	// (Curve.MeanShare). Nil for a finite problem's run, and in results
	// written before it was recorded.
	SeedBest *float64 `json:"seed_best,omitempty"`
	// Fits are the fits of model.fit made during the run (none without
	// it: the field is then left out of results.json).
	Fits []RunFit `json:"fits,omitempty"`
	// Contexts are the rounds' contexts with problem.context: indices
	// into problem.context.values (OnContexts).
	Contexts []int `json:"contexts,omitempty"`

	violationRounds []int // 0-based rounds that violated a constraint
}

// Clone returns a copy of r that shares no array r's decoder may write
// over (WriteOptions.Runs): the per-round series, points, contexts and
// the fits' list are copied; a fit's kernels and log-likelihoods, which
// nothing writes after the fit, are shared.
func (r *Run) Clone() Run {
	c := *r
	c.Actions = slices.Clone(r.Actions)
	c.Regret = slices.Clone(r.Regret)
	c.ReachableRegret = slices.Clone(r.ReachableRegret)
	c.SafeSetSize = slices.Clone(r.SafeSetSize)
	c.Values = slices.Clone(r.Values)
	c.BestSafe = slices.Clone(r.BestSafe)
	c.SimpleRegret = slices.Clone(r.SimpleRegret)
	c.ModelRegret = slices.Clone(r.ModelRegret)
	c.Fits = slices.Clone(r.Fits)
	c.Contexts = slices.Clone(r.Contexts)
	c.violationRounds = slices.Clone(r.violationRounds)
	if r.SeedBest != nil {
		v := *r.SeedBest
		c.SeedBest = &v
	}
	if r.Points != nil {
		c.Points = make([][]float64, len(r.Points))
		for i, p := range r.Points {
			c.Points[i] = slices.Clone(p)
		}
	}
	return c
}

// RunFit is one fit of a run: made before round Round (1-based), on the
// warm-start rows and the rounds played before it.
type RunFit struct {
	Round int `json:"round"`
	config.FitRecord
}

// Results is the content of results.json.
type Results struct {
	Config *Config `json:"config"`
	Runs   []Run   `json:"runs"`
}

// Options tune how an experiment runs; they never change its results.
type Options struct {
	// Workers is the number of goroutines; 0 means all cores.
	Workers int
	// Slots, if set, is shared by executions running at once (reproduce
	// runs its experiments side by side): each run is played, and each
	// problem drawn, only while holding one of its cap(Slots) tokens, so
	// that together they never play more than that at once while one's
	// serial parts (writing, figures) overlap another's runs. Results do
	// not depend on it.
	Slots chan struct{}
	// Progress, if set, is called (from any goroutine) after each run.
	Progress func()
	// MaxMemory is the memory limit in bytes: 0 means memlimit.Default,
	// a negative value no limit.
	MaxMemory int64
	// Chunk, if positive, caps the realizations held at a time (Plan
	// sizes it from memory otherwise). Results never depend on it.
	Chunk int
	// Units, if set, selects the work units to run: algorithm a (an
	// index into Config.Algorithms) on realization r runs only if
	// Units(a, r). A run's result depends only on the seed, a and r
	// (stream), never on which other units run, so a shard's runs are
	// those of the whole experiment (Shard.Select). nil runs every unit.
	Units func(a, r int) bool
	// Reuse, if set, is asked for every selected unit before its chunk
	// runs: a run it returns is used as unit (a, r)'s instead of playing
	// it, and a realization whose every selected unit it supplies draws
	// no problem. It must return a run that unit (a, r) would play bit
	// for bit (a sweep's earlier cell whose run of the algorithm depends
	// on the same settings), and nil for a unit to play.
	Reuse func(a, r int) *Run
	// Played, if set, is called with every run played (not those Reuse
	// supplied), from one goroutine, before the sink has it: a sweep
	// keeps there the runs its later cells reuse. The run is not changed
	// after, so the callee may keep it.
	Played func(a int, run *Run)
}

// held lists the realizations with at least one selected unit and counts
// the units.
func (o Options) held(c *Config) (reals []int, units int) {
	for r := 0; r < c.Realizations; r++ {
		k := 0
		for a := range c.Algorithms {
			if o.Units == nil || o.Units(a, r) {
				k++
			}
		}
		if k > 0 {
			reals = append(reals, r)
			units += k
		}
	}
	return reals, units
}

// Random streams: realization r of an experiment with root seed s draws
// from PCG(s, mix(r, purpose)), so a stream depends only on (s, r) and its
// purpose — never on worker count or on the other algorithms (SPEC §6).
// Every algorithm of a realization sees the same noise sequence and the same
// policy stream.
const (
	streamProblem = 1
	streamNoise   = 2
	streamPolicy  = 3
	streamFit     = 4 // the seed of a run's fits (model.fit)
)

func stream(seed uint64, r, purpose int) *rand.Rand {
	return rand.New(rand.NewPCG(seed, splitmix(uint64(r)<<8|uint64(purpose))))
}

// splitmix is SplitMix64's finalizer: distinct inputs give well-mixed,
// distinct PCG sequence selectors.
func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// Instance is one realization's problem with its derived quantities.
type Instance struct {
	Problem *problem.Problem
	Info    *problem.Info
	// A benchmark function's (problem.function): the seed points, the
	// best f among them; Problem and Info are then its grid problem, nil
	// without a grid.
	Seeds    [][]float64
	SeedBest float64
	noiseStd float64
	// noiseBound is problem.noise_bound: the uniform noise's bound.
	noiseBound float64
	fn         *function // the realization's function (its own draw for gp-sample)
	// Context is a contextual problem's realization (problem.context):
	// Problem and Info are then those of its first context.
	Context *ContextInstance
	// Reach0 is |R̄_0(D^w)| (problem.Problem.Reach0) when an algorithm
	// needs it (safeopt-mc's exploration: theory), else 0.
	Reach0 int
}

// Instance draws (or reads) the problem of realization r; fixed, if not
// nil, is the problem file's content, shared by every realization.
func (c *Config) Instance(r int, fixed *problem.Problem) (Instance, error) {
	return c.instance(r, fixed, nil)
}

// instance is Instance with fixed's analysis, if not nil, shared by every
// realization of the file (issue 13: at N = 10⁵ the ε-reachable set was
// computed again per realization); Info is only read downstream.
func (c *Config) instance(r int, fixed *problem.Problem, fixedInfo *problem.Info) (Instance, error) {
	if c.fn != nil {
		return c.functionInstance(r)
	}
	if c.Problem.Context != nil {
		return c.contextInstance(r)
	}
	p := fixed
	if p != nil && fixedInfo != nil {
		return c.withReach0(Instance{Problem: p, Info: fixedInfo}), nil
	}
	if p == nil {
		var err error
		p, err = problem.GenerateHF(c.Problem.Generate, c.Problem.Thresholds, c.Problem.ObjectiveThreshold, c.Problem.Epsilon, c.Problem.NoiseStd, stream(c.Seed, r, streamProblem))
		if err != nil {
			return Instance{}, fmt.Errorf("realization %d: problem.generate: %w", r, err)
		}
	}
	info, err := p.Analyze()
	if err != nil {
		return Instance{}, fmt.Errorf("realization %d: %w", r, err)
	}
	return c.withReach0(Instance{Problem: p, Info: info}), nil
}

// Setting is what every algorithm of a realization is built from:
// bandit.New's arguments but the spec.
type Setting struct {
	Model   bandit.Model
	Set     bandit.DecisionSet
	Truth   *bandit.Truth // the realization's ground truth: for gp-ucb-oracle and lipschitz: auto
	Options bandit.Options
	// WarmStart, if not empty, are earlier measurements Play tells the
	// policy before round 1 (problem.warm_start): shared, read only.
	WarmStart []bandit.Observation
	// Used is the model section with the kernels Model was built from
	// (the generator's by default); with Used.Fit active, Play refits
	// them during the run from FitSeed (model.fit).
	Used    config.Model
	FitSeed uint64
}

// world is realization r's world (its problem, its contexts, or the
// configuration's function) and what every algorithm knows of it.
func (c *Config) world(r int, in Instance) (*Setting, World) {
	switch {
	case c.fn != nil:
		return c.functionSetting(r, in), onFunction(in.fn, in, c.Problem.ObjectiveThreshold, c.Problem.Thresholds)
	case in.Context != nil:
		return c.contextSetting(r, in), OnContexts(in.Context, c.Problem.Context.Probabilities, c.Contexts(r))
	}
	return c.Setting(r, in), OnProblem(in.Problem, in.Info)
}

// Setting is what every algorithm knows of realization r: the model
// kernels of the configuration, the realization's problem and its policy
// stream.
func (c *Config) Setting(r int, in Instance) *Setting {
	of := c.objectiveKernel()
	kf, _ := kernel.New(of)
	var kg []kernel.Kernel
	for _, s := range c.constraintKernels() {
		k, _ := kernel.New(s)
		kg = append(kg, k)
	}
	var warm []bandit.Observation
	if c.warm != nil {
		warm = c.warm.Obs
	}
	// Each GP's σ from the kernels used, the generator's by default.
	used := c.Model
	used.Objective, used.Constraints = &of, c.constraintKernels()
	var fitSeed uint64
	if used.Fit.Active() {
		fitSeed = stream(c.Seed, r, streamFit).Uint64()
	}
	return &Setting{
		WarmStart: warm,
		Used:      used,
		FitSeed:   fitSeed,
		Model: bandit.Model{
			Objective: kf, Constraints: kg,
			NoiseStd: *c.Model.NoiseStd, NoiseStds: used.NoiseStds(),
			Delta: *c.Model.Delta, Beta: c.beta(), ObjectiveBeta: c.Model.ObjectiveBeta,
		},
		Set:   bandit.DecisionSet{X: in.Problem.X, Seed: in.Problem.Seed},
		Truth: &bandit.Truth{Safe: in.Info.SafeTrue, Lipschitz: in.Info.Lipschitz, Reach0: in.Reach0},
		Options: bandit.Options{
			Thresholds: in.Problem.H, ObjectiveThreshold: in.Problem.HF, Epsilon: in.Problem.Epsilon,
			Horizon: c.Horizon, Rand: stream(c.Seed, r, streamPolicy),
			WarmStart: len(warm),
		},
	}
}

// Noise is the observation-noise stream of realization r.
func (c *Config) Noise(r int) *rand.Rand { return stream(c.Seed, r, streamNoise) }

// Limit is the memory limit Options ask for, in bytes (0: none).
func (o Options) Limit() int64 {
	switch {
	case o.MaxMemory == 0:
		return memlimit.Default
	case o.MaxMemory < 0:
		return 0
	}
	return o.MaxMemory
}

// Execute runs every configured algorithm on every realization and returns
// all the runs, algorithm by algorithm in realization order (those of
// opt.Units if set). It holds every run in memory: Stream does not.
func Execute(ctx context.Context, c *Config, opt Options) (*Results, error) {
	runs := make([]Run, 0)
	_, err := execute(ctx, c, opt, true, func(r int) {
		// Sized only once the plan has accepted the estimate.
		runs = make([]Run, r)
	}, func(a int, run *Run) error {
		runs[a*c.Realizations+run.Realization] = *run
		return nil
	})
	if err != nil {
		return nil, err
	}
	if opt.Units != nil {
		// Only the selected units' runs, in the same order.
		runs = slices.DeleteFunc(runs, func(r Run) bool { return r.Label == "" })
	}
	return &Results{Config: c, Runs: runs}, nil
}

// Stream runs every configured algorithm on every realization, holding the
// problems and runs of only Plan.Chunk realizations at a time, and hands
// each finished run to sink, from one goroutine, chunk by chunk and within
// a chunk algorithm by algorithm in realization order. It refuses, before
// allocating, an experiment whose estimate exceeds the memory limit, and
// runs fewer workers when that keeps it within.
func Stream(ctx context.Context, c *Config, opt Options, sink func(a int, run *Run) error) (Plan, error) {
	return execute(ctx, c, opt, false, func(int) {}, sink)
}

func execute(ctx context.Context, c *Config, opt Options, keepRuns bool, sized func(runs int), sink func(a int, run *Run) error) (Plan, error) {
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	fixed, err := c.ReadProblem()
	if err != nil {
		return Plan{}, err
	}
	reals, units := opt.held(c)
	plan, err := c.plan(fixed, workers, opt.Limit(), keepRuns, len(reals), units)
	if err != nil {
		return plan, err
	}
	if opt.Chunk > 0 {
		plan.Chunk = min(plan.Chunk, opt.Chunk)
	}
	var fixedInfo *problem.Info
	if fixed != nil {
		// Analyzed once here, shared by every realization.
		if fixedInfo, err = fixed.Analyze(); err != nil {
			return plan, fmt.Errorf("problem.file %s: %w", c.Problem.File, err)
		}
	}
	sized(len(c.Algorithms) * c.Realizations)
	for lo := 0; lo < len(reals); lo += plan.Chunk {
		chunk := reals[lo:min(lo+plan.Chunk, len(reals))]
		if err := c.runChunk(ctx, &opt, plan.Workers, chunk, fixed, fixedInfo, sink); err != nil {
			return plan, err
		}
	}
	return plan, nil
}

// chunkUnit is a selected unit of a chunk: algorithm a on the chunk's
// k-th realization, reused when opt.Reuse supplied its run.
type chunkUnit struct {
	a, k   int
	reused bool
}

// chunkUnits lists the selected units of chunk (realizations), algorithm
// by algorithm in realization order, as Execute lists them, with the run
// Reuse supplies for each (nil: to play) and, per realization, whether a
// unit of it is played.
func (opt *Options) chunkUnits(chunk []int, na int) (todo []chunkUnit, runs []*Run, play []bool) {
	play = make([]bool, len(chunk))
	for a := 0; a < na; a++ {
		for k, r := range chunk {
			if opt.Units == nil || opt.Units(a, r) {
				var run *Run
				if opt.Reuse != nil {
					run = opt.Reuse(a, r)
				}
				todo = append(todo, chunkUnit{a, k, run != nil})
				runs = append(runs, run)
				play[k] = play[k] || run == nil
			}
		}
	}
	return todo, runs, play
}

// runChunk draws the instances of chunk's realizations that have a unit
// to play, plays those units on up to workers goroutines, and hands every
// selected unit's run to sink in chunkUnits' order.
func (c *Config) runChunk(ctx context.Context, opt *Options, workers int, chunk []int, fixed *problem.Problem, fixedInfo *problem.Info, sink func(a int, run *Run) error) error {
	todo, runs, play := opt.chunkUnits(chunk, len(c.Algorithms))
	// A realization's instance is drawn by every shard holding one of
	// its units: it depends only on (seed, r) (stream).
	insts := make([]Instance, len(chunk))
	if err := parallel(ctx, workers, len(chunk), func(k int) error {
		if !play[k] {
			return nil
		}
		defer opt.hold()()
		var err error
		insts[k], err = c.instance(chunk[k], fixed, fixedInfo)
		return err
	}); err != nil {
		return err
	}
	err := parallel(ctx, workers, len(runs), func(j int) error {
		if todo[j].reused {
			if opt.Progress != nil {
				opt.Progress()
			}
			return nil
		}
		a, k := todo[j].a, todo[j].k
		r := chunk[k]
		defer opt.hold()()
		st, w := c.world(r, insts[k])
		run, err := Play(&c.Algorithms[a], st, w, c.Noise(r), nil)
		if err != nil {
			return fmt.Errorf("algorithms[%d] (%s), realization %d: %w", a, c.Algorithms[a].DisplayLabel(), r, err)
		}
		run.Realization = r
		runs[j] = run
		if opt.Progress != nil {
			opt.Progress()
		}
		return nil
	})
	if err != nil {
		return err
	}
	for j, run := range runs {
		if opt.Played != nil && !todo[j].reused {
			opt.Played(todo[j].a, run)
		}
		if err := sink(todo[j].a, run); err != nil {
			return err
		}
		runs[j] = nil // the sink has it: let the chunk's memory go
	}
	return nil
}

// Watch, given to Play, is called after the tell of each round t (1, 2,
// …) with the policy, which it may Inspect but must not Ask or Tell, nor
// keep after it returns (Play releases the policy's arrays when the run
// ends: bandit.Release). An error stops the run.
type Watch func(t int, pol bandit.Policy) error

// newRun is the run of algorithm s over T rounds, its per-round slices
// made.
func newRun(s *bandit.Spec, T int) *Run {
	return &Run{
		Algorithm:       s.Name,
		Label:           s.DisplayLabel(),
		Actions:         make([]int, T),
		Regret:          make([]float64, T),
		ReachableRegret: make([]float64, T),
		SafeSetSize:     make([]int, T),
	}
}

// record writes round t of the run: action a of problem p (analysed in
// info), the policy's safe-set size (read into view, reused), the regrets
// and whether a violates a safety condition (f ≥ h_f too, with an
// objective threshold).
func (run *Run) record(s *bandit.Spec, t, a int, pol bandit.Policy, view *bandit.Snapshot, p *problem.Problem, info *problem.Info) error {
	if a < 0 || a >= p.N() {
		// The regret needs f at the action: a simulation's policies
		// choose within the decision set.
		return fmt.Errorf("%s chose action %d outside 0…%d in round %d", s.DisplayLabel(), a, p.N()-1, t+1)
	}
	pol.Inspect(view, bandit.SafeSet)
	run.Actions[t] = a
	run.SafeSetSize[t] = view.SafeSetSize
	run.Regret[t] = info.FStar - p.F[a]
	run.ReachableRegret[t] = info.FReach - p.F[a]
	if !p.Safe(a, 0) {
		run.Violations++
		run.violationRounds = append(run.violationRounds, t)
	}
	return nil
}

// measure writes into obs the measurement of action a of p: f and every
// g_i there, each with its noise drawn from noise (1 + m normal draws when
// there is noise; with per-action noise, the action's σ, told as the
// measurement's known variance). It does not allocate.
func measure(p *problem.Problem, a int, noise *rand.Rand, obs *bandit.Observation) {
	y, z := p.F[a], obs.G
	for i := range z {
		z[i] = p.G[i][a]
	}
	switch {
	case p.NoiseStds != nil:
		sd := p.NoiseStds[a]
		y += sd * noise.NormFloat64()
		for i := range z {
			z[i] += sd * noise.NormFloat64()
		}
		obs.NoiseVar = bandit.KnownNoise(sd)
	case p.NoiseStd > 0:
		y += p.NoiseStd * noise.NormFloat64()
		for i := range z {
			z[i] += p.NoiseStd * noise.NormFloat64()
		}
	}
	obs.F = y
}

// fitter refits a run's model (model.fit): used is the model section in
// force, hist the observations so far, since the rounds since the last fit.
type fitter struct {
	on     bool
	used   config.Model
	hist   []bandit.Observation
	since  int
	domain bandit.Domain // where the rebuilt policy acts
}

// refit fits the model on the observations so far and returns the policy
// rebuilt with the fitted kernels, told every observation again in order
// (outside the loop, id 0): the same way a study rebuilds its policy. A
// skipped fit (refit.Model) keeps pol. The fit's record is appended to
// run.Fits; its restarts run on this goroutine (Workers 1), the runs being
// parallel already, and its result does not depend on that.
func (ft *fitter) refit(s *bandit.Spec, st *Setting, pol bandit.Policy, run *Run, round int) (bandit.Policy, error) {
	m := len(ft.used.Constraints)
	data := config.FitData{X: make([][]float64, len(ft.hist)), Y: make([][]float64, 1+m), ObjectiveCondition: st.Options.ObjectiveThreshold != nil}
	for j := range data.Y {
		data.Y[j] = make([]float64, len(ft.hist))
	}
	known := true
	for k, o := range ft.hist {
		data.X[k], data.Y[0][k] = o.X, o.F
		for i, g := range o.G {
			data.Y[1+i][k] = g
		}
		known = known && o.NoiseVar > 0
	}
	if known {
		data.NoiseVar = make([]float64, len(ft.hist))
		for k, o := range ft.hist {
			data.NoiseVar[k] = o.NoiseVar
		}
	}
	// A simulation's fit is not cancelled midway: the run stops at its
	// round's end (experiment.Execute checks its context between runs).
	rec, err := refit.Model(context.Background(), &ft.used, data, st.FitSeed, len(run.Fits)+1, 1, 0)
	if err != nil {
		return nil, err
	}
	run.Fits = append(run.Fits, RunFit{Round: round, FitRecord: rec})
	ft.since = 0
	if rec.Skipped != "" {
		return pol, nil
	}
	used, err := ft.used.WithFit(&rec)
	if err != nil {
		return nil, err
	}
	ft.used = used
	model := st.Model
	model.Objective, model.Constraints = used.Kernels()
	model.NoiseStds = used.NoiseStds()
	np, err := bandit.Build(s, model, ft.domain, st.Options)
	if err != nil {
		return nil, err
	}
	for k, o := range ft.hist {
		if err := np.Tell(0, o); err != nil {
			return nil, fmt.Errorf("observation %d told again: %w", k+1, err)
		}
	}
	bandit.Carry(np, pol) // the search goes on where it was (line-bo's keep_line)
	bandit.Release(pol)
	return np, nil
}

// hold takes one of opt.Slots' tokens, if set, and returns what gives it
// back.
func (opt *Options) hold() func() {
	if opt.Slots == nil {
		return func() {}
	}
	opt.Slots <- struct{}{}
	return func() { <-opt.Slots }
}

// parallel calls fn(0) … fn(n−1) on up to workers goroutines and returns
// the error of the lowest failing index, so that errors do not depend on
// scheduling. It stops handing out work after a failure or cancellation.
func parallel(ctx context.Context, workers, n int, fn func(i int) error) error {
	errs := make([]error, n)
	next := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	failed := false
	for w := 0; w < min(workers, n); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if err := fn(i); err != nil {
					errs[i] = err
					mu.Lock()
					failed = true
					mu.Unlock()
				}
			}
		}()
	}
	for i := 0; i < n; i++ {
		mu.Lock()
		stop := failed
		mu.Unlock()
		if stop || ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return ctx.Err()
}
