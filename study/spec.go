package study

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/safegp/safegp/internal/plural"
	"github.com/safegp/safegp/internal/quote"
	"github.com/safegp/safegp/internal/readlimit"
	"github.com/safegp/safegp/space"
	"github.com/safegp/safegp/study/api"

	"github.com/safegp/safegp/bandit"
	"github.com/safegp/safegp/config"
	"github.com/safegp/safegp/gp"
	"github.com/safegp/safegp/internal/fielderr"
	"github.com/safegp/safegp/internal/memlimit"
	"github.com/safegp/safegp/internal/strictyaml"
	"github.com/safegp/safegp/kernel"
	"github.com/safegp/safegp/problem"
)

// Spec is a study's specification (YAML or JSON, strict).
type Spec struct {
	DecisionSet DecisionSet `yaml:"decision_set" json:"decision_set"`
	SeedActions []int       `yaml:"seed_actions,omitempty" json:"seed_actions,omitempty"`
	// SeedPoints are the known-safe points of a box decision set (at
	// least one); a finite decision set takes seed_actions instead.
	SeedPoints [][]float64  `yaml:"seed_points,omitempty" json:"seed_points,omitempty"`
	Thresholds []float64    `yaml:"thresholds" json:"thresholds"`
	Epsilon    *float64     `yaml:"epsilon,omitempty" json:"epsilon,omitempty"`
	Model      config.Model `yaml:"model" json:"model"`
	Algorithm  bandit.Spec  `yaml:"algorithm" json:"algorithm"`
	Horizon    int          `yaml:"horizon" json:"horizon"`
	Seed       uint64       `yaml:"seed" json:"seed"`
	// AfterViolation says what the study asks after a tell that broke a
	// limit, or a failed trial: "continue" (the default, also ""), the
	// policy's next choice; "best", the best safe setting measured so
	// far first, then the policy's (docs/safety.md, "After a violation").
	AfterViolation string `yaml:"after_violation,omitempty" json:"after_violation,omitempty"`

	// ObjectiveThreshold is h_f: f ≥ h_f is one more safety condition
	// (SPEC §5, "Safe objective"); with it Thresholds may be empty.
	ObjectiveThreshold *float64 `yaml:"objective_threshold,omitempty" json:"objective_threshold,omitempty"`

	// Context, if set, names the context variables measured before each
	// ask (a temperature, a load) and their kernel k_c: every ask takes
	// their values, and the GPs model f and the g_i on (x, c) with the
	// product kernel k_x·k_c (see context.go). The seed set is assumed
	// safe in every context.
	Context *config.Context `yaml:"context,omitempty" json:"context,omitempty"`

	// A study stated in the user's terms (named.go) gives these instead
	// of decision_set, seed_actions, thresholds and objective_threshold:
	// named parameters, an objective, constraints with limits, and the
	// settings known to be safe. model and algorithm are then optional.
	Parameters  []space.Param      `yaml:"parameters,omitempty" json:"parameters,omitempty"`
	Objective   *space.Objective   `yaml:"objective,omitempty" json:"objective,omitempty"`
	Constraints []space.Constraint `yaml:"constraints,omitempty" json:"constraints,omitempty"`
	Seeds       []space.Setting    `yaml:"seeds,omitempty" json:"seeds,omitempty"`
}

// DecisionSet is one of: a CSV file (columns x1 … xd, optional seed), a
// grid, or the actions listed inline (for HTTP clients).
type DecisionSet struct {
	File    string      `yaml:"file,omitempty" json:"file,omitempty"`
	Grid    *Grid       `yaml:"grid,omitempty" json:"grid,omitempty"`
	Actions [][]float64 `yaml:"actions,omitempty" json:"actions,omitempty"`
	// Box is a continuous decision set, ∏_j [lo_j, hi_j], for line-bo.
	Box *BoxSpec `yaml:"box,omitempty" json:"box,omitempty"`
}

// BoxSpec is a box decision set: [lo_j, hi_j] per dimension, lo_j < hi_j.
type BoxSpec struct {
	Bounds [][2]float64 `yaml:"bounds" json:"bounds"`
}

