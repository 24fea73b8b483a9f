package experiment

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/safegp/safegp/bandit"
	"github.com/safegp/safegp/internal/fielderr"
	"github.com/safegp/safegp/internal/strictyaml"
	"github.com/safegp/safegp/kernel"
	"github.com/safegp/safegp/problem"
)

// ErrConfig marks a configuration that fails a check of SPEC §8.
var ErrConfig = errors.New("invalid configuration")

// Limits that keep a configuration's memory within a workstation's: each
// stored round takes about 40 bytes of results, and a model holds N·T floats
// per GP while it runs.
const (
	MaxHorizon      = 1_000_000
	MaxRealizations = 1_000_000
	MaxRounds       = 100_000_000
)

// Config is an experiment (SPEC §9).
type Config struct {
	Seed         uint64        `yaml:"seed" json:"seed"`
	Realizations int           `yaml:"realizations" json:"realizations"`
	Horizon      int           `yaml:"horizon" json:"horizon"`
	Problem      ProblemConfig `yaml:"problem" json:"problem"`
	Model        ModelConfig   `yaml:"model" json:"model"`
	Algorithms   []bandit.Spec `yaml:"algorithms" json:"algorithms"`

	dir string // folder of the config file: problem.file is relative to it
}

// ProblemConfig is either a user's file or a generator.
type ProblemConfig struct {
	File        string                `yaml:"file,omitempty" json:"file,omitempty"`
	SeedActions []int                 `yaml:"seed_actions,omitempty" json:"seed_actions,omitempty"`
	Generate    *problem.GenerateSpec `yaml:"generate,omitempty" json:"generate,omitempty"`
	Thresholds  []float64             `yaml:"thresholds" json:"thresholds"`
	Epsilon     float64               `yaml:"epsilon" json:"epsilon"`
	NoiseStd    float64               `yaml:"noise_std" json:"noise_std"`
}

// ModelConfig is the learner's GP model.
type ModelConfig struct {
	Objective   *kernel.Spec  `yaml:"objective,omitempty" json:"objective,omitempty"`
	Constraints []kernel.Spec `yaml:"constraints,omitempty" json:"constraints,omitempty"`
	NoiseStd    *float64      `yaml:"noise_std" json:"noise_std"`
	Delta       *float64      `yaml:"delta" json:"delta"`
	Beta        *bandit.Beta  `yaml:"beta,omitempty" json:"beta,omitempty"`
}

// Load reads and checks a configuration file.
func Load(path string) (*Config, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read config: %w", err)
	}
	defer f.Close()
	c, err := Parse(f, filepath.Dir(path))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// Parse decodes a configuration strictly (unknown keys are errors) and
// checks it. dir is where relative paths are resolved.
func Parse(r io.Reader, dir string) (*Config, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read config: %w", err)
	}
	var c Config
	if err := strictyaml.Decode(data, &c); err != nil {
		if errors.Is(err, strictyaml.ErrEmpty) {
			return nil, fmt.Errorf("%w: empty configuration", ErrConfig)
		}
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	c.dir = dir
	if err := c.Check(); err != nil {
		return nil, err
	}
	c.resolve()
	return &c, nil
}

// Check applies SPEC §8's checks that need no data file.
func (c *Config) Check() error {
	bad := func(key string, format string, args ...any) error {
		return fielderr.New(ErrConfig, key, format, args...)
	}
	if c.Realizations < 1 {
		return bad("realizations", "must be ≥ 1, got %d", c.Realizations)
	}
	if c.Horizon < 1 || c.Horizon > MaxHorizon {
		return bad("horizon", "must be in 1…%d, got %d", MaxHorizon, c.Horizon)
	}
	if c.Realizations > MaxRealizations {
		return bad("realizations", "must be at most %d, got %d", MaxRealizations, c.Realizations)
	}
	if total := int64(c.Realizations) * int64(len(c.Algorithms)) * int64(c.Horizon); total > MaxRounds {
		return bad("realizations", "%d realizations × %d algorithms × %d rounds = %d rounds to store, more than %d; split the experiment", c.Realizations, len(c.Algorithms), c.Horizon, total, int64(MaxRounds))
	}
	p := &c.Problem
	switch {
	case p.File == "" && p.Generate == nil:
		return bad("problem", "give file or generate")
	case p.File != "" && p.Generate != nil:
		return bad("problem", "give file or generate, not both")
	case p.Generate != nil && p.SeedActions != nil:
		return bad("problem.seed_actions", "only for a problem file; use generate.seed_set")
	}
	if len(p.Thresholds) == 0 {
		return bad("problem.thresholds", "missing: one threshold h_i per constraint")
	}
	for i, h := range p.Thresholds {
		if !problem.InRange(h) {
			return bad(fmt.Sprintf("problem.thresholds[%d]", i), "must be a finite number within ±1e100, got %v", h)
		}
	}
	if !(p.Epsilon >= 0) || !problem.InRange(p.Epsilon) {
		return bad("problem.epsilon", "must be a finite number in 0…1e100, got %v", p.Epsilon)
	}
	if !(p.NoiseStd >= 0) || !problem.InRange(p.NoiseStd) {
		return bad("problem.noise_std", "must be a finite number in 0…1e100, got %v", p.NoiseStd)
	}
	if p.Generate != nil {
		if err := p.Generate.Check(); err != nil {
			return fielderr.Under("problem.generate", err)
		}
		if len(p.Generate.Constraints) != len(p.Thresholds) {
			return bad("problem.thresholds", "%d given for %d constraints", len(p.Thresholds), len(p.Generate.Constraints))
		}
	}
	m := &c.Model
	if m.NoiseStd == nil {
		return bad("model.noise_std", "missing: the learner's noise standard deviation σ")
	}
	if !(*m.NoiseStd >= 0) || !problem.InRange(*m.NoiseStd) {
		return bad("model.noise_std", "must be a finite number in 0…1e100, got %v", *m.NoiseStd)
	}
	if m.Delta == nil {
		return bad("model.delta", "missing: the confidence parameter δ, in (0, 1)")
	}
	if !(*m.Delta > 0 && *m.Delta < 1) {
		return bad("model.delta", "must be in (0, 1), got %v", *m.Delta)
	}
	if m.Objective == nil && p.Generate == nil {
		return bad("model.objective", "missing (only a generated problem has a default)")
	}
	if m.Objective != nil {
		if _, err := kernel.New(*m.Objective); err != nil {
			return fielderr.Under("model.objective", err)
		}
	}
	if m.Constraints == nil && p.Generate == nil {
		return bad("model.constraints", "missing (only a generated problem has a default)")
	}
	if m.Constraints != nil && len(m.Constraints) != len(p.Thresholds) {
		return bad("model.constraints", "%d kernels for %d thresholds", len(m.Constraints), len(p.Thresholds))
	}
	for i, k := range m.Constraints {
		if _, err := kernel.New(k); err != nil {
			return fielderr.Under(fmt.Sprintf("model.constraints[%d]", i), err)
		}
	}
	if len(c.Algorithms) == 0 {
		return bad("algorithms", "at least one is needed")
	}
	labels := map[string]int{}
	for i := range c.Algorithms {
		a := &c.Algorithms[i]
		if err := a.Check(c.Horizon); err != nil {
			return fielderr.Under(fmt.Sprintf("algorithms[%d]", i), err)
		}
		if j, dup := labels[a.DisplayLabel()]; dup {
			return bad(fmt.Sprintf("algorithms[%d].label", i), "%q is also the label of algorithms[%d]; give each a distinct label", a.DisplayLabel(), j)
		}
		labels[a.DisplayLabel()] = i
	}
	return nil
}

