package strictyaml_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/safegp/safegp/internal/strictyaml"
)

type inner struct {
	Degree *int         `yaml:"degree"`
	Scale  float64      `yaml:"scale"`
	Points []int        `yaml:"points"`
	Bounds [][2]float64 `yaml:"bounds"`
}

type doc struct {
	Horizon int            `yaml:"horizon"`
	Seed    uint64         `yaml:"seed"`
	Name    string         `yaml:"name"`
	Flag    bool           `yaml:"flag"`
	H       []float64      `yaml:"thresholds"`
	In      inner          `yaml:"inner"`
	Opt     *float64       `yaml:"opt"`
	Extra   map[string]any `yaml:"extra"`
}

func TestDecode(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, in string
		want     []string // substrings of the error; none: must decode
	}{
		{"valid", "horizon: 3\nseed: 7\nname: a\nflag: true\nthresholds: [0, 1.5]\ninner: {degree: 2, scale: 1, points: [2, 3], bounds: [[0, 1]]}\nopt: 0.5\n", nil},
		{"integral float is an integer", "horizon: 3.0\ninner: {points: [1e2]}\n", nil},
		{"json", `{"horizon": 3, "thresholds": [1, 2], "inner": {"degree": 2}}`, nil},
		{"fraction into int", "horizon: 1.5\n", []string{"line 1", "horizon", "want an integer", "1.5"}},
		{"fraction in a list of ints", "inner:\n  points: [3, 1.7]\n", []string{"line 2", "inner.points[1]", "want an integer", "1.7"}},
		{"fraction into *int", "inner: {degree: 2.5}\n", []string{"inner.degree", "want an integer", "2.5"}},
		{"json fraction", `{"horizon": 2.5}`, []string{"horizon", "want an integer"}},
		{"null scalar", "horizon: null\n", []string{"horizon", "no value (null)"}},
		{"empty value", "opt:\n", []string{"opt", "no value"}},
		{"null in a list", `{"thresholds": [null]}`, []string{"thresholds[0]", "no value"}},
		{"null in a pair", "inner: {bounds: [[0, ~]]}\n", []string{"inner.bounds[0][1]", "no value"}},
		{"string for a number", "thresholds: [abc]\n", []string{"thresholds[0]", "want a number", `"abc"`}},
		{"quoted number is a string", `{"horizon": "3"}`, []string{"horizon", "want an integer", `"3"`}},
		{"bool for an int", "horizon: true\n", []string{"want an integer", "true"}},
		{"number for a bool", "flag: 1\n", []string{"flag", "want true or false"}},
		{"list for a scalar", "name: [a]\n", []string{"name", "want a string", "a list"}},
		{"scalar for a mapping", "inner: 3\n", []string{"inner", "want a mapping"}},
		{"unknown key", "inner: {colour: red}\n", []string{"inner", `unknown key "colour"`, "degree, scale"}},
		{"negative into uint", "seed: -1\n", []string{"seed", "want an integer in 0…"}},
		{"huge int", "horizon: 99999999999999999999999\n", []string{"horizon", "want an integer"}},
		{"wrong array length", "inner: {bounds: [[0, 1, 2]]}\n", []string{"inner.bounds[0]", "list of 2"}},
		{"syntax error", "horizon: [\n", []string{"line"}},
		{"duplicate key", "horizon: 1\nhorizon: 2\n", []string{"already"}},
		{"alias bomb", bomb(), []string{"alias"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var d doc
			err := strictyaml.Decode([]byte(c.in), &d)
			if c.want == nil {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("decoded %+v, want an error", d)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			for _, goWord := range []string{"!!", "unmarshal", "float64", "int64", "struct"} {
				if strings.Contains(err.Error(), goWord) {
					t.Errorf("error %q uses Go's word %q", err, goWord)
				}
			}
		})
	}
}

// bomb is a billion-laughs document: 9 levels of 10 aliases each, under a
// key whose values the walk leaves to the decoder's own alias limit.
func bomb() string {
	var b strings.Builder
	b.WriteString("extra:\n  a0: &a0 [[[1, 1, 1, 1, 1, 1, 1, 1, 1, 1]]]\n")
	for i := 1; i < 10; i++ {
		fmt.Fprintf(&b, "  a%d: &a%d [", i, i)
		for j := 0; j < 10; j++ {
			if j > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "*a%d", i-1)
		}
		b.WriteString("]\n")
	}
	return b.String()
}

func TestEmpty(t *testing.T) {
	t.Parallel()
	var d doc
	for _, in := range []string{"", "# only a comment\n"} {
		if err := strictyaml.Decode([]byte(in), &d); err != strictyaml.ErrEmpty {
			t.Errorf("%q: got %v, want ErrEmpty", in, err)
		}
	}
}

// rule decodes itself, as bandit.Exploration does: a word, or a mapping
// decoded through DecodeNode, with a value check reported through Errorf.
type rule struct {
	Word  string
	Steps *int
}

