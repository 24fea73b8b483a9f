package study

import (
	"encoding/json"
	"fmt"

	"github.com/safegp/safegp/space"
	"github.com/safegp/safegp/store"
	"github.com/safegp/safegp/study/api"
)

// units is the translating layer in front of the study, as Optuna's
// _SearchSpaceTransform sits in front of its samplers: between the user's
// terms and the policy's. A study stated in parameters (named, named.go)
// maps settings to the policy's points in the unit cube and outcome
// values to its standardized f and g ≥ 0, and answers in the user's terms
// (trials, settings, outcomes by name); a study stated in the policy's
// own terms (cube) passes everything through. The study calls its
// Resolved's units and never asks which it has: Resolved.units is the one
// place that looks.
type units interface {
	// policyValues are tell e's f and g as the policy takes them. The
	// tells go by value, here and below: a pointer through an interface
	// escapes, and would cost every tell a copy on the heap.
	policyValues(s *Study, e store.Event) (float64, []float64)
	// outcomeValues is the number of values a tell gives besides f.
	outcomeValues(s *Study) int
	// validate checks tell t as event seq, restated in the study's own
	// form (Study.validatePlain).
	validate(s *Study, t *api.TellRequest, seq int, horizon bool) (store.Event, error)
	// violated is Study.violated where the units judge a violation
	// themselves (ok); !ok leaves it to the thresholds.
	violated(e store.Event) (constraints []int, objective, ok bool)
	// startTransform sets the study's transform before any fit, and
	// takeTransform takes a fit's (applyFit): taken reports whether the
	// fit changed the units.
	startTransform(s *Study)
	takeTransform(s *Study, e store.Event) (taken bool, err error)
	// fitTransform is the transform a fit fits first, nil for none.
	fitTransform(s *Study) *space.Transform
	// checkable reports whether the residual check can judge a tell yet.
	checkable(s *Study) bool
	// gpNames are the names of the study's GPs: f, g1, … or the outcomes'.
	gpNames(s *Study) []string
	// raw maps a value of GP gpj back to the user's units, and told is
	// the value told that GP gpj's value v stands for.
	raw(s *Study) func(gpj int, v float64) float64
	told(e store.Event, gpj int, v float64) float64
	// warnAt says where a warned tell is and how to retract it, in the
	// study's terms, when they are not the observation's (ok).
	warnAt(s *Study, e store.Event) (at, what string, which int, ok bool)
	// names are the parameters' and outcomes' names of the columns of
	// the study's data, nil for x1…xd, f, g1…gm.
	names() (params, outcomes []string)
	// The answers, in the study's terms.
	askAnswer(s *Study, a *api.AskAnswer, e *store.Event)
	tellAnswer(s *Study, a *api.TellAnswer, seq int)
	retractAnswer(s *Study, a *RetractAnswer, observation int)
	observation(s *Study, o *api.Observation, e *store.Event)
	pending(s *Study, pa *api.PendingAsk, e *store.Event)
	// summary fills Show's summary; done: nothing of the policy's best is
	// to be added.
	summary(s *Study, sum *api.Summary) (done bool)
	// trialTell is the observation of a trial (RetractTrial).
	trialTell(s *Study, trial int) (int, error)
	// Notes' words.
	seedNote(s *Study, e *store.Event, then string) (string, bool)
	unit() string
	constraintLabel(names []string, i int) string
	lengthscaleNote(short float64, who string) (string, bool)
	// hints are what the specification alone says may keep the study
	// from exploring (Resolved.Notes).
	hints(r *Resolved) []string
	// storedSpec is the specification as recorded at create.
	storedSpec(r *Resolved) ([]byte, error)
	paramSpace() *space.Space
}

// units returns the study's translating layer.
func (r *Resolved) units() units {
	if r.Named != nil {
		return r.Named
	}
	return cube{}
}

// cube is the units of a study stated in the policy's terms: its decision
// set's points, f and g as told.
type cube struct{}

func (cube) policyValues(_ *Study, e store.Event) (float64, []float64) { return e.F, e.G }
func (cube) outcomeValues(s *Study) int                                { return len(s.res.Spec.Thresholds) }

func (cube) validate(s *Study, t *api.TellRequest, seq int, horizon bool) (store.Event, error) {
	if t.Params != nil || t.Values != nil {
		return store.Event{}, fmt.Errorf("%w: params and values are for a study stated in parameters; this one takes x or index, f and g", api.ErrBadTell)
	}
	return s.validatePlain(t, seq, horizon)
}

func (cube) violated(store.Event) ([]int, bool, bool)        { return nil, false, false }
func (cube) startTransform(*Study)                           {}
func (cube) takeTransform(*Study, store.Event) (bool, error) { return false, nil }
func (cube) fitTransform(*Study) *space.Transform            { return nil }
func (cube) checkable(*Study) bool                           { return true }
func (cube) raw(*Study) func(int, float64) float64 {
	return func(_ int, v float64) float64 { return v }
}
func (cube) told(_ store.Event, _ int, v float64) float64         { return v }
func (cube) names() ([]string, []string)                          { return nil, nil }
func (cube) askAnswer(*Study, *api.AskAnswer, *store.Event)       {}
func (cube) tellAnswer(*Study, *api.TellAnswer, int)              {}
func (cube) retractAnswer(*Study, *RetractAnswer, int)            {}
func (cube) observation(*Study, *api.Observation, *store.Event)   {}
func (cube) pending(*Study, *api.PendingAsk, *store.Event)        {}
func (cube) summary(*Study, *api.Summary) bool                    { return false }
func (cube) unit() string                                         { return "action" }
func (cube) hints(*Resolved) []string                             { return nil }
func (cube) paramSpace() *space.Space                             { return nil }
func (cube) lengthscaleNote(float64, string) (string, bool)       { return "", false }
func (cube) seedNote(*Study, *store.Event, string) (string, bool) { return "", false }

func (cube) warnAt(*Study, store.Event) (string, string, int, bool) { return "", "", 0, false }

func (cube) gpNames(s *Study) []string {
	names := []string{"f"}
	for i := range s.res.Spec.Thresholds {
		names = append(names, fmt.Sprintf("g%d", i+1))
	}
	return names
}

func (cube) constraintLabel(_ []string, i int) string { return fmt.Sprintf("constraint %d", i+1) }

func (cube) trialTell(s *Study, _ int) (int, error) {
	return 0, fmt.Errorf("%w: study %q is not stated in parameters and has no trials: retract an observation", api.ErrUnknownObservation, s.name)
}

// storedSpec records a finite decision set's actions inline, its seed set
// by index: a replay needs no file.
func (cube) storedSpec(r *Resolved) ([]byte, error) {
	spec := *r.Spec
	if r.Box == nil {
		spec.DecisionSet = DecisionSet{Actions: r.X}
		spec.SeedActions = nil
	}
	return json.Marshal(&spec)
}
