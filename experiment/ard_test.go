package experiment_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/safegp/safegp/experiment"
	"github.com/safegp/safegp/kernel"
	"github.com/safegp/safegp/theory"
)

// fileConfig is an experiment on the 2-D problem file p.csv with the
// given model kernels.
func fileConfig(kernels string) string {
	return `seed: 1
realizations: 1
horizon: 20
problem: {file: p.csv, thresholds: [0], noise_std: 0.1}
model:
` + kernels + `
  noise_std: 0.1
  delta: 0.01
algorithms:
  - {name: sgp-ucb, phase1: uniform, exploration: {fixed: 5}}
`
}

// writeProblem writes a 2-D problem file of 9 actions into dir.
func writeProblem(t *testing.T, dir string) {
	t.Helper()
	csv := "x1,x2,f,g1,seed\n"
	for i := range 9 {
		x1, x2 := float64(i%3)/2, float64(i/3)/2
		csv += strings.Join([]string{ftoa(x1), ftoa(x2), ftoa(x1 - x2), ftoa(1 - x1), map[bool]string{true: "1", false: "0"}[i == 0]}, ",") + "\n"
	}
	if err := os.WriteFile(filepath.Join(dir, "p.csv"), []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
}

func ftoa(v float64) string { b, _ := json.Marshal(v); return string(b) }

// TestFileProblemARDDimension: a problem file's dimension is known once it
// is read; a lengthscale list of another length is one error naming the
// key, before anything runs or is written, in run, stream and bound alike.
// One per dimension runs.
func TestFileProblemARDDimension(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeProblem(t, dir)
	bad := fileConfig("  objective: {kernel: se, lengthscale: 1}\n  constraints: [{kernel: matern52, lengthscale: [0.5, 0.5, 0.5]}]")
	cfg, err := experiment.Parse(strings.NewReader(bad), dir)
	if err != nil {
		t.Fatal(err) // the file is not read at Parse
	}
	want := "model.constraints[0].lengthscale: 3 lengthscales for 2 input dimensions: give one, or one per dimension"
	check := func(what string, err error) {
		t.Helper()
		if err == nil || err.Error() != want || !errors.Is(err, experiment.ErrConfig) || !errors.Is(err, kernel.ErrInvalid) {
			t.Errorf("%s: got %v, want ErrConfig and kernel.ErrInvalid %q", what, err, want)
		}
	}
	_, err = experiment.Execute(context.Background(), cfg, experiment.Options{Workers: 1})
	check("Execute", err)
	out := filepath.Join(dir, "out")
	_, err = experiment.ExecuteToDir(context.Background(), cfg, experiment.Options{Workers: 1}, out, experiment.WriteOptions{})
	check("ExecuteToDir", err)
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("the refused run left %d entries in %s, want only p.csv", len(entries), dir)
	}
	_, err = experiment.Bound(cfg, 0, theory.Features{})
	check("Bound", err)

	good := fileConfig("  objective: {kernel: se, lengthscale: [1, 2]}\n  constraints: [{kernel: matern52, lengthscale: [0.5, 0.25]}]")
	if cfg, err = experiment.Parse(strings.NewReader(good), dir); err != nil {
		t.Fatal(err)
	}
	if _, err := experiment.Execute(context.Background(), cfg, experiment.Options{Workers: 1}); err != nil {
		t.Errorf("one lengthscale per dimension: %v", err)
	}
}