// Grid is a Cartesian grid: Points[j] evenly spaced values on Bounds[j].
type Grid = problem.GridSpec

// Resolved is a checked specification with its actions and seed set read
// in, so that a stored study never depends on the file again.
type Resolved struct {
	Spec *Spec
	X    [][]float64 // the actions of a finite decision set; nil for a box
	Seed []int
	// Box is the box decision set with its seed points, nil for a finite
	// decision set.
	Box     *bandit.Box
	Epsilon float64
	Kernels struct {
		F kernel.Kernel
		G []kernel.Kernel
	}
	// ContextKernel is k_c of a study with a context, nil without one;
	// Kernels are then the products k_x·k_c on (x, c).
	ContextKernel kernel.Kernel
	// Named is a study stated in parameters and outcomes (named.go), nil
	// for one stated in its decision set.
	Named *named
}

// covarianceSwitch reports whether the study's GPs keep their covariance
// from 2N observations (bandit.Options.CovarianceSwitch), which makes a
// long study and its imports linear in their observations and changes no
// float: over a finite decision set without a context (a box's and a
// context's GPs have no fixed set of N actions), when the covariances
// (SwitchBytes) fit in the memory limit beside the study's estimate with
// outside observations outside the set (0: no limit). Since no float
// changes, a study may switch in one process and not in another.
func (r *Resolved) covarianceSwitch(limit int64, outside int) bool {
	if r.Box != nil || r.ContextKernel != nil {
		return false
	}
	extra := bandit.SwitchBytes(&r.Spec.Algorithm, len(r.X), len(r.Spec.Thresholds), r.Spec.Horizon)
	return limit == 0 || memlimit.Add(r.BytesWith(outside), extra) <= limit
}

// Bytes estimates the memory the study holds when it reaches its horizon:
// the decision set, the policy (bandit.Bytes, rows grown as observations
// come) with the scratch of a full batch (bandit.BatchBytes), the
// recorded events, the copies of points told outside the
// decision set, and one Inspect snapshot. Observations outside the decision
// set hold more in each GP (their rows of L): BytesWith counts them.
func (r *Resolved) Bytes() int64 {
	if r.ContextKernel != nil {
		return r.contextBytes()
	}
	if r.Box != nil {
		d, m, T := int64(r.Dim()), int64(len(r.Spec.Thresholds)), int64(r.Spec.Horizon)
		pol := bandit.BoxBytes(&r.Spec.Algorithm, r.Dim(), len(r.Spec.Thresholds), r.Spec.Horizon, r.Spec.ObjectiveThreshold != nil)
		batch := bandit.BoxBatchBytes(&r.Spec.Algorithm, len(r.Spec.Thresholds), r.Spec.Horizon)
		events := memlimit.Mul(2*T, 160+8*m+8*d)
		return memlimit.Add(pol, batch, events)
	}
	n, d, m, T := int64(len(r.X)), int64(0), int64(len(r.Spec.Thresholds)), int64(r.Spec.Horizon)
	if n > 0 {
		d = int64(len(r.X[0]))
	}
	x := memlimit.Mul(n, 8*d+24)
	pol := bandit.Bytes(&r.Spec.Algorithm, len(r.X), len(r.Spec.Thresholds), r.Spec.ObjectiveThreshold != nil, r.Spec.Horizon, true)
	// Each GP keeps a flat copy of the actions (gp.PointsBytes).
	pol = memlimit.Add(pol, memlimit.Mul(int64(bandit.GPCount(&r.Spec.Algorithm, len(r.Spec.Thresholds))), gp.PointsBytes(len(r.X), int(d))))
	// The scratch of a batch of MaxBatch asks (AskBatch).
	batch := bandit.BatchBytes(&r.Spec.Algorithm, len(r.X), len(r.Spec.Thresholds), r.Spec.Horizon)
	events := memlimit.Mul(2*T, 160+8*m) // an ask and a tell a round
	// Any tell may be at a point outside the decision set: its event and
	// each of the m+1 GPs keep a copy (gp.Bytes counts the headers).
	points := memlimit.Mul(T, (m+2)*8*d+24)
	snap := memlimit.Mul(n, 8*(2*(m+1)+1)+1)
	return memlimit.Add(x, pol, batch, events, points, snap)
}

