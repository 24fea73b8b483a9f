package bandit

import (
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/safegp/safegp/gp"
	"github.com/safegp/safegp/internal/argmax"
	"github.com/safegp/safegp/internal/plural"
)

// models holds the GPs of f and every g_i, with the bounds of the coming
// round.
type models struct {
	set   DecisionSet
	model Model
	opt   Options
	f     *gp.Model
	g     []*gp.Model
	// safety lists the safety conditions the policy estimates: g_1 … g_m,
	// then f ≥ h_f with an objective threshold, read from f's own GP
	// (SPEC §5, "Safe objective": no second GP). Every safe set, expander
	// and exploration width loops over it rather than over g.
	safety []safetyGP
	t      int // observations so far
	sqb    float64
	sqbF   float64 // √β_t of f's upper bound in an acquisition: Model.ObjectiveBeta, else sqb
	// hall is the batch state: the actions pending and the GPs'
	// variance conditioned on them (batch.go).
	hall hallucination
	// log, when set, records every measurement's point and values for a
	// rule that reads them (LoSBO's safe set, losbo.go).
	log *measurements
	// banned marks the actions never to be chosen again (failed.go), nil
	// while there is none.
	banned []bool
	// failed are the points of the failed trials told, in order.
	failed [][]float64
}

// safetyGP is one safety condition ℓ(x) ≥ h on a GP of the model.
type safetyGP struct {
	gp *gp.Model
	j  int     // the GP's index in the order f, g_1 … g_m (0: f)
	h  float64 // its threshold: h_i, or h_f
}

func newModels(model Model, set DecisionSet, opt Options, withG bool) *models {
	m := &models{set: set, model: model, opt: opt, f: gp.New(model.Objective, set.X, model.Sigma(0))}
	if withG {
		for k, kg := range model.Constraints {
			m.g = append(m.g, gp.New(kg, set.X, model.Sigma(1+k)))
		}
		m.setSafety()
	}
	rows := opt.Horizon + max(opt.WarmStart, 0)
	for _, g := range append([]*gp.Model{m.f}, m.g...) {
		// A policy plays few distinct actions many times: keep their
		// kernel rows rather than evaluate N kernels per update
		// (gp.Model.KeepPriorRows; Bytes counts them).
		g.KeepPriorRows()
		if opt.Grow {
			g.GrowTo(rows)
			g.Reserve(min(opt.Expect, rows))
		} else {
			g.Reserve(rows)
		}
		if opt.CovarianceSwitch {
			g.KeepCovarianceFrom(2 * len(set.X))
		}
	}
	return m
}

// prebuilt are GPs of f and every g_i over a decision set that already
// hold t observations, for newModelsFrom.
type prebuilt struct {
	f *gp.Model
	g []*gp.Model
	t int
}

// newModelsFrom is newModels(model, set, opt, true), or with pre's GPs
// and observation count when pre is not nil: the models a policy built on
// set would hold after pre.t tells, when the GPs are those it would build.
func newModelsFrom(model Model, set DecisionSet, opt Options, pre *prebuilt) *models {
	if pre == nil {
		return newModels(model, set, opt, true)
	}
	m := &models{set: set, model: model, opt: opt, f: pre.f, g: pre.g, t: pre.t}
	m.setSafety()
	return m
}

// setSafety lists the safety conditions: g_i ≥ h_i on each constraint's
// GP, then f ≥ h_f on f's with an objective threshold.
func (m *models) setSafety() {
	for k, g := range m.g {
		m.safety = append(m.safety, safetyGP{gp: g, j: 1 + k, h: m.opt.Thresholds[k]})
	}
	if hf := m.opt.ObjectiveThreshold; hf != nil {
		m.safety = append(m.safety, safetyGP{gp: m.f, j: 0, h: *hf})
	}
}

// beta sets √β_t for the coming round t = observations + 1. The union
// bound of SPEC §3 counts the GPs, m+1: an objective threshold adds a
// safety condition but no GP (f's is read twice), so β_t is the same with
// or without one, and m stays the number of constraints.
func (m *models) beta() {
	n := len(m.set.X)
	if m.opt.BetaActions > 0 {
		n = m.opt.BetaActions
	}
	m.sqb = sqrtBeta(&m.model, m.f, m.g, m.t+1, n)
	m.sqbF = m.sqb
	if b := m.model.ObjectiveBeta; b != nil {
		mb := m.model
		mb.Beta = *b
		m.sqbF = sqrtBeta(&mb, m.f, m.g, m.t+1, n)
	}
}

// checkValues checks a measurement's values for model: one per
// constraint, finite, and a finite noise variance ≥ 0. Errors wrap
// ErrObservation.
func checkValues(model *Model, o *Observation) error {
	if len(o.G) != len(model.Constraints) {
		return fmt.Errorf("%w: %s for %s", ErrObservation, plural.Count(len(o.G), "constraint value"), plural.Count(len(model.Constraints), "constraint"))
	}
	if !finite(o.F) {
		return fmt.Errorf("%w: f = %v is not a finite number", ErrObservation, o.F)
	}
	for i, z := range o.G {
		if !finite(z) {
			return fmt.Errorf("%w: g%d = %v is not a finite number", ErrObservation, i+1, z)
		}
	}
	if !(o.NoiseVar >= 0) || math.IsInf(o.NoiseVar, 0) {
		return fmt.Errorf("%w: noise variance %v: want a finite number ≥ 0 (0: the model's)", ErrObservation, o.NoiseVar)
	}
	return nil
}

