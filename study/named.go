package study

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"

	"github.com/safegp/safegp/bandit"
	"github.com/safegp/safegp/config"
	"github.com/safegp/safegp/internal/fielderr"
	"github.com/safegp/safegp/internal/quote"
	"github.com/safegp/safegp/problem"
	"github.com/safegp/safegp/space"
	"github.com/safegp/safegp/store"
	"github.com/safegp/safegp/study/api"
	"github.com/safegp/safegp/study/defaults"
)

// A study stated in the user's terms (docs/quickstart.md): named
// parameters, an objective to minimize or maximize and constraints with
// upper and lower limits, all in raw units, and the settings known to be
// safe. It is resolved into the form the policies take — a decision set
// in the unit cube (space.Candidates) or its box, f and g_k ≥ 0 through
// the outcomes' transform (space.Transform) — and runs as any study; the
// transform is fitted with the kernels and recorded in each fit event.

// named is what a study stated in parameters and outcomes adds to one.
type named struct {
	space    *space.Space
	outcomes *space.Outcomes
	conds    []space.Condition
	// settings are the actions' settings (a finite decision set), and
	// lookup finds an action by its setting (space.Key).
	settings []space.Setting
	lookup   map[string]int
}

// isNamed reports whether the spec is stated in parameters and outcomes.
func (s *Spec) isNamed() bool {
	return s.Parameters != nil || s.Objective != nil || s.Constraints != nil || s.Seeds != nil
}

