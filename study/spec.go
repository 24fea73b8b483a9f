package study

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/safegp/safegp/bandit"
	"github.com/safegp/safegp/experiment"
	"github.com/safegp/safegp/internal/fielderr"
	"github.com/safegp/safegp/internal/memlimit"
	"github.com/safegp/safegp/internal/strictyaml"
	"github.com/safegp/safegp/kernel"
	"github.com/safegp/safegp/problem"
)

// ErrSpec marks a study specification that cannot be used.
var ErrSpec = errors.New("invalid study specification")

// specError marks an error of a nested check (a kernel, the algorithm, the
// decision-set file), which wraps its own package's sentinel, as ErrSpec
// too, keeping its text: callers such as the HTTP service tell a bad
// specification by ErrSpec alone.
type specError struct{ error }

func (e specError) Unwrap() []error { return []error{e.error, ErrSpec} }

// under is fielderr.Under for the nested checks, marked ErrSpec.
func under(prefix string, err error) error { return specError{fielderr.Under(prefix, err)} }

// Limits on what a study may hold.
const (
	MaxActions = 1_000_000
	MaxHorizon = experiment.MaxHorizon
)

// Spec is a study's specification (YAML or JSON, strict).
type Spec struct {
	DecisionSet DecisionSet            `yaml:"decision_set" json:"decision_set"`
	SeedActions []int                  `yaml:"seed_actions,omitempty" json:"seed_actions,omitempty"`
	Thresholds  []float64              `yaml:"thresholds" json:"thresholds"`
	Epsilon     *float64               `yaml:"epsilon,omitempty" json:"epsilon,omitempty"`
	Model       experiment.ModelConfig `yaml:"model" json:"model"`
	Algorithm   bandit.Spec            `yaml:"algorithm" json:"algorithm"`
	Horizon     int                    `yaml:"horizon" json:"horizon"`
	Seed        uint64                 `yaml:"seed" json:"seed"`
}

// DecisionSet is one of: a CSV file (columns x1 … xd, optional seed), a
// grid, or the actions listed inline (for HTTP clients).
type DecisionSet struct {
	File    string      `yaml:"file,omitempty" json:"file,omitempty"`
	Grid    *Grid       `yaml:"grid,omitempty" json:"grid,omitempty"`
	Actions [][]float64 `yaml:"actions,omitempty" json:"actions,omitempty"`
}

// Grid is a Cartesian grid: Points[j] evenly spaced values on Bounds[j].
type Grid struct {
	Bounds [][2]float64 `yaml:"bounds" json:"bounds"`
	Points []int        `yaml:"points" json:"points"`
}

// Resolved is a checked specification with its actions and seed set read
// in, so that a stored study never depends on the file again.
type Resolved struct {
	Spec    *Spec
	X       [][]float64
	Seed    []int
	Epsilon float64
	Kernels struct {
		F kernel.Kernel
		G []kernel.Kernel
	}
}

// Bytes estimates the memory the study holds when it reaches its horizon:
// the decision set, the policy (bandit.Bytes, rows grown as observations
// come), the recorded events and one Inspect snapshot.
func (r *Resolved) Bytes() int64 {
	n, d, m, T := int64(len(r.X)), int64(0), int64(len(r.Spec.Thresholds)), int64(r.Spec.Horizon)
	if n > 0 {
		d = int64(len(r.X[0]))
	}
	x := memlimit.Mul(n, 8*d+24)
	pol := bandit.Bytes(&r.Spec.Algorithm, len(r.X), len(r.Spec.Thresholds), r.Spec.Horizon, true)
	events := memlimit.Mul(2*T, 160+8*m) // an ask and a tell a round
	snap := memlimit.Mul(n, 8*(2*(m+1)+1)+1)
	return memlimit.Add(x, pol, events, snap)
}

