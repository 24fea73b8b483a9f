package experiment

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/safegp/safegp/internal/plural"

	"github.com/safegp/safegp/config"
	"github.com/safegp/safegp/internal/fielderr"
	"github.com/safegp/safegp/kernel"
	"github.com/safegp/safegp/problem"
)

// ContextConfig is problem.context: a simulation of contexts for a
// generated problem (problem.generate). f and every g_i are drawn from the
// GP prior on D × C with the product kernel k·k_c (C the finite list
// Values, k_c the context kernel Kernel: stationary, variance 1), each
// round's context c_t is drawn from Values with Probabilities (uniform
// when left out) from a random stream of its own, and every algorithm is
// told c_t before it asks. The seed set is drawn from the actions safe in
// every context: the learner assumes it safe in every context.
type ContextConfig struct {
	Names         []string    `yaml:"names" json:"names"`
	Values        [][]float64 `yaml:"values" json:"values"`
	Probabilities []float64   `yaml:"probabilities,omitempty" json:"probabilities,omitempty"`
	Kernel        kernel.Spec `yaml:"kernel" json:"kernel"`
}

// streamContext is the random stream of a realization's contexts, one
// per round: a stream of its own, so that the other streams — and with
// them every run without contexts — are untouched.
const streamContext = 5

// checkContext checks problem.context; errors name problem.context.*.
func (c *Config) checkContext() error {
	cc := c.Problem.Context
	if cc == nil {
		return nil
	}
	if c.Problem.Generate == nil {
		return badContext("", "only with problem.generate: the functions are drawn on D × contexts (a problem file or a benchmark function has no values in other contexts)")
	}
	if err := config.CheckContextNames(cc.Names); err != nil {
		return fielderr.Recast(ErrConfig, "problem.context.names", err)
	}
	if err := cc.checkValues(); err != nil {
		return err
	}
	if g := c.Problem.Generate; g.Size()*len(cc.Values) > problem.MaxDrawnActions {
		return badContext(".values", "%d actions × %d contexts = %d points (x, c) to draw from the GP prior, at most %d (O(N³) time, O(N²) memory): fewer contexts or a smaller decision set", g.Size(), len(cc.Values), g.Size()*len(cc.Values), problem.MaxDrawnActions)
	}
	if err := cc.checkProbabilities(); err != nil {
		return err
	}
	if _, err := kernel.NewContext(cc.Kernel, len(cc.Names)); err != nil {
		return fielderr.Recast(ErrConfig, "problem.context.kernel", err)
	}
	if c.Model.Fit.Active() {
		return fielderr.New(ErrConfig, "model.fit", "not offered with problem.context: a fit would have to estimate the context kernel too, which it does not")
	}
	for i := range c.Algorithms {
		a := &c.Algorithms[i]
		if a.Exploration.Theory {
			return fielderr.New(ErrConfig, fmt.Sprintf("algorithms[%d].exploration", i), "theory is not offered with problem.context: Theorems 2 and 4 bound T' (and Berkenkamp et al.'s Theorem 1 SafeOpt-MC's t*) for constraints on D, not on D × contexts; give {fixed: n} or {plateau: …}")
		}
	}
	return nil
}

// badContext is a configuration error at problem.context+key.
func badContext(key, format string, args ...any) error {
	return fielderr.New(ErrConfig, "problem.context"+key, format, args...)
}

// checkValues checks problem.context.values: at least one context, each
// with a finite value per name, none given twice.
func (cc *ContextConfig) checkValues() error {
	if len(cc.Values) == 0 {
		return badContext(".values", "missing: the list of contexts the rounds are drawn from, each a list of %d value(s)", len(cc.Names))
	}
	seen := map[string]int{}
	for k, v := range cc.Values {
		if len(v) != len(cc.Names) {
			return badContext(fmt.Sprintf(".values[%d]", k), "%s for %s", plural.Count(len(v), "value"), plural.Count(len(cc.Names), "name"))
		}
		for j, x := range v {
			if !problem.InRange(x) {
				return badContext(fmt.Sprintf(".values[%d][%d]", k, j), "must be a finite number within ±1e100, got %v", x)
			}
		}
		key := fmt.Sprint(v)
		if j, dup := seen[key]; dup {
			return badContext(fmt.Sprintf(".values[%d]", k), "%v is also values[%d]: give each context once (and weigh it with probabilities)", v, j)
		}
		seen[key] = k
	}
	return nil
}

