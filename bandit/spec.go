package bandit

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"

	"go.yaml.in/yaml/v3"

	"github.com/safegp/safegp/internal/fielderr"
	"github.com/safegp/safegp/internal/plural"
	"github.com/safegp/safegp/internal/strictyaml"
	"github.com/safegp/safegp/theory"
)

// ErrConfig marks an algorithm configuration that cannot be used.
var ErrConfig = errors.New("invalid algorithm configuration")

// Beta is the confidence parameter of SPEC §3: the paper's schedule or a
// constant.
type Beta struct {
	Paper bool
	Value float64 // used when !Paper and Freq is nil
	// Freq, when set, is a frequentist bound computed from the data
	// (frequentist.go): √β_t holds with probability 1 − δ whenever each
	// function's RKHS norm is at most Freq.RKHSNorm and the noise is
	// Freq.NoiseBound-sub-Gaussian.
	Freq *Frequentist
}

// PaperBeta is the default, the paper's Theorem 1 schedule.
var PaperBeta = Beta{Paper: true}

// At returns β_t for round t ≥ 1 with m constraints, N actions and
// confidence δ: 2·log((m+1)·N·t²·π²/(6δ)) for the paper's schedule. A
// frequentist β depends on the data: Sqrt computes it, At returns NaN.
func (b Beta) At(t, m, n int, delta float64) float64 {
	switch {
	case b.Freq != nil:
		return math.NaN()
	case !b.Paper:
		return b.Value
	}
	return theory.Beta(t, m, n, delta)
}

// UnmarshalYAML accepts "paper", a finite number > 0, or a frequentist
// bound {rkhs_norm: B, noise_bound: R[, bound: fiedler|chowdhury-gopalan]}.
func (b *Beta) UnmarshalYAML(n *yaml.Node) error {
	var word string
	if n.Decode(&word) == nil && word == "paper" {
		*b = PaperBeta
		return nil
	}
	if n.Kind == yaml.MappingNode {
		f, err := decodeFrequentist(n)
		if err != nil {
			return err
		}
		*b = Beta{Freq: f}
		return nil
	}
	var v float64
	if n.Decode(&v) != nil || !(v > 0) || math.IsInf(v, 0) {
		return strictyaml.Errorf(n, "", `want "paper", a finite number > 0 or {rkhs_norm: B, noise_bound: R}, got %s`, strictyaml.Describe(n))
	}
	*b = Beta{Value: v}
	return nil
}

// MarshalJSON writes "paper", the number or the frequentist bound.
func (b Beta) MarshalJSON() ([]byte, error) {
	switch {
	case b.Freq != nil:
		return json.Marshal(b.Freq)
	case b.Paper:
		return []byte(`"paper"`), nil
	}
	return json.Marshal(b.Value)
}

// Plateau ends exploration once the safe-set size has not changed over the
// last Window rounds, or at round Cap (SPEC §4).
type Plateau struct {
	Window int `json:"window"`
	Cap    int `json:"cap"`
}

// Exploration sets the length of an exploration phase — T' for SGP-UCB, t*
// for SafeOpt-MC, stage 1 for StageOpt. Exactly one field is set.
type Exploration struct {
	Fixed   *int     `json:"fixed,omitempty"`
	Plateau *Plateau `json:"plateau,omitempty"`
	Theory  bool     `json:"-"`
	// TheoryFeatures picks the feature map Theorem 4 uses for a stationary
	// constraint kernel (zero: the defaults of theory.Features).
	TheoryFeatures theory.Features `json:"-"`
}

// MarshalJSON writes the rule as it is configured.
func (e Exploration) MarshalJSON() ([]byte, error) {
	if e.Theory {
		return json.Marshal(map[string]theory.Features{"theory": e.TheoryFeatures})
	}
	type plain Exploration
	return json.Marshal(plain(e))
}

// IsZero reports whether no rule was given.
func (e Exploration) IsZero() bool { return e.Fixed == nil && e.Plateau == nil && !e.Theory }

