package study

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/safegp/safegp/bandit"
	"github.com/safegp/safegp/internal/argmax"
	"github.com/safegp/safegp/internal/vec"
	"github.com/safegp/safegp/space"
	"github.com/safegp/safegp/store"
	"github.com/safegp/safegp/study/calib"
)

// Summary is what show returns. Retracted observations count nowhere but
// in Retracted: not in Rounds, not in Violations, not in the model. Best
// is the argmax of ℓ_f over the union of the policy's safe set, the seed
// set and the actions observed (not retracted) with every g_i ≥ h_i (and
// f ≥ h_f with an objective threshold); it is never nil, since the seed
// set is not empty.
type Summary struct {
	Study     string `json:"study"`
	Algorithm string `json:"algorithm"`
	Actions   int    `json:"actions"` // 0 for a box
	// Box is a box decision set's bounds, [lo_j, hi_j] per dimension.
	Box         [][2]float64 `json:"box,omitempty"`
	Dim         int          `json:"d"`
	Constraints int          `json:"constraints"`
	Horizon     int          `json:"horizon"`
	Rounds      int          `json:"rounds"`    // observations in force (not retracted)
	Retracted   int          `json:"retracted"` // observations retracted
	// Outside counts the observations in force at points outside the
	// decision set (told by x or imported), OwnNoise those told with
	// their own noise_std.
	Outside  int  `json:"outside"`
	OwnNoise int  `json:"own_noise"`
	Pending  *int `json:"pending"` // the oldest ask awaiting its tell
	// PendingAsks lists every ask awaiting its tell, oldest first (a
	// batch holds several).
	PendingAsks []int `json:"pending_asks,omitempty"`
	SafeSetSize int   `json:"safe_set_size"`
	// KnownSafe is the safe set with the seeds, which the policies take
	// as safe before their lower bounds say so (the stall notes' and a
	// batch's count); SafeSetSize's on a box or with a context.
	KnownSafe  int       `json:"known_safe"`
	Best       *Best     `json:"best"`
	Violations int       `json:"violations"` // among the observations in force
	Created    time.Time `json:"created"`

	// ObjectiveThreshold is h_f when f ≥ h_f is a safety condition.
	ObjectiveThreshold *float64 `json:"objective_threshold,omitempty"`

	// Model is the model in force of a study with a fit block
	// (model.fit): configured or fitted, and the kernels; nil without
	// one, whose model is the spec's throughout.
	Model *ModelInfo `json:"model,omitempty"`

	// ContextNames are the context variables of a study with a context,
	// and Context the context of its last ask, in which SafeSetSize and
	// Best are taken: nil before the first ask, and Best with it.
	ContextNames []string           `json:"context_names,omitempty"`
	Context      map[string]float64 `json:"context,omitempty"`

	// Notes say why the study may not be making progress (notes.go), as
	// its ask answers do.
	Notes []string `json:"notes,omitempty"`
	// Calibration is the check of the recent measurements against the
	// model's confidence intervals (calibration.go); nil before it has
	// calibrationMin of them.
	Calibration *calib.Calibration `json:"calibration,omitempty"`

	// A study stated in parameters: its trials so far (asks and
	// measurements made outside the loop), its parameters and outcomes
	// as stated.
	Trials     int                `json:"trials,omitempty"`
	Parameters []space.Param      `json:"parameters,omitempty"`
	Objective  *space.Objective   `json:"objective,omitempty"`
	Limits     []space.Constraint `json:"outcome_constraints,omitempty"`
}

// Best is the best safe action so far: the argmax of the lower confidence
// bound ℓ_f (lowest index on ties) over the actions known to be safe — the
// policy's safe set, the seed set D^w, and every action observed (and not
// retracted) with g_i ≥ h_i for all i and, with an objective threshold,
// f ≥ h_f (the policy's safe set then has ℓ_f ≥ h_f, and an observation
// below h_f is a violation). The seed set is never empty, so neither is
// the choice.
type Best struct {
	Index  int       `json:"index"`
	X      []float64 `json:"x"`
	LowerF float64   `json:"lower_f"`
	MeanF  float64   `json:"mean_f"`
	// Trial, Params and Values are a study stated in parameters' best:
	// the best safe trial measured (bestTrial), in the user's units,
	// which is all its JSON holds.
	Trial  *int               `json:"-"`
	Params space.Setting      `json:"-"`
	Values map[string]float64 `json:"-"`
}

