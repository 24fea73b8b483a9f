package experiment

import (
	"fmt"
	"unsafe"

	"github.com/safegp/safegp/bandit"
	"github.com/safegp/safegp/fit"
	"github.com/safegp/safegp/gp"
	"github.com/safegp/safegp/internal/memlimit"
	"github.com/safegp/safegp/kernel"
	"github.com/safegp/safegp/problem"
)

// Plan is how an experiment runs within a memory limit: how many runs
// proceed in parallel, how many realizations are held at a time, and the
// estimate of the memory it needs at its peak.
type Plan struct {
	Workers int   // parallel runs
	Chunk   int   // realizations whose problems and runs are held at a time
	Bytes   int64 // estimated peak memory
}

// runBytes is what one Run holds: four per-round series and a few fields.
func runBytes(T int) int64 {
	return memlimit.Add(memlimit.Mul(32, int64(T)), int64(unsafe.Sizeof(Run{})))
}

// chunkBudget is the memory the realizations held at a time may take:
// enough that every paper experiment is one chunk, small beside a limit.
const chunkBudget = 256 << 20

// Plan estimates, before anything is allocated, the memory the experiment
// needs with up to workers parallel runs, reducing the workers when fewer
// fit within limit (≤ 0: no limit). keepRuns counts every run's results
// held in memory (Execute); streaming (Stream) holds only a chunk's. fixed
// is the problem file's content, nil for a generated problem. The error
// names the keys that set the size.
func (c *Config) Plan(fixed *problem.Problem, workers int, limit int64, keepRuns bool) (Plan, error) {
	return c.plan(fixed, workers, limit, keepRuns, c.Realizations, c.Realizations*len(c.Algorithms))
}

