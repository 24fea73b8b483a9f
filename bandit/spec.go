package bandit

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/safegp/safegp/internal/fielderr"
	"github.com/safegp/safegp/theory"
	"math"
	"strconv"

	"go.yaml.in/yaml/v3"
)

// ErrConfig marks an algorithm configuration that cannot be used.
var ErrConfig = errors.New("invalid algorithm configuration")

// Beta is the confidence parameter of SPEC §3: the paper's schedule or a
// constant.
type Beta struct {
	Paper bool
	Value float64 // used when !Paper
}

// PaperBeta is the default, the paper's Theorem 1 schedule.
var PaperBeta = Beta{Paper: true}

// At returns β_t for round t ≥ 1 with m constraints, N actions and
// confidence δ: 2·log((m+1)·N·t²·π²/(6δ)) for the paper's schedule.
func (b Beta) At(t, m, n int, delta float64) float64 {
	if !b.Paper {
		return b.Value
	}
	return theory.Beta(t, m, n, delta)
}

// UnmarshalYAML accepts "paper" or a number.
func (b *Beta) UnmarshalYAML(n *yaml.Node) error {
	return atLine(n, "beta", b.unmarshal(n))
}

func (b *Beta) unmarshal(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("want \"paper\" or a number, got a %s", kindName(n))
	}
	if n.Value == "paper" {
		*b = PaperBeta
		return nil
	}
	v, err := strconv.ParseFloat(n.Value, 64)
	if err != nil || !(v > 0) || math.IsInf(v, 0) {
		return fmt.Errorf("want \"paper\" or a finite number > 0, got %q", n.Value)
	}
	*b = Beta{Value: v}
	return nil
}

