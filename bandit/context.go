package bandit

import (
	"errors"
	"fmt"
	"slices"

	"github.com/safegp/safegp/gp"
	"github.com/safegp/safegp/internal/vec"
)

// Errors of a contextual policy (NewContextual).
var (
	// ErrContext marks a context SetContext cannot take, and an Ask
	// before any context was set.
	ErrContext = errors.New("invalid context")
	// ErrPending marks a change of context with asks pending in too many
	// other contexts (MaxPendingContexts): tell some of them first.
	ErrPending = errors.New("ask pending")
)

// MaxPendingContexts is the most contexts other than the current one that
// may hold asks pending: the inner policy of each is kept until its asks
// are told (a study's parallel workers in conditions measured apart), and
// each costs an inner policy's memory (ContextualBytes counts them for a
// study).
const MaxPendingContexts = 4

// Contextual is a policy whose decision set is D × {c} for a context c
// the caller observes before each round and does not choose (SafeOpt's
// num_contexts, Berkenkamp, Krause and Schoellig 2016, §4.2 "Contexts";
// Ax's fixed features): a temperature, a load. The GPs model f and the
// g_i on (x, c) with kernels such as kernel.Product, so that what is
// learnt in one context carries over to nearby ones through k_c.
// NewContextual builds one.
type Contextual interface {
	Policy
	Predictor
	// SetContext sets the context of the coming rounds (dimension d_c,
	// finite values): Ask then chooses from D × {c}. Setting the context
	// it has is a no-op. Asks pending in the context left stay pending:
	// told later, each is told to the policy of its own context as that
	// ask (the policy is kept meanwhile), and to the others as a
	// measurement at its point (x, c). Pending asks of other contexts are
	// not hallucinated in a batch (Batcher): they are at other points
	// (x, c'). A new context while asks are pending in MaxPendingContexts
	// others already is an error wrapping ErrPending, a bad context one
	// wrapping ErrContext; either changes nothing.
	SetContext(c []float64) error
	// Context returns the current context, nil before the first
	// SetContext. The slice is the policy's own: read it, do not keep it
	// across SetContext.
	Context() []float64
}

// ContextTruth is what a simulation knows of context c: the true safe
// set D^s_0(c) over D and the true Lipschitz constants there, for
// gp-ucb-oracle and `lipschitz: auto` (Truth); nil for a real system.
type ContextTruth func(c []float64) *Truth

// contextual is the policy NewContextual builds: global GPs over every
// observation at its point (x, c), and for the current context an inner
// policy New built on D × {c}, as line-bo runs one per line.
type contextual struct {
	failed [][]float64 // the points (x, c) of the failed trials, in order (failed.go)
	spec   *Spec
	model  Model       // kernels on (x, c)
	set    DecisionSet // D over x, with the seed set D^w
	d, dc  int
	opt    Options
	truth  ContextTruth

	// f and g are the global GPs, over D^w × {0} as their decision set
	// (which fixes the jitter floor as a finite policy's on the same
	// stationary kernel), holding the first inGlobal observations at their
	// points (x, c): for Predict, and to move onto D × {c} when a new
	// context comes. They are told the observations only when needed
	// (global), since each costs a forward substitution, O(t²): a run
	// that keeps its contexts' policies rarely needs them.
	f        *gp.Model
	g        []*gp.Model
	inGlobal int

	obs  []ctxObs // every observation told, in order
	last int      // the ID of the last ask handed out
	// pending are the asks pending, oldest first (a batch: Batcher), in
	// any context, and owner the inner policy that handed out each: it
	// holds the ask pending (inner.asks) until it is told the ask's
	// measurement, and is kept while it does.
	pending []Ask
	owner   []*inner
	// cur is the current context's inner policy, nil before the first
	// SetContext; kept are the inner policies kept for reuse, cur among
	// them (at most max(opt.KeepContexts, 1)).
	cur      *inner
	kept     []*inner
	switches int // changes of context so far
}

