package experiment_test

import (
	"bytes"
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/safegp/safegp/bandit"
	"github.com/safegp/safegp/kernel"

	"github.com/google/go-cmp/cmp"

	"github.com/safegp/safegp/experiment"
	"github.com/safegp/safegp/internal/racetest"
)

const camelConfig = `seed: 3
realizations: 3
horizon: 30
problem:
  function:
    name: camelback
    decision_set: {grid: {points: [12, 12]}}
  objective_threshold: 0
  noise_std: NOISE
  seed_points: {count: 1, min_f: 0.2}
model:
  objective: {kernel: se, lengthscale: 0.5, variance: 1}
  noise_std: 0.2
  delta: 0.01
  beta: 4
algorithms:
  - {name: line-bo, label: coordinate, direction: coordinate, inner: safeopt, safe_set: gp}
  - {name: line-bo, label: random, direction: random, inner: safeopt, safe_set: gp}
  - {name: safeopt, label: grid, safe_set: gp}
`

func parseFunction(t *testing.T, noise string) *experiment.Config {
	t.Helper()
	c, err := experiment.Parse(strings.NewReader(strings.Replace(camelConfig, "NOISE", noise, 1)), ".")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestFunctionRuns checks the plumbing of a benchmark function's runs:
// points in the box, f at them, the best safe value never decreasing and
// f* − best, deterministic across workers.
func TestFunctionRuns(t *testing.T) {
	t.Parallel()
	c := parseFunction(t, "0.2")
	one, err := experiment.Execute(context.Background(), c, experiment.Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	two, err := experiment.Execute(context.Background(), c, experiment.Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(one.Runs, two.Runs, cmp.AllowUnexported(experiment.Run{})); d != "" {
		t.Fatalf("results depend on workers (-1 +2):\n%s", d)
	}
	if len(one.Runs) != 9 {
		t.Fatalf("%d runs, want 9", len(one.Runs))
	}
	for _, r := range one.Runs {
		if r.Actions != nil || r.Regret != nil || len(r.Points) != 30 || len(r.SimpleRegret) != 30 {
			t.Fatalf("%s/%d: actions %v, regret %d, points %d, simple regret %d", r.Label, r.Realization, r.Actions, len(r.Regret), len(r.Points), len(r.SimpleRegret))
		}
		viol := 0
		for k, x := range r.Points {
			if x[0] < -2 || x[0] > 2 || x[1] < -1 || x[1] > 1 {
				t.Errorf("%s: point %v outside the box", r.Label, x)
			}
			if r.Values[k] < 0 {
				viol++
			}
			if k > 0 && r.BestSafe[k] < r.BestSafe[k-1] {
				t.Errorf("%s: best safe value decreased in round %d", r.Label, k+1)
			}
			if d := 1.0316284534898774 - r.BestSafe[k] - r.SimpleRegret[k]; d > 1e-12 || d < -1e-12 {
				t.Errorf("%s: simple regret %v, best %v", r.Label, r.SimpleRegret[k], r.BestSafe[k])
			}
		}
		if viol != r.Violations {
			t.Errorf("%s: %d violations counted, %d values below 0", r.Label, r.Violations, viol)
		}
		if r.SeedBest == nil || *r.SeedBest < 0.2 || r.BestSafe[0] < *r.SeedBest {
			t.Errorf("%s: seed best %v, best safe value %v after round 1", r.Label, r.SeedBest, r.BestSafe[0])
		}
		if r.BestSafe[0] < 0.2 {
			t.Errorf("%s: best safe value %v below the seed point's min_f", r.Label, r.BestSafe[0])
		}
	}
	csv := experiment.SummaryCSV(experiment.Summarize(one))
	if !bytes.HasPrefix(csv, []byte("label,round,mean_best_safe,se_best_safe,mean_simple_regret,se_simple_regret,mean_violations,mean_share,se_share\ncoordinate,1,")) {
		t.Errorf("summary.csv starts %q", csv[:min(len(csv), 120)])
	}
}

// TestFunctionSafeWithExactObservations: with exact observations and the
// true kernel no run of the built-in benchmarks violates f ≥ h_f. The
// kernel is the benchmark's own, the LineBO code's (se, lengthscale 0.2:
// kirschnj/LineBO config/camelback_constraint.yaml); the test problem's
// lengthscale 0.5 is smoother than camelback, and with it the bounds at
// β = 4 are overconfident: a run then may, and does, violate.
func TestFunctionSafeWithExactObservations(t *testing.T) {
	t.Parallel()
	for _, noise := range []string{"0"} {
		c := parseFunction(t, noise)
		c.Realizations, c.Horizon = 8, 100
		c.Model.Objective.Lengthscale = kernel.Iso(0.2)
		res, err := experiment.Execute(context.Background(), c, experiment.Options{Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res.Runs {
			if r.Violations != 0 {
				t.Errorf("%s, realization %d: %d violations with exact observations", r.Label, r.Realization, r.Violations)
			}
		}
	}
}

func TestFunctionConfigErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, old, new, want string
	}{
		{"unknown function", "name: camelback", "name: branin", "unknown benchmark"},
		{"dimension", "name: camelback", "name: camelback\n    dim: 3", "camelback is 2-dimensional"},
		{"finite algorithm without grid", "    decision_set: {grid: {points: [12, 12]}}\n", "", "algorithms[2]: safeopt plays on a finite decision set"},
		{"seed below threshold", "min_f: 0.2", "min_f: -0.5", "problem.seed_points.min_f: -0.5 is below objective_threshold"},
		{"no seed points", "  seed_points: {count: 1, min_f: 0.2}\n", "", "problem.seed_points: missing"},
		{"unknown key", "seed_points: {count: 1,", "seed_points: {cuont: 1,", "cuont"},
		{"box dimension", "decision_set: {grid", "decision_set: {box: {bounds: [[0, 1]]}, grid", "problem.function.decision_set.box.bounds: 1 intervals"},
		{"constraints", "  objective_threshold: 0\n", "  objective_threshold: 0\n  thresholds: [0]\n", "problem.thresholds"},
		{"given seed outside the box", "seed_points: {count: 1, min_f: 0.2}", "seed_points: [[0, 1.5]]", "problem.seed_points[0]: [0 1.5] is outside the box"},
		{"given seed unsafe", "seed_points: {count: 1, min_f: 0.2}", "seed_points: [[0.1, -0.7], [1.9, 0.9]]", "problem.seed_points[1]: f = -2.5 there, below objective_threshold 0"},
		{"given seed of another dimension", "seed_points: {count: 1, min_f: 0.2}", "seed_points: [[0.1]]", "a point of 1 coordinates for camelback in 2 dimensions"},
		{"given and drawn", "seed_points: {count: 1, min_f: 0.2}", "seed_points: {count: 1, points: [[0.1, -0.7]]}", "give the points, or count and min_f"},
		{"line-bo key on safeopt", "{name: safeopt, label: grid, safe_set: gp}", "{name: safeopt, label: grid, direction: random}", "direction: not an option of safeopt"},
		{"function and file", "  objective_threshold: 0\n", "  objective_threshold: 0\n  file: p.csv\n", "problem: give one of file, generate and function"},
		{"seed actions", "  objective_threshold: 0\n", "  objective_threshold: 0\n  seed_actions: [0]\n", "problem.seed_actions: only for a problem file"},
		{"warm start", "  objective_threshold: 0\n", "  objective_threshold: 0\n  warm_start: w.csv\n", "problem.warm_start: only with problem.file"},
		{"contexts", "  objective_threshold: 0\n", "  objective_threshold: 0\n  context: {names: [c], values: [[0]], kernel: {kernel: se, lengthscale: 1}}\n", "problem.context: only with problem.generate"},
		{"box bound reversed", "decision_set: {grid", "decision_set: {box: {bounds: [[-2, 2], [1, -1]]}, grid", "problem.function.decision_set.box.bounds[1]: want finite lo < hi"},
		{"box bound infinite", "decision_set: {grid", "decision_set: {box: {bounds: [[-2, 2], [-1, 1e101]]}, grid", "problem.function.decision_set.box.bounds[1]: want finite lo < hi"},
		{"grid counts", "points: [12, 12]", "points: [12]", "problem.function.decision_set.grid.points: 1 counts for camelback in 2 dimensions"},
		{"grid too large", "points: [12, 12]", "points: [100000, 100000]", "problem.function.decision_set.grid"},
		{"seed count", "count: 1,", "count: 0,", "problem.seed_points.count: want 1…1000, got 0"},
		{"seed count large", "count: 1,", "count: 1001,", "problem.seed_points.count: want 1…1000, got 1001"},
		{"seed tries", "min_f: 0.2}", "min_f: 0.2, max_tries: -1}", "problem.seed_points.max_tries: must be ≥ 0"},
		{"no given seeds", "seed_points: {count: 1, min_f: 0.2}", "seed_points: []", "problem.seed_points: want 1…1000 points, got 0"},
		{"model", "  delta: 0.01\n", "  delta: 2\n", "model.delta"},
		{"model dimension", "lengthscale: 0.5,", "lengthscale: [0.5, 0.5, 0.5],", "model.objective"},
		{"oracle", "  - {name: safeopt, label: grid, safe_set: gp}\n", "  - {name: gp-ucb-oracle}\n", "algorithms[2]: gp-ucb-oracle needs a true safe set of the grid"},
		{"information-gain bound on a box", "  beta: 4\n", "  beta: {rkhs_norm: 1, noise_bound: 0.2, bound: chowdhury-gopalan}\n", "algorithms[0]: line-bo plays on a box, and model.beta's bound chowdhury-gopalan counts the actions"},
		{"noise", "  noise_std: 0.2\n  seed_points", "  noise_std: -1\n  seed_points", "problem.noise_std"},
		{"epsilon", "  objective_threshold: 0\n", "  objective_threshold: 0\n  epsilon: -0.5\n", "problem.epsilon"},
		{"fit", "  beta: 4\n", "  beta: 4\n  fit: {when: {every: 5}}\n", "model.fit: not offered with problem.function"},
		{"gp-sample on a box", "name: camelback\n    decision_set: {grid", "name: gp-sample\n    dim: 2\n    decision_set: {box: {bounds: [[0, 1], [0, 1]]}, grid", "problem.function.decision_set.box: gp-sample is drawn on [0, 1]^dim"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := strings.Replace(strings.Replace(camelConfig, "NOISE", "0.2", 1), c.old, c.new, 1)
			_, err := experiment.Parse(strings.NewReader(cfg), ".")
			if !errors.Is(err, experiment.ErrConfig) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want ErrConfig mentioning %q", err, c.want)
			}
		})
	}
	// line-bo on a finite problem.
	cfg := strings.Replace(regimeConfig, "algorithms:\n", "algorithms:\n  - {name: line-bo, direction: random}\n", 1)
	if _, err := experiment.Parse(strings.NewReader(cfg), "."); err == nil || !strings.Contains(err.Error(), "line-bo plays on a box") {
		t.Errorf("line-bo on a finite problem: %v", err)
	}
	// seed_points on a generated problem.
	cfg = strings.Replace(regimeConfig, "problem:\n", "problem:\n  seed_points: {count: 1, min_f: 0}\n", 1)
	if _, err := experiment.Parse(strings.NewReader(cfg), "."); !errors.Is(err, experiment.ErrConfig) || !strings.Contains(err.Error(), "problem.seed_points: only with problem.function") {
		t.Errorf("seed_points on a generated problem: %v", err)
	}
}

// TestSeedPointsCap: an unreachable min_f fails with ErrNoSeedPoint.
func TestSeedPointsCap(t *testing.T) {
	t.Parallel()
	cfg := strings.Replace(strings.Replace(camelConfig, "NOISE", "0", 1), "min_f: 0.2}", "min_f: 1.5, max_tries: 1000}", 1)
	c, err := experiment.Parse(strings.NewReader(cfg), ".")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := experiment.Execute(context.Background(), c, experiment.Options{Workers: 1}); !errors.Is(err, experiment.ErrNoSeedPoint) {
		t.Errorf("got %v, want ErrNoSeedPoint", err)
	}
}

// BenchmarkHartmann6Example runs examples/linebo-hartmann6.yaml's line-bo
// runs (10 repetitions × T = 400, three direction rules; the example's
// safeopt-swarm runs left out) on two workers: the budget is 30 s
// on two cores (measured: BENCHMARKS.md).
func BenchmarkHartmann6Example(b *testing.B) {
	c, err := experiment.Load("../examples/linebo-hartmann6.yaml")
	if err != nil {
		b.Fatal(err)
	}
	c.Algorithms = slices.DeleteFunc(c.Algorithms, func(a bandit.Spec) bool { return a.Name != bandit.LineBO })
	for b.Loop() {
		if _, err := experiment.Execute(context.Background(), c, experiment.Options{Workers: 2}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestFunctionsSafeWithExactObservations: the same for every built-in
// benchmark, line-bo with each direction rule: exact observations, the
// LineBO code's kernel (se, ℓ = 0.2, v = 1), β = 4, its thresholds
// (hartmann6: f ≥ 0.3 with seeds at f ≥ 0.5, config/hartmann6_constraint.yaml;
// gaussian, which has no constrained config there: f ≥ 0.1 with seeds at
// f ≥ 0.2), 6 seeds × 150 evaluations.
func TestFunctionsSafeWithExactObservations(t *testing.T) {
	t.Parallel()
	racetest.Long(t, "54 line-bo runs take 14 s")
	if testing.Short() {
		t.Skip("runs 54 line-bo runs")
	}
	for _, c := range []struct{ function, hf, minF string }{
		{"{name: camelback}", "0", "0.2"},
		{"{name: hartmann6}", "0.3", "0.5"},
		{"{name: gaussian, dim: 3}", "0.1", "0.2"},
	} {
		t.Run(c.function, func(t *testing.T) {
			cfg := `seed: 5
realizations: 6
horizon: 150
problem:
  function: ` + c.function + `
  objective_threshold: ` + c.hf + `
  noise_std: 0
  seed_points: {count: 1, min_f: ` + c.minF + `}
model:
  objective: {kernel: se, lengthscale: 0.2, variance: 1}
  noise_std: 0.2
  delta: 0.01
  beta: 4
algorithms:
  - {name: line-bo, label: coordinate, direction: coordinate}
  - {name: line-bo, label: random, direction: random}
  - {name: line-bo, label: ascent, direction: ascent}
`
			conf, err := experiment.Parse(strings.NewReader(cfg), ".")
			if err != nil {
				t.Fatal(err)
			}
			res, err := experiment.Execute(context.Background(), conf, experiment.Options{Workers: 2})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range res.Runs {
				if r.Violations != 0 {
					t.Errorf("%s, realization %d: %d violations with exact observations", r.Label, r.Realization, r.Violations)
				}
			}
		})
	}
}

// TestFunctionGivenSeeds: seed points given as a list (as a study's) are
// every realization's seeds: each run starts its best safe value there.
func TestFunctionGivenSeeds(t *testing.T) {
	t.Parallel()
	for _, form := range []string{"seed_points: [[0.1, -0.7]]", "seed_points: {points: [[0.1, -0.7]]}"} {
		cfg := strings.Replace(strings.Replace(camelConfig, "NOISE", "0", 1), "seed_points: {count: 1, min_f: 0.2}", form, 1)
		c, err := experiment.Parse(strings.NewReader(cfg), ".")
		if err != nil {
			t.Fatalf("%s: %v", form, err)
		}
		res, err := experiment.Execute(context.Background(), c, experiment.Options{Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		// f(0.1, −0.7) of the clipped, negated six-hump camel, by hand:
		// camel = (4 − 2.1·0.01 + 0.0001/3)·0.01 + 0.1·(−0.7) + (−4 + 4·0.49)·0.49.
		want := -((4-2.1*0.01+0.0001/3)*0.01 + 0.1*(-0.7) + (-4+4*0.49)*0.49)
		for _, r := range res.Runs {
			if r.Label != "grid" && math.Abs(r.BestSafe[0]-want) > 1e-12 && r.BestSafe[0] < want {
				t.Errorf("%s %s, realization %d: best safe value %v at round 1, below the seed's f %v", form, r.Label, r.Realization, r.BestSafe[0], want)
			}
		}
	}
}

// TestGPSampleProblem: problem.function gp-sample draws each realization's
// own function from the model's kernel — 0 at the centre, the given seed,
// a reference optimum per draw (f* = best safe + simple regret, the same
// in every round of a run and across the algorithms of a realization,
// different between realizations) — and refuses a kernel it cannot draw.
func TestGPSampleProblem(t *testing.T) {
	t.Parallel()
	racetest.Long(t, "GP samples in 3-D and their runs take 24 s")
	y := `seed: 3
realizations: 3
horizon: 12
problem:
  function: {name: gp-sample, dim: 3}
  objective_threshold: -0.5
  noise_std: 0.05
  seed_points: [[0.5, 0.5, 0.5]]
model:
  objective: {kernel: se, lengthscale: 0.4, variance: 1}
  noise_std: 0.05
  delta: 0.01
  beta: 4
algorithms:
  - {name: line-bo, label: coordinate-linebo, direction: coordinate, inner: safeopt, safe_set: gp}
  - {name: safeopt-swarm, iterations: 10}
`
	c, err := experiment.Parse(strings.NewReader(y), ".")
	if err != nil {
		t.Fatal(err)
	}
	res, err := experiment.Execute(context.Background(), c, experiment.Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	fstar := map[int]float64{}
	for _, run := range res.Runs {
		if run.BestSafe[0] < 0 {
			t.Errorf("%s, realization %d: best safe %v before the seed's 0", run.Label, run.Realization, run.BestSafe[0])
		}
		for k := range run.BestSafe {
			f := run.BestSafe[k] + run.SimpleRegret[k]
			if old, ok := fstar[run.Realization]; ok && math.Abs(old-f) > 1e-12 {
				t.Errorf("%s, realization %d, round %d: f* %v, elsewhere %v", run.Label, run.Realization, k+1, f, old)
			}
			fstar[run.Realization] = f
		}
	}
	if len(fstar) != 3 || fstar[0] == fstar[1] || fstar[1] == fstar[2] {
		t.Errorf("reference optima %v: want one per realization, each its own", fstar)
	}
	bad := strings.Replace(y, "kernel: se,", "kernel: matern52,", 1)
	if _, err := experiment.Parse(strings.NewReader(bad), "."); err == nil || !strings.Contains(err.Error(), "se kernel") {
		t.Errorf("a matern52 model: %v, want a refusal naming the se kernel", err)
	}
}

// TestShare checks the share of the way from the seeds to f* against its
// definition, (best − f_0)/(f* − f_0), on hand-made runs: realization 0
// with f_0 = 0.2 and f* = 1, realization 1 with f_0 = −1 and f* = 3, and
// a seed already optimal (share 1). Exact: the values are dyadic.
func TestShare(t *testing.T) {
	t.Parallel()
	f := func(v float64) *float64 { return &v }
	run := func(label string, f0 *float64, best, simple []float64) experiment.Run {
		return experiment.Run{Label: label, Points: make([][]float64, len(best)), Values: make([]float64, len(best)), BestSafe: best, SimpleRegret: simple, SeedBest: f0}
	}
	for _, tc := range []struct {
		name      string
		runs      []experiment.Run
		mean, sem []float64 // nil: no share
	}{
		{"two draws", []experiment.Run{
			run("a", f(0.25), []float64{0.25, 0.625, 1}, []float64{0.75, 0.375, 0}),
			run("a", f(-1), []float64{-1, 1, 1}, []float64{4, 2, 2}),
		}, []float64{0, 0.5, 0.75}, []float64{0, 0, 0.25}},
		{"seed optimal", []experiment.Run{run("a", f(2), []float64{2, 2}, []float64{0, 0})}, []float64{1, 1}, []float64{0, 0}},
		{"no seed recorded", []experiment.Run{run("a", nil, []float64{0, 1}, []float64{1, 0})}, nil, nil},
		{"no f*", []experiment.Run{run("a", f(0), []float64{0, 1}, nil)}, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := experiment.Summarize(&experiment.Results{Runs: tc.runs})
			if len(c) != 1 {
				t.Fatalf("%d curves", len(c))
			}
			if diff := cmp.Diff(tc.mean, c[0].MeanShare); diff != "" {
				t.Errorf("mean share (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.sem, c[0].SEShare); diff != "" {
				t.Errorf("standard error (-want +got):\n%s", diff)
			}
		})
	}
}
