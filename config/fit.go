package config

import (
	"encoding/json"
	"fmt"

	"github.com/safegp/safegp/internal/quote"
	"github.com/safegp/safegp/space"

	"github.com/safegp/safegp/internal/plural"

	"go.yaml.in/yaml/v3"

	"github.com/safegp/safegp/bandit"
	"github.com/safegp/safegp/fit"
	"github.com/safegp/safegp/internal/fielderr"
	"github.com/safegp/safegp/internal/strictyaml"
	"github.com/safegp/safegp/kernel"
)

// Fit is the model section's fit block (model.fit): when the learner
// re-estimates its kernels' hyperparameters from its own observations
// (package fit), and how. The configured kernels are the model until the
// first fit. Refitting during a run voids the confidence guarantees of
// SPEC §3, which assume the kernel known (docs/fitting.md, "Refitting
// during a run").
type Fit struct {
	When *FitWhen `yaml:"when" json:"when"`
	ARD  bool     `yaml:"ard,omitempty" json:"ard,omitempty"`
	// Groups ties the inputs' dimensions to lengthscales: dimension j
	// gets lengthscale groups[j], numbered 0 … p−1 (fit.Options.Groups),
	// one per dimension; it overrides ard. A study stated in parameters
	// gives its numeric parameters one and each choice its own, so that
	// the distance between a choice's values does not set the
	// lengthscale of the gains. Nil: ard's or one for all.
	Groups    []int   `yaml:"groups,omitempty" json:"groups,omitempty"`
	Restarts  *int    `yaml:"restarts,omitempty" json:"restarts,omitempty"`
	Prior     *string `yaml:"prior,omitempty" json:"prior,omitempty"`
	MinPoints *int    `yaml:"min_points,omitempty" json:"min_points,omitempty"`
	// MaxLengthscale bounds every fitted lengthscale, in the inputs'
	// units (fit.Options.MaxLengthscale); nil for no bound.
	MaxLengthscale *float64 `yaml:"max_lengthscale,omitempty" json:"max_lengthscale,omitempty"`
	// RangeLengthscale bounds each fitted lengthscale by this multiple of
	// the observed points' range along its dimension, but never below
	// RangeFloor (fit.Options.RangeLengthscale); nil for no bound.
	RangeLengthscale *float64 `yaml:"range_lengthscale,omitempty" json:"range_lengthscale,omitempty"`
	RangeFloor       *float64 `yaml:"range_floor,omitempty" json:"range_floor,omitempty"`
	// ConstraintVarianceFloor raises each constraint's fitted kernel
	// variance, after the fit, to at least this multiple of its data's
	// second moment about 0, the GP's prior mean (in a study stated in
	// parameters, about the limit), the lengthscale and the noise kept as
	// fitted (internal/refit); nil for no floor. The objective's variance
	// is kept as fitted, unless the objective has a threshold: f ≥ h_f is
	// then a safety condition too, and gets the same floor unless
	// ObjectiveVarianceFloor gives it its own.
	ConstraintVarianceFloor *float64 `yaml:"constraint_variance_floor,omitempty" json:"constraint_variance_floor,omitempty"`
	// ObjectiveVarianceFloor is the floor for f's variance when f ≥ h_f
	// is a safety condition, in the same units; nil: the constraints'
	// (ConstraintVarianceFloor), as before it existed. A search drives
	// f away from its threshold, so f's second moment about it grows
	// with the progress made, and a floor on it shrinks the certified
	// steps as the study succeeds (docs/fitting.md).
	ObjectiveVarianceFloor *float64 `yaml:"objective_variance_floor,omitempty" json:"objective_variance_floor,omitempty"`
}

// FitWhen is the fit rule: never (the zero value), once on the first
// observations (Seed), or after every Every tells (the first fit as for
// Seed).
type FitWhen struct {
	Seed  bool
	Every int
	// Auto fits at min_points observations, then after every tell while
	// the observations are few and after every tenth more of them later:
	// when the tells since the last fit reach max(1, ⌊n/10⌋), n the
	// observations that fit was made on.
	Auto bool
}

// Never reports whether the rule never fits.
func (w FitWhen) Never() bool { return !w.Seed && w.Every == 0 && !w.Auto }

// String is the rule as configured: never, seed or {every: k}.
func (w FitWhen) String() string {
	switch {
	case w.Seed:
		return "seed"
	case w.Auto:
		return "auto"
	case w.Every > 0:
		return fmt.Sprintf("{every: %d}", w.Every)
	}
	return "never"
}

// MarshalJSON writes "never", "seed" or {"every": k}: what UnmarshalYAML
// reads back (a stored study's spec is JSON, read as YAML).
func (w FitWhen) MarshalJSON() ([]byte, error) {
	if w.Every > 0 {
		return json.Marshal(map[string]int{"every": w.Every})
	}
	return json.Marshal(w.String())
}