// inner is the policy of one context ctx on D × {ctx} (points x), which
// has been told the first told observations.
type inner struct {
	ctx  []float64
	pol  *loop
	x    [][]float64
	told int
	used int // contextual.switches when it was last made current
	// asks maps the contextual policy's IDs of the asks this policy
	// handed out, still pending in it, to its own IDs of them.
	asks map[int]int
}

// tell tells inner policy in observation r, the next it has not been
// told: an ask it handed out as that ask, anything else outside the loop.
func (c *contextual) tell(in *inner, r *ctxObs) error {
	var err error
	if id, ok := in.asks[r.ask]; ok && r.ask > 0 {
		err = in.pol.Tell(id, r.o)
		delete(in.asks, r.ask)
	} else {
		err = in.pol.Tell(0, c.innerObs(r, in.ctx))
	}
	if err != nil {
		return fmt.Errorf("context %v: observation %d: %w", in.ctx, in.told+1, err)
	}
	in.told++
	return nil
}

// ctxObs is one observation told to a contextual policy, with its own
// copies: its point (x, c) and, when it was told as one, its action of D
// (−1 otherwise).
type ctxObs struct {
	x   []float64
	idx int
	o   Observation
	ask int // the ask it answers (this policy's ID), 0 for none
}

// NewContextual builds the contextual form of the policy spec s names
// over the decision set set (D and its seed set D^w, over x alone) for
// contexts of contextDim coordinates. model's kernels are on (x, c),
// points of d + contextDim coordinates, x first: kernel.Product of the
// action kernel and a context kernel, which makes a run in one context
// exactly the non-contextual run. truth, nil for a real system, gives the
// ground truth of a context for gp-ucb-oracle and `lipschitz: auto`.
// opt is as for New; Grow is implied for the inner policies, which are
// rebuilt as the context changes.
//
// The seed set is assumed safe in every context: D^w × {c} seeds the safe
// set of each context c.
//
// Every round, call SetContext with the context observed, then Ask. The
// inner policy of a context is New(s) on D × {c} with seed set D^w × {c}
// and every observation so far, moved there with gp.Model.OnSet for a
// policy whose state is its posterior (sgp-ucb, the SafeOpt family in gp
// mode, no plateau rule: no re-solving), else told again one by one
// outside the loop; observations all made in context c are told again as
// they were made, so that a run that only ever sees one context is the
// non-contextual run to the bit. The inner policy is kept while the
// context stays the same to the bit, and with opt.KeepContexts > 1 the
// policies of that many contexts are kept for when their context comes
// again (a simulation drawing from a few contexts): such a policy is told
// the observations made since it was last current, in order, which
// leaves it as a rebuild telling them all would. β_t's t counts every
// observation, in any context, and so does an exploration phase.
//
// Asks have X the point (x, c) (the inner decision set's own slice) and
// Index the action of D. Tell with an ask's ID takes the measurement
// there; Tell(0, o) one made outside the loop: Index −1 with o.X the
// point (x, c), anywhere; or Index i ≥ 0, action i of D, in the context
// of o.X when given (o.X = (x_i, c)), else in the current one. Inspect
// reports the current context's inner policy (Safe and the posteriors
// over D × {c}, indexed as D), and only the round before the first
// context. Predict takes points (x, c) and reads the global GPs, with
// √β_t of N actions.
//
// line-bo runs on a box and has no contextual form; exploration: theory
// has none either (Theorems 2 and 4 are for one constraint function on
// D, not on D × C): both are refused with an error wrapping ErrConfig.
func newContextual(s *Spec, model Model, set DecisionSet, contextDim int, opt Options, truth ContextTruth) (Contextual, error) {
	if err := s.Check(opt.Horizon); err != nil {
		return nil, err
	}
	switch {
	case s.algorithm().Box:
		return nil, fmt.Errorf("%w: name: %s runs on a box and has no contextual form; with a context, use one of %v", ErrConfig, s.Name, Names)
	case s.Exploration.Theory:
		return nil, fmt.Errorf("%w: exploration: theory: T' of Theorems 2 and 4 (and SafeOpt-MC's t*, Berkenkamp et al. 2016, Theorem 1) is for constraints on D, not on D × contexts; give fixed or plateau with a context", ErrConfig)
	case contextDim < 1:
		return nil, fmt.Errorf("%w: %d context dimensions: want at least 1", ErrConfig, contextDim)
	}
	if err := checkSet(&set); err != nil {
		return nil, err
	}
	d := len(set.X[0])
	c := &contextual{spec: s, model: model, set: set, d: d, dc: contextDim, opt: opt, truth: truth}
	// The seeds at context 0 as a finite set check the model, the options
	// and the spec's needs (a random stream, a truth) as New does, on
	// points of the GPs' dimension.
	probe := DecisionSet{X: c.atContext(seedPoints(set), make([]float64, contextDim))}
	for i := range probe.X {
		probe.Seed = append(probe.Seed, i)
	}
	var probeTruth *Truth
	if truth != nil {
		probeTruth = &Truth{Safe: make([]bool, len(probe.X)), Lipschitz: make([]float64, len(opt.Thresholds)+btoi(opt.ObjectiveThreshold != nil))}
		for i := range probeTruth.Safe {
			probeTruth.Safe[i] = true
		}
	}
	popt := opt
	popt.Grow, popt.Expect, popt.WarmStart = true, 0, 0
	if _, err := newFinite(s, model, probe, probeTruth, popt, nil); err != nil {
		return nil, err
	}
	c.f = gp.New(model.Objective, probe.X, model.Sigma(0))
	for k, kg := range model.Constraints {
		c.g = append(c.g, gp.New(kg, probe.X, model.Sigma(1+k)))
	}
	rows := opt.Horizon + max(opt.WarmStart, 0)
	for _, g := range c.gps() {
		g.GrowTo(rows)
		g.Reserve(min(max(opt.Expect, 8), rows))
	}
	return c, nil
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// seedPoints returns the seed actions' points.
func seedPoints(set DecisionSet) [][]float64 {
	x := make([][]float64, len(set.Seed))
	for k, i := range set.Seed {
		x[k] = set.X[i]
	}
	return x
}

// atContext returns the points (x, ctx) for x in xs, new slices.
func (c *contextual) atContext(xs [][]float64, ctx []float64) [][]float64 {
	w := len(ctx)
	if len(xs) > 0 {
		w += len(xs[0])
	}
	flat := make([]float64, len(xs)*w)
	out := make([][]float64, len(xs))
	for i, x := range xs {
		p := flat[i*w : (i+1)*w : (i+1)*w]
		copy(p, x)
		copy(p[len(x):], ctx)
		out[i] = p
	}
	return out
}

func (c *contextual) gps() []*gp.Model { return append([]*gp.Model{c.f}, c.g...) }

// global returns the global GPs, told every observation so far.
func (c *contextual) global() []*gp.Model {
	for ; c.inGlobal < len(c.obs); c.inGlobal++ {
		r := &c.obs[c.inGlobal]
		nv := gpNoise(r.o.NoiseVar)
		c.f.AddAt(r.x, r.o.F, nv)
		for k, g := range c.g {
			g.AddAt(r.x, r.o.G[k], nv)
		}
	}
	return c.gps()
}

// Context implements Contextual.
func (c *contextual) Context() []float64 {
	if c.cur == nil {
		return nil
	}
	return c.cur.ctx
}

// SetContext implements Contextual.
func (c *contextual) SetContext(ctx []float64) error {
	if len(ctx) != c.dc {
		return fmt.Errorf("%w: %d values for %d context dimensions", ErrContext, len(ctx), c.dc)
	}
	for j, v := range ctx {
		if !finite(v) {
			return fmt.Errorf("%w: context value %d is %v", ErrContext, j+1, v)
		}
	}
	if c.cur != nil && vec.SameBits(ctx, c.cur.ctx) {
		return nil
	}
	var found *inner
	for _, in := range c.kept {
		if vec.SameBits(in.ctx, ctx) {
			found = in
		}
	}
	// A context not kept holds no asks: all the holders are others.
	if h := c.holding(); found == nil && h > MaxPendingContexts {
		return fmt.Errorf("%w: asks are pending in %d other contexts (ask %d, in context %v, the oldest): tell some of them before asking in context %v", ErrPending, h, c.pending[0].ID, c.owner[0].ctx, ctx)
	}
	c.switches++
	if in := found; in != nil {
		// Kept from an earlier round in this context: told the
		// observations made since, in order — its own asks' as those
		// asks — it is the policy a rebuild would tell them all to,
		// with its pending asks still pending.
		for in.told < len(c.obs) {
			if err := c.tell(in, &c.obs[in.told]); err != nil {
				return err
			}
		}
		in.used, c.cur = c.switches, in
		return nil
	}
	in, err := c.build(slices.Clone(ctx))
	if err != nil {
		return err
	}
	// The least recently used makes room (the current one included: it
	// is being left), but not one holding asks pending: their
	// measurements are told to it as those asks when it comes back.
	for len(c.kept)-c.holding() >= max(c.opt.KeepContexts, 1) {
		lru := -1
		for k, o := range c.kept {
			if !slices.Contains(c.owner, o) && (lru < 0 || o.used < c.kept[lru].used) {
				lru = k
			}
		}
		c.kept = slices.Delete(c.kept, lru, lru+1)
	}
	in.used = c.switches
	c.kept = append(c.kept, in)
	c.cur = in
	return nil
}

// holding counts the kept inner policies that handed out asks still
// pending. (One whose asks are all told, but that has not been told so
// yet, may go: rebuilt, it is told them as observations.)
func (c *contextual) holding() int {
	n := 0
	for _, in := range c.kept {
		if slices.Contains(c.owner, in) {
			n++
		}
	}
	return n
}

// build makes the inner policy of context ctx: New on D × {ctx} with the
// seed set D^w × {ctx}, holding every observation so far.
func (c *contextual) build(ctx []float64) (*inner, error) {
	set := DecisionSet{X: c.atContext(c.set.X, ctx), Seed: c.set.Seed}
	var truth *Truth
	if c.truth != nil {
		if truth = c.truth(ctx); truth == nil {
			return nil, fmt.Errorf("%w: no ground truth for context %v", ErrContext, ctx)
		}
	}
	t := len(c.obs)
	opt := c.opt
	opt.Horizon = max(c.opt.Horizon, t+1)
	opt.Grow, opt.Expect, opt.WarmStart = true, t, max(c.opt.WarmStart, 0)
	// All observations in this context: told again as they were made, so
	// that a single-context run is the non-contextual run to the bit.
	same := true
	for k := range c.obs {
		if !vec.SameBits(c.obs[k].x[c.d:], ctx) {
			same = false
			break
		}
	}
	var pol *loop
	if !same {
		if pre := movedGPs(c.spec, c.model, c.global(), set, opt); pre != nil {
			p, err := newFinite(c.spec, c.model, set, truth, opt, pre)
			if err != nil {
				return nil, fmt.Errorf("context %v: %w", ctx, err)
			}
			pol = p
		}
	}
	if pol == nil {
		p, err := newFinite(c.spec, c.model, set, truth, opt, nil)
		if err != nil {
			return nil, fmt.Errorf("context %v: %w", ctx, err)
		}
		for k := range c.obs {
			if err := p.Tell(0, c.innerObs(&c.obs[k], ctx)); err != nil {
				return nil, fmt.Errorf("context %v: observation %d: %w", ctx, k+1, err)
			}
		}
		pol = p
	}
	return &inner{ctx: ctx, pol: pol, x: set.X, told: t, asks: map[int]int{}}, nil
}

// innerObs is observation r as a policy on D × {ctx} takes it outside the
// loop: at its action when it was told as one in this context, else at its
// point (x, c).
func (c *contextual) innerObs(r *ctxObs, ctx []float64) Observation {
	o := r.o
	if r.idx >= 0 && vec.SameBits(r.x[c.d:], ctx) {
		o.Index, o.X = r.idx, nil
	} else {
		o.Index, o.X = -1, r.x
	}
	return o
}

// Ask implements Policy: the oldest ask pending in the current context, or
// the current context's
// choice. Before the first SetContext it fails with ErrContext.
func (c *contextual) Ask() (Ask, error) {
	for k, a := range c.pending {
		if c.owner[k] == c.cur {
			return a, nil
		}
	}
	a, _, err := c.AskNew()
	return a, err
}

// AskNew implements Batcher: the current context's inner policy's next
// ask of a batch, beside the asks pending in this context.
func (c *contextual) AskNew() (Ask, bool, error) {
	if c.cur == nil {
		return Ask{}, false, fmt.Errorf("%w: no context set: call SetContext with the context observed before Ask", ErrContext)
	}
	a, ok, err := c.cur.pol.AskNew()
	if err != nil {
		return Ask{}, false, fmt.Errorf("context %v: %w", c.cur.ctx, err)
	}
	if !ok {
		return Ask{}, false, nil
	}
	c.last++
	out := Ask{ID: c.last, X: a.X, Index: a.Index}
	c.pending = append(c.pending, out)
	c.owner = append(c.owner, c.cur)
	c.cur.asks[c.last] = a.ID
	return out, true, nil
}

// Pending implements Batcher.
func (c *contextual) Pending() []Ask { return c.pending }

// Tell implements Policy. A measurement is told to the current context's
// policy and to the global GPs.
func (c *contextual) Tell(id int, o Observation) error {
	var x []float64
	idx, k := -1, -1
	switch {
	case id < 0 || id > c.last:
		return fmt.Errorf("%w: %d was never handed out (asks so far: %d)", ErrUnknownAsk, id, c.last)
	case id > 0:
		k = slices.IndexFunc(c.pending, func(a Ask) bool { return a.ID == id })
		if k < 0 {
			return fmt.Errorf("%w: ask %d was told already", ErrUnknownAsk, id)
		}
		x, idx = c.pending[k].X, c.pending[k].Index
	default:
		var err error
		if x, idx, err = c.point(&o); err != nil {
			return err
		}
	}
	if o.Failed {
		o.F, o.G, o.NoiseVar = 0, make([]float64, len(c.model.Constraints)), 0 // checked as a point only
	}
	if err := checkValues(&c.model, &o); err != nil {
		if id > 0 {
			return fmt.Errorf("ask %d: %w", id, err)
		}
		return err
	}
	if o.Failed {
		imputeFailed(&o, x, c.f, c.g, c.opt.Thresholds, c.opt.ObjectiveThreshold, c.failed)
		c.failed = append(c.failed, slices.Clone(x))
	}
	// Exclude goes with the point (x, c): the inner policy of that
	// context bans its action, of another context none.
	rec := ctxObs{x: slices.Clone(x), idx: idx, o: Observation{F: o.F, G: slices.Clone(o.G), NoiseVar: o.NoiseVar, Exclude: o.excluded()}, ask: id}
	if in := c.cur; in != nil && in.told == len(c.obs) {
		// Checked above: the inner policy takes what this one takes.
		if err := c.tell(in, &rec); err != nil {
			return err
		}
	}
	c.obs = append(c.obs, rec)
	if id > 0 {
		c.pending = slices.Delete(c.pending, k, k+1)
		c.owner = slices.Delete(c.owner, k, k+1)
	}
	return nil
}

// point checks the point of a measurement made outside the loop and
// returns it as (x, c), with its action of D (−1 for none).
func (c *contextual) point(o *Observation) ([]float64, int, error) {
	n, w := len(c.set.X), c.d+c.dc
	switch {
	case o.Index >= n || o.Index < -1:
		return nil, 0, fmt.Errorf("%w: index %d outside the decision set's 0…%d (−1: a point (x, c) outside it)", ErrObservation, o.Index, n-1)
	case o.Index >= 0 && o.X == nil:
		if c.cur == nil {
			return nil, 0, fmt.Errorf("%w: action %d without its point (x, c) needs a current context: call SetContext, or give the point", ErrObservation, o.Index)
		}
		return c.cur.x[o.Index], o.Index, nil
	case o.X == nil:
		return nil, 0, fmt.Errorf("%w: index −1 names a point (x, c) outside the decision set: give the point", ErrObservation)
	case len(o.X) != w:
		return nil, 0, fmt.Errorf("%w: point of %d coordinates; a contextual policy takes (x, c): %d for x and %d for the context", ErrObservation, len(o.X), c.d, c.dc)
	}
	for j, v := range o.X {
		if !finite(v) {
			return nil, 0, fmt.Errorf("%w: coordinate %d of the point is %v", ErrObservation, j+1, v)
		}
	}
	if o.Index >= 0 && !slices.Equal(o.X[:c.d], c.set.X[o.Index]) {
		return nil, 0, fmt.Errorf("%w: point %v is not action %d, %v, in a context", ErrObservation, o.X, o.Index, c.set.X[o.Index])
	}
	return o.X, o.Index, nil
}

// Inspect implements Policy: the current context's inner policy, or only
// the round before the first context.
func (c *contextual) Inspect(dst *Snapshot, d Detail) {
	if c.cur != nil {
		c.cur.pol.Inspect(dst, d)
		return
	}
	*dst = Snapshot{Round: len(c.obs) + 1, Safe: dst.Safe[:0], F: Posterior{Mean: dst.F.Mean[:0], Std: dst.F.Std[:0]}, G: dst.G[:0], LowerF: dst.LowerF[:0]}
}

// Predict implements Predictor with the global GPs, at points (x, c).
func (c *contextual) Predict(dst *Prediction, x [][]float64) error {
	w := c.d + c.dc
	for k, p := range x {
		if len(p) != w {
			return fmt.Errorf("%w: point %d has %d coordinates; a contextual policy takes (x, c): %d for x and %d for the context", ErrPoint, k+1, len(p), c.d, c.dc)
		}
		for j, v := range p {
			if !finite(v) {
				return fmt.Errorf("%w: point %d: coordinate %d is %v", ErrPoint, k+1, j+1, v)
			}
		}
	}
	// √β_t of the coming round t = observations + 1 over N actions, as
	// the inner policy's.
	c.global()
	dst.SqrtBeta = sqrtBeta(&c.model, c.f, c.g, len(c.obs)+1, len(c.set.X))
	predict(&dst.F, c.f, x)
	dst.G = slices.Grow(dst.G[:0], len(c.g))[:len(c.g)]
	for k, g := range c.g {
		predict(&dst.G[k], g, x)
	}
	return nil
}

// ContextualBytes estimates the memory of the contextual policy of spec s
// (NewContextual) over n actions in d dimensions with seeds seed actions,
// contexts of dc dimensions and m constraints, with an objective threshold
// when hf, at the horizon, keeping keep contexts' inner policies
// (Options.KeepContexts): keep + 1 inner policies (those kept, and the
// next, built before one is dropped) on D × {c}, each holding every
// observation at points outside its set in the worst case (its rows of L,
// gp.OutsideBytes), with their points; and the global GPs over the seeds
// with every observation at its point (x, c), and the observations kept.
func ContextualBytes(s *Spec, n, seeds, d, dc, m int, hf bool, horizon, keep int) int64 {
	w := d + dc
	outside := gpCount(s, m) * gp.OutsideBytes(w, horizon, horizon)
	inner := Bytes(s, n, m, hf, horizon, true) + outside + 8*int64(n)*int64(w+3)
	global := int64(m+1) * (gp.Bytes(seeds, horizon, false) + gp.OutsideBytes(w, horizon, horizon))
	obs := int64(horizon) * int64(8*(w+m+1)+64)
	return int64(max(keep, 1)+1)*inner + global + obs
}