// check validates a measurement at action idx (−1: at point x outside the
// decision set) before anything changes, so that gp never meets input it
// would panic on: errors wrap ErrObservation.
func (m *models) check(idx int, x []float64, o *Observation) error {
	if err := checkValues(&m.model, o); err != nil {
		return err
	}
	n, d := len(m.set.X), len(m.set.X[0])
	switch {
	case idx >= n || idx < -1:
		return fmt.Errorf("%w: index %d outside the decision set's 0…%d (−1: a point outside it)", ErrObservation, idx, n-1)
	case idx >= 0 && x != nil && !slices.Equal(x, m.set.X[idx]):
		return fmt.Errorf("%w: point %v is not action %d, %v", ErrObservation, x, idx, m.set.X[idx])
	case idx < 0 && x == nil:
		return fmt.Errorf("%w: index −1 names a point outside the decision set: give the point", ErrObservation)
	case idx < 0 && len(x) != d:
		return fmt.Errorf("%w: point of %d coordinates, the decision set's have %d", ErrObservation, len(x), d)
	}
	for j, v := range x {
		if !finite(v) {
			return fmt.Errorf("%w: coordinate %d of the point is %v", ErrObservation, j+1, v)
		}
	}
	return nil
}

// observe feeds a checked measurement to every GP: at action i, or at
// point x outside the decision set when i < 0.
func (m *models) observe(i int, x []float64, o *Observation) {
	// nv is assigned once: a variable the goroutines below capture and
	// that is assigned again would be moved to the heap on every call.
	y, z, nv := o.F, o.G, gpNoise(o.NoiseVar)
	// Each GP's update is O(N·t) and independent of the others: large ones
	// run concurrently (replaying a stored study is bound by them).
	if len(m.g) > 0 && m.f.N()*(m.t+1) >= parallelObserve {
		var wg sync.WaitGroup
		for k, g := range m.g {
			wg.Add(1)
			go func() {
				defer wg.Done()
				add(g, i, x, z[k], nv)
			}()
		}
		add(m.f, i, x, y, nv)
		wg.Wait()
	} else {
		add(m.f, i, x, y, nv)
		for k, g := range m.g {
			add(g, i, x, z[k], nv)
		}
	}
	if m.log != nil {
		p := x
		if i >= 0 {
			p = m.set.X[i]
		}
		m.log.add(p, o)
	}
	m.t++
}

// gpNoise is gp's noise variance argument for an observation's: < 0, the
// model's σ², for 0.
func gpNoise(v float64) float64 {
	if v > 0 {
		return v
	}
	return -1
}

// add gives g the observation y at action i, or at point x when i < 0,
// with noise variance nv (< 0: the model's). The model's noise at an
// action is gp's Observe, the one path the simulations take.
func add(g *gp.Model, i int, x []float64, y, nv float64) {
	switch {
	case i < 0:
		g.AddAt(x, y, nv)
	case nv < 0:
		g.Observe(i, y)
	default:
		g.Add(i, y, nv)
	}
}

// parallelObserve is the N·t from which the GPs are updated concurrently:
// about a millisecond of work each, far above a goroutine's cost.
const parallelObserve = 1 << 20

func (m *models) lower(g *gp.Model, i int) float64 { return g.Mean()[i] - m.sqb*g.Std(i) }

// gpSafe fills safe with D^s_t = {x : ℓ_{g_i,t}(x) ≥ h_i ∀i} (paper eq. 8),
// ℓ_{f,t}(x) ≥ h_f included with an objective threshold, and returns its
// size.
func (m *models) gpSafe(safe []bool) int {
	n := 0
	for i := range safe {
		ok := m.allowed(i)
		for _, c := range m.safety {
			if !ok {
				break
			}
			if !(m.lower(c.gp, i) >= c.h) { // NaN is not safe
				ok = false
				break
			}
		}
		safe[i] = ok
		if ok {
			n++
		}
	}
	return n
}

// argmaxUpper returns argmax u_f over the actions in set, lowest index on
// ties, or −1 if set is empty.
func (m *models) argmaxUpper(in func(i int) bool) int {
	return argmax.Func(len(m.set.X), in, m.upperF)
}

func (m *models) upperF(i int) float64 { return m.f.Mean()[i] + m.sqbF*m.f.Std(i) }

// posterior writes g's posterior over D into dst, reusing its slices.
func posterior(dst *Posterior, g *gp.Model) {
	dst.Mean = append(dst.Mean[:0], g.Mean()...)
	dst.Std = slices.Grow(dst.Std[:0], g.N())[:g.N()]
	for i := range dst.Std {
		dst.Std[i] = g.Std(i)
	}
}

// snapshot writes the models' state for round t with the given safe set
// into dst, reusing its slices; the posteriors only for Full.
func (m *models) snapshot(dst *Snapshot, d Detail, t int, safe []bool, size, explored int) {
	dst.Round, dst.SqrtBeta = t, m.sqb
	dst.Safe = append(dst.Safe[:0], safe...)
	dst.SafeSetSize, dst.ExplorationRounds = size, explored
	if d != Full {
		return
	}
	posterior(&dst.F, m.f)
	if len(m.g) == 0 {
		dst.G = dst.G[:0]
	} else {
		dst.G = slices.Grow(dst.G[:0], len(m.g))[:len(m.g)]
	}
	for k, g := range m.g {
		posterior(&dst.G[k], g)
	}
	n := len(dst.F.Mean)
	dst.LowerF = slices.Grow(dst.LowerF[:0], n)[:n]
	for i := range dst.LowerF {
		dst.LowerF[i] = dst.F.Mean[i] - m.sqb*dst.F.Std[i]
	}
}