// plan is Plan for a share of the work units (Options.Units): held
// realizations with at least one unit, units (algorithm, realization)
// pairs in all. A shard holds, and keeps, only its share.
func (c *Config) plan(fixed *problem.Problem, workers int, limit int64, keepRuns bool, held, units int) (Plan, error) {
	R, T, A := max(held, 1), c.Horizon, len(c.Algorithms)
	m := len(c.Problem.Thresholds)
	if c.fn != nil {
		return c.planFunction(workers, limit, keepRuns, held, units)
	}
	pm := c.problemMemory(fixed)
	n, d := pm.n, pm.d
	inst, draw, shared, where := pm.inst, pm.draw, pm.shared, pm.where
	// A warm start adds its rows to every GP's, and those at points
	// outside the decision set their rows of L (gp.OutsideBytes); the
	// rows are held once, shared by every run.
	rows, outside := T, 0
	if c.warm != nil {
		rows, outside = T+len(c.warm.Obs), c.warm.Outside
		shared = memlimit.Add(shared, memlimit.Mul(int64(len(c.warm.Obs)), 8*int64(d+m+4)+80))
	}
	perRun, heavy := c.heaviestPolicy(n, d, m, rows, outside)
	perRun = memlimit.Add(perRun, runBytes(T))
	if f := c.Model.Fit; f.Active() {
		// A run that refits keeps its observations, and a fit of all of
		// them (fit.Bytes, one worker: the runs are the parallel part)
		// holds its matrices while it runs, besides the policy's.
		perRun = memlimit.Add(perRun, fit.Bytes(min(rows, fit.MaxPoints), d, f.ARD, c.fitKernelName(), 1), memlimit.Mul(int64(rows), 8*int64(2*(d+m)+4)+160))
	}
	perReal := memlimit.Add(inst, memlimit.Mul(int64(A), runBytes(T)))
	chunk := R
	if perReal > 0 {
		chunk = int(min(int64(R), max(1, chunkBudget/perReal)))
	}
	// Summary: six per-round series per label, accumulated as runs finish.
	base := memlimit.Add(shared, memlimit.Mul(int64(A), 48, int64(T)), memlimit.Mul(int64(chunk), perReal))
	if keepRuns {
		base = memlimit.Add(base, memlimit.Mul(int64(units), runBytes(T)))
	}
	need := func(w int) int64 {
		// Problems are drawn before the chunk's runs start, so the peaks
		// of drawing and of playing do not add up.
		return memlimit.Add(base, memlimit.Mul(int64(w), max(draw, perRun)))
	}
	w := max(1, min(workers, units))
	for w > 1 && limit > 0 && need(w) > limit {
		w--
	}
	p := Plan{Workers: w, Chunk: chunk, Bytes: need(w)}
	a := &c.Algorithms[heavy]
	what := fmt.Sprintf("%s (N = %d actions in %d-D), horizon (T = %d) and algorithms[%d] (%s", where, n, d, T, heavy, a.DisplayLabel())
	if a.SafeSet == "gp" {
		what += ", safe_set: gp may keep an N×N covariance per constraint and for an objective threshold, 256 MiB at most"
	}
	what += ")"
	if draw > perRun {
		what = fmt.Sprintf("drawing functions from GP priors on %s (N = %d actions in %d-D: N×N matrices)", where, n, d)
	}
	if keepRuns && memlimit.Mul(int64(units), runBytes(T)) > perRun {
		what += fmt.Sprintf(", with the results of realizations (%d) × algorithms (%d) × horizon (%d) rounds in memory", c.Realizations, A, T)
	}
	if err := memlimit.Check(p.Bytes, limit, what); err != nil {
		return p, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	return p, nil
}

// problemMemory is the memory of a finite-set experiment's problem: n
// actions in d dimensions; per realization its problem (inst) and the
// peak of drawing it (draw); held throughout, the problem file (shared);
// where names the keys that set n.
type problemMemory struct {
	n, d               int
	inst, draw, shared int64
	where              string
}

// problemMemory sizes the problem file fixed, or with nil the generated
// problem (a problem per context with problem.context).
func (c *Config) problemMemory(fixed *problem.Problem) problemMemory {
	m := len(c.Problem.Thresholds)
	if fixed != nil {
		n, d := fixed.N(), fixed.Dim()
		return problemMemory{n: n, d: d, shared: problem.Bytes(n, d, m), where: "problem.file"}
	}
	g := c.Problem.Generate
	pm := problemMemory{n: g.Size(), d: g.Dim(), where: "problem.generate.decision_set"}
	pm.inst, pm.draw = problem.Bytes(pm.n, pm.d, m), g.DrawBytes()
	if cc := c.Problem.Context; cc != nil {
		// A problem per context, drawn jointly on the N·|C| points
		// (x, c).
		pm.inst = memlimit.Mul(int64(len(cc.Values)), pm.inst)
		pm.draw = g.ContextDrawBytes(len(cc.Values), len(cc.Names))
		pm.where += fmt.Sprintf(" × problem.context.values (%d contexts)", len(cc.Values))
	}
	return pm
}

// heaviestPolicy is the largest memory of one algorithm's policy and
// GPs, with rows observations (outside of them outside the decision
// set), and that algorithm's index: the first of the largest.
func (c *Config) heaviestPolicy(n, d, m, rows, outside int) (int64, int) {
	var perRun int64
	heavy := 0
	for i := range c.Algorithms {
		gps := int64(bandit.GPCount(&c.Algorithms[i], m))
		b := memlimit.Add(bandit.Bytes(&c.Algorithms[i], n, m, c.Problem.ObjectiveThreshold != nil, rows, false), memlimit.Mul(gps, gp.OutsideBytes(d, rows, outside)+gp.PointsBytes(n, d)))
		if cc := c.Problem.Context; cc != nil {
			// The contextual policy (bandit.NewContextual); at most every
			// action is a seed.
			b = bandit.ContextualBytes(&c.Algorithms[i], n, n, d, len(cc.Names), m, c.Problem.ObjectiveThreshold != nil, rows, keepContexts(len(cc.Values)))
		}
		if b > perRun {
			perRun, heavy = b, i
		}
	}
	return perRun, heavy
}

// fitKernelName is the kernel a refit's memory is estimated for: the
// last model kernel that is not se, else se.
func (c *Config) fitKernelName() string {
	name := "se"
	for _, k := range append([]kernel.Spec{c.objectiveKernel()}, c.constraintKernels()...) {
		if k.Kernel != "se" {
			name = k.Kernel
		}
	}
	return name
}
