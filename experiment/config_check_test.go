package experiment_test

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/safegp/safegp/experiment"
	"github.com/safegp/safegp/kernel"
	"github.com/safegp/safegp/problem"
)

// TestConfigCheck: each configuration SPEC §8 refuses is refused at
// Parse with the sentinel of the check that failed and the key at fault
// (the value too, where there is one).
func TestConfigCheck(t *testing.T) {
	t.Parallel()
	fileProblem := strings.Replace(regimeConfig, `  generate:
    decision_set: {kind: unit-disk, size: 50}
    objective: {kernel: se, lengthscale: 1}
    constraints: [{kernel: se, lengthscale: 0.2}]
    seed_set: {size: [3, 8], from: safe}
`, "  file: p.csv\n", 1)
	cases := []struct {
		name, config, from, to string
		want                   string
		is                     error
	}{
		{"no realizations", regimeConfig, "realizations: 6", "realizations: 0", "realizations: must be ≥ 1, got 0", experiment.ErrConfig},
		{"too many realizations", regimeConfig, "realizations: 6", "realizations: 2000000", "realizations: must be at most 1000000, got 2000000", experiment.ErrConfig},
		{"too many rounds", regimeConfig, "realizations: 6\nhorizon: 60", "realizations: 1000000\nhorizon: 1000", "realizations: 1000000 realizations × 3 algorithms × 1000 rounds", experiment.ErrConfig},
		{"file and generate", regimeConfig, "problem:\n", "problem:\n  file: p.csv\n", "problem: give file or generate, not both", experiment.ErrConfig},
		{"neither", fileProblem, "  file: p.csv\n", "", "problem: give file, generate or function", experiment.ErrConfig},
		{"seed actions for a drawn problem", regimeConfig, "problem:\n", "problem:\n  seed_actions: [1]\n", "problem.seed_actions: only for a problem file", experiment.ErrConfig},
		{"no thresholds", regimeConfig, "  thresholds: [0.0]\n", "", "problem.thresholds: missing", experiment.ErrConfig},
		{"huge threshold", regimeConfig, "thresholds: [0.0]", "thresholds: [1e200]", "problem.thresholds[0]: must be a finite number within ±1e100, got 1e+200", experiment.ErrConfig},
		{"negative epsilon", regimeConfig, "epsilon: 0.01", "epsilon: -0.5", "problem.epsilon: must be a finite number in 0…1e100, got -0.5", experiment.ErrConfig},
		{"bad generator", regimeConfig, "kind: unit-disk", "kind: torus", `problem.generate.decision_set.kind: unknown kind "torus"`, problem.ErrInvalid},
		{"thresholds for the generator", regimeConfig, "thresholds: [0.0]", "thresholds: [0.0, 0.0]", "problem.thresholds: 2 given for 1 constraint", experiment.ErrConfig},
		{"no model noise", regimeConfig, "  noise_std: 0.1\n  delta", "  delta", "model.noise_std: missing", experiment.ErrConfig},
		{"model constraints", regimeConfig, "model:\n", "model:\n  constraints: [{kernel: se, lengthscale: 1}, {kernel: se, lengthscale: 1}]\n", "model.constraints: 2 kernels for 1 threshold", experiment.ErrConfig},
		{"model ARD for another dimension", regimeConfig, "model:\n", "model:\n  constraints: [{kernel: matern52, lengthscale: [0.1, 0.2, 0.3]}]\n",
			"model.constraints[0].lengthscale: 3 lengthscales for 2 input dimensions: give one, or one per dimension", experiment.ErrConfig},
		{"model ARD for another dimension (kernel sentinel)", regimeConfig, "model:\n", "model:\n  objective: {kernel: se, lengthscale: [1, 2, 3]}\n",
			"model.objective.lengthscale: 3 lengthscales for 2", kernel.ErrInvalid},
		{"generator ARD for another dimension", regimeConfig, "constraints: [{kernel: se, lengthscale: 0.2}]", "constraints: [{kernel: se, lengthscale: [0.2, 0.2, 0.2]}]",
			"problem.generate.constraints[0].lengthscale: 3 lengthscales for 2 input dimensions", kernel.ErrInvalid},
		{"generator kernel noise", regimeConfig, "constraints: [{kernel: se, lengthscale: 0.2}]", "constraints: [{kernel: se, lengthscale: 0.2, noise_std: 0.3}]",
			"problem.generate.constraints[0].noise_std: not a parameter of a drawing kernel", problem.ErrInvalid},
		{"model kernel noise", regimeConfig, "model:\n", "model:\n  objective: {kernel: se, lengthscale: 1, noise_std: -1}\n",
			"model.objective.noise_std: must be a finite number in 0…1e100, got -1", kernel.ErrInvalid},
		{"ARD list empty", regimeConfig, "model:\n", "model:\n  objective: {kernel: se, lengthscale: []}\n",
			"model.objective.lengthscale: an empty list", experiment.ErrConfig},
		{"no objective for a file", fileProblem, "", "", "model.objective: missing", experiment.ErrConfig},
		{"no constraints for a file", fileProblem, "model:\n", "model:\n  objective: {kernel: se, lengthscale: 1}\n", "model.constraints: missing", experiment.ErrConfig},
		{"no algorithms", regimeConfig, "algorithms:\n  - {name: sgp-ucb, phase1: uniform, exploration: {plateau: {window: 10, cap: 30}}}\n  - {name: naive-sgp-ucb}\n  - {name: gp-ucb-oracle}\n", "algorithms: []\n", "algorithms: at least one is needed", experiment.ErrConfig},
		{"empty", "", "", "", "empty configuration", experiment.ErrConfig},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if !strings.Contains(c.config, c.from) {
				t.Fatalf("%q not in the configuration", c.from)
			}
			_, err := experiment.Parse(strings.NewReader(strings.Replace(c.config, c.from, c.to, 1)), ".")
			if !errors.Is(err, c.is) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want %v mentioning %q", err, c.is, c.want)
			}
		})
	}
	if _, err := experiment.Load(filepath.Join(t.TempDir(), "none.yaml")); !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "none.yaml") {
		t.Errorf("a missing file: %v", err)
	}
}