// resolve fills in the defaults, so that the configuration echoed in
// results.json says everything the run used.
func (c *Config) resolve() {
	if c.Model.Beta == nil {
		b := bandit.PaperBeta
		c.Model.Beta = &b
	}
	if c.Model.Objective == nil {
		o := c.Problem.Generate.Objective
		c.Model.Objective = &o
	}
	if c.Model.Constraints == nil {
		c.Model.Constraints = append([]kernel.Spec(nil), c.Problem.Generate.Constraints...)
	}
}

// objectiveKernel returns the model's kernel for f, defaulting to the
// drawing kernel of a generated problem.
func (c *Config) objectiveKernel() kernel.Spec {
	if c.Model.Objective != nil {
		return *c.Model.Objective
	}
	return c.Problem.Generate.Objective
}

func (c *Config) constraintKernels() []kernel.Spec {
	if c.Model.Constraints != nil {
		return c.Model.Constraints
	}
	return c.Problem.Generate.Constraints
}

func (c *Config) beta() bandit.Beta {
	if c.Model.Beta != nil {
		return *c.Model.Beta
	}
	return bandit.PaperBeta
}

// LoadProblem reads the configured problem file, checks it with the
// configuration's thresholds (SPEC §8) and analyzes it (D^s_ε must not be
// empty). It returns nil for a generated problem.
func (c *Config) LoadProblem() (*problem.Problem, error) {
	p, err := c.ReadProblem()
	if err != nil || p == nil {
		return p, err
	}
	if _, err := p.Analyze(); err != nil {
		return nil, fmt.Errorf("problem.file %s: %w", c.Problem.File, err)
	}
	return p, nil
}

// ReadProblem is LoadProblem without the analysis, whose O(N²) cost a
// caller may want to weigh first (Plan).
func (c *Config) ReadProblem() (*problem.Problem, error) {
	if c.Problem.File == "" {
		return nil, nil
	}
	path := c.Problem.File
	if !filepath.IsAbs(path) {
		path = filepath.Join(c.dir, path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("problem.file: %w", err)
	}
	defer f.Close()
	p, err := problem.ReadCSV(f)
	if err != nil {
		return nil, fmt.Errorf("problem.file %s: %w", c.Problem.File, err)
	}
	switch {
	case c.Problem.SeedActions != nil && p.Seed != nil:
		return nil, fielderr.New(ErrConfig, "problem.seed_actions", "the file %s has a seed column already", c.Problem.File)
	case c.Problem.SeedActions != nil:
		p.Seed = append([]int(nil), c.Problem.SeedActions...)
		slices.Sort(p.Seed)
	}
	if len(c.Problem.Thresholds) != p.M() {
		return nil, fielderr.New(ErrConfig, "problem.thresholds", "%d given, the file %s has %d constraints", len(c.Problem.Thresholds), c.Problem.File, p.M())
	}
	if len(c.constraintKernels()) != p.M() {
		return nil, fielderr.New(ErrConfig, "model.constraints", "%d kernels, the file %s has %d constraints", len(c.constraintKernels()), c.Problem.File, p.M())
	}
	p.H = c.Problem.Thresholds
	p.Epsilon = c.Problem.Epsilon
	p.NoiseStd = c.Problem.NoiseStd
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("problem.file %s: %w", c.Problem.File, err)
	}
	return p, nil
}