// UnmarshalJSON reads what MarshalJSON writes, as UnmarshalYAML reads it
// (JSON is YAML): a study's summary read back from the HTTP API.
func (w *FitWhen) UnmarshalJSON(b []byte) error {
	var n yaml.Node
	if err := yaml.Unmarshal(b, &n); err != nil {
		return err
	}
	if n.Kind != yaml.DocumentNode || len(n.Content) != 1 {
		return fmt.Errorf("fit when: want never, seed, auto or {\"every\": k}")
	}
	return w.UnmarshalYAML(n.Content[0])
}

// UnmarshalYAML accepts never, seed, auto or {every: k} with k ≥ 1.
func (w *FitWhen) UnmarshalYAML(n *yaml.Node) error {
	*w = FitWhen{}
	const want = "want never, seed, auto or {every: k}"
	var word string
	if n.Kind == yaml.ScalarNode && n.Decode(&word) == nil {
		switch word {
		case "never":
			return nil
		case "seed":
			w.Seed = true
			return nil
		case "auto":
			w.Auto = true
			return nil
		}
		return strictyaml.Errorf(n, "", "%s, got %s", want, strictyaml.Describe(n))
	}
	if n.Kind != yaml.MappingNode {
		return strictyaml.Errorf(n, "", "%s, got %s", want, strictyaml.Describe(n))
	}
	var f struct {
		Every *int `yaml:"every"`
	}
	if err := strictyaml.DecodeNode(n, &f); err != nil {
		return err
	}
	switch {
	case f.Every == nil:
		return strictyaml.Errorf(n, "", "%s: every is missing", want)
	case *f.Every < 1 || *f.Every > MaxHorizon:
		return strictyaml.Errorf(n, "every", "want an integer in 1…%d (tells between fits), got %d", MaxHorizon, *f.Every)
	}
	w.Every = *f.Every
	return nil
}

// Active reports whether the block asks for fits (given, and not never).
func (f *Fit) Active() bool { return f != nil && f.When != nil && !f.When.Never() }

// check checks the block; errors name keys relative to it (when,
// restarts, …).
func (f *Fit) check() error {
	if err := f.checkSchedule(); err != nil {
		return err
	}
	if err := f.checkCaps(); err != nil {
		return err
	}
	if f.ConstraintVarianceFloor != nil && !(*f.ConstraintVarianceFloor >= 0 && *f.ConstraintVarianceFloor <= 1e6) {
		return badKey("constraint_variance_floor", "want a number in 0…1e6, got %v", *f.ConstraintVarianceFloor)
	}
	if f.ObjectiveVarianceFloor != nil && !(*f.ObjectiveVarianceFloor >= 0 && *f.ObjectiveVarianceFloor <= 1e6) {
		return badKey("objective_variance_floor", "want a number in 0…1e6, got %v", *f.ObjectiveVarianceFloor)
	}
	for j, g := range f.Groups {
		if g < 0 || g >= len(f.Groups) {
			return badKey(fmt.Sprintf("groups[%d]", j), "want a lengthscale's number in 0…%d, got %d", len(f.Groups)-1, g)
		}
	}
	if f.MinPoints != nil && (*f.MinPoints < 1 || *f.MinPoints > fit.MaxPoints) {
		return badKey("min_points", "want an integer in 1…%d (a fit takes %d points at most; with one the kernels stay as they are, since a fit needs two), got %d", fit.MaxPoints, fit.MaxPoints, *f.MinPoints)
	}
	return nil
}

// checkSchedule checks when the fits come and how each is made: when,
// restarts and prior.
func (f *Fit) checkSchedule() error {
	if f.When == nil {
		return badKey("when", "missing: never, seed, auto or {every: k}")
	}
	if f.When.Every < 0 || f.When.Every > MaxHorizon {
		// A decoded rule is checked by its UnmarshalYAML; one built in Go is not.
		return badKey("when.every", "want an integer in 1…%d, got %d", MaxHorizon, f.When.Every)
	}
	if f.Restarts != nil && (*f.Restarts < 1 || *f.Restarts > fit.MaxRestarts) {
		return badKey("restarts", "want an integer in 1…%d, got %d", fit.MaxRestarts, *f.Restarts)
	}
	if f.Prior != nil {
		if _, err := fit.ParsePrior(*f.Prior); err != nil {
			return badKey("prior", "want default or none, got %s", quote.Short(*f.Prior))
		}
	}
	return nil
}

// checkCaps checks the lengthscale caps: max_lengthscale, and
// range_lengthscale with its range_floor.
func (f *Fit) checkCaps() error {
	if f.MaxLengthscale != nil && !(*f.MaxLengthscale > 0 && *f.MaxLengthscale <= 1e100) {
		return badKey("max_lengthscale", "want a number > 0, got %v", *f.MaxLengthscale)
	}
	if f.RangeLengthscale != nil && !(*f.RangeLengthscale > 0 && *f.RangeLengthscale <= 1e100) {
		return badKey("range_lengthscale", "want a number > 0, got %v", *f.RangeLengthscale)
	}
	if (f.RangeLengthscale == nil) != (f.RangeFloor == nil) {
		return badKey("range_floor", "range_lengthscale and range_floor go together")
	}
	if f.RangeFloor != nil && !(*f.RangeFloor > 0 && *f.RangeFloor <= 1e100) {
		return badKey("range_floor", "want a number > 0, got %v", *f.RangeFloor)
	}
	return nil
}

