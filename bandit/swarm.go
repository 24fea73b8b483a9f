package bandit

import (
	"fmt"
	"math"
	"slices"

	"github.com/safegp/safegp/gp"
)

// safeOptSwarm is SafeOptSwarm (Duivenvoorden, Berkenkamp, Carion, Krause
// and Schoellig, Constrained Bayesian Optimization with Particle Swarms
// for Safe Adaptive Controller Tuning, IFAC 2017) on a box, as the Python
// SafeOpt library defines it (safeopt/gp_opt.py, SafeOptSwarm, and
// safeopt/swarm.py, SwarmOptimization, at 06f4579): the safe set is a
// finite list of points S, the seeds first, grown by the swarms; each ask
// runs three particle swarms seeded from S — a greedy one for the best
// lower bound of f, one for maximizers and one for expanders — and asks
// the maximizers' or the expanders' best, whichever is more uncertain.
// docs/algorithms.md, "safeopt-swarm", states every rule and constant.
//
// Its safety rests on the GP bounds at the points it asks: a swarm's best
// is a personal best, which is only ever updated to a point whose lower
// bounds clear every threshold (SwarmOptimization.run_swarm), and the
// initial particles come from S. The library's quirks are kept: the
// greedy swarm ignores the constraints (its best only sets the
// maximizers' reference ℓ*), and S's correlation test uses f's kernel.
type safeOptSwarm struct {
	failed [][]float64 // the points of the failed trials, in order (failed.go)
	model  Model
	box    Box
	opt    Options
	d      int
	size   int // particles per swarm
	iters  int // iterations of each swarm run

	f *gp.Model
	g []*gp.Model
	// fmin is each GP's threshold — the objective's (−Inf without one),
	// then each constraint's; scaling each GP's prior standard deviation
	// √k(0, 0); vel the particles' velocity scale per coordinate.
	fmin, scaling, vel []float64

	s      [][]float64 // the safe set's points, the seeds first
	seeds  int         // how many of s are seeds (known safe)
	greedy []float64   // the greedy swarm's best point, a particle of its next run
	bestLB float64     // ℓ* = the greedy swarm's best ℓ_f, the maximizers' reference

	obs     []boxObs
	last    int   // the ID of the last ask handed out
	pending []Ask // at most one: the swarm asks one point at a time

	// step is the step limit (Spec.MaxStep; nil: none), and lim the
	// bounds particles move in: the box, cut to within step of the best
	// safe point ref when an ask starts.
	step []float64
	ref  []float64
	lim  [][2]float64
}

// Swarm constants (safeopt/swarm.py, SwarmOptimization; gp_opt.py,
// SafeOptSwarm): the cognitive and social weights, the inertia's start
// and end, the velocity clip in velocity scales, the correlation band the
// velocity scale aims at, the correlation above which a point is not
// added to S, and the expanders' normal density's standard deviation.
const (
	swarmC1, swarmC2     = 1.0, 1.0
	swarmW0, swarmW1     = 1.0, 0.1
	swarmMaxVel          = 10.0
	swarmCorrLo          = 0.94
	swarmCorrHi          = 0.95
	swarmExpanderSD      = 0.2
	defaultSwarmSize     = 20
	defaultSwarmIters    = 100
	swarmSearchHi        = 1000.0
	swarmSearchTolerance = 1e-5
)

// Swarm types: which fitness a swarm maximizes.
type swarmKind int

const (
	swarmGreedy swarmKind = iota
	swarmMaximizers
	swarmExpanders
)