// CheckMemory refuses, with an error naming the keys that set the size, a
// study whose estimate (Bytes) exceeds limit bytes (≤ 0: no limit).
func (r *Resolved) CheckMemory(limit int64) error {
	what := fmt.Sprintf("a study of algorithm %s on decision_set (N = %d actions in %d-D) with %d constraint(s) and horizon %d", r.Spec.Algorithm.DisplayLabel(), len(r.X), len(r.X[0]), len(r.Spec.Thresholds), r.Spec.Horizon)
	if err := memlimit.Check(r.Bytes(), limit, what); err != nil {
		return fmt.Errorf("%w: %w", ErrSpec, err)
	}
	return nil
}

// ParseSpec decodes a specification strictly: unknown keys are errors.
// JSON is accepted too.
func ParseSpec(data []byte) (*Spec, error) {
	var s Spec
	if err := strictyaml.Decode(data, &s); err != nil {
		if errors.Is(err, strictyaml.ErrEmpty) {
			return nil, fmt.Errorf("%w: empty specification", ErrSpec)
		}
		return nil, fmt.Errorf("%w: %w", ErrSpec, err)
	}
	return &s, nil
}

// LoadSpec reads a specification file; a decision-set file is relative to it.
func LoadSpec(path string) (*Resolved, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read spec: %w", err)
	}
	s, err := ParseSpec(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	r, err := s.Resolve(filepath.Dir(path))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}