// checkProbabilities checks problem.context.probabilities, if given: one
// per context, each in [0, 1], summing to 1.
func (cc *ContextConfig) checkProbabilities() error {
	p := cc.Probabilities
	if p == nil {
		return nil
	}
	if len(p) != len(cc.Values) {
		return badContext(".probabilities", "%d given for %d contexts", len(p), len(cc.Values))
	}
	var sum float64
	for k, w := range p {
		if !(w >= 0) || w > 1 {
			return badContext(fmt.Sprintf(".probabilities[%d]", k), "must be in [0, 1], got %v", w)
		}
		sum += w
	}
	if math.Abs(sum-1) > 1e-9 {
		return badContext(".probabilities", "sum to %v, want 1", sum)
	}
	return nil
}

// MaxKeptContexts bounds the inner policies a contextual run keeps, one
// per context (bandit.Options.KeepContexts): with more contexts, the
// least recently used is rebuilt when its context comes again.
const MaxKeptContexts = 32

// keepContexts is the inner policies a run with nc contexts keeps.
func keepContexts(nc int) int { return min(nc, MaxKeptContexts) }

// contextKernel is k_c of problem.context (checked).
func (c *Config) contextKernel() kernel.Kernel {
	cc := c.Problem.Context
	k, _ := kernel.NewContext(cc.Kernel, len(cc.Names))
	return k
}

// ContextInstance is one realization of a contextual problem: the
// problem and its analysis in each context (Problems[k] in context
// Values[k]).
type ContextInstance struct {
	Values   [][]float64
	Problems []*problem.Problem
	Infos    []*problem.Info
}

// contextInstance draws realization r of a contextual problem
// (problem.GenerateContext) and analyzes it in every context.
func (c *Config) contextInstance(r int) (Instance, error) {
	cc := c.Problem.Context
	cp, err := problem.GenerateContext(c.Problem.Generate, cc.Values, c.contextKernel(), c.Problem.Thresholds, c.Problem.ObjectiveThreshold, c.Problem.Epsilon, c.Problem.NoiseStd, stream(c.Seed, r, streamProblem))
	if err != nil {
		return Instance{}, fmt.Errorf("realization %d: problem.generate with problem.context: %w", r, err)
	}
	ci := &ContextInstance{Values: cc.Values, Problems: cp.Problems}
	for k, p := range cp.Problems {
		info, err := p.Analyze()
		if err != nil {
			return Instance{}, fmt.Errorf("realization %d: context %v: %w", r, cc.Values[k], err)
		}
		ci.Infos = append(ci.Infos, info)
	}
	return Instance{Problem: ci.Problems[0], Info: ci.Infos[0], Context: ci}, nil
}

// contextSetting is Setting for a contextual problem: the kernels made
// products k·k_c on (x, c).
func (c *Config) contextSetting(r int, in Instance) *Setting {
	st := c.Setting(r, in)
	st.Model.Objective, st.Model.Constraints = config.Products(st.Model.Objective, st.Model.Constraints, c.contextKernel(), in.Problem.Dim())
	st.Truth = nil // per context: OnContexts's truth
	// A policy per context, reused when its context comes again: each
	// round then tells it the few observations made since, instead of
	// rebuilding it from all of them.
	st.Options.KeepContexts = keepContexts(len(c.Problem.Context.Values))
	return st
}

// Contexts is the stream of realization r's contexts.
func (c *Config) Contexts(r int) *rand.Rand { return stream(c.Seed, r, streamContext) }

// drawContext draws a context's index: uniformly from n, or from the
// probabilities p (inverse CDF of one uniform draw, the last context with
// a positive probability taking what rounding leaves).
func drawContext(rng *rand.Rand, n int, p []float64) int {
	if p == nil {
		return rng.IntN(n)
	}
	u, last := rng.Float64(), 0
	for k, w := range p {
		if w <= 0 {
			continue
		}
		if u < w {
			return k
		}
		u -= w
		last = k
	}
	return last
}
