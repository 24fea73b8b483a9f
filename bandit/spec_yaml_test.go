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
	t.Parallel()
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
	// Each refusal names the line, the key at fault (relative to the rule)
	// and the value.
	bad := []struct{ in, key, value string }{
		{"{theory: 3}", "theory", "3"},
		{"{theory: {features: fourier}}", "theory.features", "fourier"},
		{"{theory: {nodes: 0}}", "theory.nodes", "0"},
		{"{theory: {size: 3}}", "theory.size", "3"},
		{"{theory: {colour: 1}}", "theory", "colour"},
		{"{theory: {nodes: 1, nodes: 2}}", "theory", "nodes"},
		{"{plateau: 5}", "plateau", "5"},
		{"{plateau: {cap: 0}}", "plateau.cap", "0"},
		{"{plateau: {span: 3}}", "plateau", "span"},
		{"{plateau: {cap: 3, cap: 4}}", "plateau", "cap"},
		{"{fixed: -1}", "fixed", "-1"},
		{"{fixed: 1, plateau: {}}", "", "exactly one of fixed, plateau"},
		{"[1]", "", "list"},
		{"soon", "", "soon"},
		{"{magic: 1}", "", "magic"},
	}
	for _, c := range bad {
		var e bandit.Exploration
		err := yaml.Unmarshal([]byte(c.in), &e)
		if err == nil || !strings.Contains(err.Error(), "line 1: ") || !strings.Contains(err.Error(), c.key+": ") || !strings.Contains(err.Error(), c.value) {
			t.Errorf("%s: got %v, want line 1, key %q and %q", c.in, err, c.key, c.value)
		}
	}
}

// TestBetaAndLipschitzYAML: "paper" or a number > 0 for β; "auto" or a
// number ≥ 0 for L; anything else is refused, saying what is allowed.
func TestBetaAndLipschitzYAML(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		want bandit.Beta
		js   string
	}{{"paper", bandit.PaperBeta, `"paper"`}, {"4", bandit.Beta{Value: 4}, `4`}, {"0.5", bandit.Beta{Value: 0.5}, `0.5`},
		{"{rkhs_norm: 2, noise_bound: 0.1}", bandit.Beta{Freq: &bandit.Frequentist{RKHSNorm: 2, NoiseBound: 0.1}}, `{"rkhs_norm":2,"noise_bound":0.1}`},
		{"{rkhs_norm: 2, noise_bound: 0.1, bound: fiedler}", bandit.Beta{Freq: &bandit.Frequentist{RKHSNorm: 2, NoiseBound: 0.1}}, `{"rkhs_norm":2,"noise_bound":0.1}`},
		{"{noise_bound: 0, rkhs_norm: 3, bound: chowdhury-gopalan}", bandit.Beta{Freq: &bandit.Frequentist{RKHSNorm: 3, Bound: "chowdhury-gopalan"}}, `{"rkhs_norm":3,"noise_bound":0,"bound":"chowdhury-gopalan"}`},
	} {
		var b bandit.Beta
		if err := yaml.Unmarshal([]byte(c.in), &b); err != nil || !cmp.Equal(b, c.want) {
			t.Errorf("beta %s: %+v, %v", c.in, b, err)
		}
		if js, _ := json.Marshal(b); string(js) != c.js {
			t.Errorf("beta %s: JSON %s, want %s", c.in, js, c.js)
		}
	}
	for _, c := range []struct{ in, want string }{
		{"0", `want "paper", a finite number > 0 or {rkhs_norm`}, {"-1", `want "paper", a finite`}, {".inf", `want "paper", a finite`},
		{"papr", `want "paper", a finite`}, {"[1]", `want "paper", a finite`},
		{"{a: 1}", `unknown key "a" in a frequentist beta`}, {"{rkhs_norm: 1}", "needs rkhs_norm (B) and noise_bound (R)"},
		{"{rkhs_norm: -1, noise_bound: 1}", "rkhs_norm: want a finite number ≥ 0"}, {"{rkhs_norm: 1, noise_bound: .nan}", "noise_bound: want a finite number ≥ 0"},
		{"{rkhs_norm: 1, noise_bound: 1, bound: srinivas}", "bound: want fiedler or chowdhury-gopalan"},
		{"{rkhs_norm: 0, noise_bound: 0}", "make β = 0"},
	} {
		var b bandit.Beta
		if err := yaml.Unmarshal([]byte(c.in), &b); err == nil || !strings.Contains(err.Error(), "line 1: ") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("beta %s: got %v, want a refusal on line 1 with %q", c.in, err, c.want)
		}
	}
	for _, c := range []struct {
		in   string
		want bandit.Lipschitz
		js   string
	}{{"auto", bandit.Lipschitz{Auto: true}, `"auto"`}, {"0", bandit.Lipschitz{}, `0`}, {"2.5", bandit.Lipschitz{Value: 2.5}, `2.5`},
		{"[2, 0.5]", bandit.Lipschitz{Values: []float64{2, 0.5}}, `[2,0.5]`}, {"[3]", bandit.Lipschitz{Values: []float64{3}}, `[3]`}} {
		var l bandit.Lipschitz
		if err := yaml.Unmarshal([]byte(c.in), &l); err != nil || !cmp.Equal(l, c.want) {
			t.Errorf("lipschitz %s: %+v, %v", c.in, l, err)
		}
		if js, _ := json.Marshal(l); string(js) != c.js {
			t.Errorf("lipschitz %s: JSON %s, want %s", c.in, js, c.js)
		}
	}
	for _, c := range []struct{ in, want string }{
		{"-1", `want "auto", a finite number ≥ 0 or a list`}, {"automatic", `want "auto", a finite number ≥ 0 or a list`},
		{".nan", `want "auto", a finite number ≥ 0 or a list`}, {"{a: 1}", `want "auto", a finite number ≥ 0 or a list`},
		{"[]", "want 1…1000 constants"}, {"[2, -1]", "constant 2: want a finite number ≥ 0"}, {"[1, .inf]", "constant 2: want"}, {"[auto]", "constant 1: want"},
	} {
		var l bandit.Lipschitz
		if err := yaml.Unmarshal([]byte(c.in), &l); err == nil || !strings.Contains(err.Error(), "line 1: ") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("lipschitz %s: got %v, want %q", c.in, err, c.want)
		}
	}
}