// CheckFitKernel refuses a kernel block a fit cannot re-estimate: package
// fit fits the stationary se, matern32 and matern52 only. The error names
// the key "kernel", relative to the block.
func CheckFitKernel(k kernel.Spec) error {
	switch k.Kernel {
	case "se", "matern32", "matern52":
		return nil
	}
	return fielderr.New(ErrInvalid, "kernel", "%s cannot be fitted: model.fit re-estimates se, matern32 and matern52 kernels (leave model.fit out, or set when: never, to keep this kernel as configured)", k.Kernel)
}

// Due reports whether a fit is due before the next round: fits is the
// number of fits so far, points the observations the fit would use,
// since the observations told since the last fit, and seedSize |D^w|,
// which sets min_points' default max(2, |D^w|). The first fit comes at
// the first round with min_points observations; with every: k the next
// ones after every k more.
func (f *Fit) Due(fits, points, since, seedSize int) bool {
	if !f.Active() {
		return false
	}
	if fits == 0 {
		return points >= f.MinPointsOr(seedSize)
	}
	if f.When.Auto {
		return since >= max(1, (points-since)/10)
	}
	return f.When.Every > 0 && since >= f.When.Every
}

// MinPointsOr is min_points, or its default max(2, seedSize).
func (f *Fit) MinPointsOr(seedSize int) int {
	if f.MinPoints != nil {
		return *f.MinPoints
	}
	return max(2, seedSize)
}

// CheckFitAlgorithm refuses an algorithm that needs the true kernel
// together with an active fit: exploration: theory computes T' from the
// configured kernels before the run (Theorems 2 and 4), which a fitted
// model replaces. The error names the key "exploration", relative to the
// algorithm.
func CheckFitAlgorithm(a *bandit.Spec, f *Fit) error {
	if f.Active() && a.Exploration.Theory {
		return fielderr.New(ErrInvalid, "exploration", "theory computes T' from the true kernel before the run, and model.fit (when: %s) replaces the kernel during it: give exploration {fixed: n} or {plateau: …}, or leave model.fit out", f.When)
	}
	return nil
}

// FitRecord is one fit of the model's kernels during a run, as recorded
// (a study's fit event, a run's results): the kernels fitted, with each
// block's noise_std — the fitted σ, or with known noise the configured
// one — and each GP's log marginal likelihood at them; or, if the fit
// could not be made, why (Skipped), and the model stays as it was.
type FitRecord struct {
	Points      int           `json:"points"` // observations fitted on
	Objective   *kernel.Spec  `json:"objective,omitempty"`
	Constraints []kernel.Spec `json:"constraints,omitempty"`
	// LML is log p(y | θ) of each GP at its fitted θ: [0] for f, [1+i]
	// for g_i (before a constraint_variance_floor raised a variance).
	LML     []float64 `json:"lml,omitempty"`
	Skipped string    `json:"skipped,omitempty"`
	// Transform is the outcomes' transform fitted with the kernels, of a
	// study stated in parameters (space.Transform): in force from this
	// fit on, even when the kernels' fit was skipped.
	Transform *space.Transform `json:"transform,omitempty"`
}

// FitData is what a fit is made on: the points of the observations in
// force, the values of f (Y[0]) and of each g_i (Y[1+i]) there, and each
// observation's known noise variance — nil unless every observation
// carries one, in which case the noise is fitted too.
type FitData struct {
	X        [][]float64
	Y        [][]float64
	NoiseVar []float64
	// ObjectiveCondition is true when f ≥ h_f is a safety condition (an
	// objective threshold): f's variance then gets a floor
	// (ObjectiveVarianceFloor, else ConstraintVarianceFloor).
	ObjectiveCondition bool
}

// WithFit returns the model with the kernels of the record (the model
// itself for a skipped fit), checked: a stored record that does not make
// kernels of the model's shape is an error.
func (s Model) WithFit(r *FitRecord) (Model, error) {
	if r.Skipped != "" {
		return s, nil
	}
	if r.Objective == nil || len(r.Constraints) != len(s.Constraints) || len(r.LML) != 1+len(s.Constraints) {
		return s, fmt.Errorf("%w: fit record: want the kernels of f and of %s", ErrInvalid, plural.Count(len(s.Constraints), "constraint"))
	}
	for i, k := range append([]kernel.Spec{*r.Objective}, r.Constraints...) {
		if _, err := kernel.New(k); err != nil {
			return s, fmt.Errorf("%w: fit record: kernel %d: %w", ErrInvalid, i, err)
		}
		if k.NoiseStd == nil || !(*k.NoiseStd >= 0) {
			return s, fmt.Errorf("%w: fit record: kernel %d: noise_std missing", ErrInvalid, i)
		}
	}
	o := *r.Objective
	s.Objective = &o
	s.Constraints = append([]kernel.Spec(nil), r.Constraints...)
	return s, nil
}
