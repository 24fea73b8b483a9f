package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/safegp/safegp/study/api"
)

// spec1D is a 1-D study with two constraints.
const spec1D = `decision_set: {grid: {bounds: [[0, 4]], points: [41]}}
seed_actions: [10, 11]
thresholds: [0.0, -1.0]
model:
  objective: {kernel: se, lengthscale: 1}
  constraints: [{kernel: se, lengthscale: 1}, {kernel: matern52, lengthscale: 2}]
  noise_std: 0.05
  delta: 0.01
algorithm: {name: safeopt, safe_set: gp}
horizon: 20
seed: 1
`

// TestStudyCLI1D drives a 1-D study with two constraints in-process:
// tells, a retraction (the pending ask is withdrawn and show says so),
// show in text, and the 1-D plot as PNG and SVG (one panel for f and one
// per constraint).
func TestStudyCLI1D(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "spec.yaml")
	if err := os.WriteFile(spec, []byte(spec1D), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "s.db")
	do := func(args ...string) (string, string, error) {
		var stdout, stderr bytes.Buffer
		err := run(args, &stdout, &stderr)
		return stdout.String(), stderr.String(), err
	}
	must := func(args ...string) string {
		t.Helper()
		out, stderr, err := do(args...)
		if err != nil {
			t.Fatalf("%v: %v\n%s", args, err, stderr)
		}
		return out
	}
	if out := must("study", "create", spec, "--db", db); !strings.Contains(out, "41 actions, 2 seed actions") {
		t.Errorf("create: %q", out)
	}
	var a api.AskAnswer
	json.Unmarshal([]byte(must("study", "ask", "--db", db)), &a)
	must("study", "tell", "--db", db, "--ask", itoa(a.Ask), "--f", "0.3", "--g", "0.5, 0.2")
	must("study", "tell", "--db", db, "--index", "12", "--f", "0.1", "--g", "0.4,-2") // violates g2
	json.Unmarshal([]byte(must("study", "ask", "--db", db)), &a)
	// Events: ask 1, tell 2, tell 3 (by index), ask 4. Retract the tell 3.
	out, stderr, err := do("study", "retract", "--db", db, "--observation", "3")
	if err != nil || !strings.Contains(out, `"observation":3`) || !strings.Contains(stderr, "ask "+itoa(a.Ask)+" was withdrawn") {
		t.Fatalf("retract: %v, %q, %q", err, out, stderr)
	}
	if _, _, err := do("study", "retract", "--db", db); !errors.Is(err, api.ErrBadRetract) || !strings.Contains(err.Error(), "--observation") {
		t.Errorf("retract without --observation: %v", err)
	}
	json.Unmarshal([]byte(must("study", "ask", "--db", db)), &a)
	show := must("study", "show", "--db", db)
	for _, want := range []string{"safeopt on 41 actions in 1-D, 2 constraints, horizon 20", "rounds: 1, violations: 0",
		"retracted: 1 observation,", "pending ask: " + itoa(a.Ask), "best safe action: "} {
		if !strings.Contains(show, want) {
			t.Errorf("show lacks %q:\n%s", want, show)
		}
	}
	for _, ext := range []string{"png", "svg"} {
		fig := filepath.Join(dir, "fig."+ext)
		if out := must("study", "plot", "--db", db, "--out", fig); !strings.Contains(out, "wrote "+fig) {
			t.Errorf("plot: %q", out)
		}
		b, err := os.ReadFile(fig)
		if err != nil {
			t.Fatal(err)
		}
		switch ext {
		case "png":
			if !bytes.HasPrefix(b, []byte("\x89PNG")) {
				t.Error("fig.png is not a PNG")
			}
		case "svg":
			// A panel per GP, each titled "NAME: f", "NAME: g1", "NAME: g2".
			for _, title := range []string{"default: f", "default: g1", "default: g2", "threshold h", "safe set", "observations"} {
				if !bytes.Contains(b, []byte(title)) {
					t.Errorf("fig.svg lacks %q", title)
				}
			}
		}
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".safegp-plot") {
			t.Errorf("plot left %s behind", e.Name())
		}
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// TestStudyPlot3DRefused: only 1-D and 2-D decision sets can be drawn; a
// 3-D study is refused, naming its dimension, and no file is written.
func TestStudyPlot3DRefused(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "spec.yaml")
	os.WriteFile(spec, []byte(strings.Replace(spec1D, "{grid: {bounds: [[0, 4]], points: [41]}}", "{grid: {bounds: [[0, 1], [0, 1], [0, 1]], points: [4, 4, 4]}}", 1)), 0o644)
	db := filepath.Join(dir, "s.db")
	var stdout, stderr bytes.Buffer
	if err := run([]string{"study", "create", spec, "--db", db}, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	fig := filepath.Join(dir, "fig.png")
	err := run([]string{"study", "plot", "--db", db, "--out", fig}, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "3-D") {
		t.Errorf("plot of a 3-D study: %v", err)
	}
	if _, err := os.Stat(fig); !os.IsNotExist(err) {
		t.Error("a figure was written")
	}
}

// TestStudyUsage: command-line mistakes exit with status 2 and say what
// is wrong on stderr; help exits 0.
func TestStudyUsage(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string // on stderr
	}{
		{[]string{"study"}, ""},
		{[]string{"study", "frobnicate", "--db", "x.db"}, `unknown command "frobnicate"`},
		{[]string{"study", "ask"}, "--db FILE is required"},
		{[]string{"study", "ask", "--db", filepath.Join(dir, "x.db"), "extra"}, "want 0 positional arguments, got 1"},
		{[]string{"study", "create", "--db", filepath.Join(dir, "x.db")}, "want 1 positional argument, got 0"},
		{[]string{"study", "show", "--db", filepath.Join(dir, "x.db"), "--bogus"}, "flag provided but not defined: --bogus"},
	} {
		var stdout, stderr bytes.Buffer
		err := run(c.args, &stdout, &stderr)
		if exitCode(err) != 2 || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("%v: exit %d (%v), stderr %q; want 2 and %q", c.args, exitCode(err), err, stderr.String(), c.want)
		}
	}
	for _, args := range [][]string{{"study", "--help"}, {"help", "study"}} {
		var stdout, stderr bytes.Buffer
		if err := run(args, &stdout, &stderr); err != nil || !strings.Contains(stdout.String(), "Usage: safegp study COMMAND") {
			t.Errorf("%v: %v, %q", args, err, stdout.String())
		}
	}
}
