package experiment_test

import (
	"context"
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/safegp/safegp/experiment"
	"github.com/safegp/safegp/problem/losbo"
)

const losboYAML = `seed: 4
realizations: 3
horizon: 8
problem:
  function: {name: losbo, set: matern32, index: 3, decision_set: {grid: {points: [101]}}}
  objective_threshold: THRESHOLD
  noise_bound: 0.01
  seed_points: {count: 2, min_f: MINF, box: [[LO, HI]]}
model:
  objective: {kernel: matern32, lengthscale: 0.14, variance: 1}
  noise_std: 0.1
  delta: 0.01
  beta: 4
algorithms:
  - {name: safeopt, safe_set: gp}
`

func losboConfig(t *testing.T) string {
	fn, err := losbo.Lookup("matern32", 3)
	if err != nil {
		t.Fatal(err)
	}
	return strings.NewReplacer("THRESHOLD", g(fn.Threshold), "MINF", g(fn.Threshold+0.02), "LO", g(fn.Reach[0]), "HI", g(fn.Reach[1])).Replace(losboYAML)
}

func g(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// TestLoSBOFunction runs one of the LoSBO suite's functions as a problem:
// the seed points are drawn in the given box (the reachable set) where
// f ≥ min_f, the values are the function's (losbo.Function.Eval), and the
// simple regret is taken against the reachable set's optimum (searched on
// 10 001 points of it, so a run on the 101-point grid started in the set
// stays at or above 0, to 1e-3 for a best value found outside it).
func TestLoSBOFunction(t *testing.T) {
	t.Parallel()
	fn, _ := losbo.Lookup("matern32", 3)
	c, err := experiment.Parse(strings.NewReader(losboConfig(t)), ".")
	if err != nil {
		t.Fatal(err)
	}
	res, err := experiment.Execute(context.Background(), c, experiment.Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Runs {
		for k := range 2 {
			x := r.Points[k][0]
			if x < fn.Reach[0] || x > fn.Reach[1] || fn.Eval(x) < fn.Threshold+0.02 {
				t.Errorf("realization %d: seed %v outside [%v, %v] or below min_f", r.Realization, x, fn.Reach[0], fn.Reach[1])
			}
		}
		for k, x := range r.Points {
			if math.Abs(r.Values[k]-fn.Eval(x[0])) != 0 {
				t.Errorf("realization %d, round %d: value %v, f %v", r.Realization, k+1, r.Values[k], fn.Eval(x[0]))
			}
		}
		if sr := r.SimpleRegret[len(r.SimpleRegret)-1]; sr < -1e-3 {
			t.Errorf("realization %d: simple regret %v against the reachable optimum", r.Realization, sr)
		}
	}
}

// TestLoSBOFunctionRefusals: the new keys' errors name the key.
func TestLoSBOFunctionRefusals(t *testing.T) {
	t.Parallel()
	base := losboConfig(t)
	for _, c := range []struct{ name, old, new, key string }{
		{"unknown set", "set: matern32", "set: matern", "problem.function"},
		{"index out of range", "index: 3", "index: 100", "problem.function"},
		{"no index", "index: 3, ", "", "problem.function"},
		{"set on another function", "name: losbo", "name: camelback", "problem.function"},
		{"both noises", "noise_bound: 0.01", "noise_bound: 0.01\n  noise_std: 0.1", "problem.noise_bound"},
		{"negative bound", "noise_bound: 0.01", "noise_bound: -1", "problem.noise_bound"},
		{"box of two intervals", "box: [[", "box: [[0, 1], [", "problem.seed_points.box"},
		{"box outside", "box: [[", "box: [[-1, 0.5], [", "problem.seed_points.box"},
	} {
		y := strings.Replace(base, c.old, c.new, 1)
		_, err := experiment.Parse(strings.NewReader(y), ".")
		if !errors.Is(err, experiment.ErrConfig) || !strings.Contains(err.Error(), c.key) {
			t.Errorf("%s: %v, want ErrConfig naming %s", c.name, err, c.key)
		}
	}
	file := "seed: 1\nrealizations: 1\nhorizon: 5\nproblem:\n  generate: {decision_set: {kind: unit-disk, size: 10}, objective: {kernel: se, lengthscale: 1}, constraints: [{kernel: se, lengthscale: 1}], seed_set: {size: [1, 1], from: safe}}\n  thresholds: [0]\n  noise_bound: 0.1\nmodel: {noise_std: 0.1, delta: 0.01}\nalgorithms: [{name: safeopt, safe_set: gp}]\n"
	if _, err := experiment.Parse(strings.NewReader(file), "."); !errors.Is(err, experiment.ErrConfig) || !strings.Contains(err.Error(), "problem.noise_bound") {
		t.Errorf("noise_bound on a generated problem: %v, want ErrConfig naming problem.noise_bound", err)
	}
}