// UnmarshalYAML accepts {fixed: n}, {plateau: {window: w, cap: c}} (window
// defaults to 20, cap to 100) and theory (a scalar, or {theory: {features:
// qff|rff, nodes: n̄, size: D, seed: s}} with every key optional).
func (e *Exploration) UnmarshalYAML(n *yaml.Node) error {
	*e = Exploration{}
	const want = "want {fixed: n}, {plateau: {window: w, cap: c}} or theory"
	var word string
	if n.Decode(&word) == nil {
		if word != "theory" {
			return strictyaml.Errorf(n, "", "%s, got %s", want, strictyaml.Describe(n))
		}
		e.Theory = true
		return nil
	}
	if n.Kind != yaml.MappingNode {
		return strictyaml.Errorf(n, "", "%s, got %s", want, strictyaml.Describe(n))
	}
	var f explorationForm
	if err := strictyaml.DecodeNode(n, &f); err != nil {
		return err
	}
	// The rules given, those without a value ({plateau: }) too, which
	// decode as nil.
	var given map[string]any
	if err := n.Decode(&given); err != nil || len(given) != 1 {
		return strictyaml.Errorf(n, "", "want exactly one of fixed, plateau and theory")
	}
	switch _, plateau := given["plateau"]; {
	case f.Fixed != nil:
		if *f.Fixed < 0 {
			return strictyaml.Errorf(n, "fixed", "want an integer ≥ 0, got %d", *f.Fixed)
		}
		e.Fixed = f.Fixed
	case plateau:
		p := Plateau{Window: 20, Cap: 100}
		if f.Plateau != nil {
			for _, v := range []struct {
				key string
				in  *int
				out *int
			}{{"window", f.Plateau.Window, &p.Window}, {"cap", f.Plateau.Cap, &p.Cap}} {
				if v.in == nil {
					continue
				}
				if *v.in < 1 {
					return strictyaml.Errorf(n, "plateau."+v.key, "want an integer ≥ 1, got %d", *v.in)
				}
				*v.out = *v.in
			}
		}
		e.Plateau = &p
	default:
		e.Theory = true
		if f.Theory != nil {
			feat, err := f.Theory.features(n)
			if err != nil {
				return err
			}
			e.TheoryFeatures = feat
		}
	}
	return nil
}

// explorationForm is Exploration's mapping form, decoded strictly.
type explorationForm struct {
	Fixed   *int         `yaml:"fixed"`
	Plateau *plateauForm `yaml:"plateau" strictyaml:"nullable"` // no value: the defaults
	Theory  *theoryForm  `yaml:"theory" strictyaml:"nullable"`
}

type plateauForm struct {
	Window *int `yaml:"window"`
	Cap    *int `yaml:"cap"`
}

type theoryForm struct {
	Features *string `yaml:"features"`
	Nodes    *int    `yaml:"nodes"`
	Size     *int    `yaml:"size"`
	Seed     *uint64 `yaml:"seed"`
}

// maxFeatureParam caps nodes and size: a larger map could never be
// spanned by a seed set of a decision set that fits in memory.
const maxFeatureParam = 1 << 20

// features checks the form; n is the exploration node, for errors.
func (t *theoryForm) features(n *yaml.Node) (theory.Features, error) {
	var f theory.Features
	if t.Features != nil {
		if *t.Features != "qff" && *t.Features != "rff" {
			return f, strictyaml.Errorf(n, "theory.features", "want qff or rff, got %q", *t.Features)
		}
		f.Kind = *t.Features
	}
	for _, v := range []struct {
		key string
		in  *int
		out *int
	}{{"nodes", t.Nodes, &f.Nodes}, {"size", t.Size, &f.Size}} {
		if v.in == nil {
			continue
		}
		if *v.in < 1 {
			return f, strictyaml.Errorf(n, "theory."+v.key, "want an integer ≥ 1, got %d", *v.in)
		}
		*v.out = min(*v.in, maxFeatureParam)
	}
	if t.Size != nil && *t.Size%2 != 0 {
		return f, strictyaml.Errorf(n, "theory.size", "want an even number, got %d", *t.Size)
	}
	if t.Seed != nil {
		if *t.Seed < 1 {
			return f, strictyaml.Errorf(n, "theory.seed", "want an integer ≥ 1, got %d", *t.Seed)
		}
		f.Seed = *t.Seed
	}
	return f, nil
}

