package bandit

import (
	"fmt"
	"math"
	"slices"
	"sort"

	"gonum.org/v1/gonum/mat"

	"github.com/safegp/safegp/gp"
	"github.com/safegp/safegp/internal/vec"
)

// Box is a continuous decision set, the box ∏_j [lo_j, hi_j], with the
// points known to be safe that a box policy starts from.
type Box struct {
	Bounds [][2]float64 // [lo_j, hi_j] per dimension, lo_j < hi_j, d ≥ 1
	Seeds  [][]float64  // known-safe points inside the box, at least one
	// Lattice, if not nil, says which points of the box can be run (a
	// space of parameters with ints and choices, package space): a box
	// policy judges and asks only such points. Nil: every point can.
	// Only line-bo takes one.
	Lattice Lattice
}

// checkLattice refuses a seed that is not a point of the box's lattice.
func (b *Box) checkLattice() error {
	if b.Lattice == nil {
		return nil
	}
	for j, x := range b.Seeds {
		y := slices.Clone(x)
		b.Lattice.Snap(y)
		if !slices.Equal(x, y) {
			return fmt.Errorf("%w: box: seed %d is not a runnable point of the box's lattice (an int between integers, a choice not one-hot)", ErrConfig, j+1)
		}
	}
	return nil
}

// A Lattice is the runnable points of a box: ints' integers, one value
// per choice (one-hot coordinates), floats anywhere.
type Lattice interface {
	// Snap moves x onto the nearest runnable point, in place: the
	// runnable point a caller would run for x.
	Snap(x []float64)
	// Block is the coordinates that move together with coordinate j
	// (a choice's one-hot block, j among them), nil for a coordinate of
	// its own.
	Block(j int) []int
}

// Check validates the box and its seeds: errors wrap ErrConfig.
func (b *Box) Check() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrConfig, fmt.Sprintf(format, args...))
	}
	d := len(b.Bounds)
	if d == 0 {
		return bad("box: no bounds: give [lo, hi] for every dimension")
	}
	for j, lh := range b.Bounds {
		if !finite(lh[0]) || !finite(lh[1]) {
			return bad("box: bounds of dimension %d, [%v, %v]: want finite numbers", j+1, lh[0], lh[1])
		}
		if !(lh[0] < lh[1]) {
			return bad("box: bounds of dimension %d, [%v, %v]: want lo < hi", j+1, lh[0], lh[1])
		}
	}
	if len(b.Seeds) == 0 {
		return bad("box: no seed point: give at least one point known to be safe")
	}
	for k, x := range b.Seeds {
		if len(x) != d {
			return bad("box: seed point %d has %d coordinates, the box has %d dimensions", k+1, len(x), d)
		}
		if j := b.outside(x); j >= 0 {
			return bad("box: seed point %d, %v, is outside the box in dimension %d, [%v, %v]", k+1, x, j+1, b.Bounds[j][0], b.Bounds[j][1])
		}
	}
	return nil
}

// outside returns the first dimension in which x is not a finite number
// within the bounds, or −1 when x is in the box.
func (b *Box) outside(x []float64) int {
	for j, v := range x {
		if !(v >= b.Bounds[j][0] && v <= b.Bounds[j][1]) {
			return j
		}
	}
	return -1
}

// BoxBytes estimates the memory of line-bo (spec s) on a box of d
// dimensions with m constraints, an objective threshold when hf, at the
// horizon: the inner policy of a line of N = points + horizon actions (the
// grid and, at most, every observation on it) holding horizon observations
// at points outside any set (t²/2 floats of L per GP, and their points),
// and the global GPs over the seeds with the same observations, tracking
// the observed points.
func BoxBytes(s *Spec, d, m, horizon int, hf bool) int64 {
	if s.Name == SafeOptSwarm {
		return swarmBytes(s, d, m, horizon)
	}
	l := s.LineOptions()
	n := l.Points + horizon
	t := int64(horizon)
	gps := int64(m + 1)
	outside := gps * gp.OutsideBytes(d, horizon, horizon)
	line := Bytes(&l.Inner, n, m, hf, horizon, true) + outside + 8*int64(n)*int64(d+4)
	// Each global GP tracks every observed point (gp.Model.Track): up to
	// t floats of L⁻¹k(X_t, x), a copy of x and its posterior each.
	tracked := gps * 8 * (t*t + t*int64(d+8))
	global := gps*gp.Bytes(1, horizon, false) + outside + tracked
	// The observations kept: the point, f, the g_i.
	obs := t * int64(8*(d+m+1)+64)
	return line + global + obs
}