// Resolve checks the specification and reads its decision set (a file path
// is relative to dir).
func (s *Spec) Resolve(dir string) (*Resolved, error) {
	bad := func(key, format string, args ...any) error { return fielderr.New(ErrSpec, key, format, args...) }
	r := &Resolved{Spec: s}
	ds := s.DecisionSet
	n := 0
	for _, given := range []bool{ds.File != "", ds.Grid != nil, ds.Actions != nil} {
		if given {
			n++
		}
	}
	if n != 1 {
		return nil, bad("decision_set", "give exactly one of file, grid and actions")
	}
	var fileSeed []int
	switch {
	case ds.File != "":
		path := ds.File
		if !filepath.IsAbs(path) {
			path = filepath.Join(dir, path)
		}
		f, err := os.Open(path)
		if err != nil {
			return nil, fielderr.New(ErrSpec, "decision_set.file", "%v", err)
		}
		r.X, fileSeed, err = problem.ReadActions(f)
		f.Close()
		if err != nil {
			return nil, under("decision_set.file "+ds.File, err)
		}
	case ds.Grid != nil:
		g := ds.Grid
		if len(g.Bounds) == 0 || len(g.Bounds) != len(g.Points) {
			return nil, bad("decision_set.grid", "bounds and points must have the same length ≥ 1, got %d and %d", len(g.Bounds), len(g.Points))
		}
		total := 1
		for j, b := range g.Bounds {
			if !problem.InRange(b[0]) || !problem.InRange(b[1]) || !(b[0] < b[1]) {
				return nil, bad(fmt.Sprintf("decision_set.grid.bounds[%d]", j), "want finite lo < hi within ±1e100, got %v", b)
			}
			if g.Points[j] < 1 || g.Points[j] > MaxActions {
				return nil, bad(fmt.Sprintf("decision_set.grid.points[%d]", j), "must be in 1…%d, got %d", MaxActions, g.Points[j])
			}
			total *= g.Points[j]
			if total > MaxActions {
				return nil, bad("decision_set.grid.points", "at most %d actions in all", MaxActions)
			}
		}
		if total*len(g.Bounds) > problem.MaxValues {
			return nil, bad("decision_set.grid", "%d actions × %d dimensions = %d coordinates, more than %d", total, len(g.Bounds), total*len(g.Bounds), problem.MaxValues)
		}
		r.X = problem.Grid(g.Bounds, g.Points)
	default:
		r.X = ds.Actions
	}
	if len(r.X) > MaxActions {
		return nil, bad("decision_set", "at most %d actions, got %d", MaxActions, len(r.X))
	}
	if err := problem.CheckActions(r.X); err != nil {
		return nil, fielderr.New(ErrSpec, "decision_set", "%v", err)
	}
	switch {
	case s.SeedActions != nil && fileSeed != nil:
		return nil, bad("seed_actions", "the decision-set file has a seed column already")
	case s.SeedActions != nil:
		r.Seed = append([]int(nil), s.SeedActions...)
	default:
		r.Seed = fileSeed
	}
	if len(r.Seed) == 0 {
		return nil, bad("seed_actions", "empty seed set: mark at least one known-safe action")
	}
	slices.Sort(r.Seed)
	for k, i := range r.Seed {
		if i < 0 || i >= len(r.X) {
			return nil, bad("seed_actions", "index %d outside the decision set's 0…%d", i, len(r.X)-1)
		}
		if k > 0 && r.Seed[k-1] == i {
			return nil, bad("seed_actions", "index %d given twice", i)
		}
	}
	if len(s.Thresholds) == 0 {
		return nil, bad("thresholds", "missing: one threshold h_i per constraint")
	}
	for i, h := range s.Thresholds {
		if !problem.InRange(h) {
			return nil, bad(fmt.Sprintf("thresholds[%d]", i), "must be a finite number within ±1e100, got %v", h)
		}
	}
	r.Epsilon = 0.01
	if s.Epsilon != nil {
		r.Epsilon = *s.Epsilon
		if !(r.Epsilon >= 0) || !problem.InRange(r.Epsilon) {
			return nil, bad("epsilon", "must be a finite number in 0…1e100, got %v", r.Epsilon)
		}
	}
	m := &s.Model
	if m.Objective == nil {
		return nil, bad("model.objective", "missing: the kernel of f")
	}
	var err error
	if r.Kernels.F, err = kernel.New(*m.Objective); err != nil {
		return nil, under("model.objective", err)
	}
	if len(m.Constraints) != len(s.Thresholds) {
		return nil, bad("model.constraints", "%d kernels for %d thresholds", len(m.Constraints), len(s.Thresholds))
	}
	for i, ks := range m.Constraints {
		k, err := kernel.New(ks)
		if err != nil {
			return nil, under(fmt.Sprintf("model.constraints[%d]", i), err)
		}
		r.Kernels.G = append(r.Kernels.G, k)
	}
	if m.NoiseStd == nil {
		return nil, bad("model.noise_std", "missing: the noise standard deviation σ of the measurements")
	}
	if !(*m.NoiseStd >= 0) || !problem.InRange(*m.NoiseStd) {
		return nil, bad("model.noise_std", "must be a finite number in 0…1e100, got %v", *m.NoiseStd)
	}
	if m.Delta == nil {
		return nil, bad("model.delta", "missing: the confidence parameter δ, in (0, 1)")
	}
	if !(*m.Delta > 0 && *m.Delta < 1) {
		return nil, bad("model.delta", "must be in (0, 1), got %v", *m.Delta)
	}
	if m.Beta == nil {
		b := bandit.PaperBeta
		m.Beta = &b
	}
	if s.Horizon < 1 || s.Horizon > MaxHorizon {
		return nil, bad("horizon", "must be in 1…%d, got %d", MaxHorizon, s.Horizon)
	}
	a := &s.Algorithm
	if err := a.Check(s.Horizon); err != nil {
		return nil, under("algorithm", err)
	}
	if a.Name == "gp-ucb-oracle" {
		return nil, bad("algorithm.name", "gp-ucb-oracle needs the true safe set, which a study never has")
	}
	if (a.Name == "safeopt" || a.Name == "safeopt-mc" || a.Name == "stageopt") && a.SafeSet != "gp" && (a.Lipschitz == nil || a.Lipschitz.Auto) {
		return nil, bad("algorithm.lipschitz", "auto needs the true constraints, which a study never has: give the Lipschitz constant, or use safe_set: gp")
	}
	return r, nil
}
