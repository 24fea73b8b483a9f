package experiment

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"

	"github.com/safegp/safegp/internal/plural"
	"github.com/safegp/safegp/internal/readlimit"

	"github.com/safegp/safegp/bandit"
	"github.com/safegp/safegp/config"
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
	MaxHorizon      = config.MaxHorizon
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

	dir  string     // folder of the config file: problem.file is relative to it
	warm *WarmStart // problem.warm_start's content, read by ReadProblem
	fn   *function  // problem.function, checked (nil without one)
	// maxMemory bounds the files ReadProblem reads (SetMaxMemory).
	maxMemory int64
}

// SetMaxMemory sets the memory limit (Options.MaxMemory's meaning: 0 for
// memlimit.Default, negative for none) that bounds the files ReadProblem
// reads, problem.file and problem.warm_start: each at most
// readlimit.For(limit) bytes.
func (c *Config) SetMaxMemory(limit int64) { c.maxMemory = limit }

// WarmStart is problem.warm_start's content as every algorithm is told
// it: one observation per row, at its action when the row's point is one
// (Index ≥ 0) and at its point otherwise (Index −1), with the row's own
// noise variance when the file has a noise_std column (0, the model's σ,
// otherwise). The observations' slices are shared by all runs: read only.
type WarmStart struct {
	Obs     []bandit.Observation
	Outside int // rows at points outside the decision set
}

// ProblemConfig is either a user's file or a generator.
type ProblemConfig struct {
	File        string                `yaml:"file,omitempty" json:"file,omitempty"`
	SeedActions []int                 `yaml:"seed_actions,omitempty" json:"seed_actions,omitempty"`
	Generate    *problem.GenerateSpec `yaml:"generate,omitempty" json:"generate,omitempty"`
	Thresholds  []float64             `yaml:"thresholds" json:"thresholds"`
	Epsilon     float64               `yaml:"epsilon" json:"epsilon"`
	NoiseStd    float64               `yaml:"noise_std" json:"noise_std"`
	// NoiseBound, on a benchmark function (Function) in place of
	// NoiseStd, draws the noise uniformly from [−b, b]: bounded noise, as
	// the LoSBO paper's protocol has it (its safe sets rely on |ε| ≤ E,
	// which normal noise breaks in a share of the rounds).
	NoiseBound float64 `yaml:"noise_bound,omitempty" json:"noise_bound,omitempty"`
	// WarmStart is a file of earlier measurements (problem.ReadData's
	// format, relative to the configuration) that every algorithm of
	// every realization is told before round 1. Only with File: a drawn
	// problem's functions exist on its decision set only, so no file
	// could hold values consistent with each realization's draw.
	WarmStart string `yaml:"warm_start,omitempty" json:"warm_start,omitempty"`

	// ObjectiveThreshold is h_f: f ≥ h_f becomes one more safety
	// condition (SPEC §5, "Safe objective"); with it Thresholds may be
	// empty, for a problem without constraints.
	ObjectiveThreshold *float64 `yaml:"objective_threshold,omitempty" json:"objective_threshold,omitempty"`

	// Function is a built-in benchmark (problem/bench) on its box, in
	// place of file and generate; SeedPoints draws its seed points.
	Function   *FunctionConfig `yaml:"function,omitempty" json:"function,omitempty"`
	SeedPoints *SeedPoints     `yaml:"seed_points,omitempty" json:"seed_points,omitempty"`

	// Context simulates contexts for a generated problem (ContextConfig):
	// each round's context is drawn and told to the algorithm before it
	// asks, and the regret is contextual.
	Context *ContextConfig `yaml:"context,omitempty" json:"context,omitempty"`
}

// ModelConfig is the learner's GP model, the section an experiment shares
// with a study's specification.
type ModelConfig = config.Model