// resolveNamed resolves a spec stated in parameters and outcomes. actions
// and seeds are a stored study's decision set (nil when the study is
// created): its settings are then decoded from them, so that a study
// replays whatever a later safegp's candidate sets would be.
func (s *Spec) resolveNamed(actions [][]float64, seeds []int) (*Resolved, error) {
	ds := s.DecisionSet
	switch {
	case ds.File != "" || ds.Grid != nil || ds.Actions != nil || ds.Box != nil:
		return nil, fielderr.New(api.ErrSpec, "decision_set", "a study stated in parameters has no decision_set: the parameters make it")
	case s.SeedActions != nil || s.SeedPoints != nil:
		return nil, fielderr.New(api.ErrSpec, "seed_actions", "a study stated in parameters gives its safe settings as seeds")
	case s.Thresholds != nil || s.ObjectiveThreshold != nil:
		return nil, fielderr.New(api.ErrSpec, "thresholds", "a study stated in parameters gives its limits as min and max of its outcomes")
	case s.Context != nil:
		return nil, fielderr.New(api.ErrSpec, "context", "not offered yet for a study stated in parameters: use decision_set")
	case s.Parameters == nil:
		return nil, fielderr.New(api.ErrSpec, "parameters", "missing: the parameters tuned, [{name, low, high}, …]")
	case s.Objective == nil:
		return nil, fielderr.New(api.ErrSpec, "objective", "missing: {name: NAME, goal: minimize | maximize}")
	}
	sp, err := space.New(s.Parameters)
	if err != nil {
		return nil, fielderr.Recast(api.ErrSpec, "", err)
	}
	names := make([]string, len(s.Parameters))
	for i, p := range s.Parameters {
		names[i] = p.Name
	}
	out := &space.Outcomes{Objective: *s.Objective, Constraints: s.Constraints}
	if err := out.Check(names); err != nil {
		return nil, fielderr.Recast(api.ErrSpec, "", err)
	}
	conds := out.Conditions()
	if len(conds) == 0 && out.Threshold() == nil {
		return nil, fielderr.New(api.ErrSpec, "constraints", "no limit to keep: give a constraint with min or max, or the objective's min or max (a safe study keeps at least one)")
	}
	if len(s.Seeds) == 0 {
		return nil, fielderr.New(api.ErrSpec, "seeds", "give at least one setting known to be safe, [{name: value, …}]")
	}
	seedX := make([][]float64, len(s.Seeds))
	canon := make([]space.Setting, len(s.Seeds))
	for k, set := range s.Seeds {
		if seedX[k], err = sp.Encode(set); err != nil {
			return nil, fielderr.Recast(api.ErrSpec, fmt.Sprintf("seeds[%d]", k), err)
		}
		canon[k] = sp.Canonical(set)
	}
	// Each choice as its string, in the answers and as stored (a YAML
	// seed mode: 1 for the choice "1" came back as the number 1).
	s.Seeds = canon
	r := &Resolved{Spec: s, Named: &named{space: sp, outcomes: out, conds: conds}}
	nm := r.Named
	switch {
	case sp.Numeric() <= space.GridDims && actions != nil:
		r.X, r.Seed = actions, seeds
		nm.settings = make([]space.Setting, len(actions))
		for i, x := range actions {
			nm.settings[i] = sp.Decode(x)
		}
		// The seeds' settings as given, not as decoded (a float's last
		// bits).
		for k, set := range s.Seeds {
			if i := slices.IndexFunc(actions, func(x []float64) bool { return slices.Equal(x, seedX[k]) }); i >= 0 {
				nm.settings[i] = set
			}
		}
	case sp.Numeric() <= space.GridDims:
		if r.X, nm.settings, err = sp.Candidates(); err != nil {
			return nil, fielderr.Recast(api.ErrSpec, "parameters", err)
		}
		keys := map[string]int{}
		for i, set := range nm.settings {
			keys[sp.Key(set)] = i
		}
		for k, set := range s.Seeds {
			i, ok := keys[sp.Key(set)]
			if !ok {
				// A seed between the grid's values joins the set.
				i = len(r.X)
				r.X, nm.settings = append(r.X, seedX[k]), append(nm.settings, set)
				keys[sp.Key(set)] = i
			}
			r.Seed = append(r.Seed, i)
		}
		slices.Sort(r.Seed)
		r.Seed = slices.Compact(r.Seed)
	default:
		// Beyond GridDims numeric parameters the study searches the
		// unit cube's box, on lines; with ints or choices only at the
		// points that run (space.Snap), with a step of at least one
		// integer and any value of a choice (space.Steps).
		b := &bandit.Box{Bounds: make([][2]float64, sp.Dim()), Seeds: seedX}
		for j := range b.Bounds {
			b.Bounds[j] = [2]float64{0, 1}
		}
		if !sp.Continuous() {
			b.Lattice = sp
		}
		if err := b.Check(); err != nil {
			return nil, fielderr.Recast(api.ErrSpec, "seeds", err)
		}
		r.Box = b
	}
	if r.X != nil {
		nm.lookup = make(map[string]int, len(nm.settings))
		for i := len(nm.settings) - 1; i >= 0; i-- {
			nm.lookup[sp.Key(nm.settings[i])] = i // the first, as for points
		}
	}
	// The policies' form: every limit is g_k ≥ 0 (space.Transform), and
	// the objective's threshold, if any, f ≥ 0.
	s.Thresholds = make([]float64, len(conds))
	if out.Threshold() != nil {
		zero := 0.0
		s.ObjectiveThreshold = &zero
	}
	defaults.Model(&s.Model, sp, len(conds))
	if err := s.checkNamedUnits(r, out); err != nil {
		return nil, err
	}
	defaults.Search(&s.Algorithm, &s.Model, sp, r.Box != nil)
	return r, nil
}

// namedSpec is the stored form of a study stated in parameters: what the
// user stated, with the model and the algorithm as resolved (defaults
// filled in), so that a later safegp's defaults do not change it.
type namedSpec struct {
	Parameters  []space.Param      `json:"parameters"`
	Objective   *space.Objective   `json:"objective"`
	Constraints []space.Constraint `json:"constraints,omitempty"`
	Seeds       []space.Setting    `json:"seeds"`
	Epsilon     *float64           `json:"epsilon,omitempty"`
	Model       config.Model       `json:"model"`
	Algorithm   bandit.Spec        `json:"algorithm"`
	Horizon     int                `json:"horizon"`
	Seed        uint64             `json:"seed"`
	// AfterViolation is left out when not given: a study stored before
	// it existed keeps its record (and its record_sum).
	AfterViolation string `json:"after_violation,omitempty"`
}

