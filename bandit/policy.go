package bandit

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/safegp/safegp/gp"
)

// Errors of Tell.
var (
	ErrUnknownAsk  = errors.New("unknown ask")
	ErrObservation = errors.New("invalid observation")
)

// Policy is a safe GP bandit algorithm (SPEC §4–5) as an ask/tell object:
// the caller owns the loop, so that one policy serves a simulation
// (experiment.Play), a study recorded in a database, or a system measured
// by hand.
//
// Ask hands out the point to measure next under an ID, 1, 2, … per
// policy; asking again before that ask is told returns the same ask. Tell
// feeds the measurement of ask id: f, every g_i, and optionally its noise
// variance. Tell with id 0 feeds a measurement made outside the loop at a
// point of the caller's choice. Inspect reports the policy's view of the
// coming round — its safe set and posteriors — without choosing and
// without randomness, so that inspecting never changes what it will ask.
//
// The state changes only in Tell and in the asks handed out (with their
// own random draws), so that
// replaying the same calls rebuilds the same state (a study's replay
// relies on it). Bad input to Tell is an error and changes nothing.
//
// Two extensions fit this seam:
//
//   - Batches (Batcher, which every policy of New and NewBox implements).
//     AskNew hands out a new ask while others are pending, up to
//     MaxBatch of them; Ask keeps returning the oldest pending one and
//     Tell takes any pending ask, in any order, so callers that ask one
//     at a time do not change. With nothing pending AskNew is Ask. The
//     safe set (and the SafeOpt family's maximizers and expanders) come
//     from the real observations only; the choice among them reads the
//     variance conditioned also on the pending points as hallucinated
//     observations (GP-BUCB, Desautels et al. 2014), which spreads the
//     batch.
//   - A new decision set for an existing model's data (the lines of a box,
//     one context after another: NewBox and NewContextual do this). Build
//     the policy on the new set and
//     tell it the earlier measurements with id 0, each with its point
//     (Observation.X, Index −1): the GPs condition on points outside the
//     set, so nothing is lost. Those observations count as rounds in β_t
//     and in an exploration phase, as any measurement told with id 0 does
//     (a study's import, an experiment's problem.warm_start): β_t grows
//     with t, so counting them only widens the bounds, and the union bound
//     over rounds behind the paper's Theorem 1 (Σ_t 6δ/(π²t²) ≤ δ) still
//     holds when the rounds are numbered from t₀ + 1. When the data are
//     many, New could take the GPs moved with gp.Model.OnSet instead
//     (O(N·t²), no re-solving).
type Policy interface {
	// Ask returns the ask pending, or chooses the coming round's action
	// and returns it as a new ask. It fails only when the policy cannot
	// choose (an inconsistent problem), never on the caller's input.
	Ask() (Ask, error)
	// Tell feeds the measurement of ask id, which must be pending, or of
	// a point outside the loop (id 0, point in o.X and o.Index). Errors
	// wrap ErrUnknownAsk or ErrObservation.
	Tell(id int, o Observation) error
	// Inspect writes the policy's view of the coming round into dst, as
	// much of it as d asks for, reusing dst's slices: inspecting every
	// round does not allocate. Give a fresh Snapshot to keep one.
	Inspect(dst *Snapshot, d Detail)
}

// Predictor is the posterior away from the decision set: every policy New
// returns implements it (a separate interface, so that Policy stays the
// ask/tell seam). A study uses it for the typo warnings of tells at points
// outside the set and to show the posterior on another finite set; it
// reads the GPs and changes nothing, like Inspect.
type Predictor interface {
	// Predict writes into dst the posteriors of f and of every g_i (none
	// for gp-ucb-oracle, which models f only) at the points x, which
	// need not be in the decision set, and the coming round's √β_t,
	// reusing dst's slices. It costs O(P·t²) for P points and t
	// observations, with a scratch of PredictBytes; one point needs no
	// scratch. The points must be finite and of the decision set's
	// dimension: errors wrap ErrPoint and change nothing.
	Predict(dst *Prediction, x [][]float64) error
}

// ErrPoint marks a point Predict cannot take.
var ErrPoint = errors.New("invalid point")

// Prediction is what Predict writes: the posteriors at its points, and
// √β_t of the coming round, so that ℓ = μ − √β_t σ and u = μ + √β_t σ are
// the bounds the policy would use there (SPEC §3).
type Prediction struct {
	SqrtBeta float64     `json:"sqrt_beta"`
	F        Posterior   `json:"f"`
	G        []Posterior `json:"g"`
}