// lineBO is line-bo (Kirschner, Mutný, Hiller, Ischebeck and Krause,
// Adaptive and Safe Bayesian Optimization in High Dimensions via
// One-Dimensional Subspaces, ICML 2019, Algorithm 1): it optimizes along
// one line through the best safe point at a time, and on a line runs a
// finite-set policy (the inner algorithm, built by New) on the line's grid.
type lineBO struct {
	line  Line
	model Model
	box   Box
	opt   Options
	d     int

	// f and g are the global GPs, over the seeds as their decision set
	// (which fixes the jitter floor as a finite policy's on the same
	// kernel), with every observation at its point: for the best safe
	// point, the ascent direction and Predict.
	f *gp.Model
	g []*gp.Model

	obs []boxObs // every observation told, in order
	// banned are the points never to be asked again (failed.go): told
	// as failed, or excluded. No seed or observation among them is a
	// candidate for x̂.
	banned [][]float64
	failed [][]float64 // the points of the failed trials, in order
	last   int         // the ID of the last ask handed out
	// pending are the asks handed out and not yet told, oldest first,
	// and innerAsk the inner policy's ID of each (of the line it was
	// asked on).
	pending  []Ask
	innerAsk []int
	// inner is the current line's policy, nil before the first line and
	// after a line has ended (the next Ask with nothing pending starts a
	// new one).
	inner    *loop
	lineX    [][]float64 // the current line's points
	evals    int         // the current line's evaluations (its asks told)
	lines    int         // lines started so far
	prevBest []float64   // x̂ the previous line went through (ascent's stall test)
	// dir is the current line's direction (its anchor x̂ is prevBest);
	// resume, set by Carry, is the line in progress of the policy this
	// one replaced, which the next line goes on with.
	dir    []float64
	resume *resumedLine
	snap   Snapshot // scratch of the line-end rule
}

// resumedLine is a line in progress carried over from a replaced
// policy (Carry): its direction and evaluations so far; its anchor is
// the carried prevBest.
type resumedLine struct {
	dir   []float64
	evals int
}

// Carry implements Carrier when keep_line is set: the next line is the
// one prev had in progress, if any, through the same anchor in the same
// direction with its evaluations counted, and later lines are numbered
// on from prev's (the coordinate rule's cycle goes on). The line's
// points and its inner policy are built anew from every observation
// under this policy's model.
func (b *lineBO) Carry(prev Policy) {
	p, ok := prev.(*lineBO)
	if !ok || !b.line.KeepLine {
		return
	}
	b.lines, b.prevBest = p.lines, slices.Clone(p.prevBest)
	r := p.resume // carried on to p, not started yet
	if p.inner != nil {
		r = &resumedLine{dir: p.dir, evals: p.evals}
	}
	b.resume = nil
	if r != nil {
		b.resume = &resumedLine{dir: slices.Clone(r.dir), evals: r.evals}
	}
}

// anchorSafe reports whether x is one of the candidates for x̂ marked
// safe: a carried line's anchor still vouched for by the data.
func anchorSafe(x []float64, cand [][]float64, safe []bool) bool {
	for i, p := range cand {
		if safe[i] && slices.Equal(p, x) {
			return true
		}
	}
	return false
}

// boxObs is one observation told to line-bo, with its own copies.
type boxObs struct {
	x []float64
	o Observation
}

// newBox is Build on a box: the policy spec s names on the box box with the
// GP model model: line-bo, the only box policy. The spec must pass Check; any
// other algorithm, and an inner algorithm that needs the true functions,
// is refused with an error wrapping ErrConfig. opt is as for Build (Rand
// must not be nil for direction: random and inner sgp-ucb: every draw of
// the policy comes from it, in the order of the calls).
//
// Asks have Index −1 and X the point (the policy's own copy). Tell with
// the ask's ID takes the measurement there, Tell(0, o) one made outside
// the loop at o.X (Index −1), which must be in the box. Inspect reports
// the current line's inner policy: Safe and the posteriors are over the
// line's finite set (LinePoints); between lines — before the first ask
// and after a line has ended — it writes only the round. Predict reads
// the global GPs, with √β_t of a grid of Points actions.
func newBox(s *Spec, model Model, box Box, opt Options) (Policy, error) {
	if err := s.Check(opt.Horizon); err != nil {
		return nil, err
	}
	if !s.algorithm().Box {
		return nil, fmt.Errorf("%w: name: %s needs a finite decision set; on a box the algorithm is one of %v", ErrConfig, s.Name, BoxNames)
	}
	if s.Name == SafeOptSwarm {
		return newSwarm(s, model, box, opt)
	}
	if err := box.Check(); err != nil {
		return nil, err
	}
	if err := box.checkLattice(); err != nil {
		return nil, err
	}
	l := s.LineOptions()
	if l.MaxStep != nil && len(l.MaxStep) != len(box.Bounds) {
		return nil, fmt.Errorf("%w: line-bo: max_step: %d bounds for a %d-D box: give one per coordinate", ErrConfig, len(l.MaxStep), len(box.Bounds))
	}
	if (l.Direction == "random" || l.Direction == "ascent" || l.Direction == "cloud") && opt.Rand == nil {
		return nil, fmt.Errorf("%w: line-bo: direction: %s draws (some of) its directions at random and needs a random stream", ErrConfig, l.Direction)
	}
	// The seeds as a finite set check the model and options as New does;
	// the inner policy built on them checks the inner spec's needs (a
	// random stream for sgp-ucb's phase 1, the theory length's input).
	seedSet := DecisionSet{X: box.Seeds}
	for i := range box.Seeds {
		seedSet.Seed = append(seedSet.Seed, i)
	}
	if err := check(&model, &seedSet, &opt); err != nil {
		return nil, err
	}
	if l.Inner.Name == SGPUCB && opt.Rand == nil {
		return nil, fmt.Errorf("%w: line-bo: inner sgp-ucb needs a random stream", ErrConfig)
	}
	if _, err := newFinite(&l.Inner, model, seedSet, nil, Options{
		Thresholds: opt.Thresholds, ObjectiveThreshold: opt.ObjectiveThreshold, Epsilon: opt.Epsilon,
		Horizon: 1, Rand: opt.Rand, Grow: true,
	}, nil); err != nil {
		return nil, fmt.Errorf("line-bo: inner %s: %w", l.Inner.Name, err)
	}
	b := &lineBO{line: l, model: model, opt: opt, d: len(box.Bounds)}
	b.box.Bounds = slices.Clone(box.Bounds)
	b.box.Lattice = box.Lattice
	for _, x := range box.Seeds {
		b.box.Seeds = append(b.box.Seeds, slices.Clone(x))
	}
	b.f = gp.New(model.Objective, b.box.Seeds, model.Sigma(0))
	for k, kg := range model.Constraints {
		b.g = append(b.g, gp.New(kg, b.box.Seeds, model.Sigma(1+k)))
	}
	for _, g := range b.gps() {
		g.GrowTo(opt.Horizon + max(opt.WarmStart, 0))
		g.Reserve(min(max(opt.Expect, 8), opt.Horizon+max(opt.WarmStart, 0)))
		// The candidates for x̂: their bounds are kept current (Track).
		for _, x := range b.box.Seeds {
			g.Track(x)
		}
	}
	return b, nil
}