// TestNoisePerGP: a kernel block's noise_std is the σ of that function's
// GP, the model's noise_std the rest's; the problem's (simulated) noise is
// not either. The echoed configuration keeps the block's noise_std and a
// lengthscale list as a list.
func TestNoisePerGP(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, model string
		want        []float64 // the σ per GP
		echo        []any     // each echoed block's noise_std, nil: none
	}{
		{"none", "", nil, []any{nil, nil}},
		{"constraint", "  constraints: [{kernel: se, lengthscale: 0.2, noise_std: 0.05}]\n", []float64{0.1, 0.05}, []any{nil, 0.05}},
		{"objective", "  objective: {kernel: se, lengthscale: [1, 0.5], noise_std: 0.3}\n", []float64{0.3, 0.1}, []any{0.3, nil}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			config := strings.Replace(regimeConfig, "model:\n", "model:\n"+c.model, 1)
			config = strings.Replace(config, "  noise_std: 0.1\nmodel:", "  noise_std: 0.7\nmodel:", 1) // the simulated noise
			cfg, err := experiment.Parse(strings.NewReader(config), ".")
			if err != nil {
				t.Fatal(err)
			}
			in, err := cfg.Instance(0, nil)
			if err != nil {
				t.Fatal(err)
			}
			st := cfg.Setting(0, in)
			if diff := cmp.Diff(c.want, st.Model.NoiseStds); diff != "" || st.Model.NoiseStd != 0.1 {
				t.Errorf("σ per GP (-want +got):\n%s; default σ %v", diff, st.Model.NoiseStd)
			}
			res, err := experiment.Execute(context.Background(), cfg, experiment.Options{Workers: 1})
			if err != nil {
				t.Fatal(err)
			}
			b, err := json.Marshal(res.Config)
			if err != nil {
				t.Fatal(err)
			}
			var echo struct {
				Model struct {
					Objective   map[string]any   `json:"objective"`
					Constraints []map[string]any `json:"constraints"`
				} `json:"model"`
			}
			if err := json.Unmarshal(b, &echo); err != nil {
				t.Fatal(err)
			}
			var got []any
			for _, blk := range append([]map[string]any{echo.Model.Objective}, echo.Model.Constraints...) {
				got = append(got, blk["noise_std"])
			}
			if diff := cmp.Diff(c.echo, got); diff != "" {
				t.Errorf("echoed noise_std per block (-want +got):\n%s", diff)
			}
			if c.name == "objective" {
				if l, ok := echo.Model.Objective["lengthscale"].([]any); !ok || len(l) != 2 {
					t.Errorf("echoed objective lengthscale %v, want the list [1, 0.5]", echo.Model.Objective["lengthscale"])
				}
			}
		})
	}
}

// TestBoundNoisePerGP: `safegp bound` computes each constraint's T' with
// that constraint's σ, and γ_T and C_1 with f's: a model whose g has its
// own σ_g gives the constraint rows of a model whose σ is σ_g throughout,
// and the f rows of one whose σ is the default throughout.
func TestBoundNoisePerGP(t *testing.T) {
	t.Parallel()
	const base = `seed: 3
realizations: 1
horizon: 200
problem:
  generate:
    decision_set: {kind: unit-disk, size: 40}
    objective: {kernel: se, lengthscale: 1}
    constraints: [{kernel: linear}]
    seed_set: {size: [6, 6], from: safe}
  thresholds: [-0.5]
  epsilon: 0.3
  noise_std: 0.1
model:
  objective: {kernel: se, lengthscale: 1}
`
	bound := func(model string) *experiment.BoundReport {
		t.Helper()
		cfg, err := experiment.Parse(strings.NewReader(base+model+"  delta: 0.01\nalgorithms:\n  - {name: sgp-ucb, exploration: theory}\n"), ".")
		if err != nil {
			t.Fatal(err)
		}
		rep, err := experiment.Bound(cfg, 0, theory.Features{})
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	own := bound("  constraints: [{kernel: linear, noise_std: 0.4}]\n  noise_std: 0.1\n")
	allG := bound("  constraints: [{kernel: linear}]\n  noise_std: 0.4\n")
	allF := bound("  constraints: [{kernel: linear}]\n  noise_std: 0.1\n")
	if own.Constraints[0].Exploration == nil || allG.Constraints[0].Exploration == nil {
		t.Fatalf("no exploration: %+v, %+v", own.Constraints[0], allG.Constraints[0])
	}
	if diff := cmp.Diff(*allG.Constraints[0].Exploration, *own.Constraints[0].Exploration); diff != "" {
		t.Errorf("g's rows with its own σ = 0.4 against σ = 0.4 throughout (-want +got):\n%s", diff)
	}
	if own.GammaT != allF.GammaT || own.C1 != allF.C1 || own.NoiseStd != 0.1 {
		t.Errorf("f's rows: γ_T %v, C_1 %v, σ %v; want %v, %v, 0.1", own.GammaT, own.C1, own.NoiseStd, allF.GammaT, allF.C1)
	}
	if allF.Constraints[0].TEps == own.Constraints[0].TEps {
		t.Errorf("t_ε is %v with σ_g = 0.1 and 0.4 alike", own.TPrime)
	}
	if diff := cmp.Diff([]float64{0.1, 0.4}, own.NoiseStds); diff != "" || allG.NoiseStds != nil {
		t.Errorf("report's σ per GP (-want +got):\n%s; %v without own σ", diff, allG.NoiseStds)
	}
}