// Length returns the phase length the rule fixes in advance, capped at the
// horizon, and false for plateau, which ends the phase during the run.
func (e Exploration) Length(horizon int) (int, bool) {
	if e.Fixed != nil {
		return min(*e.Fixed, horizon), true
	}
	return 0, false
}

// Lipschitz is "auto" (the true L_i, computed from the problem), one
// constant used for every safety condition, or one per safety condition
// (Values: the constraints' in order, then f's with an objective
// threshold).
type Lipschitz struct {
	Auto   bool
	Value  float64
	Values []float64
}

// maxLipschitzValues bounds a list of Lipschitz constants: one per safety
// condition, and a study has at most this many.
const maxLipschitzValues = 1000

// UnmarshalYAML accepts "auto", a finite number ≥ 0, or a list of them.
func (l *Lipschitz) UnmarshalYAML(n *yaml.Node) error {
	var word string
	if n.Decode(&word) == nil && word == "auto" {
		*l = Lipschitz{Auto: true}
		return nil
	}
	ok := func(v float64) bool { return v >= 0 && !math.IsInf(v, 0) }
	if n.Kind == yaml.SequenceNode {
		if len(n.Content) == 0 || len(n.Content) > maxLipschitzValues {
			return strictyaml.Errorf(n, "", "want 1…%d constants, one per safety condition, got %d", maxLipschitzValues, len(n.Content))
		}
		vs := make([]float64, len(n.Content))
		for i, c := range n.Content {
			if c.Decode(&vs[i]) != nil || !ok(vs[i]) {
				return strictyaml.Errorf(n, "", "constant %d: want a finite number ≥ 0, got %s", i+1, strictyaml.Describe(c))
			}
		}
		*l = Lipschitz{Values: vs}
		return nil
	}
	var v float64
	if n.Decode(&v) != nil || !ok(v) {
		return strictyaml.Errorf(n, "", `want "auto", a finite number ≥ 0 or a list of them, got %s`, strictyaml.Describe(n))
	}
	*l = Lipschitz{Value: v}
	return nil
}

// MarshalJSON writes "auto", the number or the list.
func (l Lipschitz) MarshalJSON() ([]byte, error) {
	switch {
	case l.Auto:
		return []byte(`"auto"`), nil
	case l.Values != nil:
		return json.Marshal(l.Values)
	}
	return json.Marshal(l.Value)
}

// constants returns L_i for each of n safety conditions: the one value
// repeated, or the list, which must hold n.
func (l *Lipschitz) constants(n int) ([]float64, error) {
	if l.Values == nil {
		out := make([]float64, n)
		for i := range out {
			out[i] = l.Value
		}
		return out, nil
	}
	if len(l.Values) != n {
		return nil, fmt.Errorf("%w: lipschitz: %s for %s (the constraints, then f with an objective threshold)", ErrConfig, plural.Count(len(l.Values), "constant"), plural.Count(n, "safety condition"))
	}
	return slices.Clone(l.Values), nil
}