func (b *lineBO) gps() []*gp.Model { return append([]*gp.Model{b.f}, b.g...) }

// Ask implements Policy: the pending ask, or the inner policy's choice on
// the current line, starting a new line first when none is running.
func (b *lineBO) Ask() (Ask, error) {
	if len(b.pending) > 0 {
		return b.pending[0], nil
	}
	if b.inner == nil {
		if x := b.unmeasuredSeed(); x != nil {
			// Outside any line: its tell goes to the global GPs only.
			return b.hand(Ask{X: x}), nil
		}
		if err := b.startLine(); err != nil {
			return Ask{}, err
		}
	}
	a, err := b.inner.Ask()
	if err != nil {
		return Ask{}, fmt.Errorf("line-bo: line %d: %w", b.lines, err)
	}
	return b.hand(a), nil
}

// unmeasuredSeed is the first seed point not yet measured, with
// seeds_first; nil without it or when every seed has been.
func (b *lineBO) unmeasuredSeed() []float64 {
	if !b.line.SeedsFirst {
		return nil
	}
	for _, x := range b.box.Seeds {
		if !slices.ContainsFunc(b.obs, func(o boxObs) bool { return slices.Equal(o.x, x) }) {
			return x
		}
	}
	return nil
}

// hand records the inner policy's ask a as a pending ask of line-bo and
// returns it.
func (b *lineBO) hand(a Ask) Ask {
	b.last++
	out := Ask{ID: b.last, X: slices.Clone(a.X), Index: -1}
	b.pending = append(b.pending, out)
	b.innerAsk = append(b.innerAsk, a.ID)
	return out
}

// AskNew implements Batcher: a new ask on the current line, chosen by the
// inner policy's AskNew, or ok false when the line is over (ended while
// asks were pending) or would end with the asks pending (per_line of them
// handed out).
func (b *lineBO) AskNew() (Ask, bool, error) {
	if len(b.pending) == 0 {
		a, err := b.Ask()
		return a, err == nil, err
	}
	if b.inner == nil || b.evals+len(b.pending) >= b.line.PerLine || len(b.pending) >= MaxBatch {
		return Ask{}, false, nil
	}
	a, ok, err := b.inner.AskNew()
	if err != nil {
		return Ask{}, false, fmt.Errorf("line-bo: line %d: %w", b.lines, err)
	}
	if !ok {
		return Ask{}, false, nil
	}
	return b.hand(a), true, nil
}

// Pending implements Batcher.
func (b *lineBO) Pending() []Ask { return b.pending }

// Tell implements Policy. A measurement is told to the global GPs and to
// the current line's policy; a line's ask told counts as one of its
// evaluations, after which the line-end rule is checked.
func (b *lineBO) Tell(id int, o Observation) error {
	var x []float64
	pk := -1 // the ask's place among the pending
	switch {
	case id < 0 || id > b.last:
		return fmt.Errorf("%w: %d was never handed out (asks so far: %d)", ErrUnknownAsk, id, b.last)
	case id > 0:
		pk = slices.IndexFunc(b.pending, func(a Ask) bool { return a.ID == id })
		if pk < 0 {
			return fmt.Errorf("%w: ask %d was told already", ErrUnknownAsk, id)
		}
		x = b.pending[pk].X
	default:
		var err error
		if x, err = b.box.tellPoint(&o); err != nil {
			return err
		}
	}
	if o.Failed {
		o.F, o.G, o.NoiseVar = 0, make([]float64, len(b.model.Constraints)), 0 // checked as a point only
	}
	if err := checkValues(&b.model, &o); err != nil {
		if id > 0 {
			return fmt.Errorf("ask %d: %w", id, err)
		}
		return err
	}
	x = slices.Clone(x)
	if o.Failed {
		imputeFailed(&o, x, b.f, b.g, b.opt.Thresholds, b.opt.ObjectiveThreshold, b.failed)
		b.failed = append(b.failed, x)
	}
	// The inner policies take the imputed values as they are, and exclude
	// the point too.
	rec := boxObs{x: x, o: Observation{F: o.F, G: slices.Clone(o.G), NoiseVar: o.NoiseVar, X: x, Index: -1, Exclude: o.excluded()}}
	b.obs = append(b.obs, rec)
	if o.excluded() {
		b.banned = append(b.banned, x)
	}
	nv := gpNoise(o.NoiseVar)
	b.f.AddAt(x, o.F, nv)
	b.f.Track(x)
	for k, g := range b.g {
		g.AddAt(x, o.G[k], nv)
		g.Track(x)
	}
	innerID := 0
	if pk >= 0 {
		innerID = b.innerAsk[pk]
		b.pending = slices.Delete(b.pending, pk, pk+1)
		b.innerAsk = slices.Delete(b.innerAsk, pk, pk+1)
	}
	if b.inner == nil {
		// Between lines, or an ask of a line that ended while it was
		// pending: the next line is built from every observation.
		return nil
	}
	if id > 0 {
		b.evals++
	}
	if err := b.inner.Tell(innerID, rec.o); err != nil {
		// Checked above: the inner policy takes what line-bo takes.
		return fmt.Errorf("line-bo: line %d: %w", b.lines, err)
	}
	if id > 0 && b.lineEnds() {
		b.inner, b.lineX = nil, nil
	}
	return nil
}