func newSwarm(s *Spec, model Model, box Box, opt Options) (Policy, error) {
	if err := box.Check(); err != nil {
		return nil, err
	}
	if box.Lattice != nil {
		// Its particles fly through the box; the point they find would
		// have to be judged again once snapped, which the swarm does not.
		return nil, fmt.Errorf("%w: safeopt-swarm searches a box of floats only; with ints or choices use line-bo", ErrConfig)
	}
	if opt.Rand == nil {
		return nil, fmt.Errorf("%w: safeopt-swarm draws its particles at random and needs a random stream", ErrConfig)
	}
	seedSet := DecisionSet{X: box.Seeds}
	for i := range box.Seeds {
		seedSet.Seed = append(seedSet.Seed, i)
	}
	if err := check(&model, &seedSet, &opt); err != nil {
		return nil, err
	}
	w := &safeOptSwarm{model: model, opt: opt, d: len(box.Bounds), size: defaultSwarmSize, iters: defaultSwarmIters}
	if s.SwarmSize != nil {
		w.size = *s.SwarmSize
	}
	if s.Iterations != nil {
		w.iters = *s.Iterations
	}
	if s.MaxStep != nil && len(s.MaxStep) != len(box.Bounds) {
		return nil, fmt.Errorf("%w: safeopt-swarm: max_step: %d bounds for a %d-D box: give one per coordinate", ErrConfig, len(s.MaxStep), len(box.Bounds))
	}
	w.step = slices.Clone(s.MaxStep)
	w.box.Bounds = slices.Clone(box.Bounds)
	w.lim = slices.Clone(box.Bounds)
	for _, x := range box.Seeds {
		w.box.Seeds = append(w.box.Seeds, slices.Clone(x))
		w.s = append(w.s, slices.Clone(x))
	}
	w.seeds = len(w.s)
	w.f = gp.New(model.Objective, w.box.Seeds, model.Sigma(0))
	for k, kg := range model.Constraints {
		w.g = append(w.g, gp.New(kg, w.box.Seeds, model.Sigma(1+k)))
	}
	for _, g := range w.gps() {
		g.GrowTo(opt.Horizon + max(opt.WarmStart, 0))
		g.Reserve(min(max(opt.Expect, 8), opt.Horizon+max(opt.WarmStart, 0)))
	}
	w.fmin = append(w.fmin, math.Inf(-1))
	if hf := opt.ObjectiveThreshold; hf != nil {
		w.fmin[0] = *hf
	}
	w.fmin = append(w.fmin, opt.Thresholds...)
	zero := make([]float64, w.d)
	for _, g := range w.gps() {
		w.scaling = append(w.scaling, math.Sqrt(g.Kernel().Eval(zero, zero)))
	}
	w.vel = swarmVelocity(w.gps(), w.scaling, w.d)
	w.greedy = slices.Clone(w.s[0])
	w.bestLB = math.Inf(-1)
	return w, nil
}

func (w *safeOptSwarm) gps() []*gp.Model { return append([]*gp.Model{w.f}, w.g...) }

// swarmVelocity is SafeOptSwarm.optimize_particle_velocity: per GP and
// coordinate j, a bisection on [0, 1000] for the offset r whose
// correlation k(0, r·e_j)/scaling² lies in (0.94, 0.95) — stopping when
// it does or the bracket is narrower than 10⁻⁵, and keeping the last
// midpoint — then the smallest over the GPs, divided by √d.
func swarmVelocity(gps []*gp.Model, scaling []float64, d int) []float64 {
	vel := make([]float64, d)
	zero, x := make([]float64, d), make([]float64, d)
	for j := range vel {
		vel[j] = math.Inf(1)
		for i, g := range gps {
			lo, hi, mid := 0.0, swarmSearchHi, 0.0
			for {
				mid = (hi + lo) / 2
				clear(x)
				x[j] = mid
				c := g.Kernel().Eval(zero, x) / (scaling[i] * scaling[i])
				enough, notTooFast := c > swarmCorrLo, c < swarmCorrHi
				if notTooFast {
					hi = mid
				} else if enough {
					lo = mid
				}
				if (notTooFast && enough) || hi-lo < swarmSearchTolerance {
					break
				}
			}
			vel[j] = min(vel[j], mid)
		}
		vel[j] /= math.Sqrt(float64(d))
	}
	return vel
}

// swarmPenalty is SafeOptSwarm._compute_penalty of a normalized slack
// s = (ℓ − threshold)/scaling: 0 when safe, then 2s, 5s and 10s on
// (−0.001, 0), (−0.1, −0.001] and (−1, −0.1], and −300s² below −1 (at
// s = −1 exactly no band matches and the library leaves s: kept).
func swarmPenalty(s float64) float64 {
	switch {
	case s >= 0:
		return 0
	case s > -0.001:
		return 2 * s
	case s > -0.1:
		return 5 * s
	case s > -1:
		return 10 * s
	case s < -1:
		return -300 * s * s
	}
	return s // s == −1, or NaN
}

