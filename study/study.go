package study

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/safegp/safegp/internal/plural"
	"github.com/safegp/safegp/internal/quote"
	"github.com/safegp/safegp/space"
	"github.com/safegp/safegp/store"
	"github.com/safegp/safegp/study/api"
	"github.com/safegp/safegp/study/calib"

	"github.com/safegp/safegp/bandit"
	"github.com/safegp/safegp/config"
	"github.com/safegp/safegp/internal/vec"
	"github.com/safegp/safegp/problem"
)

// Study is one study's state in memory: its policy, rebuilt by replaying
// every recorded ask, tell, retraction and fit. It changes only by
// applying a recorded event (apply); the decide methods (decideTell,
// decideRetract, decideImport, decideFit, asks.go) make the events from a
// request without changing it, but for the asks its policy chooses, which
// are taken back when their events are not written (batchCall.undo). Not safe
// for concurrent use; Service serializes access.
type Study struct {
	name string
	res  *Resolved
	// dirty: events were applied that are not recorded yet (an import,
	// ImportWith); a call that fails with it set drops the study.
	dirty bool
	// askBase numbers the asks: event seq's ask has the ID askBase + seq
	// (store.Record.AskBase: never an ID a study of this name had before).
	askBase int
	pol     bandit.Policy
	// src is the policy's random stream (phase-1 uniform draws, line-bo's
	// random directions): the study's own, so that a choice taken back
	// takes its draws back too.
	src       *rand.PCG
	events    []store.Event
	asks      map[int]int  // ask id → index into events
	told      map[int]bool // ask ids already told
	tells     map[int]int  // observation (a tell's seq) → index into events
	retracted map[int]int  // observation → seq of the retraction that retracted it
	withdrawn map[int]int  // ask id → seq of the retraction (or seed measured unsafe) that withdrew it while pending
	retracts  int          // retractions so far
	// exclusions counts the seeds measured unsafe while asks were
	// pending: each withdrew them and rebuilt the policy (failed.go).
	exclusions int
	// extensions counts the horizon's extensions (study extend), each of
	// which rebuilt the policy for its new horizon.
	extensions int
	// pending holds the asks handed out and not yet told (nor withdrawn),
	// oldest first: the policy's pending asks (bandit.Batcher.Pending),
	// in the same order.
	pending []pendingAsk
	nObs    int // observations not retracted, failed trials included
	viol    int // violations among them
	nFail   int // failed trials among them (kind "fail")
	// backDue: the last tell broke a limit or failed under
	// after_violation: best, and the next ask event is the way back
	// (applyAsk); back marks the asks that were (failed.go).
	backDue bool
	back    map[int]bool
	// outside counts the tells at points outside the decision set,
	// retracted or not: each holds a row of L in every GP (BytesWith).
	outside   int
	maxMemory int64 // the service's MaxMemory: 0, none
	created   time.Time
	// model is the model in force: the spec's, with the kernels of the
	// last fit that was not skipped (model.fit). fits lists the fit
	// events, sinceFit counts the tells since the last (retracted ones
	// too: a retraction does not undo a fit).
	model    config.Model
	fits     []int // seqs of the fit events
	sinceFit int
	// fitPoints is the observations the kernels in force were fitted on
	// (the last fit not skipped), 0 before any: the residual checks wait
	// for checkMinPoints (residuals).
	fitPoints int
	// lookup, during an import of many rows, finds an action by its
	// point (Resolved.actionIndex); nil otherwise.
	lookup map[string]int
	// covSwitch: the policy's GPs keep their covariance from 2N
	// observations (Resolved.covarianceSwitch), decided when the study is
	// loaded.
	covSwitch bool
	// u translates between the user's terms and the policy's (units.go).
	u units
	// tr is the transform in force of a study stated in parameters
	// (named.go): its outcomes' Identity, then each fit's.
	tr space.Transform
	// Trials number the asks and the measurements made outside the loop
	// 0, 1, 2, … in the order they came (a tell of an ask is its ask's
	// trial): trials counts them, askTrial and tellTrial give an ask's
	// (by its id) and a tell's (by its seq), and trialTell a trial's tell.
	trials              int
	askTrial, tellTrial map[int]int
	trialTell           map[int]int
	// safeMax is the largest safe set so far, grewAt the observation
	// count when it last grew, safeSnap a snapshot reused to read it
	// (notes.go).
	safeMax, grewAt int
	safeSnap        bandit.Snapshot
	// bestX is a box study's best safe point so far (bandit.Best), whose
	// change stands in for the safe set's growth there.
	bestX []float64
	// calib holds, per tell (by its seq), whether its values fell outside
	// the model's confidence intervals and how likely that was under the
	// model (calibration.go); resSnap is a snapshot reused to read the
	// posterior there.
	calib   map[int]calib.Point
	resSnap bandit.Snapshot
	// tellWarnings are the typo warnings of the tell applied last, for
	// its answer (warnings).
	tellWarnings []string
}