// lineEnds is the line-end rule: per_line evaluations, or
// max_{S} u_f − ℓ_f(x̂) < tolerance·|ℓ_f(x̂)| over the line's safe set S,
// x̂ = argmax_S ℓ_f the best safe point of the line. The LineBO code
// (febo/algorithms/subdomainbo/subdomainbo.py, SubDomainBO._line_solver_stop)
// stops when max ucb on the line − lcb(best_x) < 0.01·mean(best_x); the
// issue's form takes ℓ_f's magnitude, so that a negative objective does
// not end every line at once.
func (b *lineBO) lineEnds() bool {
	if b.evals >= b.line.PerLine {
		return true
	}
	b.inner.Inspect(&b.snap, Full)
	s := &b.snap
	maxU, best := math.Inf(-1), -1
	for i, in := range s.Safe {
		if !in {
			continue
		}
		maxU = math.Max(maxU, s.F.Mean[i]+s.SqrtBeta*s.F.Std[i])
		if best < 0 || s.LowerF[i] > s.LowerF[best] {
			best = i
		}
	}
	if best < 0 {
		return false
	}
	lb := s.LowerF[best]
	return maxU-lb < b.line.Tolerance*math.Abs(lb)
}

// Inspect implements Policy: the current line's inner policy, or only the
// round between lines.
func (b *lineBO) Inspect(dst *Snapshot, d Detail) {
	if b.inner != nil {
		b.inner.Inspect(dst, d)
		return
	}
	*dst = Snapshot{Round: len(b.obs) + 1, Safe: dst.Safe[:0], F: Posterior{Mean: dst.F.Mean[:0], Std: dst.F.Std[:0]}, G: dst.G[:0], LowerF: dst.LowerF[:0]}
}

// linePoints implements LinePoints: the current line's points.
func (b *lineBO) linePoints() [][]float64 { return b.lineX }

// Predict implements Predictor with the global GPs.
func (b *lineBO) Predict(dst *Prediction, x [][]float64) error {
	return predictBox(dst, b.box.Bounds, b.sqrtBeta(), b.f, b.g, x)
}

// tellPoint is the point of a measurement made outside the loop on box
// b: o.X, which must be given, of the box's dimension and inside it (a
// box has no action indices).
func (b *Box) tellPoint(o *Observation) ([]float64, error) {
	if o.Index >= 0 {
		return nil, fmt.Errorf("%w: index %d: a box has no action indices; give the point (Index −1)", ErrObservation, o.Index)
	}
	x := o.X
	if x == nil {
		return nil, fmt.Errorf("%w: a measurement outside the loop on a box needs its point", ErrObservation)
	}
	if len(x) != len(b.Bounds) {
		return nil, fmt.Errorf("%w: point of %d coordinates, the box has %d dimensions", ErrObservation, len(x), len(b.Bounds))
	}
	if j := b.outside(x); j >= 0 {
		return nil, fmt.Errorf("%w: point %v is outside the box in dimension %d, [%v, %v]", ErrObservation, x, j+1, b.Bounds[j][0], b.Bounds[j][1])
	}
	return x, nil
}

// predictBox writes the posteriors of GPs f and g at the points x of a
// box with bounds into dst, with √β_t sqb, after checking the points
// (Predictor).
func predictBox(dst *Prediction, bounds [][2]float64, sqb float64, f *gp.Model, g []*gp.Model, x [][]float64) error {
	for k, p := range x {
		if len(p) != len(bounds) {
			return fmt.Errorf("%w: point %d has %d coordinates, the box has %d dimensions", ErrPoint, k+1, len(p), len(bounds))
		}
		for j, v := range p {
			if !finite(v) {
				return fmt.Errorf("%w: point %d: coordinate %d is %v", ErrPoint, k+1, j+1, v)
			}
		}
	}
	dst.SqrtBeta = sqb
	predict(&dst.F, f, x)
	dst.G = slices.Grow(dst.G[:0], len(g))[:len(g)]
	for k, gk := range g {
		predict(&dst.G[k], gk, x)
	}
	return nil
}

// sqrtBeta is √β_t of the coming round for a grid of Points actions: the
// β the global safety check uses (a line's own N adds the observed points
// on it, so its β is at least this one).
func (b *lineBO) sqrtBeta() float64 {
	return sqrtBeta(&b.model, b.f, b.g, len(b.obs)+1, b.line.Points)
}

