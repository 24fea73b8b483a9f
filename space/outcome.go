package space

import (
	"fmt"
	"math"
	"slices"

	"github.com/safegp/safegp/internal/fielderr"
	"github.com/safegp/safegp/internal/quote"
)

// Goals of the objective.
const (
	Minimize = "minimize"
	Maximize = "maximize"
)

// Objective is the outcome optimized, in the user's units, with optional
// limits: min and max are safety conditions on it like a constraint's.
type Objective struct {
	Name string   `yaml:"name" json:"name"`
	Goal string   `yaml:"goal" json:"goal"` // minimize or maximize
	Min  *float64 `yaml:"min,omitempty" json:"min,omitempty"`
	Max  *float64 `yaml:"max,omitempty" json:"max,omitempty"`
	Unit string   `yaml:"unit,omitempty" json:"unit,omitempty"`
}

// Constraint is an outcome that must stay within its limits: at least
// min, at most max, or both (two safety conditions).
type Constraint struct {
	Name string   `yaml:"name" json:"name"`
	Min  *float64 `yaml:"min,omitempty" json:"min,omitempty"`
	Max  *float64 `yaml:"max,omitempty" json:"max,omitempty"`
	Unit string   `yaml:"unit,omitempty" json:"unit,omitempty"`
	// Lipschitz bounds the outcome's change per raw unit of each
	// parameter, in the outcome's units, |g(x) − g(x′)| ≤ Σ_i L_i·|x_i −
	// x′_i| (a choice: the most it changes between two of its values),
	// and NoiseBound every measurement's error, in the outcome's units:
	// what losbo's safe set rests on (docs/algorithms.md, LoSBO).
	Lipschitz  map[string]float64 `yaml:"lipschitz,omitempty" json:"lipschitz,omitempty"`
	NoiseBound *float64           `yaml:"noise_bound,omitempty" json:"noise_bound,omitempty"`
}

// Outcomes are the objective and the constraints: outcome 0 is the
// objective, outcome 1+i constraint i.
type Outcomes struct {
	Objective   Objective
	Constraints []Constraint
}

// Condition is one safety condition in the user's units: outcome Outcome
// at least Limit (Sign +1, a min) or at most Limit (Sign −1, a max).
type Condition struct {
	Outcome int
	Sign    float64
	Limit   float64
}

// Holds reports whether value y of the condition's outcome meets it.
func (c Condition) Holds(y float64) bool { return c.Sign*(y-c.Limit) >= 0 }

// Check checks the outcomes: names distinct from each other and from the
// parameters', a goal, finite limits with min ≤ max, and every
// constraint limited. Errors wrap ErrInvalid and name the key.
func (o *Outcomes) Check(params []string) error {
	if n := 1 + len(o.Constraints); n > MaxNames {
		return fielderr.New(ErrInvalid, "constraints", "%d outcomes (the objective and %d constraints), more than %d (docs/limits.md)", n, len(o.Constraints), MaxNames)
	}
	seen := map[string]bool{}
	for _, p := range params {
		seen[p] = true
	}
	ob := &o.Objective
	if err := checkOutcomeName(seen, "objective", ob.Name); err != nil {
		return err
	}
	if ob.Goal == "" {
		return fielderr.New(ErrInvalid, "objective.goal", "missing: want minimize or maximize")
	}
	if ob.Goal != Minimize && ob.Goal != Maximize {
		return fielderr.New(ErrInvalid, "objective.goal", "want minimize or maximize, got %s", quote.Short(ob.Goal))
	}
	if err := checkLimits("objective", ob.Min, ob.Max, false); err != nil {
		return err
	}
	for i := range o.Constraints {
		c := &o.Constraints[i]
		key := fmt.Sprintf("constraints[%d]", i)
		if err := checkOutcomeName(seen, key, c.Name); err != nil {
			return err
		}
		if err := checkLimits(key, c.Min, c.Max, true); err != nil {
			return err
		}
		for name, l := range c.Lipschitz {
			if !slices.Contains(params, name) {
				return fielderr.New(ErrInvalid, key+".lipschitz", "%s is not a parameter", quote.Short(name))
			}
			if !(l >= 0) || !finite(l) {
				return fielderr.New(ErrInvalid, key+".lipschitz."+name, "want a finite number ≥ 0, got %v", l)
			}
		}
		if c.Lipschitz != nil && len(c.Lipschitz) != len(params) {
			for _, p := range params {
				if _, ok := c.Lipschitz[p]; !ok {
					return fielderr.New(ErrInvalid, key+".lipschitz", "%s is missing: give a bound for every parameter (0 for one the outcome does not depend on)", p)
				}
			}
		}
		if b := c.NoiseBound; b != nil && (!(*b >= 0) || !finite(*b)) {
			return fielderr.New(ErrInvalid, key+".noise_bound", "want a finite number ≥ 0, got %v", *b)
		}
	}
	return nil
}