// pendingAsk is an ask handed out and not yet told: the study's id (the
// ask event's seq) and the policy's own id for it (bandit.Ask.ID).
type pendingAsk struct {
	ask, policy int
}

// firstPending is the oldest pending ask, 0 if none.
func (s *Study) firstPending() int {
	if len(s.pending) == 0 {
		return 0
	}
	return s.pending[0].ask
}

// policyStream is the stream a study's policy draws its random choices
// from (phase-1 uniform sampling): fixed by the spec's seed.
const policyStream = 0x57d1

// newStudy rebuilds a study from its records. maxMemory, if not zero,
// refuses a study whose memory estimate exceeds it (Resolved.CheckMemory).
func newStudy(name string, st *store.Record, events []store.Event, maxMemory int64) (*Study, error) {
	spec, err := ParseSpec(st.Spec)
	if err != nil {
		return nil, fmt.Errorf("study %q: stored spec: %w", name, err)
	}
	res, err := resolveStored(spec, st)
	if err != nil {
		return nil, fmt.Errorf("study %q: stored spec: %w", name, err)
	}
	tells, outside := 0, 0
	for _, e := range events {
		if e.Kind == "tell" || e.Kind == "fail" {
			tells++
			if e.Index < 0 {
				outside++
			}
		}
	}
	if maxMemory != 0 {
		if err := res.CheckMemoryWith(maxMemory, outside); err != nil {
			return nil, fmt.Errorf("study %q: %w", name, err)
		}
	}
	s := &Study{name: name, res: res, asks: map[int]int{}, told: map[int]bool{}, tells: map[int]int{},
		retracted: map[int]int{}, withdrawn: map[int]int{}, created: st.Created, askBase: st.AskBase, maxMemory: maxMemory, model: res.Spec.Model,
		askTrial: map[int]int{}, tellTrial: map[int]int{}, trialTell: map[int]int{}, calib: map[int]calib.Point{}, back: map[int]bool{}}
	s.u = res.units()
	s.u.startTransform(s)
	s.covSwitch = res.covarianceSwitch(maxMemory, outside)
	if s.pol, s.src, err = newPolicy(res, &s.model, &s.tr, 0, tells, s.covSwitch); err != nil {
		return nil, fmt.Errorf("study %q: %w", name, err)
	}
	s.trackSafeSet()
	for _, e := range events {
		if err := s.apply(e); err != nil {
			return nil, fmt.Errorf("study %q: %w", name, err)
		}
	}
	return s, nil
}

// resolveStored resolves a stored study's spec with its stored actions
// and seeds, which stand in for the original file (a box study's stored
// spec has its bounds and seed points, and no actions).
func resolveStored(spec *Spec, st *store.Record) (*Resolved, error) {
	// What an older safegp left out of its record, read as it meant it
	// (a line-bo ascent study stored before its ascent rule existed
	// replays by the mean's gradient): the algorithm's row says what.
	spec.Algorithm.UpgradeRecorded()
	if spec.isNamed() {
		var actions [][]float64
		if len(st.Actions) > 0 {
			actions = st.Actions
		}
		r, err := spec.resolveNamed(actions, st.Seeds)
		if err != nil {
			return nil, err
		}
		return r, r.finish()
	}
	if spec.DecisionSet.Box == nil {
		spec.DecisionSet = DecisionSet{Actions: st.Actions}
		spec.SeedActions = st.Seeds
	}
	return spec.Resolve("")
}

