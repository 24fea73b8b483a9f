package sweep

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// small is a sweep of 2 × 2 cells of a tiny problem (N = 30, T = 20, two
// realizations), the tests' base.
func small(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/small.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// withAxes replaces small's axes and figure sections by tail.
func withAxes(t *testing.T, tail string) []byte {
	s := string(small(t))
	return []byte(s[:strings.Index(s, "axes:")] + tail)
}

func TestParseCells(t *testing.T) {
	t.Parallel()
	s, err := Parse(small(t), "testdata")
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		name  string
		ls, d float64
	}{
		{"0-lengthscale=0.2,delta=0.01", 0.2, 0.01},
		{"1-lengthscale=0.2,delta=0.1", 0.2, 0.1},
		{"2-lengthscale=0.4,delta=0.01", 0.4, 0.01},
		{"3-lengthscale=0.4,delta=0.1", 0.4, 0.1},
	}
	if len(s.Cells) != len(want) {
		t.Fatalf("%d cells, want %d", len(s.Cells), len(want))
	}
	for i, w := range want {
		c := s.Cells[i]
		// The values set are those decoded: the cell is the base with
		// the axes' values, nothing else changed.
		if c.Name != w.name || c.Config.Problem.Generate.Constraints[0].Lengthscale[0] != w.ls || *c.Config.Model.Delta != w.d {
			t.Errorf("cell %d: %s, lengthscale %v, delta %v; want %s, %v, %v", i, c.Name, c.Config.Problem.Generate.Constraints[0].Lengthscale, *c.Config.Model.Delta, w.name, w.ls, w.d)
		}
		if c.Config.Horizon != 20 || c.Config.Realizations != 2 || len(c.Config.Algorithms) != 2 {
			t.Errorf("cell %d: the base's other keys changed: %+v", i, c.Config)
		}
	}
	if s.Figure != (Figure{Metric: MetricExploration, X: "model.delta"}) {
		t.Errorf("figure %+v", s.Figure)
	}
	// Units: cell-major, then algorithm, then realization.
	u := s.Units()
	if s.UnitBase(0) != 0 || s.UnitBase(3) != 12 {
		t.Errorf("unit bases %d, %d; want 0, 12", s.UnitBase(0), s.UnitBase(3))
	}
	if len(u) != 16 || s.Runs() != 16 || u[0] != (Unit{0, 0, 0}) || u[1] != (Unit{0, 0, 1}) || u[2] != (Unit{0, 1, 0}) || u[4] != (Unit{1, 0, 0}) || u[15] != (Unit{3, 1, 1}) {
		t.Errorf("units %v", u)
	}
}

