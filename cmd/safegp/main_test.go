package main

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/safegp/safegp/bandit"
	"github.com/safegp/safegp/experiment"
	"github.com/safegp/safegp/kernel"
	"github.com/safegp/safegp/problem"
	"github.com/safegp/safegp/store"
	"github.com/safegp/safegp/study/api"
	"github.com/safegp/safegp/theory"
)

const goodCSV = `x1,f,g1,seed
0,0.1,1,1
0.5,0.3,0.6,0
1,0.9,0.2,0
1.5,1.2,-0.5,0
`

const goodConfig = `seed: 1
realizations: 2
horizon: 20
problem:
  file: p.csv
  thresholds: [0.0]
  epsilon: 0.01
  noise_std: 0.05
model:
  objective: {kernel: se, lengthscale: 0.5}
  constraints: [{kernel: se, lengthscale: 0.5}]
  noise_std: 0.05
  delta: 0.1
algorithms:
  - {name: sgp-ucb, phase1: uniform, exploration: {fixed: 5}}
  - {name: gp-ucb-oracle}
`

// setup writes a config and problem file into a fresh folder and returns
// the config path and an output path that does not exist yet.
func setup(t *testing.T, config, csv string) (cfg, out string) {
	t.Helper()
	dir := t.TempDir()
	cfg = filepath.Join(dir, "c.yaml")
	if err := os.WriteFile(cfg, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "p.csv"), []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	return cfg, filepath.Join(dir, "out")
}

func TestRunWritesOutputs(t *testing.T) {
	for _, order := range []string{"config-first", "flags-first"} {
		t.Run(order, func(t *testing.T) {
			cfg, out := setup(t, goodConfig, goodCSV)
			args := []string{"run", cfg, "--out", out, "--workers", "2"}
			if order == "flags-first" {
				args = []string{"run", "--out", out, "--workers", "2", cfg}
			}
			var stdout, stderr bytes.Buffer
			if err := run(args, &stdout, &stderr); err != nil {
				t.Fatalf("run: %v\n%s", err, stderr.String())
			}
			for _, f := range []string{"results.json", "summary.csv", "regret.png", "regret.svg"} {
				st, err := os.Stat(filepath.Join(out, f))
				if err != nil || st.Size() == 0 {
					t.Errorf("%s: missing or empty (%v)", f, err)
				}
			}
			if stderr.Len() != 0 {
				t.Errorf("stderr not a terminal, yet got %q", stderr.String())
			}
		})
	}
}

