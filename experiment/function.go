package experiment

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"

	"go.yaml.in/yaml/v3"

	"github.com/safegp/safegp/bandit"
	"github.com/safegp/safegp/internal/csvcell"
	"github.com/safegp/safegp/internal/fielderr"
	"github.com/safegp/safegp/internal/memlimit"
	"github.com/safegp/safegp/internal/strictyaml"
	"github.com/safegp/safegp/kernel"
	"github.com/safegp/safegp/problem"
	"github.com/safegp/safegp/problem/bench"
	"github.com/safegp/safegp/problem/losbo"
)

// ErrNoSeedPoint marks a realization whose seed points could not be drawn:
// too few uniform draws of the box reached problem.seed_points.min_f.
var ErrNoSeedPoint = errors.New("no seed point found")

// MaxGridActions caps problem.function.decision_set.grid. The finite-set
// algorithms no longer hold N×N matrices (issue 13: gp-mode safe sets
// compute covariance entries on demand), so the cap is what the problem
// analysis and the GPs' N·T floats handle in reasonable time on one
// machine (docs/limits.md, "How large N can be"); the memory estimate
// (--max-memory) still refuses a grid that does not fit.
const MaxGridActions = 1_000_000

// DefaultMaxTries is problem.seed_points.max_tries when not given.
const DefaultMaxTries = 1_000_000

// FunctionConfig is problem.function: a built-in benchmark of the LineBO
// paper's protocol (package problem/bench), played on its box by line-bo
// and, with decision_set.grid, on a grid of the box by the finite-set
// algorithms (SafeOpt as the 2-D reference).
type FunctionConfig struct {
	Name string `yaml:"name" json:"name"`
	// Dim is the dimension: the benchmark's own when 0 (camelback 2,
	// hartmann6 6); gaussian needs one.
	Dim         int          `yaml:"dim,omitempty" json:"dim,omitempty"`
	DecisionSet *FunctionSet `yaml:"decision_set,omitempty" json:"decision_set,omitempty"`
	// Set and Index pick one of the LoSBO suite's functions (problem/losbo)
	// for name losbo: set onb-se or matern32, index 0…99. Its simple
	// regret is taken against its optimum over its reachable safe set.
	Set   string `yaml:"set,omitempty" json:"set,omitempty"`
	Index *int   `yaml:"index,omitempty" json:"index,omitempty"`
}

// FunctionSet overrides the benchmark's box and adds a grid on it.
type FunctionSet struct {
	Box  *BoxSpec  `yaml:"box,omitempty" json:"box,omitempty"`
	Grid *GridSize `yaml:"grid,omitempty" json:"grid,omitempty"`
}

// BoxSpec is a box domain: bounds[j] = [lo_j, hi_j].
type BoxSpec struct {
	Bounds [][2]float64 `yaml:"bounds" json:"bounds"`
}

// GridSize is the grid of the box the finite-set algorithms play on:
// points[j] evenly spaced values on the box's bounds[j] (problem.Grid),
// plus the realization's seed points.
type GridSize struct {
	Points []int `yaml:"points" json:"points"`
}

// SeedPoints is problem.seed_points: Count points drawn uniformly in the
// box, per realization from its problem stream, keeping those with
// f ≥ MinF (rejection sampling, at most MaxTries draws in all) — febo's
// BenchmarkEnvironment._get_random_initial_point with random_x0_min_value
// (kirschnj/LineBO, febo/environment/benchmarks/benchmarks.py).
//
// Or the seed points are given, the same in every realization, as a list
// (`seed_points: [[…], …]`, as a study's) or as {points: [[…], …]}: each
// in the box, and safe (f ≥ objective_threshold), which the truth checks.
type SeedPoints struct {
	Count    int         `yaml:"count,omitempty" json:"count,omitempty"`
	MinF     float64     `yaml:"min_f,omitempty" json:"min_f,omitempty"`
	MaxTries int         `yaml:"max_tries,omitempty" json:"max_tries,omitempty"`
	Points   [][]float64 `yaml:"points,omitempty" json:"points,omitempty"`
	// Box, if given, is where the points are drawn instead of the whole
	// box (the LoSBO protocol draws its seeds in the reachable safe set).
	Box [][2]float64 `yaml:"box,omitempty" json:"box,omitempty"`
}