// best implements Best: the candidate known to be safe with the highest
// ℓ_f (candidates).
func (b *lineBO) best() ([]float64, float64) {
	cand, safe, lower := b.candidates()
	i := bestSafe(safe, lower)
	if i < 0 {
		return nil, math.Inf(-1)
	}
	return slices.Clone(cand[i]), lower[i]
}

// candidates returns the seeds and the observed points, whether each is
// known to be safe — a seed, or ℓ of every safety condition ≥ its
// threshold under the global GPs — and ℓ_f at each. The global GPs track
// every candidate (gp.Model.Track: the posterior Predict would give, kept
// current at O(t) per candidate and observation), so it costs O(P) for
// P = seeds + t points.
func (b *lineBO) candidates() (pts [][]float64, safe []bool, lower []float64) {
	pts = append(pts, b.box.Seeds...)
	for _, o := range b.obs {
		pts = append(pts, o.x)
	}
	n := len(pts)
	safe, lower = make([]bool, n), make([]float64, n)
	sqb := b.sqrtBeta()
	bound := func(g *gp.Model, dst []float64) {
		for i := range dst {
			mean, vr := g.Tracked(i)
			dst[i] = mean - sqb*math.Sqrt(max(vr, 0))
		}
	}
	bound(b.f, lower)
	seeds := len(b.box.Seeds)
	for i := range safe {
		safe[i] = len(b.banned) == 0 || !slices.ContainsFunc(b.banned, func(x []float64) bool { return slices.Equal(x, pts[i]) })
		if hf := b.opt.ObjectiveThreshold; hf != nil && i >= seeds {
			safe[i] = safe[i] && lower[i] >= *hf // NaN is not safe
		}
	}
	lg := make([]float64, n)
	for k, g := range b.g {
		bound(g, lg)
		for i := seeds; i < n; i++ {
			safe[i] = safe[i] && lg[i] >= b.opt.Thresholds[k]
		}
	}
	return pts, safe, lower
}

// bestSafe is argmax ℓ_f over the safe candidates, the first on ties;
// the seeds are first and safe unless excluded (failed.go). −1 when no
// candidate is safe: every seed was excluded and nothing else certified.
func bestSafe(safe []bool, lower []float64) int {
	best := -1
	for i, in := range safe {
		if in && (best < 0 || lower[i] > lower[best]) {
			best = i
		}
	}
	return best
}

// startLine starts the next line (Kirschner et al. 2019, Algorithm 1): it
// goes through the best safe point x̂ in the next direction, clipped to the
// box, and its inner policy is New(inner) on the line's points — Points
// grid points and every seed and observed point on the line — with every
// observation so far told to it (Tell(0) with its point, Index −1), and
// the known-safe points of the line as its seed set.
func (b *lineBO) startLine() error {
	cand, safe, lower := b.candidates()
	if bestSafe(safe, lower) < 0 {
		return ErrNoSafeAction
	}
	xb, v, evals := b.anchor(cand, safe, lower)
	b.resume = nil
	b.dir = slices.Clone(v)
	step := b.line.MaxStep
	var pts []linePoint
	if b.line.Direction == "cloud" {
		pts = b.cloudPoints(xb, step, cand, safe)
		// Equal points side by side, for lineSet to merge; the order is
		// the points' own, the same on every replay.
		sort.SliceStable(pts, func(i, j int) bool { return slices.Compare(pts[i].x, pts[j].x) < 0 })
	} else {
		sLo, sHi := b.span(xb, v, step)
		pts = b.gridPoints(xb, v, step, sLo, sHi)
		pts = b.onLine(pts, cand, safe, xb, v, step)
		lattice := b.box.Lattice != nil
		sort.SliceStable(pts, func(i, j int) bool {
			// On a lattice, snapped points of one s may differ: equal points
			// side by side, for lineSet to merge.
			return pts[i].s < pts[j].s || lattice && pts[i].s == pts[j].s && slices.Compare(pts[i].x, pts[j].x) < 0
		})
	}
	set := lineSet(pts)
	inner, err := b.newInner(set)
	if err != nil {
		return err
	}
	b.inner, b.lineX, b.evals = inner, set.X, evals
	return nil
}

// anchor returns the next line's anchor x̂, its direction and the
// evaluations already made on it: the line a replaced policy had in
// progress (Carry), while its anchor is still a safe point (a retraction
// may have withdrawn it: then a new line starts, the same on replay), or
// a new line through the best safe point.
func (b *lineBO) anchor(cand [][]float64, safe []bool, lower []float64) (xb, v []float64, evals int) {
	if r := b.resume; r != nil && anchorSafe(b.prevBest, cand, safe) {
		return slices.Clone(b.prevBest), r.dir, r.evals
	}
	xb = cand[bestSafe(safe, lower)] // bestSafe ≥ 0: startLine checked
	v = b.direction(xb)
	b.prevBest = append(b.prevBest[:0], xb...)
	b.lines++
	return xb, v, 0
}