type ruleForm struct {
	Steps   *int      `yaml:"steps"`
	Section *struct{} `yaml:"section" strictyaml:"nullable"` // may be given without a value
	Inner   *inner    `yaml:"inner"`
}

func (r *rule) UnmarshalYAML(n *yaml.Node) error {
	if n.Decode(&r.Word) == nil {
		return nil
	}
	var f ruleForm
	if err := strictyaml.DecodeNode(n, &f); err != nil {
		return err
	}
	if f.Steps != nil && *f.Steps < 1 {
		return strictyaml.Errorf(n, "steps", "want an integer ≥ 1, got %d", *f.Steps)
	}
	if f.Inner != nil && f.Inner.Scale < 0 {
		return strictyaml.Errorf(n, "inner.scale", "want a number ≥ 0, got %v", f.Inner.Scale)
	}
	r.Steps = f.Steps
	return nil
}

type ruled struct {
	Rules []rule `yaml:"rules"`
	One   rule   `yaml:"one"`
}

// TestDecodeNode: errors of a type that decodes itself name the value by
// its full key path and its own line, in block and flow style and in JSON
// (where every value shares line 1, so the path is all that locates it).
func TestDecodeNode(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, in string
		want     string // the whole error; "" must decode
	}{
		{"valid", "rules: [word, {steps: 3}, {section: }, {section: null}]\none: {inner: {scale: 1}}\n", ""},
		{"value check", "rules: [word, {steps: 0}]\n", "line 1: rules[1].steps: want an integer ≥ 1, got 0"},
		{"value check, block", "one:\n  inner:\n    degree: 2\n    scale: -1\n", "line 4: one.inner.scale: want a number ≥ 0, got -1"},
		{"unknown key", "rules:\n  - word\n  - stepz: 2\n", `line 3: rules[1]: unknown key "stepz" (known: steps, section, inner)`},
		{"wrong kind", "one: {steps: [1]}\n", "line 1: one.steps: want an integer, got a list"},
		{"fraction", "one:\n  steps: 2.5\n", "line 2: one.steps: want an integer, got 2.5"},
		{"null outside a nullable field", "one: {steps: null}\n", "line 1: one.steps: no value (null); give a value or leave the key out"},
		{"key twice", "one:\n  steps: 1\n  steps: 2\n", `line 3: one: key "steps" given twice (already on line 2)`},
		{"nested unknown key", "one: {inner: {colour: red}}\n", `line 1: one.inner: unknown key "colour" (known: degree, scale, points, bounds)`},
		{"json", `{"rules": ["a", {"inner": {"scale": -2}}]}`, "line 1: rules[1].inner.scale: want a number ≥ 0, got -2"},
		{"alias", "base: &b {steps: 0}\n", `line 1: the top level: unknown key "base" (known: rules, one)`},
		{"alias used twice", "rules: [&b {steps: -1}, *b]\n", "line 1: rules[0].steps: want an integer ≥ 1, got -1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var d ruled
			err := strictyaml.Decode([]byte(c.in), &d)
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case c.want != "" && (err == nil || err.Error() != c.want):
				t.Fatalf("got error %v\nwant        %s", err, c.want)
			}
			if c.want == "" && (d.Rules[0].Word != "word" || d.Rules[1].Steps == nil || *d.Rules[1].Steps != 3) {
				t.Errorf("decoded %+v", d)
			}
		})
	}
}

// TestDecodeNodeAlone: a type decoding itself outside Decode (with
// yaml.Unmarshal) still gets its line and the path below its node.
func TestDecodeNodeAlone(t *testing.T) {
	t.Parallel()
	var r rule
	err := yaml.Unmarshal([]byte("\n{steps: 0}\n"), &r)
	if err == nil || err.Error() != "line 2: steps: want an integer ≥ 1, got 0" {
		t.Fatalf("got %v", err)
	}
	var ne *strictyaml.NodeError
	if !errors.As(err, &ne) || ne.Path != "steps" {
		t.Fatalf("got %#v, want a *NodeError at steps", err)
	}
}

// TestDocumentTooLarge: a document with more delimiters than the nodes
// strictyaml takes could ever need is refused before yaml.Unmarshal
// builds its millions of nodes (issue 24, item 4); one at the node limit
// is still read.
func TestDocumentTooLarge(t *testing.T) {
	t.Parallel()
	var v struct {
		X []int `yaml:"x"`
	}
	big := []byte("x: [" + strings.Repeat("1,", 8<<20) + "1]\n")
	if err := strictyaml.Decode(big, &v); err == nil || !strings.Contains(err.Error(), "a document this large is not read") {
		t.Errorf("16 MiB of \"1,\": %v", err)
	}
	ok := []byte("x: [" + strings.Repeat("1,", 400_000) + "1]\n")
	if err := strictyaml.Decode(ok, &v); err != nil || len(v.X) != 400_001 {
		t.Errorf("400 001 values: %v", err)
	}
}