// newPolicy builds the study's policy with the model m in force (the
// spec's, or fitted). Its random stream is fixed by the spec's seed and
// the number of rebuilds before it (retractions, and fits in the upper
// bits), so that a rebuilt policy does not repeat the draws of the first.
//
// expect is the number of observations about to be fed (a replay's
// tells): room for them is made at once instead of by doubling. It
// returns the policy and its random stream.
//
// tr is the transform in force of a study stated in parameters (its
// outcomes' scales), nil for another.
func newPolicy(r *Resolved, m *config.Model, tr *space.Transform, rebuilds, expect int, covSwitch bool) (bandit.Policy, *rand.PCG, error) {
	s := r.Spec
	kf, kg := r.Kernels.F, r.Kernels.G
	if m.Objective != s.Model.Objective {
		kf, kg = m.Kernels() // fitted
	}
	model := bandit.Model{
		Objective: kf, Constraints: kg,
		NoiseStd: *m.NoiseStd, NoiseStds: m.NoiseStds(),
		Delta: *m.Delta, Beta: *m.Beta, ObjectiveBeta: m.ObjectiveBeta,
	}
	src := rand.NewPCG(s.Seed, policyStream+uint64(rebuilds))
	opt := bandit.Options{
		Thresholds: s.Thresholds, ObjectiveThreshold: s.ObjectiveThreshold, Epsilon: r.Epsilon, Horizon: s.Horizon,
		Rand: rand.New(src),
		Grow: true, Expect: expect, // a study may stop long before its horizon
		CovarianceSwitch: covSwitch,
	}
	alg := s.Algorithm
	if r.Named != nil && tr != nil {
		if opt.LoSBO = r.Named.losboBounds(s, tr); opt.LoSBO != nil {
			// The bounds are the constraints' (losboBounds): the spec's
			// stand-ins, never recorded, say so to LoSBO's checks.
			zero := 0.0
			alg.Lipschitz, alg.NoiseBound = &bandit.Lipschitz{Value: 1}, &zero
		}
	}
	// A real system: no ground truth in the domain. With a context, the
	// seed set is assumed safe in every context (docs/contexts.md).
	pol, err := bandit.Build(&alg, model, r.domain(), opt)
	return pol, src, err
}

// domain is where the study's policy acts: its box, or its decision set,
// with its context's dimension.
func (r *Resolved) domain() bandit.Domain {
	if r.Box != nil {
		return bandit.Domain{Box: r.Box}
	}
	return bandit.Domain{Set: bandit.DecisionSet{X: r.X, Seed: r.Seed}, ContextDim: len(r.contextNames())}
}

// observation is a tell event as the policy takes it: the point of a tell
// outside the loop comes with it, (x, c) with a context.
//
// A failed trial is told as failed; a seed measured unsafe is excluded
// from every later choice (failed.go). The point of a way back after a
// violation comes with its tell too: the policy did not choose it.
func (s *Study) observation(e *store.Event) bandit.Observation {
	o := bandit.Observation{}
	if e.Kind == "fail" {
		o.Failed = true
	} else {
		o.F, o.G = s.u.policyValues(s, *e)
		if e.NoiseStd != nil {
			o.NoiseVar = bandit.KnownNoise(*e.NoiseStd)
		}
		o.Exclude = e.Violation && s.atSeed(e)
	}
	if e.Ask == 0 || s.back[e.Ask] {
		o.Index, o.X = e.Index, pointOf(e)
	}
	return o
}

// apply changes the study by one recorded event, the same way live and on
// replay: the only way a study changes.
func (s *Study) apply(e store.Event) error {
	switch e.Kind {
	case "ask":
		return s.applyAsk(e)
	case "tell", "fail":
		return s.applyTell(e)
	case "retract":
		return s.applyRetract(e)
	case "fit":
		return s.applyFit(e)
	case "extend":
		return s.applyExtend(e)
	}
	return fmt.Errorf("%w: event %d: unknown kind %s", api.ErrReplay, e.Seq, quote.Short(e.Kind))
}

// applyAsk takes the policy's ask for ask event e, which must be the
// recorded point: live, the one the call decided (asks.go); on replay, a
// new one (nextAsk).
func (s *Study) applyAsk(e store.Event) error {
	if e.Context != nil {
		// The context the ask was made in: the same as the policy's
		// live (SetContext keeps its state then), a new one on replay.
		if err := bandit.SetContext(s.pol, e.Context); err != nil {
			return fmt.Errorf("%w: event %d: %w", api.ErrReplay, e.Seq, err)
		}
	}
	var a bandit.Ask
	if s.backDue {
		// The way back after a violation (after_violation: best): the
		// study's ask at the best safe setting, which the policy is told
		// as a measurement of a point of the caller's choice.
		b, ok := s.backAsk(e.Seq)
		if ok && (b.Index != e.Index || !slices.Equal(b.X, e.X)) {
			return fmt.Errorf("%w: event %d: the recorded ask after a violation is action %d, the best safe setting is now %d", api.ErrReplay, e.Seq, e.Index, b.Index)
		}
		s.backDue = false
		if ok {
			s.back[e.Ask] = true
		}
	}
	if !s.back[e.Ask] {
		var err error
		if a, err = s.nextAsk(); err != nil {
			return fmt.Errorf("%w: event %d: %w", api.ErrReplay, e.Seq, err)
		}
		if a.Index != e.Index || (a.Index < 0 && !slices.Equal(a.X, e.X)) {
			return fmt.Errorf("%w: event %d: the recorded ask is action %d, the policy now suggests %d; the study was recorded by a safegp whose policy behaves differently (export its observations and replay them as index tells into a new study)", api.ErrReplay, e.Seq, e.Index, a.Index)
		}
	}
	s.asks[e.Ask] = len(s.events)
	s.events = append(s.events, e)
	s.pending = append(s.pending, pendingAsk{ask: e.Ask, policy: a.ID})
	s.askTrial[e.Ask] = s.trials
	s.trials++
	return nil
}