// checkOutcomeName checks the name n of the outcome at key, unused so far
// by a parameter or another outcome (seen), and adds it to seen.
func checkOutcomeName(seen map[string]bool, key, n string) error {
	if err := CheckName(n); err != nil {
		return fielderr.Recast(ErrInvalid, key+".name", err)
	}
	if seen[n] {
		return fielderr.New(ErrInvalid, key+".name", "%s names a parameter or another outcome", n)
	}
	seen[n] = true
	return nil
}

// checkLimits checks an outcome's limits: finite, min < max, and with
// need (a constraint) at least one given.
func checkLimits(key string, lo, hi *float64, need bool) error {
	switch {
	case lo != nil && !finite(*lo):
		return fielderr.New(ErrInvalid, key+".min", "want a finite number within ±1e100, got %v", *lo)
	case hi != nil && !finite(*hi):
		return fielderr.New(ErrInvalid, key+".max", "want a finite number within ±1e100, got %v", *hi)
	case lo != nil && hi != nil && !(*lo < *hi):
		return fielderr.New(ErrInvalid, key+".max", "want min < max, got %v and %v", *lo, *hi)
	case need && lo == nil && hi == nil:
		return fielderr.New(ErrInvalid, key, "a constraint takes min, max or both")
	}
	return nil
}

// Names are the outcomes' names: the objective's, then the constraints'.
func (o *Outcomes) Names() []string {
	out := []string{o.Objective.Name}
	for _, c := range o.Constraints {
		out = append(out, c.Name)
	}
	return out
}

// goal is +1 to maximize, −1 to minimize.
func (o *Outcomes) goal() float64 {
	if o.Objective.Goal == Minimize {
		return -1
	}
	return 1
}

// Threshold is the objective's limit in its goal's direction (min when
// maximizing, max when minimizing), nil without one: the policies' safe
// objective, f ≥ h_f (SPEC §5).
func (o *Outcomes) Threshold() *Condition {
	ob := &o.Objective
	switch {
	case o.goal() > 0 && ob.Min != nil:
		return &Condition{Outcome: 0, Sign: 1, Limit: *ob.Min}
	case o.goal() < 0 && ob.Max != nil:
		return &Condition{Outcome: 0, Sign: -1, Limit: *ob.Max}
	}
	return nil
}

// Conditions are the safety conditions the policies see as constraints
// g_k ≥ 0, in order: an objective's limit against its goal (a max when
// maximizing, a min when minimizing), then each constraint's min and max.
func (o *Outcomes) Conditions() []Condition {
	var out []Condition
	ob := &o.Objective
	if o.goal() > 0 && ob.Max != nil {
		out = append(out, Condition{Outcome: 0, Sign: -1, Limit: *ob.Max})
	}
	if o.goal() < 0 && ob.Min != nil {
		out = append(out, Condition{Outcome: 0, Sign: 1, Limit: *ob.Min})
	}
	for i, c := range o.Constraints {
		if c.Min != nil {
			out = append(out, Condition{Outcome: 1 + i, Sign: 1, Limit: *c.Min})
		}
		if c.Max != nil {
			out = append(out, Condition{Outcome: 1 + i, Sign: -1, Limit: *c.Max})
		}
	}
	return out
}

