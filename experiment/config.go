package experiment

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/safegp/safegp/internal/fielderr"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/safegp/safegp/bandit"
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
	Delta       float64       `yaml:"delta" json:"delta"`
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

var yamlField = regexp.MustCompile(`field (\S+) not found in type (\S+)`)

// Parse decodes a configuration strictly (unknown keys are errors) and
// checks it. dir is where relative paths are resolved.
func Parse(r io.Reader, dir string) (*Config, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read config: %w", err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var c Config
	if err := dec.Decode(&c); err != nil {
		if err == io.EOF {
			return nil, fmt.Errorf("%w: empty configuration", ErrConfig)
		}
		return nil, fmt.Errorf("%w: %s", ErrConfig, yamlMessage(err, keyPaths(data)))
	}
	c.dir = dir
	if err := c.Check(); err != nil {
		return nil, err
	}
	c.resolve()
	return &c, nil
}

var yamlLine = regexp.MustCompile(`^line (\d+): `)

// YAMLMessage renders a strict-decoding error of data as one line that
// names the offending key (for other packages' YAML files).
func YAMLMessage(err error, data []byte) string { return yamlMessage(err, keyPaths(data)) }

// yamlMessage makes a decoding error one line, naming sections instead of
// Go types and, where the error gives a line, the key path of the value on
// that line ("line 4: model.delta: cannot unmarshal …").
func yamlMessage(err error, paths map[int]string) string {
	var te *yaml.TypeError
	msgs := []string{err.Error()}
	if errors.As(err, &te) {
		msgs = te.Errors
	}
	for i, msg := range msgs {
		msg = strings.TrimSpace(strings.TrimPrefix(msg, "yaml: "))
		if m := yamlField.FindStringSubmatch(msg); m != nil {
			msg = strings.Replace(msg, m[0], fmt.Sprintf("unknown key %q in %s", m[1], sectionName(m[2])), 1)
		} else if m := yamlLine.FindStringSubmatch(msg); m != nil {
			line, _ := strconv.Atoi(m[1])
			if p, ok := paths[line]; ok && !strings.Contains(msg, p+":") {
				msg = m[0] + p + ": " + msg[len(m[0]):]
			}
		}
		msgs[i] = msg
	}
	return strings.Join(msgs, "; ")
}

// keyPaths maps each line of a YAML document that holds a value to the
// dotted key path of that value (the innermost one, when several share a
// line, as in flow mappings).
func keyPaths(data []byte) map[int]string {
	var root yaml.Node
	paths := map[int]string{}
	if yaml.Unmarshal(data, &root) != nil {
		return paths
	}
	var walk func(n *yaml.Node, path string)
	walk = func(n *yaml.Node, path string) {
		switch n.Kind {
		case yaml.DocumentNode:
			for _, c := range n.Content {
				walk(c, path)
			}
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				p := n.Content[i].Value
				if path != "" {
					p = path + "." + p
				}
				paths[n.Content[i+1].Line] = p
				walk(n.Content[i+1], p)
			}
		case yaml.SequenceNode:
			for i, c := range n.Content {
				p := fmt.Sprintf("%s[%d]", path, i)
				paths[c.Line] = p
				walk(c, p)
			}
		}
	}
	walk(&root, "")
	return paths
}

// sectionName turns a Go type from a yaml error into the config section.
func sectionName(goType string) string {
	switch strings.TrimPrefix(goType, "*") {
	case "experiment.Config":
		return "the top level"
	case "experiment.ProblemConfig":
		return "problem"
	case "experiment.ModelConfig":
		return "model"
	case "problem.GenerateSpec":
		return "problem.generate"
	case "problem.DecisionSetSpec":
		return "problem.generate.decision_set"
	case "problem.SeedSetSpec":
		return "problem.generate.seed_set"
	case "kernel.Spec":
		return "a kernel"
	case "bandit.Spec":
		return "an algorithm"
	case "study.Spec":
		return "the top level"
	case "study.DecisionSet":
		return "decision_set"
	case "study.Grid":
		return "decision_set.grid"
	}
	return goType
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
		if math.IsNaN(h) || math.IsInf(h, 0) {
			return bad(fmt.Sprintf("problem.thresholds[%d]", i), "must be finite, got %v", h)
		}
	}
	if !(p.Epsilon >= 0) || math.IsInf(p.Epsilon, 0) {
		return bad("problem.epsilon", "must be a finite number ≥ 0, got %v", p.Epsilon)
	}
	if !(p.NoiseStd >= 0) || math.IsInf(p.NoiseStd, 0) {
		return bad("problem.noise_std", "must be a finite number ≥ 0, got %v", p.NoiseStd)
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
	if !(*m.NoiseStd >= 0) || math.IsInf(*m.NoiseStd, 0) {
		return bad("model.noise_std", "must be a finite number ≥ 0, got %v", *m.NoiseStd)
	}
	if !(m.Delta > 0 && m.Delta < 1) {
		return bad("model.delta", "must be in (0, 1), got %v", m.Delta)
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

// LoadProblem reads the configured problem file and checks it with the
// configuration's thresholds (SPEC §8). It returns nil for a generated
// problem.
func (c *Config) LoadProblem() (*problem.Problem, error) {
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
	if _, err := p.Analyze(); err != nil {
		return nil, fmt.Errorf("problem.file %s: %w", c.Problem.File, err)
	}
	return p, nil
}