// applyTell tells the policy tell event e: as its ask's measurement, or
// made outside the loop at its point.
//
// A failed trial (kind "fail") is applied the same way, without values:
// it answers its ask, is a trial and a round, and excludes its point.
func (s *Study) applyTell(e store.Event) error {
	failed := e.Kind == "fail"
	if m := s.outcomeValues(); len(e.G) != m && !failed {
		return fmt.Errorf("%w: study %q: event %d: a tell of %s for %s; the file was edited or damaged: restore it from a backup", store.ErrDamaged, s.name, e.Seq, plural.Count(len(e.G), "constraint value"), plural.Count(m, "constraint"))
	}
	id, k := 0, -1
	if e.Ask != 0 {
		for j, p := range s.pending {
			if p.ask == e.Ask {
				id, k = p.policy, j
			}
		}
		if k < 0 {
			return fmt.Errorf("%w: event %d tells ask %d, which is not pending", api.ErrReplay, e.Seq, e.Ask)
		}
		// The ask fixes the point the policy observes.
		if a := s.events[s.asks[e.Ask]]; a.Index != e.Index || !slices.Equal(a.X, e.X) || !vec.SameBits(a.Context, e.Context) {
			return fmt.Errorf("%w: event %d tells ask %d at action %d, the ask was action %d", api.ErrReplay, e.Seq, e.Ask, e.Index, a.Index)
		}
	}
	// The values against the model before it learns them, once: the
	// calibration check and the typo warnings of the tell's answer.
	s.tellWarnings = nil
	if !failed {
		rs := s.residuals(&e)
		s.calibrate(e.Seq, rs)
		s.tellWarnings = s.warnings(&e, rs)
	}
	o := s.observation(&e)
	if err := s.pol.Tell(id, o); err != nil {
		return fmt.Errorf("%w: event %d: %w", api.ErrReplay, e.Seq, err)
	}
	if k >= 0 {
		s.told[e.Ask] = true
		s.pending = slices.Delete(s.pending, k, k+1)
	}
	s.tells[e.Seq] = len(s.events)
	s.events = append(s.events, e)
	trial, fresh := s.trialOf(e.Ask)
	if fresh {
		s.trials++
	}
	s.tellTrial[e.Seq], s.trialTell[trial] = trial, e.Seq
	s.nObs++
	if failed {
		s.nFail++ // no data for a fit: sinceFit stays
	} else {
		s.sinceFit++
	}
	if e.Index < 0 {
		s.outside++
	}
	if e.Violation {
		s.viol++
	}
	if (e.Violation || failed) && s.res.Spec.AfterViolation == AfterBest {
		s.backDue = true
	}
	if err := s.withdrawAfterExclusion(e, o.Exclude); err != nil {
		return err
	}
	s.trackSafeSet()
	return nil
}

// applyRetract takes observation e.Ref out of force and withdraws the
// asks pending, then rebuilds the policy from the observations in force.
func (s *Study) applyRetract(e store.Event) error {
	k, ok := s.tells[e.Ref]
	if !ok || s.retracted[e.Ref] != 0 {
		return fmt.Errorf("%w: event %d retracts %d, which is not an observation still in force", api.ErrReplay, e.Seq, e.Ref)
	}
	s.retracted[e.Ref] = e.Seq
	s.nObs--
	if s.events[k].Violation {
		s.viol--
	}
	if s.events[k].Kind == "fail" {
		s.nFail--
	}
	// The pending asks were chosen with the retracted value (perhaps as
	// safe only because of it): withdraw them, so that they are not run.
	for _, p := range s.pending {
		s.withdrawn[p.ask] = e.Seq
	}
	s.pending = s.pending[:0]
	s.retracts++
	s.events = append(s.events, e)
	return s.rebuild()
}

