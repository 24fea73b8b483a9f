package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStudyCLIObjectiveThreshold: a study whose only safety condition is
// f ≥ h_f is told without --g, reports f < h_f as violated_objective,
// shows its threshold and violations, and plots (1-D: h_f on f's panel).
func TestStudyCLIObjectiveThreshold(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "spec.yaml")
	if err := os.WriteFile(spec, []byte(`decision_set: {grid: {bounds: [[0, 4]], points: [21]}}
seed_actions: [10]
objective_threshold: -1.5
model:
  objective: {kernel: se, lengthscale: 1}
  noise_std: 0.05
  delta: 0.01
algorithm: {name: safeopt, safe_set: gp}
horizon: 30
seed: 2
`), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "s.db")
	do := func(args ...string) string {
		t.Helper()
		var stdout, stderr bytes.Buffer
		if err := run(args, &stdout, &stderr); err != nil {
			t.Fatalf("%v: %v (%s)", args[:2], err, stderr.String())
		}
		return stdout.String()
	}
	do("study", "create", spec, "--db", db)
	do("study", "ask", "--db", db)
	var ans struct {
		Violation         bool  `json:"violation"`
		Violated          []int `json:"violated"`
		ViolatedObjective bool  `json:"violated_objective"`
	}
	if err := json.Unmarshal([]byte(do("study", "tell", "--db", db, "--ask", "1", "--f", "-0.5")), &ans); err != nil || ans.Violation {
		t.Errorf("f ≥ h_f: %+v, %v", ans, err)
	}
	if err := json.Unmarshal([]byte(do("study", "tell", "--db", db, "--index", "0", "--f", "-9", "--g", "")), &ans); err != nil ||
		!ans.Violation || !ans.ViolatedObjective || ans.Violated != nil {
		t.Errorf("f < h_f: %+v, %v", ans, err)
	}
	if out := do("study", "show", "--db", db); !strings.Contains(out, "0 constraints and f ≥ -1.5") || !strings.Contains(out, "violations: 1") {
		t.Errorf("show: %s", out)
	}
	fig := filepath.Join(dir, "fig.png")
	do("study", "plot", "--db", db, "--out", fig)
	if st, err := os.Stat(fig); err != nil || st.Size() == 0 {
		t.Error("no plot written")
	}
}