// sqrtBeta is √β_t of the coming round: the model's β for the points an
// ask examines, 3 swarms × size particles × (iters + 1) evaluations (the
// union bound's N of the paper's schedule; a fixed β ignores it).
func (w *safeOptSwarm) sqrtBeta() float64 {
	n := 3 * w.size * (w.iters + 1)
	return sqrtBeta(&w.model, w.f, w.g, len(w.obs)+1, n)
}

// fitness writes the fitness of swarm kind k at the points x into values
// and whether each is safe (ℓ_i ≥ fmin_i for every GP with a threshold)
// into safe: SafeOptSwarm._compute_particle_fitness. post is scratch of
// the GPs' posteriors.
func (w *safeOptSwarm) fitness(k swarmKind, x [][]float64, values []float64, safe []bool, post []Posterior) {
	b := w.sqrtBeta()
	gps := w.gps()
	for i, g := range gps {
		predict(&post[i], g, x)
	}
	f := &post[0]
	if k == swarmGreedy {
		for p := range x {
			values[p], safe[p] = f.Mean[p]-b*f.Std[p], true
		}
		return
	}
	for p := range x {
		v := f.Std[p] / w.scaling[0]
		interest := float64(len(gps))
		if k == swarmMaximizers {
			ub := f.Mean[p] + b*f.Std[p]
			interest = 1 / (1 + math.Exp(-10*(ub-w.bestLB)/w.scaling[0]))
		}
		ok, penalty := true, 0.0
		for i := range gps {
			pi := &post[i]
			if i > 0 {
				v = max(v, pi.Std[p]/w.scaling[i])
			}
			if math.IsInf(w.fmin[i], -1) {
				continue
			}
			slack := pi.Mean[p] - b*pi.Std[p] - w.fmin[i]
			ok = ok && slack >= 0
			slack /= w.scaling[i]
			penalty += swarmPenalty(slack)
			if k == swarmExpanders {
				interest *= math.Exp(-slack*slack/(2*swarmExpanderSD*swarmExpanderSD)) / (swarmExpanderSD * math.Sqrt(2*math.Pi))
			}
		}
		values[p], safe[p] = (v+penalty)*interest, ok
	}
}

// safeMask says which points of S are safe under the GPs now: ℓ_i ≥
// fmin_i for every GP with a threshold, or a seed (known safe).
func (w *safeOptSwarm) safeMask(post []Posterior) []bool {
	safe := make([]bool, len(w.s))
	b := w.sqrtBeta()
	for i, g := range w.gps() {
		predict(&post[i], g, w.s)
	}
	for p := range w.s {
		safe[p] = p < w.seeds || w.modelSafe(post, p, b)
	}
	return safe
}

// modelSafe reports whether point p of the posteriors post clears every
// threshold with √β_t b: ℓ_i ≥ fmin_i for each GP with one (NaN is not
// safe).
func (w *safeOptSwarm) modelSafe(post []Posterior, p int, b float64) bool {
	for i := range post {
		if !math.IsInf(w.fmin[i], -1) && !(post[i].Mean[p]-b*post[i].Std[p] >= w.fmin[i]) {
			return false
		}
	}
	return true
}