// Spec is the configuration of one algorithm (SPEC §9, `algorithms`).
type Spec struct {
	Name        string      `yaml:"name" json:"name"`
	Label       string      `yaml:"label,omitempty" json:"label,omitempty"`
	Phase1      string      `yaml:"phase1,omitempty" json:"phase1,omitempty"`
	Exploration Exploration `yaml:"exploration,omitempty" json:"exploration,omitzero"`
	KeepSeed    bool        `yaml:"keep_seed,omitempty" json:"keep_seed,omitempty"`
	// Repeats is what sgp-ucb's phase 2 does when f's upper bound
	// chooses a setting the model already knows within its noise
	// (σ_{f,t−1}² below half f's noise variance, so that one more
	// measurement of it moves neither bound much): "" measures it again,
	// the paper's rule (SPEC §4); "explore" spends the round as phase 1
	// spends its rounds, on the setting of D^s_t of largest constraint
	// uncertainty, whose measurement is what grows D^s_t (issue 42: a
	// study that walked along one parameter otherwise measures the end
	// of its walk again and again, its safe set a strip one candidate
	// wide). Neither changes what D^s_t holds.
	Repeats   string     `yaml:"repeats,omitempty" json:"repeats,omitempty"`
	SafeSet   string     `yaml:"safe_set,omitempty" json:"safe_set,omitempty"`
	Lipschitz *Lipschitz `yaml:"lipschitz,omitempty" json:"lipschitz,omitempty"`
	// NoiseBound is LoSBO's E: every measurement lies within E of the
	// true value (losbo.go).
	NoiseBound *float64 `yaml:"noise_bound,omitempty" json:"noise_bound,omitempty"`

	// The options of line-bo (Kirschner et al. 2019), the one algorithm
	// of box domains (NewBox); every other algorithm refuses them. Inner
	// names the algorithm run on each line (default safeopt; on a cloud,
	// sgp-ucb with T′ = 0); the other
	// options of the spec (phase1, exploration, keep_seed, safe_set,
	// lipschitz) are passed through to it unchanged. Direction is cloud
	// (default: points around the best safe point, cloudPoints),
	// coordinate, random or ascent; Points the points of a line or a
	// cloud (default 300); PerLine the evaluations of a line (default 20;
	// of a cloud, 5);
	// Tolerance the relative gap that ends a line early (default 0.01).
	// Zero values (nil) mean the defaults: read them with LineOptions.
	Inner     string   `yaml:"inner,omitempty" json:"inner,omitempty"`
	Direction string   `yaml:"direction,omitempty" json:"direction,omitempty"`
	Points    *int     `yaml:"points,omitempty" json:"points,omitempty"`
	PerLine   *int     `yaml:"per_line,omitempty" json:"per_line,omitempty"`
	Tolerance *float64 `yaml:"tolerance,omitempty" json:"tolerance,omitempty"`
	// MaxStep, when given, bounds every ask's change from the best safe
	// point per coordinate, |x_j − x̂_j| ≤ MaxStep[j] in the box's units
	// (Xopt's max_travel_distances): a line is cut to the segment within
	// those bounds of its anchor x̂, the best safe point when it starts.
	// A limit on the path, not a safety guarantee.
	MaxStep []float64 `yaml:"max_step,omitempty" json:"max_step,omitempty"`
	// KeepLine makes a policy rebuilt after a refit or a retraction go on
	// with the line in progress — its anchor, direction and evaluations —
	// and number its later lines on from the old policy's (Carry), instead
	// of starting over at the first coordinate's line through the best
	// point. Without it, a study that refits at every ask searches along
	// the first coordinate only.
	KeepLine bool `yaml:"keep_line,omitempty" json:"keep_line,omitempty"`
	// SeedsFirst makes line-bo measure every seed point before its first
	// line (between lines, any seed not yet measured): lines run through
	// the best safe point by ℓ_f, which a seed never measured seldom is,
	// so that without it a seed of another choice's value, say, is never
	// tried.
	SeedsFirst bool `yaml:"seeds_first,omitempty" json:"seeds_first,omitempty"`

	// The options of safeopt-swarm: the particles of each swarm (default
	// 20, 4 … 1000) and the iterations of a swarm run (default 100,
	// 1 … 10 000), as the Python SafeOpt library's SafeOptSwarm.
	SwarmSize  *int `yaml:"swarm_size,omitempty" json:"swarm_size,omitempty"`
	Iterations *int `yaml:"iterations,omitempty" json:"iterations,omitempty"`

	// AscentRule is line-bo's ascent rule: sampled (the default, the
	// LineBO code's trust-region step from a posterior draw of the
	// gradient) or mean (the posterior mean's gradient, the rule before
	// issue 27, which studies recorded with it replay by).
	AscentRule string `yaml:"ascent_rule,omitempty" json:"ascent_rule,omitempty"`
}