// span returns the range [sLo, sHi] of s on the line x̂ + s·v clipped to
// the box, and cut by a step limit to |s·v_j| ≤ max_step_j: every point
// within the bounds of x̂ (Spec.MaxStep).
func (b *lineBO) span(xb, v, step []float64) (sLo, sHi float64) {
	sLo, sHi = math.Inf(-1), math.Inf(1)
	for j, vj := range v {
		if vj == 0 {
			continue
		}
		a, c := (b.box.Bounds[j][0]-xb[j])/vj, (b.box.Bounds[j][1]-xb[j])/vj
		sLo, sHi = math.Max(sLo, math.Min(a, c)), math.Min(sHi, math.Max(a, c))
	}
	sLo, sHi = math.Min(sLo, 0), math.Max(sHi, 0)
	for j, vj := range v {
		if step != nil && vj != 0 {
			r := step[j] / math.Abs(vj)
			sLo, sHi = math.Max(sLo, -r), math.Min(sHi, r)
		}
	}
	return sLo, sHi
}

// linePoint is a point x = x̂ + s·v of a line; seed says it is known safe.
type linePoint struct {
	s    float64
	x    []float64
	seed bool
}

// gridPoints returns the line's Points evenly spaced points on
// [sLo, sHi], clamped to the box and the step limit.
func (b *lineBO) gridPoints(xb, v, step []float64, sLo, sHi float64) []linePoint {
	var pts []linePoint
	n := b.line.Points
	for i := range n {
		s := sLo + (sHi-sLo)*float64(i)/float64(n-1)
		x := make([]float64, b.d)
		for j := range x {
			x[j] = xb[j] + s*v[j]
		}
		if !b.settle(x, xb, step) {
			continue
		}
		if b.box.Lattice != nil {
			s = 0
			for j := range x {
				s += (x[j] - xb[j]) * v[j]
			}
		}
		pts = append(pts, linePoint{s: s, x: x})
	}
	return pts
}

// settle makes x a point the inner policy may judge: clamped to the box
// (rounding must not put a point outside it) and to the step limit
// around xb, exactly, and on a lattice snapped to the setting that will
// run, never one between an int's integers or a choice's values. It
// reports false when the snap takes x past the step limit: the point is
// left out.
func (b *lineBO) settle(x, xb, step []float64) bool {
	for j := range x {
		x[j] = min(max(x[j], b.box.Bounds[j][0]), b.box.Bounds[j][1])
		if step != nil {
			x[j] = min(max(x[j], xb[j]-step[j]), xb[j]+step[j])
		}
	}
	if b.box.Lattice == nil {
		return true
	}
	b.box.Lattice.Snap(x)
	return withinStep(x, xb, step)
}

// onLine appends to pts the seeds and observed points (cand) on the line:
// within lineTol of it (relative to the box's diagonal) and within the
// step limit, at their own coordinates.
func (b *lineBO) onLine(pts []linePoint, cand [][]float64, safe []bool, xb, v, step []float64) []linePoint {
	var diag float64
	for _, lh := range b.box.Bounds {
		diag += (lh[1] - lh[0]) * (lh[1] - lh[0])
	}
	tol := lineTol * math.Sqrt(diag)
	r := make([]float64, b.d)
	for i, p := range cand {
		var s float64
		for j := range r {
			s += (p[j] - xb[j]) * v[j]
		}
		for j := range r {
			r[j] = p[j] - xb[j] - s*v[j]
		}
		if math.Sqrt(vec.Dot(r, r)) > tol || !withinStep(p, xb, step) {
			continue
		}
		pts = append(pts, linePoint{s: s, x: p, seed: safe[i]})
	}
	return pts
}

// Shape of a cloud (cloudPoints): the radius per coordinate without a
// max_step, as a share of the box's width; the smallest distance from x̂
// as a share of the radius; and the expected number of coordinates a
// point changes, as in TuRBO's and SCBO's perturbation of a few
// coordinates at a time in high dimensions (Eriksson et al. 2019, 2021).
const (
	cloudRadius = 0.2
	cloudInner  = 0.01
	cloudCoords = 20
)

// cloudBetaActions is the N that β_t counts on a cloud (SPEC §3): a grid
// of 100 values per coordinate of a 3-D box, the resolution of a 2-D
// study's candidate grid, rather than the cloud's own few hundred points
// — the clouds are drawn anew at every evaluation, anywhere in the box.
// Measured on study's BenchmarkTuneControllers (48 realizations): with
// N the cloud's size, pi-int broke its overshoot limit in 1 (5.3 %
// against 5 %); with 10⁶ in none of pi-int, pid and pid-mixed.
const cloudBetaActions = 1_000_000