// storedNamed is the JSON a study stated in parameters is stored as.
func (s *Spec) storedNamed() ([]byte, error) {
	return json.Marshal(&namedSpec{Parameters: s.Parameters, Objective: s.Objective, Constraints: s.Constraints, Seeds: s.Seeds,
		Epsilon: s.Epsilon, Model: s.Model, Algorithm: s.Algorithm, Horizon: s.Horizon, Seed: s.Seed, AfterViolation: s.AfterViolation})
}

// values are tell e's values in the user's units, one per outcome: the
// objective's (F), then each constraint's (G).
func values(e *store.Event) []float64 { return append([]float64{e.F}, e.G...) }

// outcomeValues is the number of values a tell gives besides f: one per
// constraint of a study stated in parameters, one per threshold of one
// stated in its decision set.
func (s *Study) outcomeValues() int { return s.u.outcomeValues(s) }

// valuesInForce are the values of the observations in force, per
// outcome, in the user's units: what a transform is fitted to.
func (s *Study) valuesInForce() [][]float64 {
	out := make([][]float64, 1+s.outcomeValues())
	for _, e := range s.events {
		if e.Kind == "tell" && s.retracted[e.Seq] == 0 {
			for j, v := range values(&e) {
				out[j] = append(out[j], v)
			}
		}
	}
	return out
}

// validateNamed is validateAt for a study stated in parameters: the tell
// of an ask, or of a measurement made at setting t.Params, with every
// outcome's value in t.Values. It restates the tell in the study's own
// form — the setting's action, or its point in the unit cube; f and g the
// values as given — and checks it as any tell.
func (s *Study) validateNamed(t *api.TellRequest, seq int, horizon bool) (store.Event, error) {
	nm := s.res.Named
	e := store.Event{Kind: "tell", Seq: seq}
	switch {
	case t.F != nil || t.G != nil || t.Index != nil || t.X != nil:
		return e, fmt.Errorf("%w: a study stated in parameters takes params and values, not x, index, f or g (the CLI's --value NAME=V for each outcome, --param NAME=V for a setting outside the loop)", api.ErrBadTell)
	case t.NoiseStd != nil:
		return e, fmt.Errorf("%w: noise_std: not offered for a study stated in parameters (its outcomes have scales of their own): leave it out", api.ErrBadTell)
	case t.Context != nil:
		return e, fmt.Errorf("%w: context: a study stated in parameters has none", api.ErrBadTell)
	case t.Values == nil:
		return e, fmt.Errorf("%w: \"values\" is missing: give %v by name", api.ErrBadTell, nm.outcomes.Names())
	case t.Ask != nil && t.Params != nil:
		return e, fmt.Errorf("%w: params: a tell of an ask has the ask's setting; leave them out", api.ErrBadTell)
	case t.Ask == nil && t.Params == nil:
		return e, fmt.Errorf("%w: give the ask told, or the params the measurement was made at", api.ErrBadTell)
	}
	names := nm.outcomes.Names()
	for name := range t.Values {
		if !slices.Contains(names, name) {
			return e, fmt.Errorf("%w: values: %s is not an outcome of the study (its outcomes: %v)", api.ErrBadTell, quote.Short(name), names)
		}
	}
	vals := make([]float64, len(names))
	for j, name := range names {
		v, ok := t.Values[name]
		if !ok {
			return e, fmt.Errorf("%w: values: %s is missing", api.ErrBadTell, name)
		}
		if !problem.InRange(v) { // named here, not as the f or g_k it becomes
			return e, fmt.Errorf("%w: values: %s = %v is not a finite number within ±1e100", api.ErrBadTell, name, v)
		}
		vals[j] = v + 0 // −0 is 0, as in a point (vec.PlusZero)
	}
	u := api.TellRequest{Ask: t.Ask, F: &vals[0], G: vals[1:]}
	if t.Params != nil {
		x, err := nm.space.Encode(t.Params)
		if err != nil {
			return e, fmt.Errorf("%w: params: %w", api.ErrBadTell, err)
		}
		// By the canonical setting: --param m=1 names the choice "1"
		// (Encode), and a candidate decoded and encoded again need not
		// give its point back bit for bit.
		if i, ok := nm.lookup[nm.space.Key(nm.space.Canonical(t.Params))]; ok {
			u.Index = &i
		} else {
			u.X = x
		}
	}
	return s.validatePlain(&u, seq, horizon)
}