func TestRunHelpDocumentsEveryKey(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if err := run([]string{"run", "--help"}, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	help := stderr.String()
	for _, key := range []string{"seed:", "realizations:", "horizon:", "file:", "seed_actions:", "generate:",
		"decision_set:", "objective:", "constraints:", "seed_set:", "thresholds:", "epsilon:", "noise_std:",
		"delta:", "beta:", "algorithms:", "name:", "label:", "phase1:", "exploration:", "keep_seed:",
		"lengthscale", "variance", "offset", "degree", "--out", "--workers"} {
		if !strings.Contains(help, key) {
			t.Errorf("run --help does not mention %q", key)
		}
	}
}

// TestBadInput covers SPEC §8: one clear error naming the field and the
// value, a non-zero exit code, and no output folder.
func TestBadInput(t *testing.T) {
	cases := []struct {
		name     string
		from, to string // replacement in the config
		csv      string // replaces the problem file when set
		want     []string
		// is is the sentinel the error wraps: the package whose check
		// refused the input (kernel, algorithm and data-file checks keep
		// their own, under the configuration's key).
		is error
	}{
		{name: "unknown key", from: "horizon: 20", to: "horizon: 20\nhorizn: 3", want: []string{"unknown key", "horizn"}, is: experiment.ErrConfig},
		{name: "unknown kernel key", from: "lengthscale: 0.5}\n  constraints", to: "lengthscale: 0.5, lenghtscale: 1}\n  constraints", want: []string{"lenghtscale"}, is: experiment.ErrConfig},
		{name: "lengthscale", from: "objective: {kernel: se, lengthscale: 0.5}", to: "objective: {kernel: se, lengthscale: -1}", want: []string{"model.objective.lengthscale", "-1"}, is: kernel.ErrInvalid},
		{name: "zero lengthscale", from: "constraints: [{kernel: se, lengthscale: 0.5}]", to: "constraints: [{kernel: se, lengthscale: 0}]", want: []string{"model.constraints[0].lengthscale", "0"}, is: kernel.ErrInvalid},
		{name: "variance", from: "objective: {kernel: se, lengthscale: 0.5}", to: "objective: {kernel: se, lengthscale: 0.5, variance: 0}", want: []string{"model.objective.variance", "0"}, is: kernel.ErrInvalid},
		{name: "horizon", from: "horizon: 20", to: "horizon: 0", want: []string{"horizon", "0"}, is: experiment.ErrConfig},
		{name: "delta high", from: "delta: 0.1", to: "delta: 1.5", want: []string{"model.delta", "1.5"}, is: experiment.ErrConfig},
		{name: "delta zero", from: "delta: 0.1", to: "delta: 0", want: []string{"model.delta", "0"}, is: experiment.ErrConfig},
		{name: "negative noise", from: "  noise_std: 0.05\nmodel", to: "  noise_std: -0.1\nmodel", want: []string{"problem.noise_std", "-0.1"}, is: experiment.ErrConfig},
		{name: "negative model noise", from: "  noise_std: 0.05\n  delta", to: "  noise_std: -2\n  delta", want: []string{"model.noise_std", "-2"}, is: experiment.ErrConfig},
		{name: "NaN in file", csv: strings.Replace(goodCSV, "0.5,0.3", "0.5,NaN", 1), want: []string{"column f", "NaN"}, is: problem.ErrInvalid},
		{name: "Inf in file", csv: strings.Replace(goodCSV, "1,0.9,0.2", "1,0.9,+Inf", 1), want: []string{"column g1", "Inf"}, is: problem.ErrInvalid},
		{name: "short row", csv: strings.Replace(goodCSV, "1,0.9,0.2,0", "1,0.9,0", 1), want: []string{"line 4", "fields"}, is: problem.ErrInvalid},
		{name: "constraint count", from: "thresholds: [0.0]", to: "thresholds: [0.0, 0.0]", want: []string{"thresholds", "2"}, is: experiment.ErrConfig},
		{name: "empty seed set", csv: strings.Replace(goodCSV, "0,0.1,1,1", "0,0.1,1,0", 1), want: []string{"seed set", "empty"}, is: problem.ErrInvalid},
		{name: "unsafe seed", csv: strings.Replace(goodCSV, "0,0.1,1,1", "0,0.1,-1,1", 1), want: []string{"seed action 0", "g1", "-1"}, is: problem.ErrInvalid},
		{name: "one action", csv: "x1,f,g1,seed\n0,0.1,1,1\n", want: []string{"at least 2 rows", "1"}, is: problem.ErrInvalid},
		{name: "empty eps-safe set", from: "epsilon: 0.01", to: "epsilon: 5", want: []string{"ε-safe", "5"}, is: problem.ErrNoSafeOptimum},
		{name: "unknown algorithm", from: "name: gp-ucb-oracle", to: "name: gp-ucb-orakel", want: []string{"algorithms[1].name", "gp-ucb-orakel"}, is: bandit.ErrConfig},
		{name: "exploration theory", from: "exploration: {fixed: 5}", to: "exploration: theory", want: []string{"algorithms[0]", "exploration: theory", "seed set too small", "λ̃_− = 0"}, is: theory.ErrSeedTooSmall},
		{name: "bad exploration", from: "exploration: {fixed: 5}", to: "exploration: {fixd: 5}", want: []string{"exploration", "fixd"}, is: experiment.ErrConfig},
		{name: "bad beta", from: "delta: 0.1", to: "delta: 0.1\n  beta: papr", want: []string{"beta", "papr"}, is: experiment.ErrConfig},
		{name: "duplicate label", from: "name: gp-ucb-oracle", to: "name: gp-ucb-oracle, label: sgp-ucb", want: []string{"algorithms[1].label", "sgp-ucb"}, is: experiment.ErrConfig},
		{name: "missing file", from: "file: p.csv", to: "file: nope.csv", want: []string{"problem.file", "nope.csv"}, is: fs.ErrNotExist},
		{name: "wrong type", from: "realizations: 2", to: "realizations: two", want: []string{"realizations", "two"}, is: experiment.ErrConfig},
		{name: "huge horizon", from: "horizon: 20", to: "horizon: 1000000000000", want: []string{"horizon", "1000000000000"}, is: experiment.ErrConfig},
		{name: "duplicate action", csv: strings.Replace(goodCSV, "0.5,0.3,0.6,0", "0,0.3,0.6,0", 1), want: []string{"actions 0 and 1", "same point"}, is: problem.ErrInvalid},
		{name: "seed column and seed_actions", from: "file: p.csv", to: "file: p.csv\n  seed_actions: [0]", want: []string{"problem.seed_actions", "seed column"}, is: experiment.ErrConfig},
		{name: "degree", from: "objective: {kernel: se, lengthscale: 0.5}", to: "objective: {kernel: polynomial, degree: 1000}", want: []string{"model.objective.degree", "1000"}, is: kernel.ErrInvalid},
		{name: "fractional horizon", from: "horizon: 20", to: "horizon: 1.5", want: []string{"horizon", "want an integer", "1.5"}, is: experiment.ErrConfig},
		{name: "fractional degree", from: "objective: {kernel: se, lengthscale: 0.5}", to: "objective: {kernel: polynomial, degree: 2.5}", want: []string{"model.objective.degree", "want an integer", "2.5"}, is: experiment.ErrConfig},
		{name: "fractional seed action", from: "file: p.csv", to: "file: p.csv\n  seed_actions: [1.7]", want: []string{"problem.seed_actions[0]", "want an integer", "1.7"}, is: experiment.ErrConfig},
		{name: "null threshold", from: "thresholds: [0.0]", to: "thresholds: [null]", want: []string{"problem.thresholds[0]", "null"}, is: experiment.ErrConfig},
		{name: "missing delta", from: "  delta: 0.1\n", to: "", want: []string{"model.delta", "missing"}, is: experiment.ErrConfig},
		{name: "string for a number", from: "delta: 0.1", to: "delta: abc", want: []string{"model.delta", "want a number", `"abc"`}, is: experiment.ErrConfig},
		{name: "f beyond 1e100", csv: strings.Replace(goodCSV, "0.5,0.3", "0.5,1e308", 1), want: []string{"p.csv", "line 3", "column f", "1e100"}, is: problem.ErrInvalid},
		{name: "duplicate plateau key", from: "exploration: {fixed: 5}", to: "exploration: {plateau: {window: 5, window: 7}}", want: []string{"plateau", "window", "twice"}, is: experiment.ErrConfig},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			config := goodConfig
			if c.from != "" {
				if !strings.Contains(config, c.from) {
					t.Fatalf("test bug: %q not in config", c.from)
				}
				config = strings.Replace(config, c.from, c.to, 1)
			}
			csv := goodCSV
			if c.csv != "" {
				csv = c.csv
			}
			cfg, out := setup(t, config, csv)
			var stdout, stderr bytes.Buffer
			err := run([]string{"run", cfg, "--out", out}, &stdout, &stderr)
			if err == nil {
				t.Fatal("no error")
			}
			if exitCode(err) == 0 {
				t.Error("exit code 0")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
			if !errors.Is(err, c.is) {
				t.Errorf("error %q does not wrap %v", err, c.is)
			}
			if strings.Count(err.Error(), "\n") > 0 {
				t.Errorf("error spans several lines: %q", err)
			}
			if _, statErr := os.Stat(out); !os.IsNotExist(statErr) {
				t.Errorf("output folder exists after an error")
			}
			entries, _ := os.ReadDir(filepath.Dir(out))
			for _, e := range entries {
				if strings.HasPrefix(e.Name(), ".safegp-out") {
					t.Errorf("temporary folder %s left behind", e.Name())
				}
			}
		})
	}
}

