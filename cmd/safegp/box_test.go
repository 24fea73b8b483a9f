package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/safegp/safegp/study/api"
)

// TestStudyBox drives a 3-D box study through the CLI: asks with index −1
// and x, tells by ask and by x, --index refused, show's best safe point,
// and the best-value plot (any d).
func TestStudyBox(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "spec.yaml")
	os.WriteFile(spec, []byte(`decision_set: {box: {bounds: [[-1, 1], [-1, 1], [-1, 1]]}}
seed_points: [[0, 0, 0]]
thresholds: [0]
model:
  objective: {kernel: se, lengthscale: 0.8}
  constraints: [{kernel: se, lengthscale: 0.8}]
  noise_std: 0.05
  delta: 0.1
  beta: 4
algorithm: {name: line-bo, safe_set: gp, points: 40, per_line: 2}
horizon: 20
seed: 1
`), 0o644)
	db := filepath.Join(dir, "s.db")
	do := func(args ...string) (string, error) {
		var stdout, stderr bytes.Buffer
		err := run(args, &stdout, &stderr)
		return stdout.String(), err
	}
	if out, err := do("study", "create", spec, "--db", db); err != nil || !strings.Contains(out, "3-D box, 1 seed point\n") {
		t.Fatalf("create: %q %v", out, err)
	}
	for range 3 {
		out, err := do("study", "ask", "--db", db)
		if err != nil {
			t.Fatal(err)
		}
		var a api.AskAnswer
		// A box has no actions: the answer names the point, no index.
		if err := json.Unmarshal([]byte(out), &a); err != nil || strings.Contains(out, "index") || len(a.X) != 3 {
			t.Fatalf("ask %q: %+v %v", out, a, err)
		}
		if _, err := do("study", "tell", "--db", db, "--ask", itoa(a.Ask), "--f", "0.5", "--g", "0.3"); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := do("study", "tell", "--db", db, "--x", "0.1,0.1,0.1", "--f", "0.6", "--g", "0.4"); err != nil {
		t.Fatal(err)
	}
	if _, err := do("study", "tell", "--db", db, "--index", "0", "--f", "0.6", "--g", "0.4"); err == nil || !strings.Contains(err.Error(), "box") {
		t.Errorf("--index on a box study: %v", err)
	}
	show, err := do("study", "show", "--db", db)
	if err != nil || !strings.Contains(show, "best safe point: [") || !strings.Contains(show, "3-D box") {
		t.Errorf("show: %q %v", show, err)
	}
	fig := filepath.Join(dir, "fig.svg")
	if _, err := do("study", "plot", "--db", db, "--out", fig); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(fig); !bytes.Contains(b, []byte("best safe value")) {
		t.Error("the plot lacks the best safe value panel")
	}
}
