package bandit_test

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/safegp/safegp/bandit"
	"github.com/safegp/safegp/internal/strictyaml"
	"github.com/safegp/safegp/theory"
)

// algorithms is what an experiment's algorithms section decodes into; the
// errors below name their keys from it.
type algorithms struct {
	Algorithms []bandit.Spec `yaml:"algorithms" json:"algorithms,omitempty"`
	Beta       *bandit.Beta  `yaml:"beta" json:"beta,omitempty"`
}

func intPtr(v int) *int { return &v }

// TestSpecDecode: the forms README documents for exploration, beta and
// lipschitz decode to the rule they name (plateau's defaults are window
// 20, cap 100, README "exploration"), and JSON written by MarshalJSON — a
// stored study's spec — decodes back to the same value.
func TestSpecDecode(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, in string
		want     bandit.Spec
	}{
		{"fixed", "{name: sgp-ucb, exploration: {fixed: 0}}", bandit.Spec{Name: "sgp-ucb", Exploration: bandit.Exploration{Fixed: intPtr(0)}}},
		{"plateau", "{name: sgp-ucb, exploration: {plateau: {window: 5, cap: 9}}}", bandit.Spec{Name: "sgp-ucb", Exploration: bandit.Exploration{Plateau: &bandit.Plateau{Window: 5, Cap: 9}}}},
		{"plateau window only", "{name: sgp-ucb, exploration: {plateau: {window: 5}}}", bandit.Spec{Name: "sgp-ucb", Exploration: bandit.Exploration{Plateau: &bandit.Plateau{Window: 5, Cap: 100}}}},
		{"plateau empty", "{name: sgp-ucb, exploration: {plateau: {}}}", bandit.Spec{Name: "sgp-ucb", Exploration: bandit.Exploration{Plateau: &bandit.Plateau{Window: 20, Cap: 100}}}},
		{"plateau without a value", "{name: sgp-ucb, exploration: {plateau: }}", bandit.Spec{Name: "sgp-ucb", Exploration: bandit.Exploration{Plateau: &bandit.Plateau{Window: 20, Cap: 100}}}},
		{"plateau block", "name: sgp-ucb\nexploration:\n  plateau:\n    cap: 7\n", bandit.Spec{Name: "sgp-ucb", Exploration: bandit.Exploration{Plateau: &bandit.Plateau{Window: 20, Cap: 7}}}},
		{"theory word", "{name: sgp-ucb, exploration: theory}", bandit.Spec{Name: "sgp-ucb", Exploration: bandit.Exploration{Theory: true}}},
		{"theory without a value", "{name: sgp-ucb, exploration: {theory: null}}", bandit.Spec{Name: "sgp-ucb", Exploration: bandit.Exploration{Theory: true}}},
		{"theory features", "{name: sgp-ucb, exploration: {theory: {features: rff, size: 20, seed: 3}}}", bandit.Spec{Name: "sgp-ucb", Exploration: bandit.Exploration{Theory: true, TheoryFeatures: theory.Features{Kind: "rff", Size: 20, Seed: 3}}}},
		{"theory nodes capped", "{name: sgp-ucb, exploration: {theory: {features: qff, nodes: 99999999}}}", bandit.Spec{Name: "sgp-ucb", Exploration: bandit.Exploration{Theory: true, TheoryFeatures: theory.Features{Kind: "qff", Nodes: 1 << 20}}}},
		{"lipschitz auto", "{name: safeopt, lipschitz: auto}", bandit.Spec{Name: "safeopt", Lipschitz: &bandit.Lipschitz{Auto: true}}},
		{"lipschitz number", "{name: safeopt, lipschitz: 0}", bandit.Spec{Name: "safeopt", Lipschitz: &bandit.Lipschitz{}}},
		{"lipschitz integer", "{name: safeopt, lipschitz: 3}", bandit.Spec{Name: "safeopt", Lipschitz: &bandit.Lipschitz{Value: 3}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got algorithms
			if err := strictyaml.Decode([]byte("algorithms:\n- "+indent(c.in)), &got); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(c.want, got.Algorithms[0]); diff != "" {
				t.Fatalf("decoded (-want +got):\n%s", diff)
			}
			js, err := json.Marshal(got)
			if err != nil {
				t.Fatal(err)
			}
			var back algorithms
			if err := strictyaml.Decode(js, &back); err != nil {
				t.Fatalf("%s: %v", js, err)
			}
			if diff := cmp.Diff(got, back); diff != "" {
				t.Errorf("JSON %s decodes to (-first +again):\n%s", js, diff)
			}
		})
	}
	for _, c := range []struct {
		in   string
		want bandit.Beta
	}{{"beta: paper", bandit.PaperBeta}, {"beta: 2.5", bandit.Beta{Value: 2.5}}, {"beta: 4", bandit.Beta{Value: 4}}} {
		var got, back algorithms
		if err := strictyaml.Decode([]byte(c.in), &got); err != nil || *got.Beta != c.want {
			t.Errorf("%s: got %+v, %v; want %+v", c.in, got.Beta, err, c.want)
			continue
		}
		js, _ := json.Marshal(got)
		if err := strictyaml.Decode(js, &back); err != nil || *back.Beta != c.want {
			t.Errorf("%s: JSON %s decodes to %+v, %v", c.in, js, back.Beta, err)
		}
	}
}