// UnmarshalYAML accepts {count, min_f[, max_tries]}, {points: [[…], …]}
// or the list of points itself.
func (s *SeedPoints) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.SequenceNode {
		var pts [][]float64
		if err := strictyaml.DecodeNode(n, &pts); err != nil {
			return err
		}
		*s = SeedPoints{Points: pts}
		return nil
	}
	type plain SeedPoints
	var v plain
	if err := strictyaml.DecodeNode(n, &v); err != nil {
		return err
	}
	*s = SeedPoints(v)
	return nil
}

// function is a checked problem.function: the benchmark, the box and
// the grid (nil without one).
type function struct {
	f      *bench.Function
	bounds [][2]float64
	grid   []int
	fstar  float64
	known  bool // f* is the max over the box (a point of XStar is in it)
	// sample, for gp-sample, is the kernel each realization's function
	// is drawn from (the model's objective kernel): f is then only its
	// shape, and each Instance holds its own draw.
	sample *sampleKernel
}

// sampleKernel is the squared-exponential kernel a gp-sample is drawn
// from.
type sampleKernel struct{ variance, lengthscale float64 }

// checkFunction checks problem.function and problem.seed_points and
// resolves them into c.fn.
func (c *Config) checkFunction() error {
	p := &c.Problem
	if err := p.checkFunctionKeys(); err != nil {
		return err
	}
	fc := p.Function
	f, sample, err := c.benchmark(fc)
	if err != nil {
		return err
	}
	switch m := f.M(); {
	case m == 0 && len(p.Thresholds) != 0:
		return bad("problem.thresholds", "%s has no constraints: its safety condition is objective_threshold (f ≥ h_f)", f.Name)
	case m > 0 && len(p.Thresholds) != m:
		return bad("problem.thresholds", "%s has %d constraint(s) g_i ≥ h_i: give %d threshold(s), got %d", f.Name, m, m, len(p.Thresholds))
	}
	fn := &function{f: f, bounds: f.Bounds, sample: sample}
	if ds := fc.DecisionSet; ds != nil {
		if err := fn.setDecisionSet(ds); err != nil {
			return err
		}
	}
	for _, x := range f.XStar {
		// A constrained benchmark's FStar is its maximum where every
		// g_i ≥ 0: the reference only with those thresholds.
		if inBox(x, fn.bounds) && zeros(p.Thresholds) {
			fn.fstar, fn.known = f.FStar, true
		}
	}
	if sample != nil {
		if fc.DecisionSet != nil && fc.DecisionSet.Box != nil {
			return bad("problem.function.decision_set.box", "gp-sample is drawn on [0, 1]^dim")
		}
		fn.known = true // each draw's reference optimum
	}
	if err := p.checkSeedPoints(fn); err != nil {
		return err
	}
	if err := fielderr.Recast(ErrConfig, "model", c.Model.Check(f.M(), false)); err != nil {
		return err
	}
	if err := fielderr.Recast(ErrConfig, "model", c.Model.CheckDim(f.Dim)); err != nil {
		return err
	}
	c.fn = fn
	return nil
}

// checkFunctionKeys refuses the problem keys that do not go with
// problem.function, and requires seed_points.
func (p *ProblemConfig) checkFunctionKeys() error {
	switch {
	case p.File != "" || p.Generate != nil:
		return bad("problem", "give one of file, generate and function")
	case p.SeedActions != nil:
		return bad("problem.seed_actions", "only for a problem file; use problem.seed_points")
	case p.WarmStart != "":
		return bad("problem.warm_start", "only with problem.file")
	case p.SeedPoints == nil:
		return bad("problem.seed_points", "missing: give {count: k, min_f: v}")
	case p.NoiseBound != 0 && p.NoiseStd != 0:
		return bad("problem.noise_bound", "give noise_std (normal noise) or noise_bound (uniform in [−b, b]), not both")
	}
	return nil
}