// Line is line-bo's configuration with the defaults filled in.
type Line struct {
	Inner     Spec // the inner algorithm: Name and the passed-through options
	Direction string
	Points    int
	PerLine   int
	Tolerance float64
	MaxStep   []float64 // nil: no step limit
	// AscentRule is "sampled" or "mean" (Spec.AscentRule).
	AscentRule string
	KeepLine   bool // Spec.KeepLine
	SeedsFirst bool // Spec.SeedsFirst
}

// LineOptions returns line-bo's options with their defaults: direction
// cloud, its inner algorithm sgp-ucb with T′ = 0 and 5 evaluations per
// cloud (issue 42: on GP samples at d = 10, 20, 40, 92.7 / 92.8 / 84.8 %
// of the way against 87.0 / 89.2 / 82.2 % with one, docs/LINEBO.md; a
// study stated in parameters takes one, better on its controllers); on a
// line (coordinate, random, ascent) the LineBO code's inner safeopt and
// 20 evaluations per line; 300 points, tolerance 0.01. A recorded spec
// holds them explicitly (PinDefaults); one recorded before cloud existed
// means coordinate lines (UpgradeRecorded).
func (s *Spec) LineOptions() Line {
	l := Line{Inner: *s, Direction: s.Direction, Points: defaultLinePoints, PerLine: 20, Tolerance: 0.01, MaxStep: s.MaxStep, AscentRule: s.AscentRule, KeepLine: s.KeepLine, SeedsFirst: s.SeedsFirst}
	if l.AscentRule == "" {
		l.AscentRule = "sampled"
	}
	l.Inner.Name, l.Inner.Label = s.Inner, ""
	l.Inner.Inner, l.Inner.Direction, l.Inner.Points, l.Inner.PerLine, l.Inner.Tolerance, l.Inner.MaxStep = "", "", nil, nil, nil, nil
	l.Inner.SwarmSize, l.Inner.Iterations, l.Inner.AscentRule, l.Inner.KeepLine, l.Inner.SeedsFirst = nil, nil, "", false, false
	if l.Direction == "" {
		l.Direction = "cloud"
	}
	if l.Inner.Name == "" {
		// On a cloud sgp-ucb, unless the spec carries the SafeOpt
		// family's own options (safe_set, lipschitz), which name it.
		l.Inner.Name = SafeOpt
		if l.Direction == "cloud" && s.SafeSet == "" && s.Lipschitz == nil {
			l.Inner.Name = SGPUCB
		}
	}
	if l.Inner.Name == SGPUCB && s.Inner == "" && l.Inner.Exploration.IsZero() {
		// GP-UCB on the certified part of each cloud from its first
		// round (T′ = 0): each cloud is drawn anew around the best safe
		// point, and a phase 1 on its seeds would measure the anchor
		// again.
		zero := 0
		l.Inner.Exploration = Exploration{Fixed: &zero}
	}
	if l.Direction == "cloud" {
		l.PerLine = 5
	}
	// A box has no true functions, so the SafeOpt family's default
	// lipschitz: auto cannot run there: its safe set defaults to the GP's
	// (safe_set: gp), unless a Lipschitz constant or a mode is given.
	if a := l.Inner.algorithm(); a != nil && a.SafeSets && l.Inner.SafeSet == "" && l.Inner.Lipschitz == nil {
		l.Inner.SafeSet = "gp"
	}
	if s.Points != nil {
		l.Points = *s.Points
	}
	if s.PerLine != nil {
		l.PerLine = *s.PerLine
	}
	if s.Tolerance != nil {
		l.Tolerance = *s.Tolerance
	}
	return l
}