func TestUsageErrors(t *testing.T) {
	cfg, out := setup(t, goodConfig, goodCSV)
	for _, args := range [][]string{
		{},
		{"frobnicate"},
		{"run", cfg},
		{"run", "--out", out},
		{"run", cfg, cfg, "--out", out},
		{"run", cfg, "--out", out, "--workers", "0"},
		{"run", cfg, "--out", out, "--bogus"},
	} {
		var stdout, stderr bytes.Buffer
		err := run(args, &stdout, &stderr)
		if err == nil || exitCode(err) != 2 {
			t.Errorf("%v: got %v, want a usage error (exit 2)", args, err)
		}
	}
}

func TestBound(t *testing.T) {
	// A linear constraint kernel with seeds e1, e2 in R²: Theorem 2 applies
	// (d_g = 2) and the theory gives a T' within the horizon.
	csv := "x1,x2,f,g1,seed\n1,0,0.5,1,1\n0,1,0.2,1,1\n0.5,0.5,0.4,0.9,0\n-1,0,0.1,-2,0\n"
	config := strings.NewReplacer(
		"objective: {kernel: se, lengthscale: 0.5}", "objective: {kernel: linear}",
		"constraints: [{kernel: se, lengthscale: 0.5}]", "constraints: [{kernel: linear}]",
		"exploration: {fixed: 5}", "exploration: theory",
		"epsilon: 0.01", "epsilon: 0.5",
		"horizon: 20", "horizon: 2000",
	).Replace(goodConfig)
	cfg, _ := setup(t, config, csv)
	var stdout, stderr bytes.Buffer
	if err := run([]string{"bound", cfg}, &stdout, &stderr); err != nil {
		t.Fatalf("bound: %v\n%s", err, stderr.String())
	}
	out := stdout.String()
	for _, want := range []string{"β_T", "γ_T bound", "C_1", "Theorem 2, linear features, dimension 2", "λ_−", "regret bound", "rule sgp-ucb", "theory"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	stdout.Reset()
	if err := run([]string{"bound", "--json", cfg}, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout.String(), `"t_prime"`) {
		t.Errorf("JSON lacks t_prime:\n%s", stdout.String())
	}
}

const studySpec = `decision_set: {grid: {bounds: [[0, 4], [0, 2]], points: [9, 5]}}
seed_actions: [20, 21]
thresholds: [0.0]
model:
  objective: {kernel: se, lengthscale: 1}
  constraints: [{kernel: se, lengthscale: 1}]
  noise_std: 0.05
  delta: 0.01
algorithm: {name: sgp-ucb, phase1: uniform, exploration: {fixed: 3}}
horizon: 30
seed: 2
`

// TestStudyCLI covers the study subcommands in-process: the workflow, the
// plot of a 2-D study, and every bad input with one clear error that changes
// nothing.
func TestStudyCLI(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "spec.yaml")
	os.WriteFile(spec, []byte(studySpec), 0o644)
	db := filepath.Join(dir, "s.db")
	do := func(args ...string) (string, error) {
		var stdout, stderr bytes.Buffer
		err := run(args, &stdout, &stderr)
		return stdout.String(), err
	}
	if _, err := do("study", "create", spec, "--db", db, "--study", "tune"); err != nil {
		t.Fatal(err)
	}
	out, err := do("study", "ask", "--db", db, "--study", "tune")
	if err != nil || !strings.Contains(out, `"ask":1`) {
		t.Fatalf("ask: %q %v", out, err)
	}
	if _, err := do("study", "tell", "--db", db, "--study", "tune", "--ask", "1", "--f", "0.5", "--g", "0.3"); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"study", "show", "--db", db, "--study", "tune"},
		{"study", "show", "--db", db, "--study", "tune", "--json"},
		{"study", "export", "--db", db, "--study", "tune", "--format", "json"},
		{"study", "export", "--db", db, "--study", "tune", "--format", "csv"},
		{"study", "plot", "--db", db, "--study", "tune", "--out", filepath.Join(dir, "fig.png")},
		{"study", "plot", "--db", db, "--study", "tune", "--out", filepath.Join(dir, "fig.svg")},
	} {
		if _, err := do(args...); err != nil {
			t.Errorf("%v: %v", args[1:3], err)
		}
	}
	if st, err := os.Stat(filepath.Join(dir, "fig.png")); err != nil || st.Size() == 0 {
		t.Error("no plot written")
	}
	bad := []struct {
		args []string
		want string
		is   error // the sentinel, where there is one
	}{
		{[]string{"study", "tell", "--db", db, "--study", "tune", "--ask", "1", "--f", "1", "--g", "1"}, "already told", api.ErrAlreadyTold},
		{[]string{"study", "tell", "--db", db, "--study", "tune", "--ask", "77", "--f", "1", "--g", "1"}, "unknown ask", api.ErrUnknownAsk},
		{[]string{"study", "tell", "--db", db, "--study", "tune", "--index", "45", "--f", "1", "--g", "1"}, "index 45", api.ErrBadTell},
		{[]string{"study", "tell", "--db", db, "--study", "tune", "--index", "3", "--f", "1", "--g", "Inf"}, "not a finite number", api.ErrBadTell},
		{[]string{"study", "tell", "--db", db, "--study", "tune", "--index", "3", "--f", "1e300", "--g", "1"}, "within ±1e100", api.ErrBadTell},
		{[]string{"study", "tell", "--db", db, "--study", "tune", "--index", "3", "--f", "1", "--g", "1,2"}, "2 constraint values", api.ErrBadTell},
		{[]string{"study", "tell", "--db", db, "--study", "tune", "--index", "3", "--f", "1"}, "--g", api.ErrBadTell},
		{[]string{"study", "tell", "--db", db, "--study", "tune", "--f", "1", "--g", "1"}, "--ask, --index and --x", api.ErrBadTell},
		{[]string{"study", "ask", "--db", db, "--study", "nope"}, "no such study", store.ErrNotFound},
		{[]string{"study", "ask", "--db", db, "--study", "bad name"}, "invalid study name", api.ErrBadName},
		{[]string{"study", "ask", "--db", filepath.Join(dir, "none.db")}, "none.db", fs.ErrNotExist},
		{[]string{"study", "create", spec, "--db", db, "--study", "tune"}, "exists already", store.ErrExists},
		{[]string{"study", "export", "--db", db, "--study", "tune", "--format", "xml"}, "xml", nil},
		{[]string{"study", "plot", "--db", db, "--study", "tune", "--out", filepath.Join(dir, "fig.gif")}, ".gif", nil},
	}
	for _, b := range bad {
		_, err := do(b.args...)
		if err == nil || !strings.Contains(err.Error(), b.want) || (b.is != nil && !errors.Is(err, b.is)) {
			t.Errorf("%v: got %v, want an error (%v) mentioning %q", b.args[1:], err, b.is, b.want)
		}
	}
	out, _ = do("study", "show", "--db", db, "--study", "tune", "--json")
	if !strings.Contains(out, `"rounds": 1`) {
		t.Errorf("bad tells changed the study:\n%s", out)
	}
	// Specifications that are rejected before anything is stored, with
	// ErrSpec and the key at fault in the message.
	for _, c := range []struct{ name, spec, key string }{
		{"oracle", strings.Replace(studySpec, "{name: sgp-ucb, phase1: uniform, exploration: {fixed: 3}}", "{name: gp-ucb-oracle}", 1), "algorithm.name"},
		{"lipschitz", strings.Replace(studySpec, "{name: sgp-ucb, phase1: uniform, exploration: {fixed: 3}}", "{name: safeopt, lipschitz: auto}", 1), "algorithm.lipschitz"},
		{"no seeds", strings.Replace(studySpec, "seed_actions: [20, 21]\n", "", 1), "seed_actions"},
		{"seed range", strings.Replace(studySpec, "[20, 21]", "[20, 99]", 1), "seed_actions[1]: 99"},
		{"unknown key", studySpec + "colour: red\n", `"colour"`},
		{"wrong type", strings.Replace(studySpec, "horizon: 30", "horizon: thirty", 1), "horizon"},
		{"constraints", strings.Replace(studySpec, "thresholds: [0.0]", "thresholds: [0.0, 1.0]", 1), "model.constraints"},
		{"no noise", strings.Replace(studySpec, "  noise_std: 0.05\n", "", 1), "model.noise_std"},
		{"missing file", strings.Replace(studySpec, "{grid: {bounds: [[0, 4], [0, 2]], points: [9, 5]}}", "{file: nope.csv}", 1), "decision_set.file"},
		{"two decisions", strings.Replace(studySpec, "{grid:", "{file: a.csv, grid:", 1), "decision_set"},
		{"memory", strings.Replace(strings.Replace(studySpec, "{grid: {bounds: [[0, 4], [0, 2]], points: [9, 5]}}", "{grid: {bounds: [[0, 4], [0, 2]], points: [60, 60]}}", 1), "horizon: 30", "horizon: 1000000", 1), "horizon 1000000"},
		{"fraction", strings.Replace(studySpec, "horizon: 30", "horizon: 1.5", 1), "horizon"},
		{"kernel", strings.Replace(studySpec, "objective: {kernel: se, lengthscale: 1}", "objective: {kernel: se, lengthscale: -1}", 1), "model.objective.lengthscale"},
		{"algorithm option", strings.Replace(studySpec, "phase1: uniform", "phase1: random", 1), "algorithm.phase1"},
	} {
		p := filepath.Join(dir, "bad-"+strings.ReplaceAll(c.name, " ", "-")+".yaml")
		os.WriteFile(p, []byte(c.spec), 0o644)
		fresh := filepath.Join(dir, "fresh-"+strings.ReplaceAll(c.name, " ", "-")+".db")
		if _, err := do("study", "create", p, "--db", fresh); !errors.Is(err, api.ErrSpec) || !strings.Contains(err.Error(), c.key) {
			t.Errorf("%s: got %v, want ErrSpec naming %s", c.name, err, c.key)
		}
		if _, err := os.Stat(fresh); !os.IsNotExist(err) {
			t.Errorf("%s: database created for a rejected specification", c.name)
		}
	}
}