// benchmark looks up problem.function's benchmark; for gp-sample, its
// shape and the kernel each realization's draw comes from (nil otherwise).
func (c *Config) benchmark(fc *FunctionConfig) (*bench.Function, *sampleKernel, error) {
	var sample *sampleKernel
	var f *bench.Function
	var err error
	if fc.Name == bench.SampleName {
		// A draw of the model's own kernel per realization (the model is
		// right; only the search is tested): an isotropic se kernel.
		k := c.Model.Objective
		if k == nil || k.Kernel != "se" || len(k.Lengthscale) != 1 {
			return nil, nil, bad("model.objective", "problem.function gp-sample is drawn from the model's objective kernel: give an se kernel with one lengthscale")
		}
		v := 1.0
		if k.Variance != nil {
			v = *k.Variance
		}
		sample = &sampleKernel{variance: v, lengthscale: k.Lengthscale[0]}
		f, err = bench.SampleShape(fc.Dim)
	} else if fc.Name == LoSBOName {
		f, err = losboFunction(fc)
	} else {
		if fc.Set != "" || fc.Index != nil {
			return nil, nil, bad("problem.function", "set and index pick a function of the LoSBO suite: only with name %s", LoSBOName)
		}
		f, err = bench.Lookup(fc.Name, fc.Dim)
	}
	if err != nil {
		return nil, nil, fielderr.Recast(ErrConfig, "problem.function", err)
	}
	return f, sample, nil
}

// LoSBOName is problem.function's name for the LoSBO suite's functions.
const LoSBOName = "losbo"

// losboFunction is the LoSBO suite's function fc.Set, fc.Index as a
// benchmark on [0, 1], whose f* is its maximum over its reachable safe
// set on a grid of 10 001 points (the authors' optimum is over all of
// [0, 1]; a safe algorithm started in the reachable set can reach the
// former only).
func losboFunction(fc *FunctionConfig) (*bench.Function, error) {
	if fc.Index == nil || (fc.Dim != 0 && fc.Dim != 1) {
		return nil, fmt.Errorf("%w: losbo needs set (%v) and index, and is 1-dimensional", bench.ErrUnknown, losbo.Sets)
	}
	lf, err := losbo.Lookup(fc.Set, *fc.Index)
	if err != nil {
		return nil, err
	}
	best, at := math.Inf(-1), 0.0
	const n = 10000
	for i := 0; i <= n; i++ {
		x := lf.Reach[0] + (lf.Reach[1]-lf.Reach[0])*float64(i)/n
		if v := lf.Eval(x); v > best {
			best, at = v, x
		}
	}
	name := fmt.Sprintf("losbo %s %d", lf.Set, lf.Index)
	return bench.Custom(name, [][2]float64{{0, 1}}, best, [][]float64{{at}}, func(x []float64) float64 { return lf.Eval(x[0]) }), nil
}

// setDecisionSet checks problem.function.decision_set and sets fn's box
// (the benchmark's unless given) and grid.
func (fn *function) setDecisionSet(ds *FunctionSet) error {
	f := fn.f
	if ds.Box != nil {
		b := ds.Box.Bounds
		if len(b) != f.Dim {
			return bad("problem.function.decision_set.box.bounds", "%d intervals for %s in %d dimensions", len(b), f.Name, f.Dim)
		}
		for j, v := range b {
			if !problem.InRange(v[0]) || !problem.InRange(v[1]) || !(v[0] < v[1]) {
				return bad(fmt.Sprintf("problem.function.decision_set.box.bounds[%d]", j), "want finite lo < hi within ±1e100, got %v", v)
			}
		}
		fn.bounds = b
	}
	if ds.Grid != nil {
		g := problem.GridSpec{Bounds: fn.bounds, Points: ds.Grid.Points}
		if len(g.Points) != f.Dim {
			return bad("problem.function.decision_set.grid.points", "%d counts for %s in %d dimensions", len(g.Points), f.Name, f.Dim)
		}
		if err := g.Check(MaxGridActions, " (each finite-set GP keeps N·T floats)"); err != nil {
			return fielderr.Recast(ErrConfig, "problem.function.decision_set.grid", err)
		}
		fn.grid = ds.Grid.Points
	}
	return nil
}

