package strictyaml_test

import (
	"fmt"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/safegp/safegp/internal/strictyaml"
)

type tables struct {
	Weights map[string]float64 `yaml:"weights"`
	Nested  map[string]inner   `yaml:"nested"`
	Small   int8               `yaml:"small"`
	Grid    [][]int            `yaml:"grid"`
	Signs   signs              `yaml:"signs"`
}

// signs decodes itself as a list of integers ≥ 0, naming the bad one by
// its index through Errorf.
type signs []int

func (s *signs) UnmarshalYAML(n *yaml.Node) error {
	var v []int
	if err := n.Decode(&v); err != nil {
		return err
	}
	for i, x := range v {
		if x < 0 {
			return strictyaml.Errorf(n, fmt.Sprintf("[%d]", i), "want an integer ≥ 0, got %d", x)
		}
	}
	if len(v) > 3 {
		// An index past the end: the error is on the list's own line.
		return strictyaml.Errorf(n, "[9]", "at most 3 values")
	}
	*s = v
	return nil
}

// TestWalkMapsAndLists: the walk's refusals inside maps and lists, and
// of integers out of a narrow type's range, name the value's full key
// path and line; an Errorf at a list index finds that element's line
// (of an anchored list too), and an index past the end its list's.
func TestWalkMapsAndLists(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, in string
		want     string // the whole error; "" must decode
	}{
		{"valid", "weights: {a: 1, b: 2.5}\nnested: {x: {scale: 1}}\nsmall: -128\ngrid: [[1], [2, 3]]\nsigns: [0, 1]\n", ""},
		{"map value of the wrong kind", "weights:\n  a: 1\n  b: high\n", `line 3: weights.b: want a number, got "high"`},
		{"list for a map", "weights: [1, 2]\n", "line 1: weights: want a mapping, got a list"},
		{"map key twice", "weights:\n  a: 1\n  a: 2\n", `line 3: weights: key "a" given twice (already on line 2)`},
		{"unknown key in a map's struct", "nested:\n  x:\n    colour: red\n", `line 3: nested.x: unknown key "colour" (known: degree, scale, points, bounds)`},
		{"int8 out of range", "small: 128\n", "line 1: small: want an integer of at most 18 digits, got 128"},
		{"int beyond 64 bits", "grid: [[9223372036854775808]]\n", "line 1: grid[0][0]: want an integer of at most 18 digits, got 9223372036854775808"},
		{"scalar for a list", "grid: [1]\n", "line 1: grid[0]: want a list, got 1"},
		{"index", "signs:\n  - 1\n  - -2\n", "line 3: signs[1]: want an integer ≥ 0, got -2"},
		{"index of an anchored list", "signs: &s\n  - 4\n  - -1\n", "line 3: signs[1]: want an integer ≥ 0, got -1"},
		{"index past the end", "signs:\n  [1, 2, 3, 4]\n", "line 2: signs[9]: at most 3 values"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var v tables
			err := strictyaml.Decode([]byte(c.in), &v)
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case c.want != "" && (err == nil || err.Error() != c.want):
				t.Fatalf("got error %v\nwant        %s", err, c.want)
			}
			if c.want == "" && (v.Weights["b"] != 2.5 || v.Small != -128 || len(v.Grid) != 2 || len(v.Signs) != 2) {
				t.Errorf("decoded %+v", v)
			}
		})
	}
}

// loose decodes itself with yaml's own Decode into typed fields, so a
// value of the wrong type is yaml's *TypeError, which Decode rewrites in
// the configuration's words, with the key path of the line it names.
type loose struct {
	I int       `yaml:"i"`
	U uint16    `yaml:"u"`
	F float64   `yaml:"f"`
	B bool      `yaml:"b"`
	S string    `yaml:"s"`
	L []int     `yaml:"l"`
	A [2]int    `yaml:"a"`
	M inner     `yaml:"m"`
	P *struct{} `yaml:"p"`
}

type loosely struct {
	Top struct {
		Value looseValue `yaml:"value"`
	} `yaml:"top"`
}

type looseValue struct{ loose }

func (l *looseValue) UnmarshalYAML(n *yaml.Node) error { return n.Decode(&l.loose) }

// TestTypeErrorWords: yaml's "cannot unmarshal !!str `x` into T" becomes
// "want <T in words>, got x" after the line, named by its key path, for
// each kind of Go type; a value yaml does not quote (a mapping) keeps
// yaml's words.
func TestTypeErrorWords(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ key, value, want string }{
		{"i", "abc", `line 3: top.value.i: want an integer, got "abc"`},
		{"u", "abc", `want an integer, got "abc"`},
		{"f", "abc", `line 3: top.value.f: want a number, got "abc"`},
		{"b", "abc", `line 3: top.value.b: want true or false, got "abc"`},
		{"s", "{x: 1}", "cannot unmarshal !!map into string"},
		{"l", "abc", `line 3: top.value.l: want a list, got "abc"`},
		{"a", "abc", `want a list, got "abc"`},
		{"m", "abc", `line 3: top.value.m: want a mapping, got "abc"`},
		{"p", "abc", `want a mapping, got "abc"`},
	} {
		doc := "top:\n  value:\n    " + c.key + ": " + c.value + "\n"
		var v loosely
		err := strictyaml.Decode([]byte(doc), &v)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %s: got %v, want %q", c.key, c.value, err, c.want)
		}
		for _, goWord := range []string{"int", "uint16", "float64", "bool", "[]", "[2]", "strictyaml_test"} {
			if c.key != "s" && strings.Contains(err.Error(), " into "+goWord) {
				t.Errorf("%s: %q uses Go's type", c.key, err)
			}
		}
	}
}