// Load reads and checks a configuration file, of at most
// readlimit.MaxDocument bytes.
func Load(path string) (*Config, error) {
	data, err := readlimit.ReadDocument(path)
	if err != nil {
		return nil, fmt.Errorf("read config: %w", err)
	}
	c, err := Parse(bytes.NewReader(data), filepath.Dir(path))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// Parse decodes a configuration strictly (unknown keys are errors) and
// checks it. dir is where relative paths are resolved. It reads at most
// readlimit.MaxDocument bytes of r.
func Parse(r io.Reader, dir string) (*Config, error) {
	data, err := io.ReadAll(readlimit.NewReader(r, "the configuration", readlimit.MaxDocument, 0))
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
	if err := c.checkSize(); err != nil {
		return err
	}
	p := &c.Problem
	c.fn = nil
	if p.Function != nil {
		return c.checkOnFunction()
	}
	if p.SeedPoints != nil {
		return fielderr.New(ErrConfig, "problem.seed_points", "only with problem.function")
	}
	if err := p.check(); err != nil {
		return err
	}
	if err := fielderr.Recast(ErrConfig, "model", c.Model.Check(len(p.Thresholds), p.Generate != nil)); err != nil {
		return err
	}
	if err := c.checkDomains(); err != nil {
		return err
	}
	if g := p.Generate; g != nil && c.Model.Fit.Active() {
		if err := c.checkFitKernels(g); err != nil {
			return err
		}
	}
	if p.Generate != nil {
		// A problem file's dimension is known once it is read (ReadProblem).
		if err := fielderr.Recast(ErrConfig, "model", c.Model.CheckDim(p.Generate.Dim())); err != nil {
			return err
		}
	}
	if err := c.checkAlgorithms(); err != nil {
		return err
	}
	return c.checkContext()
}

// checkOnFunction is Check for an experiment on problem.function, whose
// problem section has its own keys and rules (checkFunction).
func (c *Config) checkOnFunction() error {
	p := &c.Problem
	if p.Context != nil {
		return fielderr.New(ErrConfig, "problem.context", "only with problem.generate: a benchmark function has no contexts")
	}
	if err := c.checkFunction(); err != nil {
		return err
	}
	for _, v := range []struct {
		key string
		err error
	}{
		{"problem", config.CheckSafety(p.Thresholds, p.ObjectiveThreshold)},
		{"problem.epsilon", config.CheckNonNegative(p.Epsilon)},
		{"problem.noise_std", config.CheckNonNegative(p.NoiseStd)},
		{"problem.noise_bound", config.CheckNonNegative(p.NoiseBound)},
	} {
		if v.err != nil {
			return fielderr.Recast(ErrConfig, v.key, v.err)
		}
	}
	if c.Model.Fit.Active() {
		return fielderr.New(ErrConfig, "model.fit", "not offered with problem.function")
	}
	if err := c.checkAlgorithms(); err != nil {
		return err
	}
	return c.checkDomains()
}

// checkFitKernels checks, for a model fit on a generated problem, the
// drawing kernels the model's default to: those are the blocks a fit
// re-estimates.
func (c *Config) checkFitKernels(g *problem.GenerateSpec) error {
	if c.Model.Objective == nil {
		if err := config.CheckFitKernel(g.Objective); err != nil {
			return fielderr.Recast(ErrConfig, "problem.generate.objective", err)
		}
	}
	for i, k := range g.Constraints {
		if c.Model.Constraints == nil {
			if err := config.CheckFitKernel(k); err != nil {
				return fielderr.Recast(ErrConfig, fmt.Sprintf("problem.generate.constraints[%d]", i), err)
			}
		}
	}
	return nil
}

// checkSize bounds the realizations, the horizon and the rounds to store.
func (c *Config) checkSize() error {
	if c.Realizations < 1 {
		return fielderr.New(ErrConfig, "realizations", "must be ≥ 1, got %d", c.Realizations)
	}
	if err := fielderr.Recast(ErrConfig, "", config.CheckHorizon(c.Horizon)); err != nil {
		return err
	}
	if c.Realizations > MaxRealizations {
		return fielderr.New(ErrConfig, "realizations", "must be at most %d, got %d", MaxRealizations, c.Realizations)
	}
	if total := int64(c.Realizations) * int64(len(c.Algorithms)) * int64(c.Horizon); total > MaxRounds {
		return fielderr.New(ErrConfig, "realizations", "%d realizations × %d algorithms × %d rounds = %d rounds to store, more than %d; split the experiment", c.Realizations, len(c.Algorithms), c.Horizon, total, int64(MaxRounds))
	}
	return nil
}

// bad is a configuration error at key (fielderr.New with ErrConfig).
func bad(key, format string, args ...any) error {
	return fielderr.New(ErrConfig, key, format, args...)
}

// check checks the problem section; errors name problem.*.
func (p *ProblemConfig) check() error {
	switch {
	case p.File == "" && p.Generate == nil:
		return bad("problem", "give file, generate or function")
	case p.File != "" && p.Generate != nil:
		return bad("problem", "give file or generate, not both")
	case p.Generate != nil && p.SeedActions != nil:
		return bad("problem.seed_actions", "only for a problem file; use generate.seed_set")
	case p.Generate != nil && p.WarmStart != "":
		return bad("problem.warm_start", "only with problem.file: a generated problem's functions are drawn on its decision set for each realization, so no file can hold values consistent with them")
	case p.NoiseBound != 0:
		return bad("problem.noise_bound", "only with problem.function; use noise_std")
	}
	for _, v := range []struct {
		key string
		err error
	}{
		{"problem", config.CheckSafety(p.Thresholds, p.ObjectiveThreshold)},
		{"problem.epsilon", config.CheckNonNegative(p.Epsilon)},
		{"problem.noise_std", config.CheckNonNegative(p.NoiseStd)},
	} {
		if v.err != nil {
			return fielderr.Recast(ErrConfig, v.key, v.err)
		}
	}
	if p.Generate != nil {
		if err := p.Generate.Check(); err != nil {
			return fielderr.Recast(ErrConfig, "problem.generate", err)
		}
		if len(p.Generate.Constraints) != len(p.Thresholds) {
			return bad("problem.thresholds", "%d given for %s", len(p.Thresholds), plural.Count(len(p.Generate.Constraints), "constraint"))
		}
	}
	return nil
}

// checkAlgorithms checks each algorithm and that their labels differ.
func (c *Config) checkAlgorithms() error {
	if len(c.Algorithms) == 0 {
		return fielderr.New(ErrConfig, "algorithms", "at least one is needed")
	}
	labels := map[string]int{}
	for i := range c.Algorithms {
		a := &c.Algorithms[i]
		if err := a.Check(c.Horizon); err != nil {
			return fielderr.Recast(ErrConfig, fmt.Sprintf("algorithms[%d]", i), err)
		}
		if err := config.CheckFitAlgorithm(a, c.Model.Fit); err != nil {
			return fielderr.Recast(ErrConfig, fmt.Sprintf("algorithms[%d]", i), err)
		}
		if j, dup := labels[a.DisplayLabel()]; dup {
			return fielderr.New(ErrConfig, fmt.Sprintf("algorithms[%d].label", i), "%q is also the label of algorithms[%d]; give each a distinct label", a.DisplayLabel(), j)
		}
		labels[a.DisplayLabel()] = i
	}
	return nil
}

// resolve fills in the defaults, so that the configuration echoed in
// results.json says everything the run used.
func (c *Config) resolve() {
	if c.Problem.Thresholds == nil {
		// No constraint (an objective threshold is the safety
		// condition): echoed as [], not null.
		c.Problem.Thresholds = []float64{}
	}
	if g := c.Problem.Generate; g != nil {
		if g.Constraints == nil {
			g.Constraints = []kernel.Spec{}
		}
		c.Model.Resolve(&g.Objective, g.Constraints)
	} else {
		c.Model.Resolve(nil, nil)
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
	if c.Model.Constraints != nil || c.Problem.Generate == nil {
		// A problem file without constraints may leave them out (an
		// objective threshold is its safety condition).
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

// open opens a CSV file the configuration names, relative to its folder,
// limited to readlimit.For(c.maxMemory) bytes and lines of
// readlimit.MaxLine.
func (c *Config) open(name string) (*readlimit.File, error) {
	if !filepath.IsAbs(name) {
		name = filepath.Join(c.dir, name)
	}
	return readlimit.Open(name, readlimit.For(c.maxMemory), readlimit.MaxLine)
}

// ReadProblem is LoadProblem without the analysis, whose O(N²) cost a
// caller may want to weigh first (Plan).
func (c *Config) ReadProblem() (*problem.Problem, error) {
	if c.Problem.File == "" {
		return nil, nil
	}
	f, err := c.open(c.Problem.File)
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
		if p.Seed, err = problem.SortedSeed(c.Problem.SeedActions, p.N()); err != nil {
			return nil, fielderr.Recast(ErrConfig, "problem.seed_actions", err)
		}
	}
	if len(c.Problem.Thresholds) != p.M() {
		return nil, fielderr.New(ErrConfig, "problem.thresholds", "%d given, the file %s has %s", len(c.Problem.Thresholds), c.Problem.File, plural.Count(p.M(), "constraint"))
	}
	if len(c.constraintKernels()) != p.M() {
		return nil, fielderr.New(ErrConfig, "model.constraints", "%s, the file %s has %s", plural.Count(len(c.constraintKernels()), "kernel"), c.Problem.File, plural.Count(p.M(), "constraint"))
	}
	if p.NoiseStds != nil && c.Problem.NoiseStd != 0 {
		return nil, fielderr.New(ErrConfig, "problem.noise_std", "the file %s has a noise_std column, which sets each action's noise: leave problem.noise_std out (or 0)", c.Problem.File)
	}
	if err := fielderr.Recast(ErrConfig, "model", c.Model.CheckDim(p.Dim())); err != nil {
		return nil, err
	}
	p.H = c.Problem.Thresholds
	p.HF = c.Problem.ObjectiveThreshold
	p.Epsilon = c.Problem.Epsilon
	p.NoiseStd = c.Problem.NoiseStd
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("problem.file %s: %w", c.Problem.File, err)
	}
	if c.warm, err = c.readWarmStart(p); err != nil {
		return nil, err
	}
	return p, nil
}

// readWarmStart reads problem.warm_start for problem p (nil without one):
// its rows must have p's dimension and constraints.
func (c *Config) readWarmStart(p *problem.Problem) (*WarmStart, error) {
	if c.Problem.WarmStart == "" {
		return nil, nil
	}
	f, err := c.open(c.Problem.WarmStart)
	if err != nil {
		return nil, fielderr.Recast(ErrConfig, "problem.warm_start", err)
	}
	defer f.Close()
	data, d, m, err := problem.ReadData(f)
	if err != nil {
		return nil, fielderr.Recast(ErrConfig, "problem.warm_start "+c.Problem.WarmStart, err)
	}
	switch {
	case d != p.Dim():
		return nil, fielderr.New(ErrConfig, "problem.warm_start", "the file %s has points of %d coordinates (x1…x%d), the problem's actions have %d", c.Problem.WarmStart, d, d, p.Dim())
	case m != p.M():
		return nil, fielderr.New(ErrConfig, "problem.warm_start", "the file %s has %d constraint columns, the problem has %d", c.Problem.WarmStart, m, p.M())
	}
	index := make(map[string]int, p.N())
	for i, x := range p.X {
		index[fmt.Sprint(x)] = i
	}
	w := &WarmStart{Obs: make([]bandit.Observation, len(data.X))}
	for k, x := range data.X {
		o := bandit.Observation{F: data.F[k], G: data.G[k], X: x, Index: -1}
		if i, ok := index[fmt.Sprint(x)]; ok && slices.Equal(p.X[i], x) {
			o.Index, o.X = i, p.X[i]
		} else {
			w.Outside++
		}
		if data.NoiseStds != nil {
			o.NoiseVar = bandit.KnownNoise(data.NoiseStds[k])
		}
		w.Obs[k] = o
	}
	return w, nil
}
