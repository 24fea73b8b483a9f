package experiment

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/safegp/safegp/bandit"
	"github.com/safegp/safegp/internal/vec"
	"github.com/safegp/safegp/problem"
)

// World is the simulated system a run plays against: a problem on a
// finite decision set (OnProblem), one problem per context with the rounds'
// contexts drawn at random (OnContexts), or a benchmark function (a
// configuration's problem.function). It says where the policy acts, sets
// the policy's context before each round's ask, and scores and measures
// the action asked: one Play loop serves them all.
type World interface {
	// domain is where the policy of s acts, given what the run knows
	// (st).
	domain(s *bandit.Spec, st *Setting) bandit.Domain
	// newRun is the run of s over T rounds, its per-round slices made.
	newRun(s *bandit.Spec, T int) *Run
	// begin prepares round t (0-based) before the ask.
	begin(t int, pol bandit.Policy) error
	// play records round t's ask into run (its score, its violation) and
	// writes the measurement to tell into obs, drawing its noise from
	// noise. view is scratch for the policy's Inspect.
	play(s *bandit.Spec, t int, ask bandit.Ask, pol bandit.Policy, view *bandit.Snapshot, run *Run, noise *rand.Rand, obs *bandit.Observation) error
	// constraints is the number of constraint values a measurement has.
	constraints() int
	// point is the point of ask an observation is recorded at (model.fit
	// refits on them).
	point(ask bandit.Ask) []float64
}

// OnProblem is the world of problem p (with its analysis info) on its
// finite decision set: each round's action scores its regret against f*
// and the reachable f*, its violation of the true constraints and the
// safe-set size the policy reports, and is measured with p's noise
// (measure).
func OnProblem(p *problem.Problem, info *problem.Info) World { return &finiteWorld{p: p, info: info} }

type finiteWorld struct {
	p    *problem.Problem
	info *problem.Info
}

func (w *finiteWorld) domain(_ *bandit.Spec, st *Setting) bandit.Domain {
	return bandit.Domain{Set: st.Set, Truth: st.Truth}
}
func (w *finiteWorld) newRun(s *bandit.Spec, T int) *Run { return newRun(s, T) }
func (w *finiteWorld) begin(int, bandit.Policy) error    { return nil }
func (w *finiteWorld) constraints() int                  { return w.p.M() }
func (w *finiteWorld) point(ask bandit.Ask) []float64    { return w.p.X[ask.Index] }
func (w *finiteWorld) play(s *bandit.Spec, t int, ask bandit.Ask, pol bandit.Policy, view *bandit.Snapshot, run *Run, noise *rand.Rand, obs *bandit.Observation) error {
	if err := run.record(s, t, ask.Index, pol, view, w.p, w.info); err != nil {
		return err
	}
	measure(w.p, ask.Index, noise, obs)
	return nil
}

// OnContexts is the world of a problem per context (ci): before each round
// a context is drawn from contexts — uniformly, or with the probabilities
// p — and set as the policy's; the action is then scored and measured on
// that context's problem, and the run records the context's index.
func OnContexts(ci *ContextInstance, p []float64, contexts *rand.Rand) World {
	return &contextWorld{ci: ci, p: p, rng: contexts}
}

type contextWorld struct {
	ci  *ContextInstance
	p   []float64
	rng *rand.Rand
	k   int // the round's context
}

func (w *contextWorld) domain(_ *bandit.Spec, st *Setting) bandit.Domain {
	ci := w.ci
	truth := func(c []float64) *bandit.Truth {
		for k, v := range ci.Values {
			if vec.SameBits(v, c) {
				return &bandit.Truth{Safe: ci.Infos[k].SafeTrue, Lipschitz: ci.Infos[k].Lipschitz}
			}
		}
		return nil
	}
	return bandit.Domain{Set: st.Set, ContextDim: len(ci.Values[0]), ContextTruth: truth}
}

func (w *contextWorld) newRun(s *bandit.Spec, T int) *Run {
	run := newRun(s, T)
	run.Contexts = make([]int, T)
	return run
}

func (w *contextWorld) begin(t int, pol bandit.Policy) error {
	w.k = drawContext(w.rng, len(w.ci.Values), w.p)
	return bandit.SetContext(pol, w.ci.Values[w.k])
}

