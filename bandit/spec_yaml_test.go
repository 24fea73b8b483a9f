package bandit_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"

	"github.com/safegp/safegp/bandit"
	"github.com/safegp/safegp/theory"
)

// TestExplorationYAML decodes every form of the exploration rule (SPEC
// §4) and refuses malformed ones with the line, the key and the value.
func TestExplorationYAML(t *testing.T) {
	good := []struct {
		in   string
		want bandit.Exploration
		js   string // MarshalJSON
	}{
		{"theory", bandit.Exploration{Theory: true}, `{"theory":{}}`},
		{"{theory: }", bandit.Exploration{Theory: true}, `{"theory":{}}`},
		{"{theory: {features: qff, nodes: 3}}", bandit.Exploration{Theory: true, TheoryFeatures: theory.Features{Kind: "qff", Nodes: 3}}, `{"theory":{"features":"qff","nodes":3}}`},
		{"{theory: {features: rff, size: 4, seed: 7}}", bandit.Exploration{Theory: true, TheoryFeatures: theory.Features{Kind: "rff", Size: 4, Seed: 7}}, `{"theory":{"features":"rff","size":4,"seed":7}}`},
		// Absurd sizes are capped at 2²⁰ rather than allocated.
		{"{theory: {nodes: 99999999999}}", bandit.Exploration{Theory: true, TheoryFeatures: theory.Features{Nodes: 1 << 20}}, `{"theory":{"nodes":1048576}}`},
		{"{plateau: }", bandit.Exploration{Plateau: &bandit.Plateau{Window: 20, Cap: 100}}, `{"plateau":{"window":20,"cap":100}}`},
		{"{plateau: {window: 3}}", bandit.Exploration{Plateau: &bandit.Plateau{Window: 3, Cap: 100}}, `{"plateau":{"window":3,"cap":100}}`},
		{"{fixed: 0}", bandit.Exploration{Fixed: ptr(0)}, `{"fixed":0}`},
	}
	for _, c := range good {
		var e bandit.Exploration
		if err := yaml.Unmarshal([]byte(c.in), &e); err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		if d := cmp.Diff(c.want, e); d != "" {
			t.Errorf("%s (-want +got):\n%s", c.in, d)
		}
		if js, err := json.Marshal(e); err != nil || string(js) != c.js {
			t.Errorf("%s: JSON %s (%v), want %s", c.in, js, err, c.js)
		}
	}
	bad := []struct{ in, want string }{
		{"{theory: 3}", "theory: want {features: qff|rff"},
		{"{theory: {features: fourier}}", `theory.features: want qff or rff, got "fourier"`},
		{"{theory: {nodes: 0}}", `theory.nodes: want an integer ≥ 1, got "0"`},
		{"{theory: {size: 3}}", "theory.size: want an even number, got 3"},
		{"{theory: {colour: 1}}", `theory: unknown key "colour"`},
		{"{theory: {nodes: 1, nodes: 2}}", `theory: key "nodes" given twice`},
		{"{plateau: 5}", "plateau: want {window: w, cap: c}"},
		{"{plateau: {cap: 0}}", `plateau.cap: want an integer ≥ 1, got "0"`},
		{"{plateau: {span: 3}}", `plateau: unknown key "span"`},
		{"{plateau: {cap: 3, cap: 4}}", `plateau: key "cap" given twice`},
		{"{fixed: -1}", `fixed: want an integer ≥ 0, got "-1"`},
		{"{fixed: 1, plateau: {}}", "want exactly one of fixed, plateau, theory"},
		{"[1]", "want exactly one of fixed, plateau, theory"},
		{"soon", `want {fixed: n}, {plateau: {window: w, cap: c}} or theory, got "soon"`},
		{"{magic: 1}", `unknown rule "magic"`},
	}
	for _, c := range bad {
		var e bandit.Exploration
		err := yaml.Unmarshal([]byte(c.in), &e)
		if err == nil || !strings.Contains(err.Error(), "line 1: exploration: "+c.want) {
			t.Errorf("%s: got %v, want line 1: exploration: %s", c.in, err, c.want)
		}
	}
}

// TestBetaAndLipschitzYAML: "paper" or a number > 0 for β; "auto" or a
// number ≥ 0 for L; anything else is refused naming the key.
func TestBetaAndLipschitzYAML(t *testing.T) {
	for _, c := range []struct {
		in   string
		want bandit.Beta
		js   string
	}{{"paper", bandit.PaperBeta, `"paper"`}, {"4", bandit.Beta{Value: 4}, `4`}, {"0.5", bandit.Beta{Value: 0.5}, `0.5`}} {
		var b bandit.Beta
		if err := yaml.Unmarshal([]byte(c.in), &b); err != nil || b != c.want {
			t.Errorf("beta %s: %+v, %v", c.in, b, err)
		}
		if js, _ := json.Marshal(b); string(js) != c.js {
			t.Errorf("beta %s: JSON %s, want %s", c.in, js, c.js)
		}
	}
	for _, c := range []struct{ in, want string }{
		{"0", `want "paper" or a finite number > 0, got "0"`},
		{"-1", `want "paper" or a finite number > 0, got "-1"`},
		{".inf", `want "paper" or a finite number > 0, got ".inf"`},
		{"papr", `want "paper" or a finite number > 0, got "papr"`},
		{"[1]", "want \"paper\" or a number, got a list"},
		{"{a: 1}", "want \"paper\" or a number, got a mapping"},
	} {
		var b bandit.Beta
		if err := yaml.Unmarshal([]byte(c.in), &b); err == nil || !strings.Contains(err.Error(), "line 1: beta: "+c.want) {
			t.Errorf("beta %s: got %v, want %q", c.in, err, c.want)
		}
	}
	for _, c := range []struct {
		in   string
		want bandit.Lipschitz
		js   string
	}{{"auto", bandit.Lipschitz{Auto: true}, `"auto"`}, {"0", bandit.Lipschitz{}, `0`}, {"2.5", bandit.Lipschitz{Value: 2.5}, `2.5`}} {
		var l bandit.Lipschitz
		if err := yaml.Unmarshal([]byte(c.in), &l); err != nil || l != c.want {
			t.Errorf("lipschitz %s: %+v, %v", c.in, l, err)
		}
		if js, _ := json.Marshal(l); string(js) != c.js {
			t.Errorf("lipschitz %s: JSON %s, want %s", c.in, js, c.js)
		}
	}
	for _, in := range []string{"-1", "automatic", ".nan", "[2]"} {
		var l bandit.Lipschitz
		if err := yaml.Unmarshal([]byte(in), &l); err == nil || !strings.Contains(err.Error(), `line 1: lipschitz: want "auto" or a finite number ≥ 0`) {
			t.Errorf("lipschitz %s: got %v", in, err)
		}
	}
}