// checkSeedPoints checks problem.seed_points against fn: the given
// points, or the keys that draw them.
func (p *ProblemConfig) checkSeedPoints(fn *function) error {
	sp := p.SeedPoints
	if sp.Points != nil {
		// A gp-sample's seeds are checked against each draw (Instance).
		return checkGivenSeeds(sp, fn, p.ObjectiveThreshold, p.Thresholds, fn.sample == nil)
	}
	switch {
	case sp.Count < 1 || sp.Count > 1000:
		return bad("problem.seed_points.count", "want 1…1000, got %d", sp.Count)
	case !problem.InRange(sp.MinF):
		return bad("problem.seed_points.min_f", "want a finite number, got %v", sp.MinF)
	case p.ObjectiveThreshold != nil && sp.MinF < *p.ObjectiveThreshold:
		return bad("problem.seed_points.min_f", "%v is below objective_threshold %v: a seed point must be safe", sp.MinF, *p.ObjectiveThreshold)
	case sp.MaxTries < 0:
		return bad("problem.seed_points.max_tries", "must be ≥ 0 (0: %d), got %d", DefaultMaxTries, sp.MaxTries)
	case sp.Box != nil && len(sp.Box) != fn.f.Dim:
		return bad("problem.seed_points.box", "%d intervals for %s in %d dimensions", len(sp.Box), fn.f.Name, fn.f.Dim)
	}
	for j, b := range sp.Box {
		if !(b[0] <= b[1]) || b[0] < fn.bounds[j][0] || b[1] > fn.bounds[j][1] {
			return bad(fmt.Sprintf("problem.seed_points.box[%d]", j), "want lo ≤ hi within the box %v, got %v", fn.bounds[j], b)
		}
	}
	return nil
}

// checkDomains checks that each algorithm has its kind of domain: line-bo
// a box (problem.function), the finite-set algorithms a finite set.
func (c *Config) checkDomains() error {
	for i := range c.Algorithms {
		a := &c.Algorithms[i]
		key := fmt.Sprintf("algorithms[%d]", i)
		switch {
		case a.OnBox() && c.fn == nil:
			return fielderr.New(ErrConfig, key, "%s plays on a box: give problem.function", a.Name)
		case !a.OnBox() && c.fn != nil && c.fn.grid == nil:
			return fielderr.New(ErrConfig, key, "%s plays on a finite decision set, and problem.function has only a box: give problem.function.decision_set.grid", a.Name)
		case a.NeedsSafeSet() && c.fn != nil:
			return fielderr.New(ErrConfig, key, "%s needs a true safe set of the grid; not offered on a benchmark function", a.Name)
		case a.OnBox() && c.Model.Beta != nil && c.Model.Beta.Freq != nil && c.Model.Beta.Freq.Bound != "":
			return fielderr.New(ErrConfig, key, "%s plays on a box, and model.beta's bound %s counts the actions of a finite set: use the default bound (fiedler)", a.Name, c.Model.Beta.Freq.Bound)
		}
	}
	return nil
}

// zeros reports whether every threshold is 0.
func zeros(h []float64) bool {
	for _, v := range h {
		if v != 0 {
			return false
		}
	}
	return true
}

func inBox(x []float64, b [][2]float64) bool {
	for j, v := range x {
		if v < b[j][0] || v > b[j][1] {
			return false
		}
	}
	return true
}