// PredictBytes estimates the memory of Predict over p points for a policy
// with m constraints and t observations: the scratch of one GP at a time
// (gp.PredictBytes) and the m+1 posteriors written.
func PredictBytes(m, p, t int) int64 {
	return gp.PredictBytes(p, t) + 16*int64(m+1)*int64(p)
}

// KnownNoise is the Observation.NoiseVar of a measurement whose noise
// standard deviation std ≥ 0 is known (heteroscedastic, known noise): std²,
// or for std = 0 (an exact value, or one whose square underflows) the
// smallest positive float64, which gp raises to its jitter floor as it does
// the model's σ = 0 — NoiseVar 0 itself means the model's σ².
func KnownNoise(std float64) float64 {
	if v := std * std; v > 0 {
		return v
	}
	return math.SmallestNonzeroFloat64
}

// Detail selects what Inspect writes.
type Detail uint8

const (
	// SafeSet is the round, √β_t, the safe set, its size and the
	// exploration length: O(N) copies, cheap enough for every round of a
	// simulation (experiment.Play records the safe-set size per round).
	SafeSet Detail = iota
	// Full adds the posteriors over D (F, G, LowerF): O(N·(m+1)) square
	// roots more, about as much as choosing an action takes.
	Full
)

// Ask is a point handed out to be measured.
type Ask struct {
	ID int // 1, 2, … in the order the policy handed its asks out
	// X is the point: the decision set's own slice, not to be changed.
	X []float64
	// Index is X's index in the decision set, −1 for a point outside it.
	Index int
}

// Observation is one measurement told to a policy: y = f(x) + η and
// z_i = g_i(x) + n_i (SPEC §1).
type Observation struct {
	F float64
	G []float64 // one value per constraint
	// NoiseVar is the variance of this measurement's noise, 0 for the
	// model's σ² (a value below gp's jitter floor is raised to it).
	NoiseVar float64
	// X and Index name the point of a measurement made outside the loop
	// (Tell with id 0): Index is its index in the decision set, or −1
	// for a point outside it, given in X. X may be left nil for a point
	// of the set; given, it must be that point. With an ask's id both are
	// ignored: the ask fixes the point.
	X     []float64
	Index int
	// Failed marks a trial that produced no values (a crash, a tripped
	// interlock, a lost measurement): F, G and NoiseVar are ignored. The
	// policy takes it as an exact measurement past every limit
	// (imputeFailed) and never chooses the point again.
	Failed bool
	// Exclude takes the point out of every choice from now on, its
	// values told as they are: a seed measured unsafe (a study's rule;
	// the paper's algorithms never exclude by themselves).
	Exclude bool
}

// Posterior is a GP's posterior mean and standard deviation over D.
type Posterior struct {
	Mean []float64 `json:"mean"`
	Std  []float64 `json:"std"`
}

// Snapshot is a policy's view of round Round, before it chooses. F, G
// and LowerF are written only by Inspect with Full.
type Snapshot struct {
	Round    int     `json:"round"`
	SqrtBeta float64 `json:"sqrt_beta"`
	// Safe is the policy's current safe set: D^s_t for the SGP-UCB family
	// in both phases, S_t for the SafeOpt family, D^s_0 for the oracle
	// (SPEC §9); SafeSetSize is its size.
	Safe        []bool `json:"safe"`
	SafeSetSize int    `json:"safe_set_size"`
	// ExplorationRounds is the length of the exploration phase (T', t* or
	// stage 1), or the rounds spent in it so far while it lasts; 0 for a
	// policy without one.
	ExplorationRounds int         `json:"exploration_rounds"`
	F                 Posterior   `json:"f"`
	G                 []Posterior `json:"g"`
	// LowerF is the policy's lower confidence bound ℓ_{f,t} (intersected
	// over time in SafeOpt's lipschitz mode).
	LowerF []float64 `json:"lower_f"`
}

// rule is one algorithm behind the ask/tell bookkeeping that loop shares.
type rule interface {
	base() *models
	// choose returns the action of the coming round; it may draw from
	// the policy's random stream.
	choose() (int, error)
	// prepare readies the coming round after an observation, so that
	// choose and inspect only read the state.
	prepare()
	inspect(dst *Snapshot, d Detail)
	// chooseNew returns the action of a new ask while others are pending
	// (m.hall holds them), or −1 when no further distinct action may be
	// chosen (batch.go).
	chooseNew() int
}

