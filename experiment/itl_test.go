package experiment_test

import (
	"context"
	"errors"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/safegp/safegp/experiment"
	"github.com/safegp/safegp/problem/bench"
)

// TestConstrainedFunction runs examples/itl-2d-island.yaml cut to 3
// realizations of 30 rounds: a benchmark with a constraint g ≥ 0 beside
// f. The safe algorithms never violate; gp-ucb, which ignores g, does in
// every run (f's peak lies outside the island); a run's violations are
// the rounds it played where g < 0, and its best safe value is at most
// the safe maximum.
func TestConstrainedFunction(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("../examples/itl-2d-island.yaml")
	if err != nil {
		t.Fatal(err)
	}
	y := strings.NewReplacer("realizations: 10", "realizations: 3", "horizon: 100", "horizon: 30").Replace(string(raw))
	c, err := experiment.Parse(strings.NewReader(y), "../examples")
	if err != nil {
		t.Fatal(err)
	}
	res, err := experiment.Execute(context.Background(), c, experiment.Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	f, _ := bench.Lookup("itl-2d-island", 0)
	for _, r := range res.Runs {
		bad := 0
		for _, x := range r.Points {
			if f.EvalG(0, x) < 0 {
				bad++
			}
		}
		if bad != r.Violations {
			t.Errorf("%s %d: %d violations recorded, %d points with g < 0", r.Label, r.Realization, r.Violations, bad)
		}
		if r.Label == "gp-ucb" && r.Violations == 0 || r.Label != "gp-ucb" && r.Violations != 0 {
			t.Errorf("%s %d: %d violations", r.Label, r.Realization, r.Violations)
		}
		if b := r.BestSafe[len(r.BestSafe)-1]; b > f.FStar {
			t.Errorf("%s %d: best safe %v above the safe maximum %v", r.Label, r.Realization, b, f.FStar)
		}
		// The model's guess and the safe set's size, every round (sgp-ucb
		// certifies none before its seed is measured).
		if len(r.ModelRegret) != 30 || len(r.SafeSetSize) != 30 {
			t.Fatalf("%s %d: %d model regrets and %d safe set sizes, want 30", r.Label, r.Realization, len(r.ModelRegret), len(r.SafeSetSize))
		}
		for k, v := range r.ModelRegret {
			if math.IsNaN(v) || math.IsInf(v, 0) || r.SafeSetSize[k] < 0 || r.SafeSetSize[k] > 2501 {
				t.Errorf("%s %d, round %d: model regret %v, safe set of %d", r.Label, r.Realization, k+1, v, r.SafeSetSize[k])
			}
		}
	}
}

// TestConstrainedFunctionRefusals: thresholds must match the benchmark's
// constraints, and given seed points must satisfy them.
func TestConstrainedFunctionRefusals(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("../examples/itl-2d-island.yaml")
	if err != nil {
		t.Fatal(err)
	}
	base := string(raw)
	for _, c := range []struct{ name, old, new, key string }{
		{"no thresholds", "  thresholds: [0]\n", "", "problem.thresholds"},
		{"two thresholds", "thresholds: [0]", "thresholds: [0, 0]", "problem.thresholds"},
		{"unsafe seed", "seed_points: {count: 1, min_f: -1000, box: [[-0.5, 0.5], [-0.5, 0.5]]}", "seed_points: [[2, 2]]", "problem.seed_points[0]"},
		{"thresholds on camelback", "name: itl-2d-island\n    decision_set: {box: {bounds: [[-3, 2.88], [-3, 2.88]]}, grid: {points: [50, 50]}}", "name: camelback", "problem.thresholds"},
	} {
		y := strings.Replace(base, c.old, c.new, 1)
		if y == base {
			t.Fatalf("%s: %q is not in the example", c.name, c.old)
		}
		_, err := experiment.Parse(strings.NewReader(y), "../examples")
		if !errors.Is(err, experiment.ErrConfig) || !strings.Contains(err.Error(), c.key) {
			t.Errorf("%s: %v, want ErrConfig naming %s", c.name, err, c.key)
		}
	}
}
