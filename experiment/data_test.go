package experiment_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/safegp/safegp/bandit"
	"github.com/safegp/safegp/experiment"
)

// lineProblem writes a 1-D problem file on [0, 4] (f peaks at 3, g ≥ 0
// up to 3.5, seeds at 1 and 1.2), with a noise_std column of the values
// noise gives per action when noise is not nil.
func lineProblem(t *testing.T, dir string, noise func(i int) float64) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("x1,f,g1,seed")
	if noise != nil {
		b.WriteString(",noise_std")
	}
	b.WriteString("\n")
	for i := 0; i <= 20; i++ {
		x := float64(i) / 5
		seed := 0
		if i == 5 || i == 6 {
			seed = 1
		}
		fmt.Fprintf(&b, "%g,%g,%g,%d", x, -(x-3)*(x-3), 1-math.Pow(x/3.5, 4), seed)
		if noise != nil {
			fmt.Fprintf(&b, ",%g", noise(i))
		}
		b.WriteString("\n")
	}
	p := filepath.Join(dir, "line.csv")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// lineConfig is an experiment on lineProblem's file; problem.noise_std
// and the extra problem keys are filled in.
const lineConfig = `seed: 11
realizations: 3
horizon: 25
problem:
  file: line.csv
  thresholds: [0.0]
  epsilon: 0.01
  noise_std: %g
%s
model:
  objective: {kernel: se, lengthscale: 1}
  constraints: [{kernel: se, lengthscale: 1}]
  noise_std: 0.1
  delta: 0.01
algorithms:
  - {name: sgp-ucb, phase1: uniform, exploration: {fixed: 5}}
  - {name: safeopt, safe_set: gp}
  - {name: stageopt, safe_set: lipschitz, lipschitz: auto, exploration: {fixed: 4}}
`

func parseIn(t *testing.T, dir, config string) (*experiment.Config, error) {
	t.Helper()
	return experiment.Parse(strings.NewReader(config), dir)
}

