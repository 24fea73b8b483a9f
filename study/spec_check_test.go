package study_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/safegp/safegp/kernel"
	"github.com/safegp/safegp/problem"
	"github.com/safegp/safegp/study"
	"github.com/safegp/safegp/study/api"
)

// TestResolveRefusals: each specification Resolve refuses wraps ErrSpec
// (and the nested check's own sentinel, for a decision-set file) and names
// the key at fault.
func TestResolveRefusals(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "seeded.csv"), []byte("x1,seed\n0,1\n1,0\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "bad.csv"), []byte("x1\n0\nabc\n"), 0o644)
	grid := `{"grid": {"bounds": [[0, 4]], "points": [21]}}`
	cases := []struct {
		name, from, to, want string
		is                   error
	}{
		{"two decision sets", grid, `{"grid": {"bounds": [[0, 4]], "points": [21]}, "actions": [[0], [1]]}`, "decision_set: give exactly one of file, grid, actions and box", api.ErrSpec},
		{"grid lengths", grid, `{"grid": {"bounds": [[0, 4]], "points": [21, 3]}}`, "decision_set.grid: bounds and points must have the same length ≥ 1, got 1 and 2", api.ErrSpec},
		{"grid axis empty", grid, `{"grid": {"bounds": [[0, 4]], "points": [0]}}`, "decision_set.grid.points[0]: ", api.ErrSpec},
		{"grid too large", grid, `{"grid": {"bounds": [[0, 4], [0, 4]], "points": [1001, 1000]}}`, "decision_set.grid.points: at most 1000000 actions in all", api.ErrSpec},
		{"seed twice", `"seed_actions": [10]`, `"seed_actions": [10, 10]`, "seed_actions[1]: 10", api.ErrSpec},
		{"seed column and seed_actions", grid, `{"file": "seeded.csv"}`, "seed_actions: the decision-set file has a seed column already", api.ErrSpec},
		{"bad file", grid + `, "seed_actions": [10]`, `{"file": "bad.csv"}, "seed_actions": [0]`, `decision_set.file bad.csv: invalid problem: line 3, column x1: "abc"`, problem.ErrInvalid},
		{"no thresholds", `"thresholds": [0.0]`, `"thresholds": []`, "thresholds: missing", api.ErrSpec},
		{"negative epsilon", `"thresholds": [0.0]`, `"thresholds": [0.0], "epsilon": -1`, "epsilon: must be a finite number in 0…1e100, got -1", api.ErrSpec},
		{"no objective", `"objective": {"kernel": "se", "lengthscale": 1},`, ``, "model.objective: missing", api.ErrSpec},
		{"constraint count", `"constraints": [{"kernel": "se", "lengthscale": 1}]`, `"constraints": [{"kernel": "se", "lengthscale": 1}, {"kernel": "se", "lengthscale": 1}]`, "model.constraints: 2 kernels for 1 threshold", api.ErrSpec},
		{"lengthscales for another dimension", `"constraints": [{"kernel": "se", "lengthscale": 1}]`, `"constraints": [{"kernel": "se", "lengthscale": [1, 2]}]`, "model.constraints[0].lengthscale: 2 lengthscales for 1 input dimension: give one, or one per dimension", kernel.ErrInvalid},
		{"empty lengthscale list", `"objective": {"kernel": "se", "lengthscale": 1}`, `"objective": {"kernel": "se", "lengthscale": []}`, "model.objective.lengthscale: an empty list", api.ErrSpec},
		{"string lengthscale", `"objective": {"kernel": "se", "lengthscale": 1}`, `"objective": {"kernel": "se", "lengthscale": [1, "short"]}`, `model.objective.lengthscale[1]: want a number, got "short"`, api.ErrSpec},
		{"null lengthscale", `"objective": {"kernel": "se", "lengthscale": 1}`, `"objective": {"kernel": "se", "lengthscale": [null]}`, `model.objective.lengthscale[0]: no value (null)`, api.ErrSpec},
		{"NaN lengthscale", `"objective": {"kernel": "se", "lengthscale": 1}`, `"objective": {"kernel": "se", "lengthscale": [1, .nan]}`, `model.objective.lengthscale[1]: must be a finite number > 0, got NaN`, kernel.ErrInvalid},
		{"negative kernel noise", `"constraints": [{"kernel": "se", "lengthscale": 1}]`, `"constraints": [{"kernel": "se", "lengthscale": 1, "noise_std": -1}]`, "model.constraints[0].noise_std: must be a finite number in 0…1e100, got -1", kernel.ErrInvalid},
		{"negative noise", `"noise_std": 0.05`, `"noise_std": -0.05`, "model.noise_std: must be a finite number in 0…1e100, got -0.05", api.ErrSpec},
		{"delta 1", `"delta": 0.1`, `"delta": 1`, "model.delta: must be in (0, 1), got 1", api.ErrSpec},
		{"horizon 0", `"horizon": 30`, `"horizon": 0`, "horizon: missing or 0: give the number of rounds planned", api.ErrSpec},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if !strings.Contains(jsonSpec, c.from) {
				t.Fatalf("%q not in the spec", c.from)
			}
			s, err := study.ParseSpec([]byte(strings.Replace(jsonSpec, c.from, c.to, 1)))
			if err == nil {
				_, err = s.Resolve(dir)
			}
			if !errors.Is(err, c.is) || !errors.Is(err, api.ErrSpec) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want api.ErrSpec (and %v) mentioning %q", err, c.is, c.want)
			}
		})
	}
	if _, err := study.ParseSpec([]byte("  \n")); !errors.Is(err, api.ErrSpec) || !strings.Contains(err.Error(), "empty specification") {
		t.Errorf("an empty specification: %v", err)
	}
	if _, err := study.LoadSpec(filepath.Join(dir, "none.yaml"), 0); !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "none.yaml") {
		t.Errorf("a missing file: %v", err)
	}
}