// settingOf is the setting of event e's point: its action's, or its
// point's in the unit cube decoded.
func (s *Study) settingOf(e *store.Event) space.Setting {
	nm := s.res.Named
	if e.Index >= 0 && nm.settings != nil {
		return nm.settings[e.Index]
	}
	return nm.space.Decode(e.X)
}

// valueMap is tell e's values by outcome name.
func (s *Study) valueMap(e *store.Event) map[string]float64 {
	names := s.res.Named.outcomes.Names()
	out := make(map[string]float64, len(names))
	for j, v := range values(e) {
		out[names[j]] = v
	}
	return out
}

// bestTrial is the best safe trial of a study stated in parameters: of
// the observations in force that kept every limit, the one with the best
// objective value (the first of equals); nil before there is one.
func (s *Study) bestTrial() *api.Best {
	nm := s.res.Named
	var best *store.Event
	for k := range s.events {
		e := &s.events[k]
		if e.Kind != "tell" || s.retracted[e.Seq] != 0 || e.Violation {
			continue
		}
		if best == nil || nm.outcomes.Better(e.F, best.F) {
			best = e
		}
	}
	if best == nil {
		return nil
	}
	trial := s.tellTrial[best.Seq]
	return &api.Best{Index: best.Index, X: best.X, Trial: &trial, Params: s.settingOf(best), Values: s.valueMap(best)}
}

// Notes are what a study's specification alone says may keep it from
// exploring, for its creator: a parameter whose linear scale is too
// coarse near its seeds, an int or a choice whose other values the study
// will rarely try (space.Space.Hints). Nil for a study stated in its
// decision set.
func (r *Resolved) Notes() []string { return r.units().hints(r) }

// The units of a study stated in parameters (units.go): settings and
// outcomes by name, translated to the policy's cube and f and g.

func (nm *named) policyValues(s *Study, e store.Event) (float64, []float64) {
	g := make([]float64, len(nm.conds))
	f := nm.outcomes.Apply(&s.tr, values(&e), g)
	return f, g
}

func (nm *named) outcomeValues(*Study) int { return len(nm.outcomes.Constraints) }

func (nm *named) validate(s *Study, t *api.TellRequest, seq int, horizon bool) (store.Event, error) {
	return s.validateNamed(t, seq, horizon)
}

func (nm *named) violated(e store.Event) (constraints []int, objective, ok bool) {
	conds := nm.conds
	for _, k := range nm.outcomes.Violated(values(&e)) {
		switch {
		case k < 0 || conds[k].Outcome == 0:
			objective = true
		case !slices.Contains(constraints, conds[k].Outcome):
			constraints = append(constraints, conds[k].Outcome)
		}
	}
	return constraints, objective, true
}

func (nm *named) startTransform(s *Study) { s.tr = nm.outcomes.Identity() }

func (nm *named) takeTransform(s *Study, e store.Event) (bool, error) {
	t := e.Fit.Transform
	if t == nil {
		return false, nil
	}
	if len(t.Scales) != len(nm.conds) {
		return false, fmt.Errorf("%w: event %d: a transform of %d limits for %d", api.ErrReplay, e.Seq, len(t.Scales), len(nm.conds))
	}
	s.tr = *t
	return true, nil
}

// fitTransform: a study stated in parameters fits its transform first,
// and the kernels to the data it maps.
func (nm *named) fitTransform(s *Study) *space.Transform {
	t := nm.outcomes.FitTransform(s.valuesInForce())
	return &t
}

// checkable: before the first fit the transform is the identity, and the
// model's mean 0 and variance 1 say nothing of the user's units.
func (nm *named) checkable(s *Study) bool { return len(s.fits) > 0 }

func (nm *named) gpNames(*Study) []string {
	onames := nm.outcomes.Names()
	names := []string{onames[0]}
	for _, c := range nm.conds {
		names = append(names, onames[c.Outcome])
	}
	return names
}

func (nm *named) raw(s *Study) func(gpj int, v float64) float64 {
	return func(gpj int, v float64) float64 {
		if gpj == 0 {
			return nm.outcomes.Raw(&s.tr, v)
		}
		c := nm.conds[gpj-1]
		return c.Limit + c.Sign*v*s.tr.Scales[gpj-1]
	}
}

