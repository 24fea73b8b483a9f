package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/safegp/safegp/study/api"
)

const spec2D = `decision_set: {grid: {bounds: [[0, 1], [0, 1]], points: [9, 9]}}
seed_actions: [40, 41]
thresholds: [0.0]
model:
  objective: {kernel: se, lengthscale: 0.3}
  constraints: [{kernel: se, lengthscale: 0.3}]
  noise_std: 0.05
  delta: 0.01
algorithm: {name: safeopt, safe_set: gp}
horizon: 20
seed: 1
`

// TestStudyPlot2DColorBar: the 2-D study plot keys its colours with a
// colour bar (its label is in the SVG), where the title used to spell the
// range out in words.
func TestStudyPlot2DColorBar(t *testing.T) {
	dir := t.TempDir()
	spec, db := filepath.Join(dir, "spec.yaml"), filepath.Join(dir, "s.db")
	if err := os.WriteFile(spec, []byte(spec2D), 0o644); err != nil {
		t.Fatal(err)
	}
	do := func(args ...string) string {
		t.Helper()
		var stdout, stderr bytes.Buffer
		if err := run(args, &stdout, &stderr); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, stderr.String())
		}
		return stdout.String()
	}
	do("study", "create", spec, "--db", db)
	for range 6 {
		var a api.AskAnswer
		if err := json.Unmarshal([]byte(do("study", "ask", "--db", db)), &a); err != nil {
			t.Fatal(err)
		}
		f := math.Sin(3*a.X[0]) + a.X[1]
		do("study", "tell", "--db", db, "--ask", strconv.Itoa(a.Ask), "--f", strconv.FormatFloat(f, 'g', -1, 64), "--g", "0.5")
	}
	fig := filepath.Join(dir, "fig.svg")
	do("study", "plot", "--db", db, "--out", fig)
	b, err := os.ReadFile(fig)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"posterior mean of f", "safe set and observations"} {
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("fig.svg lacks %q", want)
		}
	}
	if bytes.Contains(b, []byte("blue")) || strings.Contains(string(b), "^") {
		t.Error("the figure still names its colours in words or writes a caret")
	}
	if out := os.Getenv("SAFEGP_STUDYPLOT_PNG"); out != "" { // to look at it
		do("study", "plot", "--db", db, "--out", out)
	}
}