// applyFit puts fit event e's kernels in force (unless the fit was
// skipped) and rebuilds the policy with them. A fit is made at an ask
// with none pending, and its record is applied as recorded: never fitted
// again on replay.
func (s *Study) applyFit(e store.Event) error {
	if len(s.pending) > 0 || e.Fit == nil {
		return fmt.Errorf("%w: event %d: a fit with an ask pending, or without its record", api.ErrReplay, e.Seq)
	}
	m, err := s.model.WithFit(e.Fit)
	if err != nil {
		return fmt.Errorf("%w: event %d: %w", api.ErrReplay, e.Seq, err)
	}
	s.fits = append(s.fits, e.Seq)
	s.sinceFit = 0
	if e.Fit.Skipped == "" {
		s.fitPoints = e.Fit.Points
	}
	s.events = append(s.events, e)
	if taken, err := s.u.takeTransform(s, e); err != nil {
		return err
	} else if !taken && e.Fit.Skipped != "" {
		return nil // the model stays as it was, and so does the policy
	}
	s.model = m
	return s.rebuild()
}

func (s *Study) answer(ask int) *api.AskAnswer {
	e := &s.events[s.asks[ask]]
	a := &api.AskAnswer{Ask: e.Ask, Index: e.Index, X: e.X, Context: s.res.contextMap(e.Context)}
	s.u.askAnswer(s, a, e)
	a.Notes = s.notes()
	if s.back[ask] {
		a.BackToBest = true
		a.Notes = append([]string{fmt.Sprintf("back to the best safe setting measured, trial %d: the trial before broke a limit or failed, and the spec says after_violation: best; the study goes on from its tell", s.bestTrialOf(e))}, a.Notes...)
	}
	return a
}

// warnSigmas is how far, in predictive standard deviations
// √(σ²_post + σ²_noise), a told value may lie from the model's mean at its
// action before the tell warns. Under the model a deviation of 6 has odds
// of about 1 in 500 million: far likelier a typo than a measurement.
const warnSigmas = 6

// decideTell makes the event of tell t, checked against the study.
func (s *Study) decideTell(t *api.TellRequest) (store.Event, error) {
	return s.validateAt(t, len(s.events)+1, true)
}

// decideRetract makes the event retracting observation obs (a tell's
// sequence number): an unknown observation, an ask, or an observation
// retracted already is an error.
func (s *Study) decideRetract(obs int) (store.Event, error) {
	k, ok := s.tells[obs]
	if !ok {
		if obs >= 1 && obs <= len(s.events) {
			return store.Event{}, fmt.Errorf("%w: event %d of study %q is a%s, not an observation", api.ErrUnknownObservation, obs, s.name, map[string]string{"ask": "n ask", "retract": " retraction", "fit": " fit of the model", "extend": "n extension of the horizon"}[s.events[obs-1].Kind])
		}
		return store.Event{}, fmt.Errorf("%w: study %q has no observation %d", api.ErrUnknownObservation, s.name, obs)
	}
	if r := s.retracted[obs]; r != 0 {
		return store.Event{}, fmt.Errorf("%w: observation %d of study %q was retracted by event %d", api.ErrAlreadyRetracted, obs, s.name, r)
	}
	return store.Event{Seq: len(s.events) + 1, Kind: "retract", Ref: obs, Index: s.events[k].Index, X: s.events[k].X, Created: time.Now().UTC()}, nil
}

// validateAt checks tell t as event seq; a tell outside the loop is
// checked against the horizon when horizon is set (an import checks its
// rows' total instead).
func (s *Study) validateAt(t *api.TellRequest, seq int, horizon bool) (store.Event, error) {
	if t.Failed {
		return s.validateFailed(t, seq, horizon)
	}
	return s.u.validate(s, t, seq, horizon)
}