func (nm *named) told(e store.Event, gpj int, _ float64) float64 {
	if gpj == 0 {
		return e.F
	}
	return values(&e)[nm.conds[gpj-1].Outcome]
}

// warnAt: the setting, and the trial the tell is about to get (as apply
// numbers it). Only when warned of: a replay applies every tell.
func (nm *named) warnAt(s *Study, e store.Event) (string, string, int, bool) {
	set, _ := json.Marshal(s.settingOf(&e))
	trial, _ := s.trialOf(e.Ask)
	return string(set), "trial", trial, true
}

func (nm *named) names() (params, outcomes []string) {
	for _, p := range nm.space.Params() {
		params = append(params, p.Name)
	}
	return params, nm.outcomes.Names()
}

func (nm *named) askAnswer(s *Study, a *api.AskAnswer, e *store.Event) {
	a.Trial, a.Params, a.Best = s.askTrial[e.Ask], s.settingOf(e), s.bestTrial()
}

func (nm *named) tellAnswer(s *Study, a *api.TellAnswer, seq int) {
	trial := s.tellTrial[seq]
	a.Trial, a.Best, a.Outcomes = &trial, s.bestTrial(), nm.outcomes.Names()
}

func (nm *named) retractAnswer(s *Study, a *RetractAnswer, observation int) {
	trial := s.tellTrial[observation]
	a.Trial, a.Best = &trial, s.bestTrial()
}

func (nm *named) observation(s *Study, o *api.Observation, e *store.Event) {
	trial := s.tellTrial[e.Seq]
	o.Trial, o.Params, o.Values = &trial, s.settingOf(e), s.valueMap(e)
}

func (nm *named) pending(s *Study, pa *api.PendingAsk, e *store.Event) {
	trial := s.askTrial[e.Ask]
	pa.Trial, pa.Params = &trial, s.settingOf(e)
}

// summary: in the user's terms, the best trial measured safe.
func (nm *named) summary(s *Study, sum *api.Summary) bool {
	sum.Best = s.bestTrial()
	sp := s.res.Spec
	sum.Trials, sum.Parameters, sum.Objective, sum.Limits = s.trials, sp.Parameters, sp.Objective, sp.Constraints
	return true
}

func (nm *named) trialTell(s *Study, trial int) (int, error) {
	seq, ok := s.trialTell[trial]
	if !ok {
		if trial >= 0 && trial < s.trials {
			return 0, fmt.Errorf("%w: trial %d of study %q has no observation yet", api.ErrUnknownObservation, trial, s.name)
		}
		return 0, fmt.Errorf("%w: study %q has no trial %d", api.ErrUnknownObservation, s.name, trial)
	}
	return seq, nil
}

func (nm *named) seedNote(s *Study, e *store.Event, then string) (string, bool) {
	set, _ := json.Marshal(s.settingOf(e))
	what := "broke a limit"
	if e.Kind == "fail" {
		what = "failed"
	}
	return fmt.Sprintf("the seed %s %s when measured (trial %d): %s", set, what, s.tellTrial[e.Seq], then), true
}

func (nm *named) unit() string { return "setting" }

func (nm *named) constraintLabel(names []string, i int) string { return names[1+i] }

// lengthscaleNote says the shortest lengthscale in the cube's units.
func (nm *named) lengthscaleNote(short float64, who string) (string, bool) {
	if math.IsInf(short, 1) {
		return "", false
	}
	return fmt.Sprintf("the lengthscales may be too short for the space: each measurement then vouches for its own neighbourhood only — the shortest, %s's, is %.3g of the unit cube the parameters map to, and a measurement vouches for settings within about %.2g of it", who, short, 0.13*short), true
}

func (nm *named) hints(r *Resolved) []string {
	h := nm.space.Hints(r.Spec.Seeds)
	if r.Spec.Algorithm.Name != bandit.LoSBO {
		for _, c := range nm.outcomes.Constraints {
			if c.Lipschitz != nil || c.NoiseBound != nil {
				h = append(h, fmt.Sprintf("%s's lipschitz and noise_bound are used by losbo only, and this study runs %s: give algorithm: {name: losbo} to have its safe set rest on them (docs/algorithms.md)", c.Name, r.Spec.Algorithm.DisplayLabel()))
				break
			}
		}
	}
	return h
}