// checkGivenSeeds checks seed points given as a list: 1…1000 of them, no
// drawing keys beside them, each of the function's dimension, in the box,
// and safe — f ≥ h_f, read from the benchmark itself.
func checkGivenSeeds(sp *SeedPoints, fn *function, hf *float64, h []float64, values bool) error {
	switch {
	case sp.Count != 0 || sp.MinF != 0 || sp.MaxTries != 0 || sp.Box != nil:
		return bad("problem.seed_points", "give the points, or count and min_f to draw them, not both")
	case len(sp.Points) < 1 || len(sp.Points) > 1000:
		return bad("problem.seed_points", "want 1…1000 points, got %d", len(sp.Points))
	}
	for k, x := range sp.Points {
		key := fmt.Sprintf("problem.seed_points[%d]", k)
		if len(x) != fn.f.Dim {
			return bad(key, "a point of %d coordinates for %s in %d dimensions", len(x), fn.f.Name, fn.f.Dim)
		}
		if !inBox(x, fn.bounds) {
			return bad(key, "%v is outside the box %v", x, fn.bounds)
		}
		if !values {
			continue
		}
		if v := fn.f.Eval(x); hf != nil && !(v >= *hf) {
			return bad(key, "f = %.6g there, below objective_threshold %v: a seed point must be safe", v, *hf)
		}
		for i := range fn.f.M() {
			if v := fn.f.EvalG(i, x); !(v >= h[i]) {
				return bad(key, "g%d = %.6g there, below its threshold %v: a seed point must be safe", i+1, v, h[i])
			}
		}
	}
	return nil
}

// constraintsHold reports whether every constraint of a constrained
// benchmark holds at x: g_i(x) ≥ h_i (a drawn seed point must be safe).
func (c *Config) constraintsHold(fn *function, x []float64) bool {
	for i := range fn.f.M() {
		if !(fn.f.EvalG(i, x) >= c.Problem.Thresholds[i]) {
			return false
		}
	}
	return true
}

// Seeds draws the seed points of realization r (problem.seed_points), or
// returns the given ones.
func (c *Config) seeds(fn *function, rng *rand.Rand) ([][]float64, error) {
	sp := c.Problem.SeedPoints
	if sp.Points != nil {
		out := make([][]float64, len(sp.Points))
		for k, x := range sp.Points {
			if hf := c.Problem.ObjectiveThreshold; fn.sample != nil && hf != nil && !(fn.f.Eval(x) >= *hf) {
				return nil, fmt.Errorf("%w: problem.seed_points[%d]: f = %.6g there in this draw of gp-sample, below objective_threshold %v", ErrNoSeedPoint, k, fn.f.Eval(x), *hf)
			}
			out[k] = append([]float64(nil), x...)
		}
		return out, nil
	}
	tries := sp.MaxTries
	if tries == 0 {
		tries = DefaultMaxTries
	}
	d := fn.f.Dim
	out := make([][]float64, 0, sp.Count)
	x := make([]float64, d)
	box := fn.bounds
	if sp.Box != nil {
		box = sp.Box
	}
	for k := 0; k < tries && len(out) < sp.Count; k++ {
		for j, b := range box {
			x[j] = b[0] + (b[1]-b[0])*rng.Float64()
		}
		if fn.f.Eval(x) >= sp.MinF && c.constraintsHold(fn, x) {
			out = append(out, append([]float64(nil), x...))
		}
	}
	if len(out) < sp.Count {
		return nil, fmt.Errorf("%w: problem.seed_points: %d of %d points with f ≥ %v in %d uniform draws of the box; lower min_f or raise max_tries", ErrNoSeedPoint, len(out), sp.Count, sp.MinF, tries)
	}
	return out, nil
}