// validatePlain is validateAt for a tell in the study's own form: x or
// index, f and g.
func (s *Study) validatePlain(t *api.TellRequest, seq int, horizon bool) (store.Event, error) {
	e := store.Event{Kind: "tell", Seq: seq, Created: time.Now().UTC()}
	if btoi(t.Ask != nil)+btoi(t.Index != nil)+btoi(t.X != nil) > 1 {
		return e, fmt.Errorf("%w: give exactly one of ask, index and x", api.ErrBadTell)
	}
	switch {
	case t.Ask != nil:
		i, ok := s.asks[*t.Ask]
		if !ok {
			return e, fmt.Errorf("%w: %d is not an ask of study %q", api.ErrUnknownAsk, *t.Ask, s.name)
		}
		if s.told[*t.Ask] {
			return e, fmt.Errorf("%w: ask %d of study %q", api.ErrAlreadyTold, *t.Ask, s.name)
		}
		if r := s.withdrawn[*t.Ask]; r != 0 {
			return e, fmt.Errorf("%w: ask %d of study %q was withdrawn by %s; ask again (if you ran it already, tell the measurement with index %d instead)", api.ErrWithdrawn, *t.Ask, s.name, s.withdrawal(r), s.events[i].Index)
		}
		if t.Context != nil {
			return e, fmt.Errorf("%w: context: a tell of an ask has the ask's context; leave it out", api.ErrBadTell)
		}
		// A tell of an ask handed out is accepted even at the horizon:
		// the experiment has been run.
		e.Ask, e.Index, e.X, e.Context = *t.Ask, s.events[i].Index, s.events[i].X, s.events[i].Context
	case t.Index != nil || t.X != nil:
		if t.Index != nil && s.res.Box != nil {
			return e, fmt.Errorf("%w: study %q has a box decision set, without action indices: tell by ask or by x", api.ErrBadTell, s.name)
		}
		if t.Index != nil && (*t.Index < 0 || *t.Index >= len(s.res.X)) {
			return e, fmt.Errorf("%w: index %d outside the decision set's 0…%d", api.ErrBadTell, *t.Index, len(s.res.X)-1)
		}
		if d := s.res.Dim(); t.X != nil && len(t.X) != d {
			return e, fmt.Errorf("%w: x has %s, the decision set's actions have %d", api.ErrBadTell, plural.Count(len(t.X), "coordinate"), d)
		}
		if b := s.res.Box; b != nil {
			for j, v := range t.X {
				if lh := b.Bounds[j]; !(v >= lh[0] && v <= lh[1]) {
					return e, fmt.Errorf("%w: x%d = %v is outside the box's [%v, %v]", api.ErrBadTell, j+1, v, lh[0], lh[1])
				}
			}
		}
		for j, v := range t.X {
			if !problem.InRange(v) {
				return e, fmt.Errorf("%w: x%d = %v is not a finite number within ±1e100", api.ErrBadTell, j+1, v)
			}
		}
		c, err := s.contextValues(t.Context, "a tell outside the loop")
		if err != nil {
			return e, fmt.Errorf("%w: %w", api.ErrBadTell, err)
		}
		e.Context = c
		// The pending asks keep their places within the horizon.
		if held := s.nObs + len(s.pending); horizon && held >= s.res.Spec.Horizon {
			return e, fmt.Errorf("%w: study %q has %s and %s for a horizon of %d; an observation outside the loop would exceed it", api.ErrHorizon, s.name, plural.Count(s.nObs, "observation"), plural.Count(held-s.nObs, "pending ask"), s.res.Spec.Horizon)
		}
		if t.Index != nil {
			e.Index, e.X = *t.Index, s.res.X[*t.Index]
			break
		}
		// A point of the decision set is that action: it counts as one
		// (violations, the best safe action) and is told by index.
		if s.lookup != nil {
			e.Index = -1
			if i, ok := s.lookup[pointKey(t.X)]; ok {
				e.Index = i
			}
		} else {
			e.Index = slices.IndexFunc(s.res.X, func(x []float64) bool { return slices.Equal(x, t.X) })
		}
		if e.Index >= 0 {
			e.X = s.res.X[e.Index]
		} else {
			e.X = append([]float64(nil), t.X...)
			for j, v := range e.X {
				e.X[j] = vec.PlusZero(v)
			}
			if err := s.checkOutside(1); err != nil {
				return e, err
			}
		}
	default:
		return e, fmt.Errorf("%w: give exactly one of ask, index and x", api.ErrBadTell)
	}
	if t.F == nil || !problem.InRange(*t.F) {
		return e, fmt.Errorf("%w: f must be a finite number within ±1e100", api.ErrBadTell)
	}
	m := s.outcomeValues()
	switch {
	case t.G == nil && m > 0:
		return e, fmt.Errorf("%w: \"g\" is missing: give the %s measured", api.ErrBadTell, plural.Count(m, "constraint value"))
	case len(t.G) != m:
		return e, fmt.Errorf("%w: %s given, the study has %s", api.ErrBadTell, plural.Count(len(t.G), "constraint value"), plural.Count(m, "constraint"))
	}
	for i, v := range t.G {
		if !problem.InRange(v) {
			return e, fmt.Errorf("%w: g%d = %v is not a finite number within ±1e100", api.ErrBadTell, i+1, v)
		}
	}
	if t.NoiseStd != nil {
		if err := api.CheckNoiseStd(*t.NoiseStd); err != nil {
			return e, err
		}
		v := *t.NoiseStd
		e.NoiseStd = &v
	}
	e.F, e.G = *t.F, append([]float64(nil), t.G...)
	return e, nil
}