// MarshalJSON writes a study stated in parameters' best as {"trial",
// "params", "values"}, another's as its fields.
func (b Best) MarshalJSON() ([]byte, error) {
	if b.Trial != nil {
		return json.Marshal(struct {
			Trial  int                `json:"trial"`
			Params space.Setting      `json:"params"`
			Values map[string]float64 `json:"values"`
		}{*b.Trial, b.Params, b.Values})
	}
	type plain Best
	return json.Marshal(plain(b))
}

// UnmarshalJSON reads what MarshalJSON writes: a best with "trial" is a
// study stated in parameters'.
func (b *Best) UnmarshalJSON(data []byte) error {
	var named struct {
		Trial  *int               `json:"trial"`
		Params space.Setting      `json:"params"`
		Values map[string]float64 `json:"values"`
	}
	if err := json.Unmarshal(data, &named); err != nil {
		return err
	}
	if named.Trial != nil {
		*b = Best{Trial: named.Trial, Params: named.Params, Values: named.Values}
		return nil
	}
	type plain Best
	return json.Unmarshal(data, (*plain)(b))
}

// Observation is one tell, as exported.
type Observation struct {
	Seq   int       `json:"seq"`
	Ask   int       `json:"ask,omitempty"`
	Index int       `json:"index"`
	X     []float64 `json:"x"`
	// Context is the context the measurement was made in, for a study
	// with a context.
	Context map[string]float64 `json:"context,omitempty"`
	F       float64            `json:"f"`
	G       []float64          `json:"g"`
	// NoiseStd is the tell's own noise standard deviation, absent when
	// the tell used the model's σ.
	NoiseStd  *float64 `json:"noise_std,omitempty"`
	Violation bool     `json:"violation"`
	// Retracted observations no longer count; RetractedBy is the Seq of
	// the retraction.
	Retracted   bool      `json:"retracted"`
	RetractedBy int       `json:"retracted_by,omitempty"`
	Created     time.Time `json:"created"`
	// Trial, Params and Values are a study stated in parameters': the
	// trial, its setting and every outcome's value, in the user's
	// units; its JSON holds them instead of index, x, f and g.
	Trial  *int               `json:"-"`
	Params space.Setting      `json:"-"`
	Values map[string]float64 `json:"-"`
}

// MarshalJSON writes an observation of a study stated in parameters as
// {"seq", "ask", "trial", "params", "values", …}, another as its fields.
func (o Observation) MarshalJSON() ([]byte, error) {
	if o.Trial != nil {
		return json.Marshal(struct {
			Seq         int                `json:"seq"`
			Ask         int                `json:"ask,omitempty"`
			Trial       int                `json:"trial"`
			Params      space.Setting      `json:"params"`
			Values      map[string]float64 `json:"values"`
			Violation   bool               `json:"violation"`
			Retracted   bool               `json:"retracted"`
			RetractedBy int                `json:"retracted_by,omitempty"`
			Created     time.Time          `json:"created"`
		}{o.Seq, o.Ask, *o.Trial, o.Params, o.Values, o.Violation, o.Retracted, o.RetractedBy, o.Created})
	}
	type plain Observation
	return json.Marshal(plain(o))
}

// Retraction is one retraction, as exported.
type Retraction struct {
	Seq         int       `json:"seq"`
	Observation int       `json:"observation"` // the Seq of the observation retracted
	Index       int       `json:"index"`
	Created     time.Time `json:"created"`
}

// Show summarizes a study. It inspects the policy without asking, so it
// never changes the next suggestion.
func (v *Service) Show(ctx context.Context, name string) (*Summary, error) {
	var sum *Summary
	err := v.with(ctx, name, func(s *Study) error {
		sum = s.summary()
		return nil
	})
	return sum, err
}