// functionInstance draws realization r's seed points and, with a grid,
// builds the finite problem the finite-set algorithms play: the grid and
// the seed points, appended as the seed set (febo's SafeOpt starts from
// its x0 beside its grid: febo/algorithms/safeopt.py, SafeOpt).
func (c *Config) functionInstance(r int) (Instance, error) {
	rng := stream(c.Seed, r, streamProblem)
	fn := c.fn
	if k := fn.sample; k != nil {
		// This realization's function, drawn first from its stream.
		f, err := bench.GPSample(fn.f.Dim, k.variance, k.lengthscale, rng)
		if err != nil {
			return Instance{}, fmt.Errorf("realization %d: %w", r, err)
		}
		own := *fn
		own.f, own.fstar = f, f.FStar
		fn = &own
	}
	seeds, err := c.seeds(fn, rng)
	if err != nil {
		return Instance{}, fmt.Errorf("realization %d: %w", r, err)
	}
	in := Instance{Seeds: seeds, SeedBest: math.Inf(-1), noiseStd: c.Problem.NoiseStd, noiseBound: c.Problem.NoiseBound, fn: fn}
	for _, x := range seeds {
		in.SeedBest = math.Max(in.SeedBest, fn.f.Eval(x))
	}
	if fn.grid == nil {
		return in, nil
	}
	x := append(problem.Grid(fn.bounds, fn.grid), seeds...)
	m := fn.f.M()
	p := &problem.Problem{X: x, F: make([]float64, len(x)), G: make([][]float64, m), H: append([]float64{}, c.Problem.Thresholds...), HF: c.Problem.ObjectiveThreshold, Epsilon: c.Problem.Epsilon, NoiseStd: c.Problem.NoiseStd}
	for i := range m {
		p.G[i] = make([]float64, len(x))
	}
	for i, xi := range x {
		p.F[i] = fn.f.Eval(xi)
		for k := range m {
			p.G[k][i] = fn.f.EvalG(k, xi)
		}
	}
	for k := range seeds {
		p.Seed = append(p.Seed, len(x)-len(seeds)+k)
	}
	info, err := p.Analyze()
	if err != nil {
		return Instance{}, fmt.Errorf("realization %d: problem.function.decision_set.grid: %w", r, err)
	}
	in.Problem, in.Info = p, info
	return c.withReach0(in), nil
}

// functionSetting is Setting for a benchmark function.
func (c *Config) functionSetting(r int, in Instance) *Setting {
	kf, _ := kernel.New(*c.Model.Objective)
	var kg []kernel.Kernel
	for _, k := range c.Model.Constraints {
		g, _ := kernel.New(k)
		kg = append(kg, g)
	}
	st := &Setting{
		Used: c.Model,
		Model: bandit.Model{
			Objective: kf, Constraints: kg, NoiseStd: *c.Model.NoiseStd, NoiseStds: c.Model.NoiseStds(),
			Delta: *c.Model.Delta, Beta: c.beta(), ObjectiveBeta: c.Model.ObjectiveBeta,
		},
		Options: bandit.Options{
			Thresholds: append([]float64{}, c.Problem.Thresholds...), ObjectiveThreshold: c.Problem.ObjectiveThreshold, Epsilon: c.Problem.Epsilon,
			Horizon: c.Horizon, Rand: stream(c.Seed, r, streamPolicy),
		},
	}
	if in.Problem != nil {
		st.Set = bandit.DecisionSet{X: in.Problem.X, Seed: in.Problem.Seed}
		st.Truth = &bandit.Truth{Safe: in.Info.SafeTrue, Lipschitz: in.Info.Lipschitz, Reach0: in.Reach0}
	}
	return st
}

// onFunction is the world of a benchmark function (problem.function):
// line-bo plays on the box, any other algorithm on the grid problem of in.
// Each round: ask → point x → f(x) + noise (one normal draw a round from
// noise when problem.noise_std > 0, so every algorithm of a realization
// meets the same draws) → tell. The run records the point, f(x),
// violations (f(x) < h_f), the best safe value and, for a function whose
// maximum is known, the simple regret.
//
// The best safe value after round t is the largest f(x_s), s ≤ t, among
// the points played that truly satisfy f ≥ h_f (every point without an
// objective threshold), and the seed points' f, known safe starting
// points, before any: so it is defined from round 1. The simple regret is
// f* − best safe value, with f* the benchmark's known maximum over the
// box (left out when the box excludes every known maximizer).
func onFunction(fn *function, in Instance, hf *float64, h []float64) World {
	return &functionWorld{fn: fn, in: in, hf: hf, h: h, best: in.SeedBest}
}