// run is SafeOptSwarm.get_new_query_point(k): it prunes S, seeds a swarm
// from it, runs the swarm, grows S by the swarm's personal bests (not k
// greedy) and returns the swarm's global best, with its fitness for
// greedy and each GP's standard deviation otherwise.
func (w *safeOptSwarm) run(k swarmKind) (best []float64, value float64, std []float64) {
	rng := w.opt.Rand
	post := make([]Posterior, 1+len(w.g))
	safe := w.safeMask(post)
	nSafe := 0
	for _, in := range safe {
		if in {
			nSafe++
		}
	}
	// Prune the unsafe points of S only when enough remain to seed a
	// swarm (the library's rule).
	if nSafe >= w.size && nSafe < len(w.s) {
		kept, seeds := w.s[:0:0], 0
		for p, in := range safe {
			if in {
				kept = append(kept, w.s[p])
				if p < w.seeds {
					seeds++
				}
			}
		}
		w.s, w.seeds = kept, seeds
	}
	n := w.size
	pos := make([][]float64, n)
	draws := n
	if k == swarmGreedy {
		draws = n - 3
	}
	for p := range draws {
		pos[p] = slices.Clone(w.s[rng.IntN(len(w.s))])
	}

	if k == swarmGreedy {
		lastX, bestX := w.s[0], w.s[0]
		if len(w.obs) > 0 {
			lastX = w.obs[len(w.obs)-1].x
			bi := 0
			for i, o := range w.obs {
				if o.o.F > w.obs[bi].o.F {
					bi = i
				}
			}
			bestX = w.obs[bi].x
		}
		pos[n-3], pos[n-2], pos[n-1] = slices.Clone(w.greedy), slices.Clone(lastX), slices.Clone(bestX)
	}
	// Every particle starts within the step limit (a no-op without one:
	// S and the observed points are in the box).
	for _, x := range pos {
		w.clip(x)
	}
	// init_swarm: velocities U[0, 1)·vel, row by row.
	velo := make([][]float64, n)
	for p := range velo {
		velo[p] = make([]float64, w.d)
		for j := range velo[p] {
			velo[p][j] = rng.Float64() * w.vel[j]
		}
	}
	values, ok := make([]float64, n), make([]bool, n)
	w.fitness(k, pos, values, ok, post)
	bestPos := make([][]float64, n)
	for p := range pos {
		bestPos[p] = slices.Clone(pos[p])
	}
	bestVal := slices.Clone(values)
	// A deliberate departure from the library, whose initial personal
	// bests ignore safety: an initial particle unsafe under the model (a
	// point of S the data have since made unsafe: S is pruned only once
	// size points are safe) starts at −∞, so that it is never asked.
	for p := range pos {
		if !ok[p] && !w.isSeed(pos[p]) {
			bestVal[p] = math.Inf(-1)
		}
	}
	g := argmaxFirst(bestVal)
	r := make([][]float64, 2*n)
	for p := range r {
		r[p] = make([]float64, w.d)
	}
	inertia, dw := swarmW0, (swarmW1-swarmW0)/float64(w.iters)
	for range w.iters {
		// One draw of 2n × d uniforms per iteration, r1 the first n rows.
		for p := range r {
			for j := range r[p] {
				r[p][j] = rng.Float64()
			}
		}
		gb := bestPos[g]
		for p := range pos {
			for j := range pos[p] {
				dP, dG := bestPos[p][j]-pos[p][j], gb[j]-pos[p][j]
				v := inertia*velo[p][j] + (swarmC1*r[p][j]*dP+swarmC2*r[n+p][j]*dG)/w.vel[j]
				v = min(max(v, -swarmMaxVel*w.vel[j]), swarmMaxVel*w.vel[j])
				velo[p][j] = v
				pos[p][j] = min(max(pos[p][j]+v, w.lim[j][0]), w.lim[j][1])
			}
		}
		inertia += dw
		w.fitness(k, pos, values, ok, post)
		for p := range pos {
			if values[p] > bestVal[p] && ok[p] {
				bestVal[p] = values[p]
				copy(bestPos[p], pos[p])
			}
		}
		g = argmaxFirst(bestVal)
	}
	if math.IsInf(bestVal[g], -1) {
		// No particle was ever safe: ask the best safe point again (a
		// seed, or safe under the model), within any step limit.
		copy(bestPos[g], w.ref)
	}
	best = slices.Clone(bestPos[g])
	if k == swarmGreedy {
		// The greedy point moves to the swarm's best when that beats its
		// own lower bound.
		var pr Posterior
		predict(&pr, w.f, [][]float64{w.greedy})
		if pr.Mean[0]-w.sqrtBeta()*pr.Std[0] < bestVal[g] {
			w.greedy = slices.Clone(best)
		}
		return best, bestVal[g], nil
	}
	w.grow(bestPos)
	for _, gpm := range w.gps() {
		_, v := gpm.PredictAt(best)
		std = append(std, math.Sqrt(max(v, 0)))
	}
	return best, bestVal[g], std
}