// MarshalJSON writes "paper" or the number.
func (b Beta) MarshalJSON() ([]byte, error) {
	if b.Paper {
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
	return atLine(n, "exploration", e.unmarshal(n))
}

func (e *Exploration) unmarshal(n *yaml.Node) error {
	*e = Exploration{}
	if n.Kind == yaml.ScalarNode {
		if n.Value == "theory" {
			e.Theory = true
			return nil
		}
		return fmt.Errorf("want {fixed: n}, {plateau: {window: w, cap: c}} or theory, got %q", n.Value)
	}
	if n.Kind != yaml.MappingNode || len(n.Content) != 2 {
		return fmt.Errorf("want exactly one of fixed, plateau, theory")
	}
	key, val := n.Content[0].Value, n.Content[1]
	switch key {
	case "fixed":
		v, err := strconv.Atoi(val.Value)
		if val.Kind != yaml.ScalarNode || err != nil || v < 0 {
			return fmt.Errorf("fixed: want an integer ≥ 0, got %q", val.Value)
		}
		e.Fixed = &v
	case "plateau":
		p := Plateau{Window: 20, Cap: 100}
		if val.Kind == yaml.MappingNode {
			if err := noDuplicates(val, "plateau"); err != nil {
				return err
			}
			for i := 0; i+1 < len(val.Content); i += 2 {
				k, vn := val.Content[i].Value, val.Content[i+1]
				v, err := strconv.Atoi(vn.Value)
				if vn.Kind != yaml.ScalarNode || err != nil || v < 1 {
					return fmt.Errorf("plateau.%s: want an integer ≥ 1, got %q", k, vn.Value)
				}
				switch k {
				case "window":
					p.Window = v
				case "cap":
					p.Cap = v
				default:
					return fmt.Errorf("plateau: unknown key %q (window, cap)", k)
				}
			}
		} else if !(val.Kind == yaml.ScalarNode && (val.Tag == "!!null" || val.Value == "")) {
			return fmt.Errorf("plateau: want {window: w, cap: c}")
		}
		e.Plateau = &p
	case "theory":
		e.Theory = true
		if val.Kind == yaml.ScalarNode && (val.Tag == "!!null" || val.Value == "") {
			return nil
		}
		if val.Kind != yaml.MappingNode {
			return fmt.Errorf("theory: want {features: qff|rff, nodes: n, size: n, seed: n}")
		}
		if err := noDuplicates(val, "theory"); err != nil {
			return err
		}
		f := &e.TheoryFeatures
		for i := 0; i+1 < len(val.Content); i += 2 {
			k, vn := val.Content[i].Value, val.Content[i+1]
			if k == "features" {
				if vn.Value != "qff" && vn.Value != "rff" {
					return fmt.Errorf("theory.features: want qff or rff, got %q", vn.Value)
				}
				f.Kind = vn.Value
				continue
			}
			v, err := strconv.ParseUint(vn.Value, 10, 64)
			if vn.Kind != yaml.ScalarNode || err != nil || v < 1 {
				return fmt.Errorf("theory.%s: want an integer ≥ 1, got %q", k, vn.Value)
			}
			switch k {
			case "nodes":
				f.Nodes = int(min(v, 1<<20))
			case "size":
				if v%2 != 0 {
					return fmt.Errorf("theory.size: want an even number, got %d", v)
				}
				f.Size = int(min(v, 1<<20))
			case "seed":
				f.Seed = v
			default:
				return fmt.Errorf("theory: unknown key %q (features, nodes, size, seed)", k)
			}
		}
	default:
		return fmt.Errorf("unknown rule %q (fixed, plateau, theory)", key)
	}
	return nil
}

// Length returns the phase length the rule fixes in advance, capped at the
// horizon, and false for plateau, which ends the phase during the run.
func (e Exploration) Length(horizon int) (int, bool) {
	if e.Fixed != nil {
		return min(*e.Fixed, horizon), true
	}
	return 0, false
}

// Lipschitz is "auto" (the true L_i, computed from the problem) or one
// constant used for every constraint.
type Lipschitz struct {
	Auto  bool
	Value float64
}

// UnmarshalYAML accepts "auto" or a number ≥ 0.
func (l *Lipschitz) UnmarshalYAML(n *yaml.Node) error {
	return atLine(n, "lipschitz", l.unmarshal(n))
}

func (l *Lipschitz) unmarshal(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode && n.Value == "auto" {
		*l = Lipschitz{Auto: true}
		return nil
	}
	v, err := strconv.ParseFloat(n.Value, 64)
	if n.Kind != yaml.ScalarNode || err != nil || !(v >= 0) || math.IsInf(v, 0) {
		return fmt.Errorf("want \"auto\" or a finite number ≥ 0, got %q", n.Value)
	}
	*l = Lipschitz{Value: v}
	return nil
}

// MarshalJSON writes "auto" or the number.
func (l Lipschitz) MarshalJSON() ([]byte, error) {
	if l.Auto {
		return []byte(`"auto"`), nil
	}
	return json.Marshal(l.Value)
}

// Spec is the configuration of one algorithm (SPEC §9, `algorithms`).
type Spec struct {
	Name        string      `yaml:"name" json:"name"`
	Label       string      `yaml:"label,omitempty" json:"label,omitempty"`
	Phase1      string      `yaml:"phase1,omitempty" json:"phase1,omitempty"`
	Exploration Exploration `yaml:"exploration,omitempty" json:"exploration,omitzero"`
	KeepSeed    bool        `yaml:"keep_seed,omitempty" json:"keep_seed,omitempty"`
	SafeSet     string      `yaml:"safe_set,omitempty" json:"safe_set,omitempty"`
	Lipschitz   *Lipschitz  `yaml:"lipschitz,omitempty" json:"lipschitz,omitempty"`
}

// Names lists the algorithm names New accepts.
var Names = []string{"sgp-ucb", "naive-sgp-ucb", "gp-ucb-oracle", "safeopt", "safeopt-mc", "stageopt"}

// DisplayLabel is the label, defaulting to the name.
func (s *Spec) DisplayLabel() string {
	if s.Label != "" {
		return s.Label
	}
	return s.Name
}

// Check validates the spec on its own; errors name the key.
func (s *Spec) Check(horizon int) error {
	bad := func(key string, format string, args ...any) error {
		return fielderr.New(ErrConfig, key, format, args...)
	}
	only := func(keys ...string) error {
		set := map[string]bool{
			"phase1":      s.Phase1 != "",
			"exploration": !s.Exploration.IsZero(),
			"keep_seed":   s.KeepSeed,
			"safe_set":    s.SafeSet != "",
			"lipschitz":   s.Lipschitz != nil,
		}
		for _, k := range keys {
			delete(set, k)
		}
		for _, k := range []string{"phase1", "exploration", "keep_seed", "safe_set", "lipschitz"} {
			if set[k] {
				return bad(k, "not an option of %s", s.Name)
			}
		}
		return nil
	}
	switch s.Name {
	case "sgp-ucb":
		if err := only("phase1", "exploration", "keep_seed"); err != nil {
			return err
		}
		switch s.Phase1 {
		case "", "uniform", "uncertainty":
		default:
			return bad("phase1", "unknown rule %q (uniform, uncertainty)", s.Phase1)
		}
		if s.Exploration.IsZero() {
			return bad("exploration", "missing: give {fixed: n}, {plateau: {window: w, cap: c}} or theory")
		}
	case "naive-sgp-ucb":
		if err := only("keep_seed"); err != nil {
			return err
		}
	case "gp-ucb-oracle":
		if err := only(); err != nil {
			return err
		}
	case "":
		return bad("name", "missing (one of %v)", Names)
	case "safeopt", "safeopt-mc", "stageopt":
		keys := []string{"safe_set", "lipschitz"}
		if s.Name != "safeopt" {
			keys = append(keys, "exploration")
		}
		if err := only(keys...); err != nil {
			return err
		}
		switch s.SafeSet {
		case "", "lipschitz":
		case "gp":
			if s.Lipschitz != nil {
				return bad("lipschitz", "only used with safe_set: lipschitz")
			}
		default:
			return bad("safe_set", "unknown mode %q (lipschitz, gp)", s.SafeSet)
		}
		if s.Name != "safeopt" {
			if s.Exploration.IsZero() {
				return bad("exploration", "missing: give {fixed: n} or {plateau: {window: w, cap: c}}")
			}
			if s.Exploration.Theory {
				return bad("exploration", "theory sets T' for sgp-ucb only; use fixed or plateau")
			}
		}
	default:
		return bad("name", "unknown algorithm %q (one of %v)", s.Name, Names)
	}
	return nil
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "mapping"
	case yaml.SequenceNode:
		return "list"
	}
	return "value"
}

// atLine gives a decoding error the line and key it belongs to.
func atLine(n *yaml.Node, key string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("line %d: %s: %w", n.Line, key, err)
}

// noDuplicates rejects a mapping that gives a key twice (yaml.v3 does so for
// structs, but these mappings are read by hand).
func noDuplicates(n *yaml.Node, section string) error {
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i].Value
		if seen[k] {
			return fmt.Errorf("%s: key %q given twice", section, k)
		}
		seen[k] = true
	}
	return nil
}