type functionWorld struct {
	fn   *function
	in   Instance
	hf   *float64
	h    []float64 // the constraints' thresholds
	pts  []float64 // every round's point, in one slab
	best float64   // the best safe value so far
}

func (w *functionWorld) domain(s *bandit.Spec, st *Setting) bandit.Domain {
	if a, _ := bandit.Lookup(s.Name); a != nil && a.Box {
		return bandit.Domain{Box: &bandit.Box{Bounds: w.fn.bounds, Seeds: w.in.Seeds}}
	}
	return bandit.Domain{Set: st.Set, Truth: st.Truth}
}

func (w *functionWorld) newRun(s *bandit.Spec, T int) *Run {
	run := &Run{
		Algorithm: s.Name, Label: s.DisplayLabel(),
		Points: make([][]float64, T), Values: make([]float64, T), BestSafe: make([]float64, T),
	}
	if w.fn.known {
		run.SimpleRegret = make([]float64, T)
		if !s.OnBox() && w.in.Problem != nil {
			run.ModelRegret, run.SafeSetSize = make([]float64, T), make([]int, T)
		}
	}
	if b := w.in.SeedBest; !math.IsInf(b, 0) {
		run.SeedBest = &b
	}
	w.pts = make([]float64, T*w.fn.f.Dim)
	return run
}

func (w *functionWorld) begin(int, bandit.Policy) error { return nil }
func (w *functionWorld) constraints() int               { return w.fn.f.M() }
func (w *functionWorld) point(ask bandit.Ask) []float64 { return ask.X }
func (w *functionWorld) play(s *bandit.Spec, t int, ask bandit.Ask, pol bandit.Policy, view *bandit.Snapshot, run *Run, noise *rand.Rand, obs *bandit.Observation) error {
	d, x := w.fn.f.Dim, ask.X
	if len(x) != d || !inBox(x, w.fn.bounds) {
		return fmt.Errorf("%s chose the point %v outside the box in round %d", s.DisplayLabel(), x, t+1)
	}
	p := w.pts[t*d : (t+1)*d : (t+1)*d]
	copy(p, x)
	run.Points[t] = p
	v := w.fn.f.Eval(x)
	run.Values[t] = v
	unsafe := w.hf != nil && v < *w.hf
	for i := range obs.G {
		obs.G[i] = w.fn.f.EvalG(i, x)
		unsafe = unsafe || obs.G[i] < w.h[i]
	}
	if unsafe {
		run.Violations++
		run.violationRounds = append(run.violationRounds, t)
	} else if v > w.best {
		w.best = v
	}
	run.BestSafe[t] = w.best
	if w.fn.known {
		run.SimpleRegret[t] = w.fn.fstar - w.best
	}
	if run.ModelRegret != nil {
		// The model's guess before this round's observation: what the
		// policy would recommend after round t − 1 (and its seeds).
		// While the policy certifies no action (sgp-ucb before its
		// seeds are measured), the guess is among the seed points,
		// which it assumes safe.
		pol.Inspect(view, bandit.Full)
		p := w.in.Problem
		guess, best := p.Seed[0], math.Inf(-1)
		if view.SafeSetSize > 0 {
			for i, m := range view.F.Mean {
				if view.Safe[i] && m > best {
					guess, best = i, m
				}
			}
		} else {
			for _, i := range p.Seed {
				if m := view.F.Mean[i]; m > best {
					guess, best = i, m
				}
			}
		}
		run.SafeSetSize[t] = view.SafeSetSize
		run.ModelRegret[t] = w.fn.fstar - p.F[guess]
	}
	obs.F = v
	if sd := w.in.noiseStd; sd > 0 {
		obs.F += sd * noise.NormFloat64()
		for i := range obs.G {
			obs.G[i] += sd * noise.NormFloat64()
		}
	}
	if b := w.in.noiseBound; b > 0 {
		obs.F += b * (2*noise.Float64() - 1)
		for i := range obs.G {
			obs.G[i] += b * (2*noise.Float64() - 1)
		}
	}
	return nil
}