// grow adds to S each of the points (a swarm's personal bests, in order)
// whose correlation under f's kernel, k_f(x, y)/scaling_f², is at most
// 0.95 with every point of S and every point added before it.
func (w *safeOptSwarm) grow(points [][]float64) {
	kf := w.f.Kernel()
	s2 := w.scaling[0] * w.scaling[0]
	for _, x := range points {
		add := true
		for _, q := range w.s {
			if kf.Eval(x, q)/s2 > swarmCorrHi {
				add = false
				break
			}
		}
		if add {
			w.s = append(w.s, slices.Clone(x))
		}
	}
}

// clip moves x into the bounds particles move in (lim).
func (w *safeOptSwarm) clip(x []float64) {
	for j := range x {
		x[j] = min(max(x[j], w.lim[j][0]), w.lim[j][1])
	}
}

// isSeed reports whether x is one of the seeds, known safe.
func (w *safeOptSwarm) isSeed(x []float64) bool {
	return slices.ContainsFunc(w.box.Seeds, func(s []float64) bool { return slices.Equal(s, x) })
}

// argmaxFirst is the index of the largest value, the first of equals;
// NaN never wins.
func argmaxFirst(v []float64) int {
	best := 0
	for i, x := range v {
		if x > v[best] || math.IsNaN(v[best]) && !math.IsNaN(x) {
			best = i
		}
	}
	return best
}

// choose is SafeOptSwarm.optimize(ucb=False): the greedy swarm sets ℓ*,
// then the maximizers' and the expanders' swarms run, and the point asked
// is the maximizers' best unless the expanders' best is at least as
// uncertain in some constraint (standard deviations over scaling; f's
// for the maximizer, the constrained GPs' for the expander).
func (w *safeOptSwarm) choose() []float64 {
	w.ref, _ = w.best()
	for j := range w.lim {
		w.lim[j] = w.box.Bounds[j]
		if w.step != nil {
			w.lim[j] = [2]float64{max(w.lim[j][0], w.ref[j]-w.step[j]), min(w.lim[j][1], w.ref[j]+w.step[j])}
		}
	}
	_, lb, _ := w.run(swarmGreedy)
	w.bestLB = lb
	xMax, _, sMax := w.run(swarmMaximizers)
	xExp, _, sExp := w.run(swarmExpanders)
	exp := 0.0
	for i := range sExp {
		if math.IsInf(w.fmin[i], -1) {
			continue
		}
		exp = max(exp, sExp[i]/w.scaling[i])
	}
	if sMax[0]/w.scaling[0] > exp {
		return xMax
	}
	return xExp
}

// Ask implements Policy: the pending ask, or the swarms' choice.
func (w *safeOptSwarm) Ask() (Ask, error) {
	if len(w.pending) > 0 {
		return w.pending[0], nil
	}
	x := w.choose()
	w.last++
	a := Ask{ID: w.last, X: x, Index: -1}
	w.pending = append(w.pending, Ask{ID: a.ID, X: slices.Clone(x), Index: -1})
	return a, nil
}

// AskNew implements Batcher: the swarm asks one point at a time, so a
// batch is its one ask (ok false while it is pending).
func (w *safeOptSwarm) AskNew() (Ask, bool, error) {
	if len(w.pending) > 0 {
		return Ask{}, false, nil
	}
	a, err := w.Ask()
	return a, err == nil, err
}

// Pending implements Batcher.
func (w *safeOptSwarm) Pending() []Ask { return w.pending }

// Tell implements Policy, as line-bo's: the ask's point, or o.X for a
// measurement made outside the loop (inside the box).
func (w *safeOptSwarm) Tell(id int, o Observation) error {
	var x []float64
	switch {
	case id < 0 || id > w.last:
		return fmt.Errorf("%w: %d was never handed out (asks so far: %d)", ErrUnknownAsk, id, w.last)
	case id > 0:
		if len(w.pending) == 0 || w.pending[0].ID != id {
			return fmt.Errorf("%w: ask %d was told already", ErrUnknownAsk, id)
		}
		x = w.pending[0].X
	default:
		var err error
		if x, err = w.box.tellPoint(&o); err != nil {
			return err
		}
	}
	if o.Failed {
		o.F, o.G, o.NoiseVar = 0, make([]float64, len(w.model.Constraints)), 0 // checked as a point only
	}
	if err := checkValues(&w.model, &o); err != nil {
		if id > 0 {
			return fmt.Errorf("ask %d: %w", id, err)
		}
		return err
	}
	x = slices.Clone(x)
	if o.Failed {
		// The swarm's candidates are particles, never a point told
		// before but its seeds: the imputed values keep it away.
		imputeFailed(&o, x, w.f, w.g, w.opt.Thresholds, w.opt.ObjectiveThreshold, w.failed)
		w.failed = append(w.failed, x)
	}
	w.obs = append(w.obs, boxObs{x: x, o: Observation{F: o.F, G: slices.Clone(o.G), NoiseVar: o.NoiseVar, X: x, Index: -1}})
	nv := gpNoise(o.NoiseVar)
	w.f.AddAt(x, o.F, nv)
	for k, g := range w.g {
		g.AddAt(x, o.G[k], nv)
	}
	if id > 0 {
		w.pending = w.pending[:0]
	}
	return nil
}

