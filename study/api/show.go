package api

import (
	"encoding/json"
	"time"

	"github.com/safegp/safegp/config"
	"github.com/safegp/safegp/kernel"
	"github.com/safegp/safegp/space"
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
	KnownSafe  int   `json:"known_safe"`
	Best       *Best `json:"best"`
	Violations int   `json:"violations"` // among the observations in force
	// Failures counts the failed trials in force: rounds without values,
	// apart from the violations.
	Failures int       `json:"failures"`
	Created  time.Time `json:"created"`

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

// Failure is one failed trial, as exported: a trial told without values
// (TellRequest.Failed), of an ask or at a setting outside the loop.
type Failure struct {
	Seq     int                `json:"seq"`
	Ask     int                `json:"ask,omitempty"`
	Trial   *int               `json:"trial,omitempty"`  // a study stated in parameters'
	Index   int                `json:"index"`            // its action, −1 for a point outside the decision set
	X       []float64          `json:"x,omitempty"`      // its point (not for a study stated in parameters)
	Params  space.Setting      `json:"params,omitempty"` // its setting, for a study stated in parameters
	Context map[string]float64 `json:"context,omitempty"`
	// Retracted failures no longer count; RetractedBy is the Seq of the
	// retraction.
	Retracted   bool      `json:"retracted"`
	RetractedBy int       `json:"retracted_by,omitempty"`
	Created     time.Time `json:"created"`
}

// Retraction is one retraction, as exported.
type Retraction struct {
	Seq         int       `json:"seq"`
	Observation int       `json:"observation"` // the Seq of the observation retracted
	Index       int       `json:"index"`
	Created     time.Time `json:"created"`
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
	// Failures are the failed trials (told without values), retracted
	// ones flagged; left out when there are none.
	Failures []Failure `json:"failures,omitempty"`
	// Fits are the fits of the model (model.fit), in order; left out
	// when there are none.
	Fits []FitInfo `json:"fits,omitempty"`
}

// FitInfo is one fit of a study's model, as shown and exported: the fit
// event's seq, when it was made, and its record.
type FitInfo struct {
	Seq int `json:"seq"`
	config.FitRecord
	Created time.Time `json:"created"`
}

// ModelInfo is the model in force of a study with a fit block: the rule,
// whether the kernels are the configured or fitted ones, and the kernels.
type ModelInfo struct {
	Fit    config.FitWhen `json:"fit"`    // the rule: "never", "seed" or {"every": k}
	Source string         `json:"source"` // configured, or fitted
	Fits   int            `json:"fits"`   // fits made (skipped ones too)
	// Last is the last fit that changed the model, nil while the kernels
	// are the configured ones.
	Last        *FitInfo      `json:"last,omitempty"`
	Objective   *kernel.Spec  `json:"objective"`
	Constraints []kernel.Spec `json:"constraints"`
	NoiseStd    float64       `json:"noise_std"` // the section's σ, for a block without its own
}

// StudyInfo is one line of the list of a store's studies, read from the
// records by one query without loading any study (loading replays every
// event and takes a place among the studies held open).
type StudyInfo struct {
	Study       string `json:"study"`
	Algorithm   string `json:"algorithm"` // the algorithm's label, else its name
	Box         bool   `json:"box"`       // a box decision set (line-bo), else a finite one
	Actions     int    `json:"actions"`   // the finite decision set's size; 0 for a box
	Dim         int    `json:"d"`
	Constraints int    `json:"constraints"`
	Horizon     int    `json:"horizon"`
	Rounds      int    `json:"rounds"`     // observations in force (not retracted)
	Retracted   int    `json:"retracted"`  // observations retracted
	Violations  int    `json:"violations"` // among the observations in force
	Failures    int    `json:"failures"`   // failed trials in force (in Rounds, not in Violations)
	Pending     int    `json:"pending"`    // asks handed out, not told and not withdrawn
	// Created is when the study was created, Updated the time of its
	// last event (Created when it has none).
	Created time.Time `json:"created"`
	Updated time.Time `json:"updated"`
}

// PendingAsk is an ask handed out and not yet told.
type PendingAsk struct {
	Ask   int       `json:"ask"`
	Index int       `json:"index"` // −1 on a box
	X     []float64 `json:"x"`
	// Context is the context the ask was chosen in, for a study with a
	// context (the Summary's Context: the pending asks are all of one).
	Context map[string]float64 `json:"context,omitempty"`
	// LeaseUntil is the end of the ask's lease, RFC 3339 in UTC with
	// milliseconds as the ask call answered it, empty when the ask has
	// none. A lease past its end is released: the next ask call may hand
	// the ask out again.
	LeaseUntil string    `json:"lease_until,omitempty"`
	Created    time.Time `json:"created"`
	// Trial and Params are a study stated in parameters': the ask's
	// trial and setting, in the user's units.
	Trial  *int          `json:"trial,omitempty"`
	Params space.Setting `json:"params,omitempty"`
}