// functionRunBytes is what one run on a benchmark function holds: the
// points (d floats and a slice header a round) and three series.
func functionRunBytes(T, d int) int64 {
	return memlimit.Add(memlimit.Mul(int64(T), 8*int64(d)+24+24), 256)
}

// planFunction is Plan for a benchmark function: the grid problem per
// realization (with a grid), each algorithm's policy (bandit.BoxBytes for
// line-bo, bandit.Bytes on the grid otherwise), the runs.
func (c *Config) planFunction(workers int, limit int64, keepRuns bool, held, units int) (Plan, error) {
	R, T, A := max(held, 1), c.Horizon, len(c.Algorithms)
	d, m := c.fn.f.Dim, c.fn.f.M()
	hf := c.Problem.ObjectiveThreshold != nil
	n := 0
	if c.fn.grid != nil {
		n = (&problem.GridSpec{Points: c.fn.grid}).Size() + c.Problem.SeedPoints.Count + len(c.Problem.SeedPoints.Points)
	}
	var perRun int64
	heavy := 0
	for i := range c.Algorithms {
		s := &c.Algorithms[i]
		var b int64
		if s.OnBox() {
			b = bandit.BoxBytes(s, d, m, T, hf)
		} else {
			b = bandit.Bytes(s, n, m, hf, T, false)
		}
		if b > perRun {
			perRun, heavy = b, i
		}
	}
	rb := functionRunBytes(T, d)
	perRun = memlimit.Add(perRun, rb)
	perReal := memlimit.Add(problem.Bytes(n, d, m), memlimit.Mul(int64(A), rb))
	chunk := int(min(int64(R), max(1, chunkBudget/max(perReal, 1))))
	base := memlimit.Add(memlimit.Mul(int64(A), 48, int64(T)), memlimit.Mul(int64(chunk), perReal))
	if keepRuns {
		base = memlimit.Add(base, memlimit.Mul(int64(units), rb))
	}
	need := func(w int) int64 { return memlimit.Add(base, memlimit.Mul(int64(w), perRun)) }
	w := max(1, min(workers, units))
	for w > 1 && limit > 0 && need(w) > limit {
		w--
	}
	p := Plan{Workers: w, Chunk: chunk, Bytes: need(w)}
	what := fmt.Sprintf("problem.function (%s in %d-D, grid of N = %d points), horizon (T = %d) and algorithms[%d] (%s)", c.fn.f.Name, d, n, T, heavy, c.Algorithms[heavy].DisplayLabel())
	if err := memlimit.Check(p.Bytes, limit, what); err != nil {
		return p, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	return p, nil
}

// functionCSV renders summary.csv for a benchmark function: per label and
// round (evaluation), the mean and standard error over realizations of
// the best safe value, of the simple regret and of the share of the way
// from the seeds to f* (both empty without f*), and the mean violations
// so far.
func functionCSV(curves []Curve) []byte {
	var b bytes.Buffer
	w := csvcell.NewWriter(&b)
	w.Write([]string{"label", "round", "mean_best_safe", "se_best_safe", "mean_simple_regret", "se_simple_regret", "mean_violations", "mean_share", "se_share"})
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	for _, c := range curves {
		for t := range c.MeanBest {
			ms, ss, mh, sh := "", "", "", ""
			if c.MeanSimple != nil {
				ms, ss = f(c.MeanSimple[t]), f(c.SESimple[t])
			}
			if c.MeanShare != nil {
				mh, sh = f(c.MeanShare[t]), f(c.SEShare[t])
			}
			w.Write([]string{c.Label, strconv.Itoa(t + 1), f(c.MeanBest[t]), f(c.SEBest[t]), ms, ss, f(c.Violations[t]), mh, sh})
		}
	}
	w.Flush()
	return b.Bytes()
}