// cloudPoints returns the candidates of direction: cloud, the finite
// set the inner policy judges in place of a line: Points points around
// x̂, each changing every coordinate with probability min(1, 20/d) (one
// at least) by a Gaussian draw scaled so that its largest change is ρ
// times the radius r_j — max_step_j, or 0.2 of the box's width — with ρ
// log-uniform on [0.01, 1]: most points lie within the short distances
// a GP's lower bound certifies next to the data (SPEC §3), a few as far
// as the step limit allows. Points are clamped to the box and the step
// limit, snapped on a lattice (left out if the snap takes them past the
// limit), and the seeds and observed points within the limit join them
// at their own coordinates, the known-safe ones as the set's seeds. The
// draws come from the policy's random stream: Points·(2d + 1) of them
// (and one more for a point that changed no coordinate).
func (b *lineBO) cloudPoints(xb, step []float64, cand [][]float64, safe []bool) []linePoint {
	d, rng := b.d, b.opt.Rand
	pts := make([]linePoint, 0, b.line.Points+len(cand))
	p := min(1, float64(cloudCoords)/float64(d))
	z := make([]float64, d)
	for range b.line.Points {
		rho := math.Exp(math.Log(cloudInner) * rng.Float64())
		var top float64
		for j := range z {
			z[j] = rng.NormFloat64()
			if rng.Float64() >= p {
				z[j] = 0
			}
			top = max(top, math.Abs(z[j]))
		}
		if top == 0 {
			j := rng.IntN(d)
			z[j], top = 1, 1
		}
		x := make([]float64, d)
		for j := range x {
			r := cloudRadius * (b.box.Bounds[j][1] - b.box.Bounds[j][0])
			if step != nil {
				r = step[j]
			}
			x[j] = xb[j] + rho*r*z[j]/top
		}
		if b.settle(x, xb, step) {
			pts = append(pts, linePoint{x: x})
		}
	}
	for i, c := range cand {
		if withinStep(c, xb, step) {
			pts = append(pts, linePoint{x: c, seed: safe[i]})
		}
	}
	return pts
}

// lineSet makes the line's decision set from its points, sorted by s: one
// action per distinct point, a seed or observed point replacing a grid
// point equal to it, and kept safe if any copy is.
func lineSet(pts []linePoint) DecisionSet {
	var set DecisionSet
	for _, p := range pts {
		if k := len(set.X) - 1; k >= 0 && slices.Equal(set.X[k], p.x) {
			if p.seed && (len(set.Seed) == 0 || set.Seed[len(set.Seed)-1] != k) {
				set.Seed = append(set.Seed, k)
			}
			continue
		}
		if p.seed {
			set.Seed = append(set.Seed, len(set.X))
		}
		set.X = append(set.X, p.x)
	}
	return set
}

// newInner builds the line's inner policy on set: with the global GPs
// moved onto it where it can (moved), else by New and a tell of every
// observation so far.
func (b *lineBO) newInner(set DecisionSet) (*loop, error) {
	t := len(b.obs)
	opt := b.opt
	opt.Horizon = max(b.opt.Horizon, t+b.line.PerLine)
	opt.Grow, opt.Expect, opt.WarmStart = true, t, 0
	if b.line.Direction == "cloud" {
		opt.BetaActions = max(cloudBetaActions, len(set.X))
	}
	if pre := b.moved(set, opt); pre != nil {
		p, err := newFinite(&b.line.Inner, b.model, set, nil, opt, pre)
		if err != nil {
			return nil, fmt.Errorf("line-bo: line %d: %w", b.lines, err)
		}
		return p, nil
	}
	p, err := newFinite(&b.line.Inner, b.model, set, nil, opt, nil)
	if err != nil {
		return nil, fmt.Errorf("line-bo: line %d: %w", b.lines, err)
	}
	for k := range b.obs {
		if err := p.Tell(0, b.obs[k].o); err != nil {
			return nil, fmt.Errorf("line-bo: line %d: observation %d: %w", b.lines, k+1, err)
		}
	}
	return p, nil
}

// moved returns the inner policy's GPs on the line's set, moved there
// from the global GPs (movedGPs), or nil when New and a tell of every
// observation must build them.
func (b *lineBO) moved(set DecisionSet, opt Options) *prebuilt {
	return movedGPs(&b.line.Inner, b.model, b.gps(), set, opt)
}

// lineTol is the distance from a line, relative to the box's diagonal,
// within which a seed or observed point lies on it.
const lineTol = 1e-9

// direction returns the unit direction of the next line through x̂
// (Kirschner et al. 2019, §3): coordinate cycles through e_1 … e_d;
// random draws z ~ N(0, I_d) from the random stream, scales z_j by the
// box's width hi_j − lo_j (as the LineBO code's get_random_direction
// does) and normalizes; ascent is the trust-region gradient step of the
// LineBO code (febo/algorithms/subdomainbo/subdomainbo.py, AscentLineBO):
// a gradient ĝ of f at x̂ drawn from the GP posterior (a Thompson sample,
// sampleGradient), scaled per coordinate by the trust region's radius
// 0.1·(hi_j − lo_j), so that the line runs from x̂ through the step
// x̂ + r ⊙ ĝ/‖ĝ‖. Where the data have varied, the sample is close to the
// posterior mean's gradient; along directions they have not, it carries
// the prior's spread — so ascent's lines leave the span of the data, which
// the mean's gradient alone never does (it lies in that span). The
// authors query that step inside a trust region first; here the line
// through it is searched by the inner safe algorithm, which certifies
// every point it asks. When the previous line did not move x̂, ascent
// takes a random direction instead, as the LineBO code does when its
// step falls under 2 % of the trust region: without it a run stalls on
// one line for good. The coordinate rule's direction stands in when the
// gradient's posterior cannot be sampled (not finite).
func (b *lineBO) direction(xb []float64) []float64 {
	d := b.d
	v := make([]float64, d)
	coordinate := func() []float64 {
		clear(v)
		j := b.lines % d
		if b.box.Lattice == nil {
			v[j] = 1
			return v
		}
		block := b.box.Lattice.Block(j)
		if block == nil {
			v[j] = 1
			return v
		}
		// A choice's coordinate: the line moves its one-hot weight from
		// the value x̂ has to value j (the next value when j is x̂'s), so
		// that its snapped points are x̂ with either value.
		c := block[0]
		for _, k := range block {
			if xb[k] > xb[c] {
				c = k
			}
		}
		if j == c {
			j = block[(slices.Index(block, c)+1)%len(block)]
		}
		if j != c {
			v[j], v[c] = 1/math.Sqrt2, -1/math.Sqrt2
		}
		return v
	}
	dir := b.line.Direction
	if dir == "cloud" {
		return nil // a cloud of points around x̂, no line (cloudPoints)
	}
	if dir == "ascent" && b.prevBest != nil && slices.Equal(b.prevBest, xb) {
		dir = "random"
	}
	switch dir {
	case "random":
		for j := range v {
			v[j] = b.opt.Rand.NormFloat64() * (b.box.Bounds[j][1] - b.box.Bounds[j][0])
		}
	case "ascent":
		if b.line.AscentRule == "mean" {
			b.meanGradient(v, xb)
			break
		}
		if !b.sampleGradient(v, xb) {
			return coordinate()
		}
		for j := range v {
			v[j] *= trustRadius * (b.box.Bounds[j][1] - b.box.Bounds[j][0])
		}
	default:
		return coordinate()
	}
	norm := math.Sqrt(vec.Dot(v, v))
	if !(norm > 0) || math.IsInf(norm, 0) {
		return coordinate()
	}
	for j := range v {
		v[j] /= norm
	}
	return v
}