// BytesWith is Bytes for a study that holds outside observations at
// points outside its decision set (told by x, or imported): each keeps its
// row of L in every GP, up to horizon floats (gp.OutsideBytes), which the
// policy's estimate leaves out since the in-set rows of L live in V.
func (r *Resolved) BytesWith(outside int) int64 {
	if r.Box != nil || r.ContextKernel != nil {
		// BoxBytes and ContextualBytes count every observation outside
		// any set.
		return r.Bytes()
	}
	d := 0
	if len(r.X) > 0 {
		d = len(r.X[0])
	}
	gps := int64(len(r.Spec.Thresholds) + 1)
	return memlimit.Add(r.Bytes(), memlimit.Mul(gps, gp.OutsideBytes(d, r.Spec.Horizon, outside)))
}

// CheckMemory refuses, with an error naming the keys that set the size, a
// study whose estimate (Bytes) exceeds limit bytes (≤ 0: no limit).
func (r *Resolved) CheckMemory(limit int64) error {
	return r.CheckMemoryWith(limit, 0)
}

// CheckMemoryWith is CheckMemory for a study holding outside observations
// at points outside its decision set (BytesWith).
func (r *Resolved) CheckMemoryWith(limit int64, outside int) error {
	what := fmt.Sprintf("a study of algorithm %s on decision_set (N = %d actions in %d-D) with %s and horizon %d", r.Spec.Algorithm.DisplayLabel(), len(r.X), r.Dim(), plural.Count(len(r.Spec.Thresholds), "constraint"), r.Spec.Horizon)
	if r.Box != nil {
		what = fmt.Sprintf("a study of algorithm %s on a %d-D box with %s and horizon %d", r.Spec.Algorithm.DisplayLabel(), r.Dim(), plural.Count(len(r.Spec.Thresholds), "constraint"), r.Spec.Horizon)
	}
	if outside > 0 {
		what += fmt.Sprintf(", %s at points outside the decision set", plural.Count(min(outside, r.Spec.Horizon), "observation"))
	}
	if err := memlimit.Check(r.BytesWith(outside), limit, what); err != nil {
		return fmt.Errorf("%w: %w", api.ErrSpec, err)
	}
	return nil
}

// ParseSpec decodes a specification strictly: unknown keys are errors.
// JSON is accepted too.
func ParseSpec(data []byte) (*Spec, error) {
	var s Spec
	if err := strictyaml.Decode(data, &s); err != nil {
		if errors.Is(err, strictyaml.ErrEmpty) {
			return nil, fmt.Errorf("%w: empty specification", api.ErrSpec)
		}
		return nil, fmt.Errorf("%w: %w", api.ErrSpec, err)
	}
	return &s, nil
}

