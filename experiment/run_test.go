package experiment_test

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/safegp/safegp/experiment"
)

const regimeConfig = `seed: 5
realizations: 6
horizon: 60
problem:
  generate:
    decision_set: {kind: unit-disk, size: 50}
    objective: {kernel: se, lengthscale: 1}
    constraints: [{kernel: se, lengthscale: 0.2}]
    seed_set: {size: [3, 8], from: safe}
  thresholds: [0.0]
  epsilon: 0.01
  noise_std: 0.1
model:
  noise_std: 0.1
  delta: 0.01
algorithms:
  - {name: sgp-ucb, phase1: uniform, exploration: {plateau: {window: 10, cap: 30}}}
  - {name: naive-sgp-ucb}
  - {name: gp-ucb-oracle}
`

func execute(t *testing.T, config string, workers int) *experiment.Results {
	t.Helper()
	cfg, err := experiment.Parse(strings.NewReader(config), ".")
	if err != nil {
		t.Fatal(err)
	}
	res, err := experiment.Execute(context.Background(), cfg, experiment.Options{Workers: workers})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestDeterministicAcrossWorkers(t *testing.T) {
	t.Parallel()
	one, err := json.Marshal(execute(t, regimeConfig, 1))
	if err != nil {
		t.Fatal(err)
	}
	two, _ := json.Marshal(execute(t, regimeConfig, 2))
	five, _ := json.Marshal(execute(t, regimeConfig, 5))
	if string(one) != string(two) || string(one) != string(five) {
		t.Error("results.json differs between worker counts")
	}
}

func TestRemovingAnAlgorithmLeavesOthersUnchanged(t *testing.T) {
	t.Parallel()
	all := execute(t, regimeConfig, 2)
	fewer := execute(t, strings.Replace(regimeConfig, "  - {name: naive-sgp-ucb}\n", "", 1), 2)
	byKey := func(res *experiment.Results) map[string]experiment.Run {
		m := map[string]experiment.Run{}
		for _, r := range res.Runs {
			b, _ := json.Marshal(r.Realization)
			m[r.Label+"/"+string(b)] = r
		}
		return m
	}
	a, f := byKey(all), byKey(fewer)
	if len(f) != 12 || len(a) != 18 {
		t.Fatalf("%d and %d runs", len(a), len(f))
	}
	for k, r := range f {
		if d := cmp.Diff(a[k], r, cmp.AllowUnexported(experiment.Run{})); d != "" {
			t.Errorf("%s changed when another algorithm was removed:\n%s", k, d)
		}
	}
}

func TestRunsAreConsistent(t *testing.T) {
	t.Parallel()
	// Every run has T entries; regret is f(x*) − f(x_t) ≥ the oracle's
	// floor; the oracle never violates; phase lengths are within the cap.
	res := execute(t, regimeConfig, 2)
	if len(res.Runs) != 18 {
		t.Fatalf("%d runs", len(res.Runs))
	}
	for _, r := range res.Runs {
		if len(r.Actions) != 60 || len(r.Regret) != 60 || len(r.SafeSetSize) != 60 || len(r.ReachableRegret) != 60 {
			t.Fatalf("%s/%d: wrong lengths", r.Label, r.Realization)
		}
		if r.Label == "gp-ucb-oracle" && r.Violations != 0 {
			t.Errorf("oracle violated %d times", r.Violations)
		}
		if r.Label == "sgp-ucb" {
			if want := plateauLength(r.SafeSetSize, 10, 30); r.ExplorationRounds != want {
				t.Errorf("sgp-ucb realization %d: T' = %d, the plateau rule on its |D^s_t| %v gives %d", r.Realization, r.ExplorationRounds, r.SafeSetSize[:min(want+2, len(r.SafeSetSize))], want)
			}
		}
		if r.Label == "naive-sgp-ucb" && r.ExplorationRounds != 0 {
			t.Errorf("naive T' = %d", r.ExplorationRounds)
		}
	}
}

// plateauLength applies SPEC §4's plateau rule to a run's recorded safe-set
// sizes (size[t-1] = |D^s_t|): phase 1 ends after the first round t ≥
// window at which |D^s_{t+1−window}| = … = |D^s_{t+1}| (window + 1 equal
// sizes), or after round cap, or at the horizon.
func plateauLength(size []int, window, cap int) int {
	for t := window; t < len(size); t++ {
		if t >= cap {
			return cap
		}
		same := true
		for k := t - window; k < t; k++ { // size[k] is |D^s_{k+1}|
			if size[k] != size[t] {
				same = false
				break
			}
		}
		if same {
			return t
		}
	}
	return min(cap, len(size))
}

func TestSummarizeHand(t *testing.T) {
	t.Parallel()
	// Two realizations with regrets (1, 1) and (3, 1): R_t/t is (1, 1) and
	// (3, 2); mean (2, 1.5); sample std (√2, √0.5).
	res := &experiment.Results{Runs: []experiment.Run{
		{Label: "a", Regret: []float64{1, 1}, ReachableRegret: []float64{0, 0}},
		{Label: "a", Regret: []float64{3, 1}, ReachableRegret: []float64{0, 2}},
	}}
	c := experiment.Summarize(res)
	if len(c) != 1 {
		t.Fatalf("%d curves", len(c))
	}
	want := []float64{2, 1.5, math.Sqrt2, math.Sqrt(0.5), 0, 0.5}
	got := []float64{c[0].MeanAvg[0], c[0].MeanAvg[1], c[0].StdAvg[0], c[0].StdAvg[1], c[0].MeanAvgReach[0], c[0].MeanAvgReach[1]}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-12 {
			t.Errorf("value %d: %v, want %v", i, got[i], want[i])
		}
	}
	csv := string(experiment.SummaryCSV(c))
	if !strings.HasPrefix(csv, "label,round,mean_avg_regret,std_avg_regret,") || !strings.Contains(csv, "\na,2,1.5,") {
		t.Errorf("summary.csv:\n%s", csv)
	}
}