// Inspect implements Policy: the round, √β_t and the size of S (a box
// has no decision set to hold posteriors over).
func (w *safeOptSwarm) Inspect(dst *Snapshot, d Detail) {
	*dst = Snapshot{Round: len(w.obs) + 1, SqrtBeta: w.sqrtBeta(), SafeSetSize: len(w.s), Safe: dst.Safe[:0],
		F: Posterior{Mean: dst.F.Mean[:0], Std: dst.F.Std[:0]}, G: dst.G[:0], LowerF: dst.LowerF[:0]}
}

// Predict implements Predictor with the GPs.
func (w *safeOptSwarm) Predict(dst *Prediction, x [][]float64) error {
	return predictBox(dst, w.box.Bounds, w.sqrtBeta(), w.f, w.g, x)
}

// best implements Best: among the seeds and the observed points known to
// be safe (a seed, or every ℓ_i ≥ its threshold), the one with the
// highest ℓ_f.
func (w *safeOptSwarm) best() ([]float64, float64) {
	pts := slices.Clone(w.box.Seeds)
	for _, o := range w.obs {
		pts = append(pts, o.x)
	}
	post := make([]Posterior, 1+len(w.g))
	for i, g := range w.gps() {
		predict(&post[i], g, pts)
	}
	b := w.sqrtBeta()
	bi, bl := 0, math.Inf(-1)
	for p := range pts {
		ok := p < len(w.box.Seeds) || w.modelSafe(post, p, b)
		if lf := post[0].Mean[p] - b*post[0].Std[p]; ok && (lf > bl || p == 0) {
			bi, bl = p, lf
		}
	}
	return slices.Clone(pts[bi]), bl
}

// swarmMark is the swarm's mark: its asks and the state an ask changes
// (S, the greedy point, ℓ*).
type swarmMark struct {
	last, pending, seeds int
	s                    [][]float64
	greedy               []float64
	bestLB               float64
}

func (w *safeOptSwarm) mark() any {
	return swarmMark{last: w.last, pending: len(w.pending), seeds: w.seeds, s: slices.Clone(w.s), greedy: slices.Clone(w.greedy), bestLB: w.bestLB}
}

func (w *safeOptSwarm) rollback(state any) error {
	m, ok := state.(swarmMark)
	if !ok || m.pending > len(w.pending) || m.last > w.last {
		return fmt.Errorf("%w: the policy was told observations since", ErrMark)
	}
	w.last, w.pending, w.seeds, w.s, w.greedy, w.bestLB = m.last, w.pending[:m.pending], m.seeds, m.s, m.greedy, m.bestLB
	return nil
}

// swarmBytes estimates safeopt-swarm's memory at the horizon: the GPs
// over the seeds with every observation outside any set, the
// observations, S (at most the seeds plus 2·size points per ask) and a
// swarm run's particles and posteriors.
func swarmBytes(s *Spec, d, m, horizon int) int64 {
	size := int64(defaultSwarmSize)
	if s.SwarmSize != nil {
		size = int64(*s.SwarmSize)
	}
	t, gps := int64(horizon), int64(m+1)
	global := gps*gp.Bytes(1, horizon, false) + gps*gp.OutsideBytes(d, horizon, horizon)
	obs := t * int64(8*(d+m+1)+64)
	set := (1 + 2*size*t) * int64(8*d+24)
	run := 8 * size * (5*int64(d) + 2*gps + t)
	return global + obs + set + run
}