// TestParseAddsKey: a key the base leaves out is added (here
// problem.objective_threshold), and a base_file is read relative to the
// sweep file.
func TestParseAddsKeyAndBaseFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := string(small(t))
	base := strings.TrimPrefix(s[:strings.Index(s, "axes:")], "base:\n")
	base = strings.ReplaceAll(base, "\n  ", "\n")[2:]
	if err := os.WriteFile(filepath.Join(dir, "base.yaml"), []byte(base), 0o644); err != nil {
		t.Fatal(err)
	}
	sw, err := Parse([]byte("base_file: base.yaml\naxes:\n  problem.objective_threshold: [-1, -2]\n"), dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(sw.Cells) != 2 || *sw.Cells[1].Config.Problem.ObjectiveThreshold != -2 || sw.Cells[1].Name != "1-objective_threshold=-2" {
		t.Fatalf("cells %+v", sw.Cells)
	}
	if sw.Figure.X != "problem.objective_threshold" || sw.Figure.Metric != MetricRegret {
		t.Errorf("default figure %+v", sw.Figure)
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		tail string // replaces small's axes and figure
		want []string
	}{
		{"unknown top key", "axes:\n  model.delta: [0.1]\nfigures: {}\n", []string{"line 20", "unknown key \"figures\""}},
		{"no axes", "axes: {}\n", []string{"give at least one axis"}},
		{"empty values", "axes:\n  model.delta: []\n", []string{"model.delta", "non-empty list"}},
		{"bad key path", "axes:\n  model..delta: [0.1]\n", []string{"line 19", "want a key"}},
		{"bad index", "axes:\n  problem.generate.constraints[x].lengthscale: [0.1]\n", []string{"want an index"}},
		{"index out of range", "axes:\n  problem.generate.constraints[3].lengthscale: [0.1]\n", []string{"line 19", "index 3 out of range", "problem.generate.constraints has 1 item"}},
		{"index into a mapping", "axes:\n  model[0]: [0.1]\n", []string{"model is a mapping, not a list"}},
		{"key under a scalar", "axes:\n  seed.low: [1]\n", []string{"seed is 7, not a mapping"}},
		{"unknown config key", "axes:\n  model.deltaa: [0.1]\n", []string{"cell 0 (model.deltaa=0.1)", "unknown key \"deltaa\""}},
		{"type mismatch", "axes:\n  model.delta: [0.01, high]\n", []string{"cell 1 (model.delta=high)", "line 19", "model.delta", "want a number"}},
		{"invalid cell", "axes:\n  horizon: [10]\n  model.delta: [0.01, 2]\nfigure: {x: horizon}\n", []string{"cell 1 (horizon=10, model.delta=2)", "model.delta"}},
		{"figure x not an axis", "axes:\n  model.delta: [0.1]\nfigure: {x: horizon}\n", []string{"figure.x", "not an axis"}},
		{"figure x needed", "axes:\n  model.delta: [0.1]\n  horizon: [5]\n", []string{"figure.x: give the axis"}},
		{"figure x not numeric", "axes:\n  model.beta: [paper, 2]\n", []string{"figure.x", "paper is not a number"}},
		{"unquoted brackets in flow style", "axes:\n  problem.generate.constraints[0].lengthscale: [0.1, 0.2]\nfigure: {metric: regret, x: problem.generate.constraints[0].lengthscale}\n", []string{"needs quotes", `{x: "a[0].b"}`}},
		{"figure metric", "axes:\n  model.delta: [0.1]\nfigure: {metric: speed}\n", []string{"figure.metric", "\"speed\""}},
		{"axes not a mapping", "axes: [model.delta]\n", []string{"line 18", "want a mapping of key paths to lists of values"}},
		{"axis twice", "axes:\n  model.delta: [0.1]\n  model.delta: [0.2]\n", []string{"model.delta", "given twice"}},
		{"index under a missing key", "axes:\n  model.weights[0]: [1]\n", []string{`model has no key "weights" in the base, so it has no list to index`}},
		{"index under a missing top key", "axes:\n  weights[0].x: [1]\n", []string{`the base has no key "weights" in the base, so it has no list to index`}},
		{"too many cells", "axes:\n  seed: [" + strings.Repeat("1, ", 999) + "1]\n  horizon: [" + strings.Repeat("1, ", 999) + "1]\n", []string{"more than 100000 cells"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(withAxes(t, tc.tail), "testdata")
			if err == nil {
				t.Fatal("no error")
			}
			if !errors.Is(err, ErrSweep) {
				t.Errorf("%v is not ErrSweep", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
	for _, tc := range []struct {
		name, doc, want string
	}{
		{"empty", "", "empty sweep file"},
		{"no base", "axes: {model.delta: [0.1]}\n", "give base"},
		{"both bases", "base: {seed: 1}\nbase_file: x.yaml\naxes: {model.delta: [0.1]}\n", "not both"},
		{"base not a mapping", "base: [1]\naxes: {model.delta: [0.1]}\n", "line 1: base: want a configuration"},
		{"missing base file", "base_file: nope.yaml\naxes: {model.delta: [0.1]}\n", "base_file"},
		{"base file not YAML", "base_file: " + writeBase(t, "bad.yaml", "seed: [1\n") + "\naxes: {model.delta: [0.1]}\n", "bad.yaml: yaml: line"},
		{"base file a list", "base_file: " + writeBase(t, "list.yaml", "- 1\n") + "\naxes: {model.delta: [0.1]}\n", "want a configuration (a mapping)"},
		{"a function problem", "base_file: ../../examples/linebo-camelback.yaml\naxes: {model.delta: [0.1]}\n", "problem.function is not offered in a sweep"},
		{"base file empty", "base_file: " + writeBase(t, "empty.yaml", "# nothing\n") + "\naxes: {model.delta: [0.1]}\n", "base_file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.doc), "testdata")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one with %q", err, tc.want)
			}
		})
	}
}

// writeBase writes a base file of text to a fresh folder and returns its
// absolute path.
func writeBase(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestParseValuesAsWritten: an axis value that is a list or a mapping is
// set in the cell as decoded and named in flow style, comments dropped
// (Axis.Values, sweep.go text); an alias is followed, for an axis's list
// as for a value in it, and its values are not numbers (NaN).
func TestParseValuesAsWritten(t *testing.T) {
	t.Parallel()
	doc := withAxes(t, "axes:\n  model.delta: &deltas [0.01, 0.1]\n  model.beta:\n    - 2\n    - {rkhs_norm: 1.5,   # B\n       noise_bound: 0.2}\n  problem.thresholds: [[0.0], [-0.5]]\nfigure: {x: model.delta}\n")
	s, err := Parse(doc, "testdata")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Axes) != 3 || len(s.Cells) != 8 {
		t.Fatalf("%d axes, %d cells; want 3, 8", len(s.Axes), len(s.Cells))
	}
	for k, want := range [][]string{{"0.01", "0.1"}, {"2", "{rkhs_norm: 1.5, noise_bound: 0.2}"}, {"[0.0]", "[-0.5]"}} {
		if got := s.Axes[k].Values; !slices.Equal(got, want) {
			t.Errorf("axis %s: values %q, want %q", s.Axes[k].Key, got, want)
		}
	}
	if n := s.Axes[1].Numbers; n[0] != 2 || !math.IsNaN(n[1]) {
		t.Errorf("model.beta as numbers: %v, want [2 NaN]", n)
	}
	c := s.Cells[3] // delta 0.01, beta {…}, thresholds [-0.5]
	if b := c.Config.Model.Beta; b == nil || b.Freq == nil || b.Freq.RKHSNorm != 1.5 || b.Freq.NoiseBound != 0.2 {
		t.Errorf("cell 3's beta %+v, want rkhs_norm 1.5, noise_bound 0.2", b)
	}
	if th := c.Config.Problem.Thresholds; len(th) != 1 || th[0] != -0.5 {
		t.Errorf("cell 3's thresholds %v, want [-0.5]", th)
	}
	alias := withAxes(t, "axes:\n  model.delta: &d [0.01, 0.1]\n  model.noise_std: *d\nfigure: {x: model.delta}\n")
	if s, err := Parse(alias, "testdata"); err != nil || len(s.Cells) != 4 || *s.Cells[3].Config.Model.NoiseStd != 0.1 {
		t.Errorf("an aliased axis: %v", err)
	}
}

func TestParsePath(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want string // pathText of the steps, or "error"
	}{
		{"model.delta", "model.delta"},
		{"problem.generate.constraints[0].lengthscale", "problem.generate.constraints[0].lengthscale"},
		{"a[1][2].b", "a[1][2].b"},
		{"", "error"},
		{".a", "error"},
		{"a.", "error"},
		{"a[", "error"},
		{"a[-1]", "error"},
		{"a]b", "error"},
	} {
		steps, err := parsePath(tc.in)
		got := "error"
		if err == nil {
			got = pathText(steps)
		}
		if got != tc.want {
			t.Errorf("parsePath(%q) = %q (%v), want %q", tc.in, got, err, tc.want)
		}
	}
}

// TestExamples keeps the example sweeps (examples/sweep-*.yaml) valid.
func TestExamples(t *testing.T) {
	t.Parallel()
	paths, _ := filepath.Glob("../examples/sweep-*.yaml")
	if len(paths) == 0 {
		t.Fatal("no examples/sweep-*.yaml")
	}
	for _, p := range paths {
		if _, err := Load(p); err != nil {
			t.Error(err)
		}
	}
}

// TestRunAllOrNothing: a sweep refused (memory) or stopped (cancelled)
// leaves no output folder and no staging folder behind.
func TestRunAllOrNothing(t *testing.T) {
	t.Parallel()
	s, err := Parse(small(t), "testdata")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		ctx    func() context.Context
		maxMem int64
		want   string
	}{
		{"memory", context.Background, 1 << 10, "more than the limit"},
		{"cancelled", func() context.Context {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx
		}, 0, "context canceled"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			_, err := Run(tc.ctx(), s, filepath.Join(dir, "out"), Options{Workers: 2, MaxMemory: tc.maxMem})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one with %q", err, tc.want)
			}
			if left, _ := os.ReadDir(dir); len(left) != 0 {
				t.Errorf("left behind: %v", left)
			}
		})
	}
}

// TestRunKeys: cells that differ only in one algorithm's setting share the
// other algorithms' run keys (so Run plays those once); cells that differ
// in a key every run reads share none.
func TestRunKeys(t *testing.T) {
	t.Parallel()
	s, err := Parse(withAxes(t, "axes:\n  seed: [7, 8]\n  algorithms[0].exploration.plateau.window: [3, 6]\nfigure: {x: seed}\n"), "testdata")
	if err != nil {
		t.Fatal(err)
	}
	k := func(c, a int) string { return s.Cells[c].runKeys[a] }
	if k(0, 1) != k(1, 1) || k(2, 1) != k(3, 1) {
		t.Error("window cells of one seed do not share the second algorithm's runs")
	}
	if k(0, 0) == k(1, 0) || k(0, 1) == k(2, 1) || k(0, 0) == k(0, 1) {
		t.Error("keys shared where runs differ")
	}
	u := s.newReuse()
	if want := int64(2 * (2*(32*20) + 2*256)); u.bytes() != want {
		t.Errorf("kept runs' estimate %d bytes, want %d (two keys × 2 realizations)", u.bytes(), want)
	}
}