// checkOutside refuses, with ErrBadTell, more observations outside the
// decision set than MaxOutside, or when the study's memory estimate with
// them (BytesWith) would exceed the service's limit: each holds a row of L
// in every GP.
func (s *Study) checkOutside(more int) error {
	if s.outside+more > api.MaxOutside {
		return fmt.Errorf("%w: study %q holds %d observations at points outside its decision set and would hold %d: at most %d, since each costs every later replay a forward substitution through all the observations before it (O(t³) in all: about 2 s at %d, 13 s at 4 000, 2 min at 8 000 on a 2-core machine); import a subset, or create the study with those points in its decision set", api.ErrBadTell, s.name, s.outside, s.outside+more, api.MaxOutside, api.MaxOutside)
	}
	if s.maxMemory == 0 {
		return nil
	}
	if err := s.res.CheckMemoryWith(s.maxMemory, s.outside+more); err != nil {
		return fmt.Errorf("%w: study %q: %w", api.ErrBadTell, s.name, err)
	}
	return nil
}

// bytes is the study's memory estimate with the observations outside its
// decision set it holds.
func (s *Study) bytes() int64 { return s.res.BytesWith(s.outside) }

// violated returns the constraints an observation violates (1-based,
// g_i < h_i) and whether it violates f ≥ h_f, and sets e.Violation: one
// rule for tells and imports, so that an imported f < h_f is flagged and
// never counts as known safe.
func (s *Study) violated(e *store.Event) (constraints []int, objective bool) {
	constraints, objective, ok := s.u.violated(*e)
	if !ok {
		for i, g := range e.G {
			if g < s.res.Spec.Thresholds[i] {
				constraints = append(constraints, i+1)
			}
		}
		if hf := s.res.Spec.ObjectiveThreshold; hf != nil && e.F < *hf {
			objective = true
		}
	}
	e.Violation = len(constraints) > 0 || objective
	return constraints, objective
}

// residual is one value of a tell against the model's prediction at its
// point before the update: GP gpj (0: f, 1+i: the i-th safety
// condition), the value in the policies' units v and as told, the
// predictive mean and standard deviation √(σ²_post + σ²_noise).
type residual struct {
	gpj      int
	v, told  float64
	mean, sd float64
}

// residuals are a tell's values against the model (Study.residuals), with
// what they share: where, each GP's name and the map back to the user's
// units (for messages), and √β_t of the round the tell answers.
type residuals struct {
	rs       []residual
	at       string
	names    []string
	raw      func(gpj int, v float64) float64
	sqrtBeta float64
}

// checkMinPoints is the fewest observations a fit of the kernels must
// rest on before a tell is judged against them (typo warnings, the
// calibration check). A noise fitted on two or three measurements of
// one setting is as small as they happen to lie close: three tells of
// the quickstart's seed, 61.45, 61.27 and 63.22 s (1 % noise), made the
// third a "typo" 30 standard deviations off, and kept "the model looks
// wrong" in every answer for the next 20 tells (a new user's review).
// Before any fit, the configured model judges.
const checkMinPoints = 5

// residuals returns a tell's values against the model's predictive
// distribution at its point, before the update, and √β_t of the round:
// the posterior over the set at an action, the policy's prediction at a
// point outside it (O(t²) per GP, bandit.Predictor). The predictive sd
// adds the tell's own noise_std when given, else its GP's σ. None for a
// study stated in parameters before its first fit: its transform is then
// the identity, and the model's mean 0 and variance 1 say nothing of the
// user's units.
func (s *Study) residuals(e *store.Event) *residuals {
	if !s.u.checkable(s) {
		return nil
	}
	if s.fitPoints > 0 && s.fitPoints < checkMinPoints {
		return nil
	}
	model := s.model           // the kernels in force: configured or fitted
	sigma := model.NoiseStds() // each GP's σ: its kernel block's, or the model's
	var f bandit.Posterior
	var g []bandit.Posterior
	var sqb float64
	at, j := fmt.Sprintf("action %d", e.Index), e.Index
	if e.Context != nil {
		at = fmt.Sprintf("%s in context %s", at, jsonText(s.res.contextMap(e.Context)))
	}
	if e.Index >= 0 && e.Context == nil {
		s.pol.Inspect(&s.resSnap, bandit.Full)
		f, g, sqb = s.resSnap.F, s.resSnap.G, s.resSnap.SqrtBeta
	} else {
		var pr bandit.Prediction
		// A point outside the decision set, or any point (x, c) of a
		// study with a context, whose policy views one context at a time.
		if err := bandit.Predict(s.pol, &pr, [][]float64{pointOf(e)}); err != nil {
			return nil // validate checked the point: not reached
		}
		f, g, j, sqb = pr.F, pr.G, 0, pr.SqrtBeta
		if e.Index < 0 {
			at = fmt.Sprintf("point %v", e.X)
			if e.Context != nil {
				at = fmt.Sprintf("%s in context %s", at, jsonText(s.res.contextMap(e.Context)))
			}
		}
	}
	// raw maps a value of GP gpj back to the user's units (a study stated
	// in parameters), to say the model's mean in them.
	raw := s.u.raw(s)
	fv, gv := s.u.policyValues(s, *e)
	names := s.gpNames()
	out := &residuals{at: at, names: names, raw: raw, sqrtBeta: sqb}
	add := func(gpj int, v float64, p bandit.Posterior) {
		// The tell's own σ, else the GP's: its kernel block's or the model's.
		noise := *model.NoiseStd
		switch {
		case e.NoiseStd != nil:
			noise = *e.NoiseStd
		case sigma != nil:
			noise = sigma[gpj]
		}
		told := s.u.told(*e, gpj, v)
		out.rs = append(out.rs, residual{gpj: gpj, v: v, told: told, mean: p.Mean[j], sd: math.Hypot(p.Std[j], noise)})
	}
	add(0, fv, f)
	for i, v := range gv {
		add(1+i, v, g[i])
	}
	return out
}