func executeIn(t *testing.T, dir, config string) *experiment.Results {
	t.Helper()
	cfg, err := parseIn(t, dir, config)
	if err != nil {
		t.Fatal(err)
	}
	res, err := experiment.Execute(context.Background(), cfg, experiment.Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestPerActionNoise: a noise_std column of 0.1 everywhere plays exactly
// what problem.noise_std 0.1 does (the same draws, and the told variance
// 0.1² is the model's σ²), while a column of 0 plays exact values and
// tells the policy so: its posterior variance at the action played in
// round 1 is at the jitter floor, not the model's σ² / (1 + σ²).
func TestPerActionNoise(t *testing.T) {
	t.Parallel()
	dir, dir2 := t.TempDir(), t.TempDir()
	lineProblem(t, dir, nil)
	lineProblem(t, dir2, func(int) float64 { return 0.1 })
	plain, _ := json.Marshal(executeIn(t, dir, fmt.Sprintf(lineConfig, 0.1, "")).Runs)
	column, _ := json.Marshal(executeIn(t, dir2, fmt.Sprintf(lineConfig, 0.0, "")).Runs)
	if string(plain) != string(column) {
		t.Error("a noise_std column of 0.1 plays differently from problem.noise_std: 0.1")
	}
	both, err := parseIn(t, dir2, fmt.Sprintf(lineConfig, 0.1, ""))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := both.ReadProblem(); !errors.Is(err, experiment.ErrConfig) || !strings.Contains(err.Error(), "problem.noise_std") {
		t.Errorf("a noise_std column with problem.noise_std 0.1: %v, want ErrConfig naming problem.noise_std", err)
	}

	dir3 := t.TempDir()
	lineProblem(t, dir3, func(i int) float64 { return 0.05 * float64(i%2) }) // exact at even actions
	cfg, err := parseIn(t, dir3, fmt.Sprintf(lineConfig, 0.0, ""))
	if err != nil {
		t.Fatal(err)
	}
	p, err := cfg.LoadProblem()
	if err != nil {
		t.Fatal(err)
	}
	in, err := cfg.Instance(0, p)
	if err != nil {
		t.Fatal(err)
	}
	var first int
	watch := func(round int, pol bandit.Policy) error {
		if round != 1 {
			return nil
		}
		var snap bandit.Snapshot
		pol.Inspect(&snap, bandit.Full)
		sd := snap.F.Std[first]
		want := 0.0
		if first%2 == 1 {
			want = math.Sqrt(0.05 * 0.05 / (1 + 0.05*0.05)) // k(x,x) = 1, one observation of variance σ²
		}
		if math.Abs(sd-want) > 1e-4 {
			t.Errorf("after round 1 at action %d (σ = %g): posterior sd %v, want %v", first, 0.05*float64(first%2), sd, want)
		}
		return nil
	}
	st := cfg.Setting(0, in)
	// Round 1's action: the first ask of the same policy.
	probe, err := bandit.Build(&cfg.Algorithms[0], st.Model, bandit.Domain{Set: st.Set, Truth: st.Truth}, cfg.Setting(0, in).Options)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := probe.Ask()
	first = a.Index
	if _, err := experiment.Play(&cfg.Algorithms[0], st, experiment.OnProblem(in.Problem, in.Info), cfg.Noise(0), watch); err != nil {
		t.Fatal(err)
	}
}

// warmCSV holds earlier measurements for lineProblem: two at points
// between the actions, one at action 7 (x = 1.4), with their own noise.
const warmCSV = "x1,f,g1,noise_std\n1.1,-3.61,0.9905,0.05\n1.4,-2.56,0.9719,0.1\n1.9,-1.21,0.9131,0\n"

// TestWarmStart: every algorithm of every realization is told the file's
// rows before round 1 — they count in β_t's t (the snapshot of round 1
// is round W + 1) and change what is played — while the results cover
// the horizon's rounds only and echo the file in the configuration. Bad
// files and a generated problem are refused with the key named.
func TestWarmStart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	lineProblem(t, dir, nil)
	if err := os.WriteFile(filepath.Join(dir, "warm.csv"), []byte(warmCSV), 0o644); err != nil {
		t.Fatal(err)
	}
	cold := executeIn(t, dir, fmt.Sprintf(lineConfig, 0.1, ""))
	warm := executeIn(t, dir, fmt.Sprintf(lineConfig, 0.1, "  warm_start: warm.csv"))
	if warm.Config.Problem.WarmStart != "warm.csv" {
		t.Errorf("results' config: warm_start %q", warm.Config.Problem.WarmStart)
	}
	b, _ := json.Marshal(warm)
	if !strings.Contains(string(b), `"warm_start":"warm.csv"`) {
		t.Error("results.json does not echo problem.warm_start")
	}
	same := 0
	for k := range warm.Runs {
		if len(warm.Runs[k].Actions) != 25 || len(warm.Runs[k].Regret) != 25 {
			t.Fatalf("run %d: %d actions, want the horizon's 25", k, len(warm.Runs[k].Actions))
		}
		if fmt.Sprint(warm.Runs[k].Actions) == fmt.Sprint(cold.Runs[k].Actions) {
			same++
		}
	}
	if same == len(warm.Runs) {
		t.Error("the warm start changed no run")
	}

	cfg, err := parseIn(t, dir, fmt.Sprintf(lineConfig, 0.1, "  warm_start: warm.csv"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := cfg.LoadProblem()
	if err != nil {
		t.Fatal(err)
	}
	in, _ := cfg.Instance(0, p)
	st := cfg.Setting(0, in)
	if len(st.WarmStart) != 3 || st.WarmStart[1].Index != 7 || st.WarmStart[0].Index != -1 || st.WarmStart[2].NoiseVar <= 0 {
		t.Errorf("warm start as told: %+v", st.WarmStart)
	}
	// The plan counts the rows and the rows of L of those outside the set.
	coldCfg, _ := parseIn(t, dir, fmt.Sprintf(lineConfig, 0.1, ""))
	coldP, _ := coldCfg.ReadProblem()
	planCold, _ := coldCfg.Plan(coldP, 1, 0, false)
	planWarm, _ := cfg.Plan(p, 1, 0, false)
	if planWarm.Bytes <= planCold.Bytes {
		t.Errorf("plan: %d bytes with the warm start, %d without", planWarm.Bytes, planCold.Bytes)
	}
	for i := range cfg.Algorithms {
		watch := func(round int, pol bandit.Policy) error {
			var snap bandit.Snapshot
			pol.Inspect(&snap, bandit.SafeSet)
			if snap.Round != 3+round+1 {
				return fmt.Errorf("after round %d the policy prepares round %d, want %d (3 warm-start observations + %d rounds + 1)", round, snap.Round, 3+round+1, round)
			}
			return nil
		}
		if _, err := experiment.Play(&cfg.Algorithms[i], st, experiment.OnProblem(in.Problem, in.Info), cfg.Noise(0), watch); err != nil {
			t.Error(err)
		}
	}

	for _, c := range []struct{ name, file, extra, want string }{
		{"missing file", "", "  warm_start: none.csv", "problem.warm_start"},
		{"two dimensions", "x1,x2,f,g1\n1,1,1,1\n", "  warm_start: bad.csv", "points of 2 coordinates"},
		{"no constraint", "x1,f\n1,1\n", "  warm_start: bad.csv", "0 constraint columns, the problem has 1"},
		{"negative noise", "x1,f,g1,noise_std\n1,1,1,-1\n", "  warm_start: bad.csv", "line 2, column noise_std"},
		{"NaN", "x1,f,g1\n1,NaN,1\n", "  warm_start: bad.csv", "line 2, column f"},
		{"seed column", "x1,f,g1,seed\n1,1,1,1\n", "  warm_start: bad.csv", "seed column"},
	} {
		if c.file != "" {
			if err := os.WriteFile(filepath.Join(dir, "bad.csv"), []byte(c.file), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		cfg, err := parseIn(t, dir, fmt.Sprintf(lineConfig, 0.1, c.extra))
		if err == nil {
			_, err = experiment.Execute(context.Background(), cfg, experiment.Options{Workers: 1})
		}
		if !errors.Is(err, experiment.ErrConfig) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want ErrConfig mentioning %q", c.name, err, c.want)
		}
	}
	gen := strings.Replace(regimeConfig, "  thresholds: [0.0]", "  thresholds: [0.0]\n  warm_start: warm.csv", 1)
	if _, err := parseIn(t, dir, gen); !errors.Is(err, experiment.ErrConfig) || !strings.Contains(err.Error(), "only with problem.file") {
		t.Errorf("warm start with a generated problem: %v", err)
	}
}