// Violated lists the conditions values (one per outcome) break: the
// objective's threshold first (index −1), then Conditions' indices.
func (o *Outcomes) Violated(values []float64) []int {
	var out []int
	if t := o.Threshold(); t != nil && !t.Holds(values[0]) {
		out = append(out, -1)
	}
	for k, c := range o.Conditions() {
		if !c.Holds(values[c.Outcome]) {
			out = append(out, k)
		}
	}
	return out
}

// Transform is the affine map from the user's units to the policies':
// f = goal·(y_0 − Center)/Scale for the objective, and for safety
// condition k, g_k = Sign_k·(y − Limit_k)/Scales[k] ≥ 0 — so that every
// threshold is 0 and each limit goes through its outcome's map. With a
// threshold on the objective, Center is that limit and f ≥ 0 is it.
// Centring a condition at its limit puts the GP's prior mean there: a
// setting is safe only once the data lift its lower confidence bound
// above the limit, never by the prior alone.
type Transform struct {
	Center float64   `json:"center"`
	Scale  float64   `json:"scale"`
	Scales []float64 `json:"scales"`
}

// Identity is the transform before any data: the objective centred at
// its threshold (or 0), every scale 1.
func (o *Outcomes) Identity() Transform {
	t := Transform{Scale: 1, Scales: make([]float64, len(o.Conditions()))}
	for k := range t.Scales {
		t.Scales[k] = 1
	}
	if th := o.Threshold(); th != nil {
		t.Center = th.Limit
	}
	return t
}

// FitTransform makes the transform of the values in force (values[j] are
// outcome j's): the objective centred at its threshold, else at its
// mean; each scale the root mean square of the outcome's values about
// its centre (the condition's limit), so that the data the GPs see have a
// second moment of 1 about their zero prior mean, as the kernels'
// variance 1 assumes. A scale that would be 0 (no data, or every value at
// the centre: one measurement of the objective, or the seed measured
// again without noise) is the centre's magnitude |c|, else 1: the data
// say nothing of their spread yet, and the value's own size is the only
// scale in the user's units — a unit of 1 would make a settling time of
// 62.98 s after 61.6 s ten predictive standard deviations from the model,
// and a typo (Study.warnings), in seconds but not in hours.
func (o *Outcomes) FitTransform(values [][]float64) Transform {
	rms := func(ys []float64, c float64) float64 {
		var s float64
		for _, y := range ys {
			s += (y - c) * (y - c)
		}
		r := math.Sqrt(s / float64(max(len(ys), 1)))
		if !(r > 1e-300) || math.IsInf(r, 0) {
			if a := math.Abs(c); a > 1e-300 && a < math.Inf(1) {
				return a
			}
			return 1
		}
		return r
	}
	t := o.Identity()
	if o.Threshold() == nil && len(values[0]) > 0 {
		var m float64
		for _, y := range values[0] {
			m += y
		}
		t.Center = m / float64(len(values[0]))
	}
	t.Scale = rms(values[0], t.Center)
	for k, c := range o.Conditions() {
		t.Scales[k] = rms(values[c.Outcome], c.Limit)
	}
	return t
}

// Apply maps values (one per outcome, the user's units) to the policies'
// f and g (one per condition; g has the conditions' length).
func (o *Outcomes) Apply(t *Transform, values []float64, g []float64) (f float64) {
	for k, c := range o.Conditions() {
		g[k] = c.Sign * (values[c.Outcome] - c.Limit) / t.Scales[k]
	}
	return o.goal() * (values[0] - t.Center) / t.Scale
}

// Raw maps the policies' f back to the objective's units.
func (o *Outcomes) Raw(t *Transform, f float64) float64 { return t.Center + o.goal()*f*t.Scale }

// Better reports whether objective value a is better than b.
func (o *Outcomes) Better(a, b float64) bool { return o.goal()*(a-b) > 0 }