// LoadSpec reads a specification file (at most readlimit.MaxDocument
// bytes); a decision-set file is relative to it, and holds at most
// readlimit.For(maxMemory) bytes (maxMemory 0: memlimit.Default).
func LoadSpec(path string, maxMemory int64) (*Resolved, error) {
	data, err := readlimit.ReadDocument(path)
	if err != nil {
		return nil, fmt.Errorf("read spec: %w", err)
	}
	s, err := ParseSpec(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	r, err := s.resolve(filepath.Dir(path), maxMemory)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}

// DefaultEpsilon is ε when a specification leaves it out.
const DefaultEpsilon = 0.01

// Resolve checks the specification and reads its decision set (a file path
// is relative to dir).
func (s *Spec) Resolve(dir string) (*Resolved, error) { return s.resolve(dir, 0) }

// resolve is Resolve with the memory limit that bounds a decision-set file
// (readlimit.For).
func (s *Spec) resolve(dir string, maxMemory int64) (*Resolved, error) {
	if s.isNamed() {
		r, err := s.resolveNamed(nil, nil)
		if err != nil {
			return nil, err
		}
		return r, r.finish()
	}
	r := &Resolved{Spec: s}
	fileSeed, err := r.readDecisionSet(dir, maxMemory)
	if err != nil {
		return nil, err
	}
	if r.Box != nil {
		if s.SeedActions != nil {
			return nil, fielderr.New(api.ErrSpec, "seed_actions", "a box decision set has no actions: give seed_points")
		}
		r.Box.Seeds = s.SeedPoints
		if err := r.Box.Check(); err != nil {
			return nil, fielderr.Recast(api.ErrSpec, "seed_points", err)
		}
	} else {
		if s.SeedPoints != nil {
			return nil, fielderr.New(api.ErrSpec, "seed_points", "only for a box decision set: a finite one takes seed_actions")
		}
		if r.Seed, err = s.seedSet(fileSeed, len(r.X)); err != nil {
			return nil, err
		}
	}
	if err := fielderr.Recast(api.ErrSpec, "", config.CheckSafety(s.Thresholds, s.ObjectiveThreshold)); err != nil {
		return nil, err
	}
	return r, r.finish()
}

// finish checks and resolves what every study has, its decision set and
// seed set read: ε, the model, the horizon, the algorithm and a context.
func (r *Resolved) finish() error {
	s := r.Spec
	switch s.AfterViolation {
	case "", AfterContinue, AfterBest:
	default:
		return fielderr.New(api.ErrSpec, "after_violation", "%s: want %s (the default) or %s", quote.Short(s.AfterViolation), AfterContinue, AfterBest)
	}
	if s.AfterViolation == AfterBest && s.Context != nil {
		return fielderr.New(api.ErrSpec, "after_violation", "best: not offered for a study with a context (the best setting of one context need not be safe in another)")
	}
	if s.Thresholds == nil {
		s.Thresholds = []float64{} // stored and shown as [], not null
	}
	r.Epsilon = DefaultEpsilon
	if s.Epsilon != nil {
		r.Epsilon = *s.Epsilon
		if err := fielderr.Recast(api.ErrSpec, "epsilon", config.CheckNonNegative(r.Epsilon)); err != nil {
			return err
		}
	}
	if err := fielderr.Recast(api.ErrSpec, "model", s.Model.Check(len(s.Thresholds), false)); err != nil {
		return err
	}
	if err := fielderr.Recast(api.ErrSpec, "model", s.Model.CheckDim(r.Dim())); err != nil {
		return err
	}
	s.Model.Resolve(nil, nil)
	r.Kernels.F, r.Kernels.G = s.Model.Kernels()
	if err := fielderr.Recast(api.ErrSpec, "", config.CheckHorizon(s.Horizon)); err != nil {
		return err
	}
	if err := s.checkAlgorithm(); err != nil {
		return err
	}
	alg, _ := bandit.Lookup(s.Algorithm.Name) // checkAlgorithm found it
	switch {
	case alg.Box && r.Box == nil:
		return fielderr.New(api.ErrSpec, "algorithm.name", "%s runs on a box decision set (decision_set: {box: {bounds: …}}), not on a finite one", alg.Name)
	case !alg.Box && r.Box != nil:
		return fielderr.New(api.ErrSpec, "algorithm.name", "%s needs a finite decision set; on a box the algorithm is one of %v", alg.Name, bandit.BoxNames)
	}
	if err := r.resolveContext(); err != nil {
		return err
	}
	return nil
}

// Dim is the dimension of the decision set's points.
func (r *Resolved) Dim() int {
	if r.Box != nil {
		return len(r.Box.Bounds)
	}
	if len(r.X) == 0 {
		return 0
	}
	return len(r.X[0])
}

// readDecisionSet fills r.X from the one decision set given and returns
// the seed column of a decision-set file (nil without one).
func (r *Resolved) readDecisionSet(dir string, maxMemory int64) (fileSeed []int, err error) {
	ds := r.Spec.DecisionSet
	n := 0
	for _, given := range []bool{ds.File != "", ds.Grid != nil, ds.Actions != nil, ds.Box != nil} {
		if given {
			n++
		}
	}
	if n != 1 {
		return nil, fielderr.New(api.ErrSpec, "decision_set", "give exactly one of file, grid, actions and box")
	}
	switch {
	case ds.Box != nil:
		r.Box = &bandit.Box{Bounds: ds.Box.Bounds}
		// Checked with the seed points (Resolve).
		return nil, nil
	case ds.File != "":
		path := ds.File
		if !filepath.IsAbs(path) {
			path = filepath.Join(dir, path)
		}
		f, err := readlimit.Open(path, readlimit.For(maxMemory), readlimit.MaxLine)
		if err != nil {
			return nil, fielderr.Recast(api.ErrSpec, "decision_set.file", err)
		}
		r.X, fileSeed, err = problem.ReadActions(f)
		f.Close()
		if err != nil {
			return nil, fielderr.Recast(api.ErrSpec, "decision_set.file "+ds.File, err)
		}
	case ds.Grid != nil:
		if err := ds.Grid.Check(api.MaxActions, ""); err != nil {
			return nil, fielderr.Recast(api.ErrSpec, "decision_set.grid", err)
		}
		r.X = ds.Grid.Actions()
	default:
		r.X = ds.Actions
	}
	if len(r.X) > api.MaxActions {
		return nil, fielderr.New(api.ErrSpec, "decision_set", "at most %d actions, got %d", api.MaxActions, len(r.X))
	}
	if err := problem.CheckActions(r.X); err != nil {
		return nil, fielderr.Recast(api.ErrSpec, "decision_set", err)
	}
	return fileSeed, nil
}

// seedSet returns the checked seed set, ascending: seed_actions, or the
// seed column of the decision-set file.
func (s *Spec) seedSet(fileSeed []int, n int) ([]int, error) {
	seed := fileSeed
	switch {
	case s.SeedActions != nil && fileSeed != nil:
		return nil, fielderr.New(api.ErrSpec, "seed_actions", "the decision-set file has a seed column already")
	case s.SeedActions != nil:
		seed = s.SeedActions
	}
	sorted, err := problem.SortedSeed(seed, n)
	return sorted, fielderr.Recast(api.ErrSpec, "seed_actions", err)
}

// checkAlgorithm checks the algorithm, and refuses what needs the true
// functions, which a study never has.
func (s *Spec) checkAlgorithm() error {
	a := &s.Algorithm
	if s.isNamed() && a.Name == bandit.LoSBO && a.Lipschitz == nil && a.NoiseBound == nil {
		// The bounds are the constraints' (checkNamedUnits): checked with
		// the stand-ins newPolicy gives LoSBO.
		zero := 0.0
		c := *a
		c.Lipschitz, c.NoiseBound = &bandit.Lipschitz{Value: 1}, &zero
		a = &c
	}
	if err := a.Check(s.Horizon); err != nil {
		return fielderr.Recast(api.ErrSpec, "algorithm", err)
	}
	if err := config.CheckFitAlgorithm(a, s.Model.Fit); err != nil {
		return fielderr.Recast(api.ErrSpec, "algorithm", err)
	}
	// A study measures a real system: nothing of the true functions.
	alg, _ := bandit.Lookup(a.Name)
	switch {
	case alg.NeedsSafeSet:
		return fielderr.New(api.ErrSpec, "algorithm.name", "%s needs the true safe set, which a study never has", a.Name)
	case a.UsesTStar():
		// Berkenkamp et al. 2016, Theorem 1's t* counts |R̄_0(S_0)|, the
		// safe set reachable under the true constraints (bandit.TStar).
		return fielderr.New(api.ErrSpec, "algorithm.exploration", "theory: %s's t* needs |R̄_0(S_0)|, the safe set reachable from the seed set under the true constraints, which a study of a real system never has: give {fixed: n} (a t* computed elsewhere, e.g. by safegp bound on a simulated model of the system) or {plateau: …}", a.Name)
	case a.NeedsTruth() != "":
		return fielderr.New(api.ErrSpec, "algorithm.lipschitz", "auto needs the true constraints, which a study never has: give the Lipschitz constant, or use safe_set: gp")
	}
	return nil
}