// summary is Show's summary of s.
func (s *Study) summary() *Summary {
	var snap bandit.Snapshot
	s.pol.Inspect(&snap, bandit.Full)
	a := s.res.Spec.Algorithm
	sum := &Summary{
		Study: s.name, Algorithm: a.DisplayLabel(), Actions: len(s.res.X), Dim: s.res.Dim(),
		Constraints: len(s.res.Spec.Thresholds), ObjectiveThreshold: s.res.Spec.ObjectiveThreshold, Horizon: s.res.Spec.Horizon,
		Rounds: s.nObs, Retracted: len(s.retracted), Violations: s.viol, Created: s.created,
	}
	if p := s.firstPending(); p != 0 {
		sum.Pending = &p
	}
	for _, p := range s.pending {
		sum.PendingAsks = append(sum.PendingAsks, p.ask)
	}
	sum.Model = s.modelInfo()
	sum.SafeSetSize, sum.KnownSafe = snap.SafeSetSize, snap.SafeSetSize
	if s.res.Box == nil && s.res.ContextKernel == nil {
		sum.KnownSafe = s.knownSafeIn(&snap) // Full holds the safe set: no second pass
	}
	sum.Notes = s.notes()
	sum.Calibration = s.calibration()
	for _, e := range s.events {
		if e.Kind == "tell" && s.retracted[e.Seq] == 0 {
			sum.OwnNoise += btoi(e.NoiseStd != nil)
			// On a box every point is one: no action to count apart.
			sum.Outside += btoi(e.Index < 0 && s.res.Box == nil)
		}
	}
	var current []float64 // the context of the policy's view
	if names := s.res.contextNames(); names != nil {
		sum.ContextNames = names
		current = bandit.Context(s.pol)
		sum.Context = s.res.contextMap(current)
		if current == nil {
			return sum // no ask yet: no context, no safe set to choose from
		}
	}
	if s.res.Box != nil {
		sum.Box = s.res.Box.Bounds // a named study's: the unit cube, its parameters' box
	}
	if s.u.summary(s, sum) {
		return sum // in the user's terms: the best trial measured safe
	}
	if s.res.Box != nil {
		// A box: the safe set is the current line's (0 between
		// lines), and the best safe point line-bo's, argmax ℓ_f
		// over the seeds and the observed points safe under the
		// model (bandit.Best), at index −1.
		if x, lf, ok := bandit.Best(s.pol); ok {
			var pr bandit.Prediction
			mean := 0.0 // Predict takes every observed point
			if bandit.Predict(s.pol, &pr, [][]float64{x}) == nil {
				mean = pr.F.Mean[0]
			}
			sum.Best = &Best{Index: -1, X: x, LowerF: lf, MeanF: mean}
		}
		return sum
	}
	// Known safe: the policy's safe set, which SGP-UCB's D^s_t may
	// leave empty early on, plus the seed set and the actions
	// measured safe.
	safe := append([]bool(nil), snap.Safe...)
	for _, i := range s.res.Seed {
		safe[i] = true
	}
	for _, e := range s.events {
		// A point outside the decision set is no action to choose;
		// with a context, an action measured safe is safe in its own.
		if e.Kind == "tell" && s.retracted[e.Seq] == 0 && e.Index >= 0 && !e.Violation && vec.SameBits(e.Context, current) {
			safe[e.Index] = true
		}
	}
	if best := argmax.Mask(snap.LowerF, safe); best >= 0 {
		sum.Best = &Best{Index: best, X: s.res.X[best], LowerF: snap.LowerF[best], MeanF: snap.F.Mean[best]}
	}
	return sum
}

// Observations lists a study's tells in order, retracted ones flagged.
func (v *Service) Observations(ctx context.Context, name string) ([]Observation, error) {
	var obs []Observation
	err := v.with(ctx, name, func(s *Study) error {
		obs = s.observations()
		return nil
	})
	return obs, err
}

func (s *Study) observations() []Observation {
	return s.observationsIn(0, len(s.events), len(s.events))
}

// observationsIn lists the tells among events [i, j) of a study read as
// its first n events: a retraction after them does not flag a tell.
func (s *Study) observationsIn(i, j, n int) []Observation {
	obs := []Observation{}
	for k := i; k < j; k++ {
		// By reference: a copy would escape through the units.
		if e := &s.events[k]; e.Kind == "tell" {
			r := s.retracted[e.Seq]
			if r > n {
				r = 0
			}
			o := Observation{Seq: e.Seq, Ask: e.Ask, Index: e.Index, X: e.X, Context: s.res.contextMap(e.Context), F: e.F, G: e.G, NoiseStd: e.NoiseStd, Violation: e.Violation,
				Retracted: r != 0, RetractedBy: r, Created: e.Created}
			s.u.observation(s, &o, e)
			obs = append(obs, o)
		}
	}
	return obs
}

// retractionsIn lists the retractions among events [i, j).
func (s *Study) retractionsIn(i, j int) []Retraction {
	rets := []Retraction{}
	for _, e := range s.events[i:j] {
		if e.Kind == "retract" {
			rets = append(rets, Retraction{Seq: e.Seq, Observation: e.Ref, Index: e.Index, Created: e.Created})
		}
	}
	return rets
}

