package experiment_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/safegp/safegp/experiment"
)

// violConfig makes SGP-UCB and naive SGP-UCB violate: the learner's
// constraint kernel (ℓ = 1) is far smoother than the one g is drawn from
// (ℓ = 0.2) and β = 0.01 leaves almost no margin, so the model declares
// actions safe that are not. The oracle, restricted to D^s_0, never
// violates.
const violConfig = `seed: 3
realizations: 3
horizon: 40
problem:
  generate:
    decision_set: {kind: unit-disk, size: 40}
    objective: {kernel: se, lengthscale: 1}
    constraints: [{kernel: se, lengthscale: 0.2}]
    seed_set: {size: [3, 6], from: safe}
  thresholds: [0.0]
  epsilon: 0.01
  noise_std: 0.1
model:
  objective: {kernel: se, lengthscale: 1}
  constraints: [{kernel: se, lengthscale: 1}]
  noise_std: 0.1
  delta: 0.01
  beta: 0.01
algorithms:
  - {name: sgp-ucb, phase1: uniform, exploration: {plateau: {window: 5, cap: 20}}}
  - {name: naive-sgp-ucb}
  - {name: gp-ucb-oracle}
`

// unsafeRounds recomputes, from a run's actions and the true problem of its
// realization, the 0-based rounds whose action has g_i(x_t) < h_i for some
// i (SPEC §1's violation), without asking the package how it counted.
func unsafeRounds(t *testing.T, cfg *experiment.Config, r experiment.Run) []int {
	t.Helper()
	in, err := cfg.Instance(r.Realization, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := in.Problem
	var rounds []int
	for k, a := range r.Actions {
		for i := range p.G {
			if p.G[i][a] < p.H[i] {
				rounds = append(rounds, k)
				break
			}
		}
	}
	return rounds
}

// TestViolationsCounted: Run.Violations is the number of rounds that played
// an action unsafe for the true constraints, and summary.csv's
// mean_violations at round t is the mean over realizations of the
// violations up to t — both recomputed here from the actions played.
// The case must produce violations (else a counter stuck at 0 passes).
func TestViolationsCounted(t *testing.T) {
	t.Parallel()
	cfg, err := experiment.Parse(strings.NewReader(violConfig), ".")
	if err != nil {
		t.Fatal(err)
	}
	res, err := experiment.Execute(context.Background(), cfg, experiment.Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	T := cfg.Horizon
	// want[label][t]: Σ over realizations of the violations up to round t+1.
	want := map[string][]float64{}
	n := map[string]float64{}
	total := 0
	for _, r := range res.Runs {
		rounds := unsafeRounds(t, cfg, r)
		total += len(rounds)
		if r.Violations != len(rounds) {
			t.Errorf("%s realization %d: Violations = %d, recomputed %d (rounds %v)", r.Label, r.Realization, r.Violations, len(rounds), rounds)
		}
		if r.Label == "gp-ucb-oracle" && len(rounds) != 0 {
			t.Errorf("the oracle played unsafe actions in rounds %v", rounds)
		}
		if want[r.Label] == nil {
			want[r.Label] = make([]float64, T)
		}
		n[r.Label]++
		k := 0
		for s := range T {
			for k < len(rounds) && rounds[k] <= s {
				k++
			}
			want[r.Label][s] += float64(k)
		}
	}
	if total < 5 {
		t.Fatalf("test premise: the case should violate in several rounds, got %d", total)
	}
	check := func(where string, label string, got []float64) {
		t.Helper()
		w := want[label]
		if len(got) != T {
			t.Fatalf("%s %s: %d rounds", where, label, len(got))
		}
		for s := range T {
			// A mean of at most 3 small integers: exact in binary up to
			// the division, so 1e-12 absolute is rounding only.
			if m := w[s] / n[label]; math.Abs(got[s]-m) > 1e-12 {
				t.Fatalf("%s %s round %d: mean violations %v, recomputed %v", where, label, s+1, got[s], m)
			}
		}
	}
	for _, c := range experiment.Summarize(res) {
		check("Summarize", c.Label, c.Violations)
	}

	// The streaming writer keeps its own summary: check its summary.csv.
	dir := filepath.Join(t.TempDir(), "out")
	if _, err := experiment.ExecuteToDir(context.Background(), cfg, experiment.Options{Workers: 2}, dir, experiment.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "summary.csv"))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(bytes.NewReader(raw)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	fromCSV := map[string][]float64{}
	for _, row := range rows[1:] {
		v, err := strconv.ParseFloat(row[col["mean_violations"]], 64)
		if err != nil {
			t.Fatal(err)
		}
		fromCSV[row[col["label"]]] = append(fromCSV[row[col["label"]]], v)
	}
	if len(fromCSV) != len(want) {
		t.Fatalf("summary.csv has %d labels, want %d", len(fromCSV), len(want))
	}
	for label, v := range fromCSV {
		check("summary.csv", label, v)
	}
}

// TestPlayCountsViolations drives Play directly on one realization, so
// that a counter broken in Play is caught even if Execute changed.
func TestPlayCountsViolations(t *testing.T) {
	t.Parallel()
	cfg, err := experiment.Parse(strings.NewReader(violConfig), ".")
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for r := range cfg.Realizations {
		in, err := cfg.Instance(r, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i := range cfg.Algorithms {
			run, err := experiment.Play(&cfg.Algorithms[i], cfg.Setting(r, in), experiment.OnProblem(in.Problem, in.Info), cfg.Noise(r), nil)
			if err != nil {
				t.Fatal(err)
			}
			run.Realization = r
			want := len(unsafeRounds(t, cfg, *run))
			seen += want
			if run.Violations != want {
				t.Errorf("%s realization %d: Violations = %d, recomputed %d", run.Label, r, run.Violations, want)
			}
		}
	}
	if seen == 0 {
		t.Fatal("test premise: no violation in any run")
	}
}
