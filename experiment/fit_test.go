package experiment_test

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"sort"
	"strings"
	"testing"

	"github.com/safegp/safegp/experiment"
	"github.com/safegp/safegp/theory"
)

// fitConfig is a drawn 2-D problem, f and g from SE GPs of lengthscale
// 0.5, with a model of lengthscale 0.2 (misspecified) that model.fit
// (the %s block) re-estimates. SGP-UCB samples its safe set uniformly for
// 60 rounds, so that the fits see points spread over it.
const fitConfig = `seed: 11
realizations: 4
horizon: 80
problem:
  generate:
    decision_set: {kind: unit-disk, size: 150}
    objective: {kernel: se, lengthscale: 0.5}
    constraints: [{kernel: se, lengthscale: 0.5}]
    seed_set: {size: [5, 5], from: safe}
  thresholds: [-0.8]
  epsilon: 0.01
  noise_std: 0.05
model:
  objective: {kernel: se, lengthscale: 0.2}
  constraints: [{kernel: se, lengthscale: 0.2}]
  noise_std: 0.05
  delta: 0.01
  fit: %s
algorithms:
  - {name: sgp-ucb, phase1: uniform, exploration: {fixed: 60}}
`

func parseFit(t *testing.T, fit string) *experiment.Config {
	t.Helper()
	c, err := experiment.Parse(strings.NewReader(strings.Replace(fitConfig, "%s", fit, 1)), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestFitDeterministicAndRecorded: a run with model.fit gives the same
// results.json with 1 and 2 workers, and records its fits at the rounds
// the rule says: every: 20 after the first at min_points = |D^w| = 5
// observations, that is before rounds 6, 26, 46 and 66.
func TestFitDeterministicAndRecorded(t *testing.T) {
	t.Parallel()
	c := parseFit(t, "{when: {every: 20}, restarts: 2}")
	var out [2][]byte
	for k, w := range []int{1, 2} {
		res, err := experiment.Execute(context.Background(), c, experiment.Options{Workers: w})
		if err != nil {
			t.Fatal(err)
		}
		out[k], _ = json.Marshal(res)
		for _, run := range res.Runs {
			var rounds []int
			for _, f := range run.Fits {
				rounds = append(rounds, f.Round)
				if f.Skipped != "" || f.Objective == nil || len(f.LML) != 2 || f.Points != f.Round-1 {
					t.Errorf("realization %d: fit %+v: want both GPs fitted on the rounds before it", run.Realization, f)
				}
			}
			if want := []int{6, 26, 46, 66}; !equalInts(rounds, want) {
				t.Errorf("realization %d: fits before rounds %v, want %v", run.Realization, rounds, want)
			}
		}
	}
	if string(out[0]) != string(out[1]) {
		t.Error("results differ between 1 and 2 workers")
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestFitRecoversLengthscale: on functions drawn from SE GPs of
// lengthscale 0.5, a fit on the 79 observations before the last round
// recovers it within a factor 3 in the median over realizations, from a
// model that started at 0.2. The factor: package fit recovers drawing
// lengthscales within 1.5 at t = 300 points spread over the domain
// (fit/sklearn_test.go); here the points are fewer (79), noisy, and only
// on the safe set, part of the unit disk, which leaves lengthscales
// larger than the set poorly identified — so twice that tolerance.
func TestFitRecoversLengthscale(t *testing.T) {
	t.Parallel()
	c := parseFit(t, "{when: seed, min_points: 79}")
	res, err := experiment.Execute(context.Background(), c, experiment.Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	for j, name := range []string{"f", "g1"} {
		var ls []float64
		for _, run := range res.Runs {
			if len(run.Fits) != 1 || run.Fits[0].Skipped != "" {
				t.Fatalf("realization %d: fits %+v, want one", run.Realization, run.Fits)
			}
			s := run.Fits[0].Objective
			if j > 0 {
				s = &run.Fits[0].Constraints[0]
			}
			ls = append(ls, s.Lengthscale[0])
		}
		sort.Float64s(ls)
		med := (ls[1] + ls[2]) / 2
		t.Logf("%s: fitted lengthscales %.3g, median %.3g, drawn with 0.5", name, ls, med)
		if math.Abs(math.Log(med/0.5)) > math.Log(3) {
			t.Errorf("%s: median fitted lengthscale %.3g, drawn with 0.5: off by more than a factor 3", name, med)
		}
	}
}

// TestFitConfigErrors: a fit block where the true kernel is required, or
// of a kernel a fit cannot re-estimate, is one error naming the keys; and
// bound refuses a configuration that refits.
func TestFitConfigErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, edit, want string }{
		{"theory", "exploration: {fixed: 60}", "exploration: theory"},
		{"linear", "constraints: [{kernel: se, lengthscale: 0.2}]", "constraints: [{kernel: linear}]"},
	} {
		cfg := strings.Replace(strings.Replace(fitConfig, "%s", "{when: seed}", 1), tc.edit, tc.want, 1)
		_, err := experiment.Parse(strings.NewReader(cfg), t.TempDir())
		key := map[string]string{"theory": "algorithms[0].exploration", "linear": "model.constraints[0].kernel"}[tc.name]
		if !errors.Is(err, experiment.ErrConfig) || !strings.Contains(err.Error(), key) {
			t.Errorf("%s: %v, want ErrConfig naming %s", tc.name, err, key)
		}
	}
	// A generated problem's drawing kernels are the model's by default.
	cfg := strings.Replace(strings.Replace(fitConfig, "%s", "{when: seed}", 1), "  objective: {kernel: se, lengthscale: 0.2}\n", "", 1)
	cfg = strings.Replace(cfg, "objective: {kernel: se, lengthscale: 0.5}", "objective: {kernel: linear}", 1)
	if _, err := experiment.Parse(strings.NewReader(cfg), t.TempDir()); !errors.Is(err, experiment.ErrConfig) || !strings.Contains(err.Error(), "problem.generate.objective.kernel") {
		t.Errorf("drawn linear objective: %v, want ErrConfig naming problem.generate.objective.kernel", err)
	}
	c := parseFit(t, "{when: seed}")
	if _, err := experiment.Bound(c, 0, theory.Features{}); !errors.Is(err, experiment.ErrConfig) || !strings.Contains(err.Error(), "model.fit") {
		t.Errorf("bound with model.fit: %v, want ErrConfig naming model.fit", err)
	}
	// when: never is the configured model throughout, and bound works.
	c = parseFit(t, "{when: never}")
	if _, err := experiment.Bound(c, 0, theory.Features{}); err != nil {
		t.Errorf("bound with when: never: %v", err)
	}
}