func (w *contextWorld) constraints() int               { return w.ci.Problems[0].M() }
func (w *contextWorld) point(ask bandit.Ask) []float64 { return ask.X }
func (w *contextWorld) play(s *bandit.Spec, t int, ask bandit.Ask, pol bandit.Policy, view *bandit.Snapshot, run *Run, noise *rand.Rand, obs *bandit.Observation) error {
	pk := w.ci.Problems[w.k]
	if err := run.record(s, t, ask.Index, pol, view, pk, w.ci.Infos[w.k]); err != nil {
		return err
	}
	run.Contexts[t] = w.k
	measure(pk, ask.Index, noise, obs)
	return nil
}

// Play drives one policy through the ask/tell seam for the horizon's
// rounds against the world w, drawing observation noise from noise. watch,
// if not nil, sees the policy after every round.
//
// With a warm start (st.WarmStart) the policy is first told those
// measurements outside the loop (Tell with id 0, at their points). They
// are observations like any other: they count in β_t's t (SPEC §3's t is
// the number of observations + 1, and a larger t only widens the bounds,
// so the union bound over rounds behind Theorem 1 still holds, with room
// to spare) and in an exploration phase's rounds (bandit.Policy), but
// not in the results: regret, violations and safe-set sizes are those of
// the horizon's T rounds played.
//
// With model.fit active (st.Used.Fit), the model is refitted when due
// before a round's ask, on the observations so far, and the policy rebuilt
// from them (fitter.refit).
//
// A problem with per-action noise (a file's noise_std column, p.NoiseStds)
// draws each round's f and g_i noise with the played action's σ — 1 + m
// normal draws every round, even where σ = 0, so that every algorithm of
// a realization meets the same draws in the same round — and tells the
// policy that variance (known heteroscedastic noise, bandit.KnownNoise):
// the model's noise_std is then only its default, for what no observation
// carries. A problem without the column draws as before.
func Play(s *bandit.Spec, st *Setting, w World, noise *rand.Rand, watch Watch) (*Run, error) {
	d := w.domain(s, st)
	pol, err := bandit.Build(s, st.Model, d, st.Options)
	if err != nil {
		return nil, err
	}
	T := st.Options.Horizon
	run := w.newRun(s, T)
	// One snapshot and one observation for the whole run: Inspect and
	// Tell reuse them, so that the rounds do not allocate.
	var view bandit.Snapshot
	for k, o := range st.WarmStart {
		if err := pol.Tell(0, o); err != nil {
			return nil, fmt.Errorf("%s: problem.warm_start row %d: %w", s.DisplayLabel(), k+1, err)
		}
	}
	obs := bandit.Observation{G: make([]float64, w.constraints())}
	// With model.fit, the observations so far (the warm start's, then
	// the rounds'), which each fit is made on and the refitted policy is
	// told again.
	ft := fitter{used: st.Used, on: st.Used.Fit.Active(), domain: d}
	if ft.on {
		ft.hist = make([]bandit.Observation, 0, len(st.WarmStart)+T)
		for _, o := range st.WarmStart {
			if o.X == nil {
				o.X = d.Set.X[o.Index]
			}
			ft.hist = append(ft.hist, o)
		}
	}
	for t := 0; t < T; t++ {
		if ft.on && ft.used.Fit.Due(len(run.Fits), len(ft.hist), ft.since, len(d.Set.Seed)) {
			if pol, err = ft.refit(s, st, pol, run, t+1); err != nil {
				return nil, fmt.Errorf("%s, round %d: model.fit: %w", s.DisplayLabel(), t+1, err)
			}
		}
		if err := w.begin(t, pol); err != nil {
			return nil, fmt.Errorf("%s, round %d: %w", s.DisplayLabel(), t+1, err)
		}
		ask, err := pol.Ask()
		if err != nil {
			return nil, fmt.Errorf("%s, round %d: %w", s.DisplayLabel(), t+1, err)
		}
		if err := w.play(s, t, ask, pol, &view, run, noise, &obs); err != nil {
			return nil, err
		}
		if err := pol.Tell(ask.ID, obs); err != nil {
			return nil, fmt.Errorf("%s, round %d: %w", s.DisplayLabel(), t+1, err)
		}
		if ft.on {
			o := obs
			o.G, o.Index, o.X = slices.Clone(obs.G), ask.Index, w.point(ask)
			ft.hist = append(ft.hist, o)
			ft.since++
		}
		if watch != nil {
			if err := watch(t+1, pol); err != nil {
				return nil, err
			}
		}
	}
	pol.Inspect(&view, bandit.SafeSet)
	run.ExplorationRounds = view.ExplorationRounds
	// The next run reuses the GPs' arrays (nothing keeps pol: watch
	// reads it during its call only).
	bandit.Release(pol)
	return run, nil
}