// gpNames are the names of the study's GPs, in order: f, g1, g2, …, or
// in a study stated in parameters its outcomes' (the objective's, then
// each condition's outcome: a constraint with a min and a max twice).
func (s *Study) gpNames() []string { return s.u.gpNames(s) }

// warnings flags the values of tell e that lie more than warnSigmas
// predictive standard deviations from the model's mean at its point,
// before the update (its residuals rs): likely typos, which would
// otherwise pass for measurements (a g far above its threshold makes a
// wide region safe).
func (s *Study) warnings(e *store.Event, rs *residuals) []string {
	if rs == nil {
		return nil
	}
	var out []string
	at, what, which := rs.at, "observation", e.Seq
	for _, r := range rs.rs {
		if z := math.Abs(r.v-r.mean) / r.sd; z > warnSigmas {
			if out == nil {
				// Where, and how to retract, in the study's own terms
				// (a study stated in parameters: its setting and trial).
				if a, w, n, ok := s.u.warnAt(s, *e); ok {
					at, what, which = a, w, n
				}
			}
			out = append(out, fmt.Sprintf("%s = %.6g is %.3g posterior standard deviations from the model's mean %.3g at %s; if it is a typo, retract it (safegp study retract --%s %d, or POST /v1/studies/%s/retract {\"%s\": %d}) and tell the right value",
				rs.names[r.gpj], r.told, z, rs.raw(r.gpj, r.mean), at, what, which, s.name, what, which))
		}
	}
	return out
}

// trialOf is the trial of a tell of ask (0: a measurement outside the
// loop): the ask's trial, or the next, fresh, for a measurement outside
// the loop and an ask without a trial.
func (s *Study) trialOf(ask int) (trial int, fresh bool) {
	if t, ok := s.askTrial[ask]; ask != 0 && ok {
		return t, false
	}
	return s.trials, true
}

// rebuild makes a new policy from the observations in force, in their
// order, each told as a measurement outside the loop (id 0, its point
// given) — the same on the live path and on replay, so that the asks
// recorded after a retraction replay exactly.
func (s *Study) rebuild() error {
	pol, src, err := newPolicy(s.res, &s.model, &s.tr, s.retracts+s.exclusions+s.extensions+len(s.fits)<<20, s.nObs, s.covSwitch)
	if err != nil {
		return fmt.Errorf("%w: rebuild the policy: %w", api.ErrReplay, err)
	}
	for k := range s.events {
		if e := &s.events[k]; (e.Kind == "tell" || e.Kind == "fail") && s.retracted[e.Seq] == 0 {
			o := s.observation(e)
			o.Index, o.X = e.Index, pointOf(e)
			if err := pol.Tell(0, o); err != nil {
				return fmt.Errorf("%w: rebuild the policy: event %d: %w", api.ErrReplay, e.Seq, err)
			}
		}
	}
	// The search goes on where it was, for a policy that can (line-bo
	// with keep_line): the old policy is at the same event on replay.
	bandit.Carry(pol, s.pol)
	s.pol, s.src = pol, src
	// The view goes on in the context of the last ask (show, plot), as
	// the policy rebuilt had it.
	return s.lastContext()
}

// lastContext sets a study's contextual policy to the context of its last
// ask event, the context its view is in (a no-op without a context or
// before the first ask).
func (s *Study) lastContext() error {
	if s.res.ContextKernel == nil {
		return nil
	}
	for k := len(s.events) - 1; k >= 0; k-- {
		if e := &s.events[k]; e.Kind == "ask" {
			if err := bandit.SetContext(s.pol, e.Context); err != nil {
				return fmt.Errorf("%w: event %d: %w", api.ErrReplay, e.Seq, err)
			}
			return nil
		}
	}
	return nil
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