// indent makes a block-style mapping a list item.
func indent(s string) string {
	out := []byte{}
	for i := 0; i < len(s); i++ {
		out = append(out, s[i])
		if s[i] == '\n' && i+1 < len(s) {
			out = append(out, ' ', ' ')
		}
	}
	return string(out)
}

// TestSpecDecodeErrors: a bad rule is one error naming the key path from
// the top of the document and the line of the bad value (SPEC §8) — in
// JSON, where every value is on line 1, the path alone locates it.
func TestSpecDecodeErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, want string }{
		{"algorithms: [{name: sgp-ucb, exploration: {fixd: 5}}]", `line 1: algorithms[0].exploration: unknown key "fixd" (known: fixed, plateau, theory)`},
		{"algorithms: [{name: sgp-ucb, exploration: {fixed: -1}}]", "line 1: algorithms[0].exploration.fixed: want an integer ≥ 0, got -1"},
		{"algorithms: [{name: sgp-ucb, exploration: {fixed: 1.5}}]", "line 1: algorithms[0].exploration.fixed: want an integer, got 1.5"},
		{"algorithms: [{name: sgp-ucb, exploration: {fixed: 5, plateau: {}}}]", "line 1: algorithms[0].exploration: want exactly one of fixed, plateau and theory"},
		{"algorithms: [{name: sgp-ucb, exploration: {}}]", "line 1: algorithms[0].exploration: want exactly one of fixed, plateau and theory"},
		{"algorithms: [{name: sgp-ucb, exploration: theery}]", `line 1: algorithms[0].exploration: want {fixed: n}, {plateau: {window: w, cap: c}} or theory, got "theery"`},
		{"algorithms: [{name: sgp-ucb, exploration: [1]}]", `line 1: algorithms[0].exploration: want {fixed: n}, {plateau: {window: w, cap: c}} or theory, got a list`},
		{"algorithms:\n  - name: sgp-ucb\n    exploration:\n      plateau:\n        window: 0\n", "line 5: algorithms[0].exploration.plateau.window: want an integer ≥ 1, got 0"},
		{"algorithms: [{name: sgp-ucb, exploration: {plateau: {window: 5, window: 7}}}]", `line 1: algorithms[0].exploration.plateau: key "window" given twice (already on line 1)`},
		{"algorithms: [{name: sgp-ucb, exploration: {plateau: {windw: 5}}}]", `line 1: algorithms[0].exploration.plateau: unknown key "windw" (known: window, cap)`},
		{"algorithms: [{name: sgp-ucb, exploration: {plateau: 3}}]", "line 1: algorithms[0].exploration.plateau: want a mapping, got 3"},
		{"algorithms: [{name: sgp-ucb, exploration: {theory: {features: xff}}}]", `line 1: algorithms[0].exploration.theory.features: want qff or rff, got "xff"`},
		{"algorithms: [{name: sgp-ucb, exploration: {theory: {size: 3}}}]", "line 1: algorithms[0].exploration.theory.size: want an even number, got 3"},
		{"algorithms: [{name: sgp-ucb, exploration: {theory: {nodes: 0}}}]", "line 1: algorithms[0].exploration.theory.nodes: want an integer ≥ 1, got 0"},
		{"algorithms: [{name: sgp-ucb, exploration: {theory: {seed: 0}}}]", "line 1: algorithms[0].exploration.theory.seed: want an integer ≥ 1, got 0"},
		{`{"algorithms": [{"name": "sgp-ucb"}, {"name": "stageopt", "exploration": {"plateau": {"cap": 0}}}]}`, "line 1: algorithms[1].exploration.plateau.cap: want an integer ≥ 1, got 0"},
		{"algorithms: [{name: safeopt, lipschitz: autoo}]", `line 1: algorithms[0].lipschitz: want "auto", a finite number ≥ 0 or a list of them, got "autoo"`},
		{"algorithms: [{name: safeopt, lipschitz: -1}]", `line 1: algorithms[0].lipschitz: want "auto", a finite number ≥ 0 or a list of them, got -1`},
		{"algorithms: [{name: safeopt, lipschitz: .inf}]", `line 1: algorithms[0].lipschitz: want "auto", a finite number ≥ 0 or a list of them, got .inf`},
		{"algorithms: [{name: safeopt, lipschitz: [1, -2]}]", `line 1: algorithms[0].lipschitz: constant 2: want a finite number ≥ 0, got -2`},
		{"beta: papr", `line 1: beta: want "paper", a finite number > 0 or {rkhs_norm: B, noise_bound: R}, got "papr"`},
		{"beta: 0", `line 1: beta: want "paper", a finite number > 0 or {rkhs_norm: B, noise_bound: R}, got 0`},
		{`{"beta": "4"}`, `line 1: beta: want "paper", a finite number > 0 or {rkhs_norm: B, noise_bound: R}, got "4"`},
		{"beta: null", "line 1: beta: no value (null); give a value or leave the key out"},
	} {
		var got algorithms
		err := strictyaml.Decode([]byte(c.in), &got)
		if err == nil || err.Error() != c.want {
			t.Errorf("%s:\n got %v\nwant %s", c.in, err, c.want)
		}
	}
}