// OnClouds returns s, an algorithm of a finite set (or no name, for
// line-bo's own inner default), as line-bo's inner algorithm on clouds
// (issue 42: one domain mechanism for every policy): the clouds around
// the best safe point are the finite sets it judges, with its own
// options passed through, maxStep as the step limit unless s has one,
// perCloud evaluations a cloud unless s says, and keep_line and
// seeds_first, which a study that refits needs. sgp-ucb without an
// exploration rule gets T′ = 0: seeds_first has measured the seeds.
func (s Spec) OnClouds(maxStep []float64, perCloud int) Spec {
	w := s
	w.Name, w.Inner = LineBO, s.Name
	if w.MaxStep == nil {
		w.MaxStep = maxStep
	}
	w.KeepLine, w.SeedsFirst = true, true
	if w.PerLine == nil {
		w.PerLine = &perCloud
	}
	if s.Name == SGPUCB && s.Exploration.IsZero() {
		zero := 0
		w.Exploration = Exploration{Fixed: &zero}
	}
	return w
}

// maxLinePoints caps points: a line's policy holds N×N covariances.
// defaultLinePoints is the points of a line or a cloud when the spec
// gives none.
const (
	maxLinePoints     = 1 << 14
	defaultLinePoints = 300
)

// DisplayLabel is the label, defaulting to the name.
func (s *Spec) DisplayLabel() string {
	if s.Label != "" {
		return s.Label
	}
	return s.Name
}

// Check validates the spec on its own: a known algorithm (Lookup), only
// the options it takes (Algorithm.Options), and their values. Errors name
// the key.
func (s *Spec) Check(horizon int) error {
	if s.Name == "" {
		return badKey("name", "missing (one of %v)", allNames)
	}
	a := s.algorithm()
	if a == nil {
		return badKey("name", "unknown algorithm %q (one of %v)", s.Name, allNames)
	}
	given := map[string]bool{
		"phase1":      s.Phase1 != "",
		"exploration": !s.Exploration.IsZero(),
		"keep_seed":   s.KeepSeed,
		"repeats":     s.Repeats != "",
		"safe_set":    s.SafeSet != "",
		"lipschitz":   s.Lipschitz != nil,
		"inner":       s.Inner != "",
		"direction":   s.Direction != "",
		"points":      s.Points != nil,
		"per_line":    s.PerLine != nil,
		"tolerance":   s.Tolerance != nil,
		"max_step":    s.MaxStep != nil,
		"keep_line":   s.KeepLine,
		"seeds_first": s.SeedsFirst,
		"swarm_size":  s.SwarmSize != nil,
		"iterations":  s.Iterations != nil,
		"ascent_rule": s.AscentRule != "",
		"noise_bound": s.NoiseBound != nil,
	}
	for _, k := range []string{"phase1", "exploration", "keep_seed", "repeats", "safe_set", "lipschitz", "inner", "direction", "points", "per_line", "tolerance", "max_step", "keep_line", "seeds_first", "swarm_size", "iterations", "ascent_rule", "noise_bound"} {
		if given[k] && !slices.Contains(a.Options, k) {
			return badKey(k, "not an option of %s", s.Name)
		}
	}
	if a.check != nil {
		return a.check(s, horizon)
	}
	return nil
}

// checkMaxStep checks a step limit (Spec.MaxStep): nil, or a bound > 0
// per coordinate.
func checkMaxStep(step []float64) error {
	if step != nil && len(step) == 0 {
		return fielderr.New(ErrConfig, "max_step", "empty: give one bound per coordinate, or leave it out")
	}
	for j, v := range step {
		if !(v > 0) || v > 1e100 {
			return fielderr.New(ErrConfig, "max_step", "coordinate %d: want a number > 0, got %v", j+1, v)
		}
	}
	return nil
}