func (nm *named) storedSpec(r *Resolved) ([]byte, error) { return r.Spec.storedNamed() }

func (nm *named) paramSpace() *space.Space { return nm.space }

// checkNamedUnits checks what a study stated in parameters takes in the
// user's units. losbo takes its bounds from the constraints —
// lipschitz per parameter and noise_bound, raw units — on a candidate
// grid; the algorithm's own lipschitz and noise_bound, and any other
// algorithm whose safe set rests on constants in the policy's units, or
// the frequentist β, would be in the unit cube and the standardized
// outcomes, which each fit rescales: refused, with a reason.
func (s *Spec) checkNamedUnits(r *Resolved, out *space.Outcomes) error {
	for _, b := range []*bandit.Beta{s.Model.Beta, s.Model.ObjectiveBeta} {
		if b != nil && b.Freq != nil {
			return fielderr.New(api.ErrSpec, "model.beta", "the frequentist β's RKHS and noise bounds are in the GPs' units, and a study stated in parameters standardizes its outcomes and refits their scale: use losbo, whose bounds the constraints give in raw units (lipschitz, noise_bound), or state the study in its decision set")
		}
	}
	if s.Algorithm.Name != bandit.LoSBO {
		if s.Algorithm.InUnits() {
			return fielderr.New(api.ErrSpec, "algorithm", "this algorithm's Lipschitz constants would be in the unit cube the parameters map to and in the standardized outcomes, not your units: use losbo, whose bounds the constraints give in raw units (lipschitz, noise_bound), or state the study in its decision set")
		}
		return nil
	}
	a := &s.Algorithm
	switch {
	case a.Lipschitz != nil || a.NoiseBound != nil:
		return fielderr.New(api.ErrSpec, "algorithm", "losbo in a study stated in parameters takes its bounds from each constraint (lipschitz: {PARAM: L, …} in the outcome's units per raw unit, noise_bound in the outcome's units), not from the algorithm")
	case r.Box != nil:
		return fielderr.New(api.ErrSpec, "algorithm", "losbo in a study stated in parameters runs on a candidate grid (at most two numeric parameters): its safe set is certified on the candidates it judges")
	case out.Threshold() != nil:
		return fielderr.New(api.ErrSpec, "objective", "losbo with a limit on the objective: the objective takes no lipschitz bound; put the limit on a constraint of the same outcome")
	}
	for i, c := range out.Constraints {
		if c.Lipschitz == nil || c.NoiseBound == nil {
			return fielderr.New(api.ErrSpec, fmt.Sprintf("constraints[%d]", i), "losbo needs lipschitz: {PARAM: L, …} (every parameter, in %s's units per raw unit) and noise_bound (in %s's units) on every constraint: its safe set rests on them, not on the GP", c.Name, c.Name)
		}
	}
	return nil
}

// losboBounds is LoSBO's bounds of a study stated in parameters, in the
// policy's units under transform tr (each fit's): condition c's embedding
// is L_{k,j}·x_j over its outcome's scale (space.Space.Embed) and its
// noise bound E_k over the scale, k its constraint; nil for another
// algorithm.
func (nm *named) losboBounds(spec *Spec, tr *space.Transform) *bandit.LoSBOBounds {
	if spec.Algorithm.Name != bandit.LoSBO {
		return nil
	}
	b := &bandit.LoSBOBounds{}
	scales := slices.Clone(tr.Scales) // the transform in force when the policy is built
	for c, cond := range nm.conds {
		k := nm.outcomes.Constraints[cond.Outcome-1]
		b.NoiseBounds = append(b.NoiseBounds, *k.NoiseBound/scales[c])
	}
	b.Embed = func(c int, x, dst []float64) []float64 {
		k := nm.outcomes.Constraints[nm.conds[c].Outcome-1]
		return nm.space.Embed(x, k.Lipschitz, scales[c], dst)
	}
	return b
}
