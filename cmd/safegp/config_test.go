package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOneConfigurationPath: a mistake in a section an experiment
// configuration and a study specification share is refused by the same
// check, with the same message under the same key path, whichever file
// holds it (issue 9, part 4).
func TestOneConfigurationPath(t *testing.T) {
	const csvNoSeed = "x1,f,g1\n0,0.1,1\n0.5,0.3,0.6\n1,0.9,0.2\n1.5,1.2,-0.5\n"
	for _, c := range []struct {
		name     string
		from, to string // applied to both files' model sections
		key      string // the key path in both; problem. is prefixed for the experiment when seed
		want     string
	}{
		{"missing objective", "  objective: {kernel: se, lengthscale: L}\n", "", "model.objective", "missing: the kernel of f"},
		{"bad lengthscale", "objective: {kernel: se, lengthscale: L}", "objective: {kernel: se, lengthscale: -2}", "model.objective.lengthscale", "must be a finite number > 0, got -2"},
		{"unknown kernel", "objective: {kernel: se, lengthscale: L}", "objective: {kernel: sq}", "model.objective.kernel", `unknown kernel "sq"`},
		{"missing constraints", "  constraints: [{kernel: se, lengthscale: L}]\n", "", "model.constraints", "missing: one kernel per threshold"},
		{"constraint count", "constraints: [{kernel: se, lengthscale: L}]", "constraints: [{kernel: se, lengthscale: L}, {kernel: linear}]", "model.constraints", "2 kernels for 1 threshold"},
		{"bad constraint", "constraints: [{kernel: se, lengthscale: L}]", "constraints: [{kernel: se, lengthscale: L, variance: 0}]", "model.constraints[0].variance", "must be a finite number > 0, got 0"},
		{"lengthscales for another dimension", "constraints: [{kernel: se, lengthscale: L}]", "constraints: [{kernel: se, lengthscale: [1, 1, 1]}]", "model.constraints[0].lengthscale", "3 lengthscales for "},
		{"bad lengthscale in a list", "objective: {kernel: se, lengthscale: L}", "objective: {kernel: se, lengthscale: [1, -1]}", "model.objective.lengthscale[1]", "must be a finite number > 0, got -1"},
		{"empty lengthscale list", "objective: {kernel: se, lengthscale: L}", "objective: {kernel: se, lengthscale: []}", "model.objective.lengthscale", "an empty list: give one lengthscale, or one per input dimension"},
		{"a kernel's negative noise", "constraints: [{kernel: se, lengthscale: L}]", "constraints: [{kernel: se, lengthscale: L, noise_std: -1}]", "model.constraints[0].noise_std", "must be a finite number in 0…1e100, got -1"},
		{"missing noise", "  noise_std: 0.05\n  delta", "  delta", "model.noise_std", "missing: the noise standard deviation σ the model assumes"},
		{"negative noise", "  noise_std: 0.05\n  delta", "  noise_std: -1\n  delta", "model.noise_std", "must be a finite number in 0…1e100, got -1"},
		{"missing delta", "  delta: D\n", "", "model.delta", "missing: the confidence parameter δ, in (0, 1)"},
		{"delta 1.5", "delta: D", "delta: 1.5", "model.delta", "must be in (0, 1), got 1.5"},
		{"beta", "delta: D", "delta: D\n  beta: papr", "model.beta", `want "paper", a finite number > 0 or {rkhs_norm: B, noise_bound: R}, got "papr"`},
		{"exploration", "exploration: {fixed: F}", "exploration: {plateau: {window: 0}}", "exploration.plateau.window", "want an integer ≥ 1, got 0"},
		{"seed twice", "SEEDS", "[1, 0, 1]", "seed_actions[2]", "1 is given twice (also at [0])"},
		{"threshold", "thresholds: [0.0]", "thresholds: [1e200]", "thresholds[0]", "must be a finite number within ±1e100, got 1e+200"},
		{"horizon", "horizon: H", "horizon: 0", "horizon", "missing or 0: give the number of rounds planned, 1…1000000"},
	} {
		t.Run(c.name, func(t *testing.T) {
			// The two files with their own values (L, D, F, H, SEEDS) put
			// back after the edit.
			cfg := strings.NewReplacer(
				"lengthscale: 0.5", "lengthscale: L", "delta: 0.1", "delta: D", "{fixed: 5}", "{fixed: F}", "horizon: 20", "horizon: H",
				"file: p.csv", "file: p.csv\n  seed_actions: SEEDS",
			).Replace(goodConfig)
			spec := strings.NewReplacer(
				"lengthscale: 1", "lengthscale: L", "delta: 0.01", "delta: D", "{fixed: 3}", "{fixed: F}", "horizon: 30", "horizon: H",
				"[20, 21]", "SEEDS",
			).Replace(studySpec)
			for _, f := range []*string{&cfg, &spec} {
				if !strings.Contains(*f, c.from) {
					t.Fatalf("test bug: %q not in\n%s", c.from, *f)
				}
				*f = strings.Replace(*f, c.from, c.to, 1)
			}
			back := func(s, l, d, f, h, seeds string) string {
				return strings.NewReplacer("L", l, "D", d, "F", f, "H", h, "SEEDS", seeds).Replace(s)
			}
			cfg = back(cfg, "0.5", "0.1", "5", "20", "[0]")
			spec = back(spec, "1", "0.01", "3", "30", "[20, 21]")

			cfgPath, out := setup(t, cfg, csvNoSeed)
			var stdout, stderr bytes.Buffer
			errRun := run([]string{"run", cfgPath, "--out", out}, &stdout, &stderr)
			if _, err := os.Stat(out); err == nil {
				t.Errorf("run: the refused configuration wrote %s", out)
			}
			dir := t.TempDir()
			specPath := filepath.Join(dir, "spec.yaml")
			if err := os.WriteFile(specPath, []byte(spec), 0o644); err != nil {
				t.Fatal(err)
			}
			errStudy := run([]string{"study", "create", specPath, "--db", filepath.Join(dir, "s.db")}, &stdout, &stderr)
			for _, e := range []struct {
				what string
				err  error
			}{{"run", errRun}, {"study create", errStudy}} {
				if e.err == nil || !strings.Contains(e.err.Error(), c.key+": "+c.want) {
					t.Errorf("%s: got %v\nwant an error with %q", e.what, e.err, c.key+": "+c.want)
				}
			}
		})
	}
}