// checkSwarm checks safeopt-swarm's options.
func (s *Spec) checkSwarm(int) error {
	if err := checkMaxStep(s.MaxStep); err != nil {
		return err
	}
	if n := s.SwarmSize; n != nil && (*n < 4 || *n > 1000) {
		return fielderr.New(ErrConfig, "swarm_size", "want an integer in 4…1000, got %d", *n)
	}
	if n := s.Iterations; n != nil && (*n < 1 || *n > 10000) {
		return fielderr.New(ErrConfig, "iterations", "want an integer in 1…10000, got %d", *n)
	}
	return nil
}

// checkLine checks line-bo's options and its inner algorithm's: the
// passed-through keys are checked as the inner algorithm's own, and an
// inner algorithm that needs the true functions is refused, since a box
// has none.
func (s *Spec) checkLine(horizon int) error {
	l := s.LineOptions()
	if a := l.Inner.algorithm(); a == nil || !a.OnLine {
		if a != nil && a.NeedsSafeSet {
			return badKey("inner", "%s needs the true safe set, which a box domain does not have (one of %v)", l.Inner.Name, LineInners)
		}
		return badKey("inner", "%q is not an algorithm line-bo runs on a line (one of %v)", l.Inner.Name, LineInners)
	}
	if err := s.checkLineKeys(&l); err != nil {
		return err
	}
	if err := l.Inner.Check(horizon); err != nil {
		return fmt.Errorf("inner %s: %w", l.Inner.Name, err)
	}
	return checkInnerOnBox(&l.Inner)
}

// badKey is a configuration error at key, relative to the spec.
func badKey(key string, format string, args ...any) error {
	return fielderr.New(ErrConfig, key, format, args...)
}

// checkLineKeys checks line-bo's own keys: how lines are drawn, laid out
// and searched.
func (s *Spec) checkLineKeys(l *Line) error {
	switch l.Direction {
	case "coordinate", "random", "ascent", "cloud":
	default:
		return badKey("direction", "unknown rule %q (coordinate, random, ascent, cloud)", l.Direction)
	}
	if l.Points < 2 || l.Points > maxLinePoints {
		return badKey("points", "want an integer in 2…%d, got %d", maxLinePoints, l.Points)
	}
	if l.PerLine < 1 {
		return badKey("per_line", "want an integer ≥ 1, got %d", l.PerLine)
	}
	if !(l.Tolerance >= 0) || math.IsInf(l.Tolerance, 0) {
		return badKey("tolerance", "want a finite number ≥ 0, got %v", l.Tolerance)
	}
	if err := checkMaxStep(l.MaxStep); err != nil {
		return err
	}
	switch {
	case l.AscentRule != "sampled" && l.AscentRule != "mean":
		return badKey("ascent_rule", "unknown rule %q (sampled, mean)", l.AscentRule)
	case s.AscentRule != "" && l.Direction != "ascent":
		return badKey("ascent_rule", "only with direction: ascent")
	}
	return nil
}

// checkInnerOnBox refuses inner settings that need the true functions,
// which a box domain does not have.
func checkInnerOnBox(in *Spec) error {
	if in.UsesTStar() {
		return badKey("exploration", "inner %s with exploration: theory: t* needs |R̄_0(S_0)| of the true constraints, which a box domain does not have; give {fixed: n} or {plateau: …}", in.Name)
	}
	if in.Name == LoSBO && in.Lipschitz != nil && in.Lipschitz.Auto {
		return badKey("lipschitz", "inner %s needs lipschitz: <number> or a list on a box: auto needs the true functions, which a box domain does not have", in.Name)
	}
	if a := in.algorithm(); a.SafeSets && in.lipschitzMode() && (in.Lipschitz == nil || in.Lipschitz.Auto) {
		return badKey("lipschitz", "inner %s in lipschitz mode (safe_set: lipschitz, the default) needs lipschitz: <number> on a box: auto needs the true functions, which a box domain does not have (or give safe_set: gp)", in.Name)
	}
	return nil
}