// Export is a study's record for export: its observations (retracted ones
// flagged) and its retractions.
type Export struct {
	Dim         int `json:"-"`
	Constraints int `json:"-"`
	// ContextNames are a study's context variables: CSV columns after
	// x1…xd.
	ContextNames []string `json:"-"`
	// ParamNames and OutcomeNames are a study stated in parameters':
	// its CSV has a column for each instead of x1…xd, f and g1…gm.
	ParamNames, OutcomeNames []string      `json:"-"`
	Observations             []Observation `json:"observations"`
	Retractions              []Retraction  `json:"retractions"`
	// Fits are the fits of the model (model.fit), in order; left out
	// when there are none.
	Fits []FitInfo `json:"fits,omitempty"`
}

// Export returns a study's record.
func (v *Service) Export(ctx context.Context, name string) (*Export, error) {
	var x *Export
	err := v.with(ctx, name, func(s *Study) error {
		x = s.exportIn(0, len(s.events), len(s.events))
		x.Fits = s.fitInfos()
		return nil
	})
	return x, err
}

// exportIn is the study's record of events [i, j), the study read as its
// first n events.
func (s *Study) exportIn(i, j, n int) *Export {
	x := &Export{Dim: s.res.Dim(), Constraints: len(s.res.Spec.Thresholds), ContextNames: s.res.contextNames(), Observations: s.observationsIn(i, j, n), Retractions: s.retractionsIn(i, j)}
	x.ParamNames, x.OutcomeNames = s.u.names()
	return x
}

// ExportChunk is the most events an export holds at once (ExportChunks).
const ExportChunk = 4096

// ExportChunks hands fn the study's record a chunk at a time, in order:
// the observations and retractions among at most ExportChunk events,
// each chunk built under the study's lock and handed to fn outside it
// (without its fits). An export of any length then holds one chunk, not
// the whole record — 24 exports at once of a study of 185 000
// observations held 2.2 GB, outside --max-memory (issue 40, item 7) —
// and writers of the study wait for a chunk, not for a slow reader. The
// record is that of the events the study had when the call began: a
// later event is left out, and a later retraction does not flag its
// observation.
func (v *Service) ExportChunks(ctx context.Context, name string, fn func(x *Export) error) error {
	n := -1 // the events when the export began, read with the first chunk
	for i := 0; ; i += ExportChunk {
		var x *Export
		err := v.with(ctx, name, func(s *Study) error {
			if n < 0 {
				n = len(s.events)
			}
			if len(s.events) < n {
				return fmt.Errorf("%w: study %q: its records were replaced during the export (%d events, %d when it began)", store.ErrStale, name, len(s.events), n)
			}
			x = s.exportIn(i, min(i+ExportChunk, n), n)
			return nil
		})
		if err != nil {
			return err
		}
		if err := fn(x); err != nil {
			return err
		}
		if i+ExportChunk >= n {
			return nil
		}
	}
}

// Inspect returns the study's decision set, thresholds, observations
// (retracted ones flagged) and the policy's view of the coming round (for
// plots). For a study with a context these are the view and the
// observations of the context of its last ask; before the first ask it
// fails with ErrBadContext.
func (v *Service) Inspect(ctx context.Context, name string) (x [][]float64, h []float64, obs []Observation, snap bandit.Snapshot, err error) {
	err = v.with(ctx, name, func(s *Study) error {
		x, h, obs = s.res.X, s.res.Spec.Thresholds, s.observations()
		if s.res.ContextKernel != nil {
			current := bandit.Context(s.pol)
			if current == nil {
				return fmt.Errorf("%w: study %q has no context yet: its view is that of the context of its last ask (ask first)", ErrBadContext, s.name)
			}
			kept := obs[:0]
			for k, e := range s.tellEvents() {
				if vec.SameBits(e.Context, current) {
					kept = append(kept, obs[k])
				}
			}
			obs = kept
		}
		s.pol.Inspect(&snap, bandit.Full)
		return nil
	})
	return
}

// tellEvents lists the study's tell events, in the order of observations.
func (s *Study) tellEvents() []*store.Event {
	var out []*store.Event
	for k := range s.events {
		if s.events[k].Kind == "tell" {
			out = append(out, &s.events[k])
		}
	}
	return out
}

// Safety returns a study's safety conditions: the thresholds h_i, one per
// constraint, and the objective threshold h_f, nil when f ≥ h_f is not one
// of them (SPEC §5, "Safe objective").
func (v *Service) Safety(ctx context.Context, name string) (h []float64, hf *float64, err error) {
	err = v.with(ctx, name, func(s *Study) error {
		h, hf = s.res.Spec.Thresholds, s.res.Spec.ObjectiveThreshold
		return nil
	})
	return h, hf, err
}