// The trust region of the ascent rule: its radius per coordinate, a share
// of the box's width, and the finite-difference step of the sampled
// gradient, a share of the width too (the LineBO code's 0.1 and 0.001).
const (
	trustRadius = 0.1
	gradStep    = 1e-3
)

// sampleGradient writes into g a draw of f's gradient at x from the GP
// posterior, by finite differences of one joint posterior sample at x and
// at x + h_j·e_j (h_j = gradStep·(hi_j − lo_j), stepped back inside the
// box where needed), as the LineBO code's trust-region step does. The
// differences are sampled directly from their own Gaussian — mean
// (μ_j − μ_0)/h_j, covariance (Σ_jk − Σ_j0 − Σ_0k + Σ_00)/(h_j·h_k) —
// which is the same law without the nearly singular covariance of the
// d + 1 points. The standard normals come from the policy's random
// stream, d of them. It reports false when the covariance cannot be
// factored even with jitter, or the draw is not finite.
func (b *lineBO) sampleGradient(g, x []float64) bool {
	d := b.d
	pts := make([][]float64, d+1)
	pts[0] = x
	h := make([]float64, d)
	for j := range d {
		lo, hi := b.box.Bounds[j][0], b.box.Bounds[j][1]
		h[j] = gradStep * (hi - lo)
		if x[j]+h[j] > hi {
			h[j] = -h[j]
		}
		p := slices.Clone(x)
		p[j] += h[j]
		pts[j+1] = p
	}
	mean, cov := make([]float64, d+1), make([]float64, (d+1)*(d+1))
	b.f.JointAt(mean, cov, pts)
	c := mat.NewSymDense(d, nil)
	var top float64
	for j := range d {
		for k := j; k < d; k++ {
			v := (cov[(j+1)*(d+1)+k+1] - cov[(j+1)*(d+1)] - cov[k+1] + cov[0]) / (h[j] * h[k])
			c.SetSym(j, k, v)
		}
		top = max(top, c.At(j, j))
	}
	z := make([]float64, d)
	for j := range z {
		z[j] = b.opt.Rand.NormFloat64()
	}
	if !(top > 0) || math.IsInf(top, 0) {
		return false
	}
	var ch mat.Cholesky
	for jitter := 1e-12 * top; ; jitter *= 10 {
		if jitter > 1e-2*top {
			return false
		}
		cj := mat.NewSymDense(d, nil)
		cj.CopySym(c)
		for j := range d {
			cj.SetSym(j, j, cj.At(j, j)+jitter)
		}
		if ch.Factorize(cj) {
			break
		}
	}
	var l mat.TriDense
	ch.LTo(&l)
	for j := range d {
		s := (mean[j+1] - mean[0]) / h[j]
		for k := 0; k <= j; k++ {
			s += l.At(j, k) * z[k]
		}
		if math.IsNaN(s) || math.IsInf(s, 0) {
			return false
		}
		g[j] = s
	}
	return true
}

// withinStep reports whether x lies within the step limit of ref,
// |x_j − ref_j| ≤ step_j for every j (always, without a limit).
func withinStep(x, ref, step []float64) bool {
	for j := range step {
		if math.Abs(x[j]-ref[j]) > step[j] {
			return false
		}
	}
	return true
}

// meanGradient writes the gradient of f's posterior mean at x into g, by
// central differences of gp.PredictAt with step 10⁻⁴·(hi_j − lo_j): the
// ascent rule before issue 27 (ascent_rule: mean), kept so that studies
// recorded with it replay.
func (b *lineBO) meanGradient(g, x []float64) {
	p := slices.Clone(x)
	for j := range g {
		h := 1e-4 * (b.box.Bounds[j][1] - b.box.Bounds[j][0])
		p[j] = x[j] + h
		up, _ := b.f.PredictAt(p)
		p[j] = x[j] - h
		down, _ := b.f.PredictAt(p)
		p[j] = x[j]
		g[j] = (up - down) / (2 * h)
	}
}