// loop is the ask/tell bookkeeping of every policy: ask IDs, the asks
// pending, and the checks of a tell.
type loop struct {
	rule    rule
	m       *models
	last    int   // the ID of the last ask handed out
	pending []Ask // handed out and not yet told, oldest first
}

// Ask implements Policy.
func (l *loop) Ask() (Ask, error) {
	if len(l.pending) > 0 {
		return l.pending[0], nil
	}
	i, err := l.rule.choose()
	if err != nil {
		return Ask{}, err
	}
	if i == -1 {
		return Ask{}, ErrNoSafeAction
	}
	if i < 0 || i >= len(l.m.set.X) {
		return Ask{}, fmt.Errorf("bandit: chose action %d outside the decision set's 0…%d", i, len(l.m.set.X)-1)
	}
	l.last++
	a := Ask{ID: l.last, X: l.m.set.X[i], Index: i}
	l.pending = append(l.pending, a)
	return a, nil
}

// release implements Release: the arrays of l's GPs go to the policies
// made after it.
func (l *loop) release() {
	l.m.f.Release()
	for _, g := range l.m.g {
		g.Release()
	}
	l.m = nil
}

// Tell implements Policy.
func (l *loop) Tell(id int, o Observation) error {
	m := l.m
	k, idx, x := -1, o.Index, o.X
	switch {
	case id < 0 || id > l.last:
		return fmt.Errorf("%w: %d was never handed out (asks so far: %d)", ErrUnknownAsk, id, l.last)
	case id > 0:
		for j, a := range l.pending {
			if a.ID == id {
				k = j
				break
			}
		}
		if k < 0 {
			return fmt.Errorf("%w: ask %d was told already", ErrUnknownAsk, id)
		}
		idx, x = l.pending[k].Index, l.pending[k].X
	}
	if o.Failed {
		o.F, o.G, o.NoiseVar = 0, make([]float64, len(m.model.Constraints)), 0 // checked as a point only
	}
	if err := m.check(idx, x, &o); err != nil {
		if id > 0 {
			return fmt.Errorf("ask %d: %w", id, err)
		}
		return err
	}
	if idx >= 0 {
		x = m.set.X[idx]
	}
	if o.Failed {
		imputeFailed(&o, x, m.f, m.g, m.opt.Thresholds, m.opt.ObjectiveThreshold, m.failed)
		m.failed = append(m.failed, x)
	}
	if o.excluded() {
		m.ban(idx, x)
	}
	m.observe(idx, x, &o)
	m.hall.dirty = true // the GPs moved, and the pending asks may have
	if k >= 0 {
		l.pending = append(l.pending[:k], l.pending[k+1:]...)
	}
	l.rule.prepare()
	return nil
}

// Inspect implements Policy.
func (l *loop) Inspect(dst *Snapshot, d Detail) { l.rule.inspect(dst, d) }

// Predict implements Predictor.
func (l *loop) Predict(dst *Prediction, x [][]float64) error {
	m := l.m
	d := len(m.set.X[0])
	for k, p := range x {
		if len(p) != d {
			return fmt.Errorf("%w: point %d has %d coordinates, the decision set's have %d", ErrPoint, k+1, len(p), d)
		}
		for j, v := range p {
			if !finite(v) {
				return fmt.Errorf("%w: point %d: coordinate %d is %v", ErrPoint, k+1, j+1, v)
			}
		}
	}
	// √β_t of the coming round t = observations + 1, as beta sets it.
	dst.SqrtBeta = sqrtBeta(&m.model, m.f, m.g, m.t+1, len(m.set.X))
	predict(&dst.F, m.f, x)
	dst.G = slices.Grow(dst.G[:0], len(m.g))[:len(m.g)]
	for k, g := range m.g {
		predict(&dst.G[k], g, x)
	}
	return nil
}

// predict writes g's posterior at the points x into dst, reusing its
// slices.
func predict(dst *Posterior, g *gp.Model, x [][]float64) {
	n := len(x)
	dst.Mean = slices.Grow(dst.Mean[:0], n)[:n]
	dst.Std = slices.Grow(dst.Std[:0], n)[:n]
	g.Predict(dst.Mean, dst.Std, x)
	for i, v := range dst.Std {
		dst.Std[i] = math.Sqrt(max(v, 0))
	}
}

// finite reports whether v is a number, not NaN or ±Inf.
func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
