package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/safegp/safegp/internal/racetest"
	"github.com/safegp/safegp/plot"
	"github.com/safegp/safegp/study/api"
)

var updateFigureTexts = flag.Bool("update-figure-texts", false, "rewrite testdata/figure_texts.golden")

// TestFigureStyle (issue 44, item 3): the figures of run, sweep and study
// plot are drawn in the one style of every figure (plot.CheckStyle: the
// panels' font and sizes, lines in the colour-blind-safe palette or
// grey), as reproduce's and safety's are in their packages' tests; and
// their texts — titles, labels, ticks, legends — are those of
// testdata/figure_texts.golden, read from the SVG: what a reader sees,
// not pixels. go test -run TestFigureStyle -update-figure-texts rewrites
// the file after a change meant to show.
func TestFigureStyle(t *testing.T) {
	racetest.Long(t, "every command's figures take 14 s")
	dir := t.TempDir()
	do := func(args ...string) string {
		t.Helper()
		var stdout, stderr bytes.Buffer
		if err := run(args, &stdout, &stderr); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, stderr.String())
		}
		return stdout.String()
	}
	// run and sweep: regime 1–10 made small.
	b, err := os.ReadFile("../../examples/regime-1-10.yaml")
	if err != nil {
		t.Fatal(err)
	}
	small := strings.Replace(strings.Replace(string(b), "realizations: 30", "realizations: 3", 1), "horizon: 500", "horizon: 60", 1)
	if small == string(b) {
		t.Fatal("examples/regime-1-10.yaml changed: the test no longer makes it small")
	}
	cfg, sw := filepath.Join(dir, "small.yaml"), filepath.Join(dir, "sweep.yaml")
	os.WriteFile(cfg, []byte(small), 0o644)
	os.WriteFile(sw, []byte("base_file: small.yaml\naxes:\n  model.delta: [0.01, 0.1]\n"), 0o644)
	do("run", cfg, "--out", filepath.Join(dir, "run"))
	do("sweep", sw, "--out", filepath.Join(dir, "sweep"))
	// study plot: two gains on log scales, 8 trials of a smooth plant.
	spec, db := filepath.Join(dir, "pi.yaml"), filepath.Join(dir, "pi.db")
	os.WriteFile(spec, []byte(`parameters:
  - {name: kp, low: 0.05, high: 20, scale: log, unit: V/rad}
  - {name: ki, low: 0.01, high: 10, scale: log}
objective: {name: settle_time, goal: minimize, unit: s}
constraints:
  - {name: overshoot, max: 0.05}
seeds: [{kp: 0.3, ki: 0.05}]
horizon: 20
`), 0o644)
	do("study", "create", spec, "--db", db)
	for range 8 {
		var a api.AskAnswer
		if err := json.Unmarshal([]byte(do("study", "ask", "--db", db)), &a); err != nil {
			t.Fatal(err)
		}
		kp, ki := a.Params["kp"].Num, a.Params["ki"].Num
		g := strconv.FormatFloat
		do("study", "tell", "--db", db, "--ask", strconv.Itoa(a.Ask), "--value", "settle_time="+g(10/(1+kp)+1/(0.2+ki), 'g', -1, 64), "--value", "overshoot="+g(0.02*kp+0.01*ki-0.01, 'g', -1, 64))
	}
	do("study", "plot", "--db", db, "--out", filepath.Join(dir, "study.svg"))

	got := map[string][]string{}
	for name, path := range map[string]string{"run": "run/regret.svg", "sweep": "sweep/sweep.svg", "study plot": "study.svg"} {
		b, err := os.ReadFile(filepath.Join(dir, path))
		if err != nil {
			t.Fatal(err)
		}
		if err := plot.CheckStyle(b); err != nil {
			t.Errorf("%s (%s): %v", name, path, err)
		}
		got[name] = svgTexts(t, filepath.Join(dir, path))
	}
	golden := filepath.Join("testdata", "figure_texts.golden")
	if *updateFigureTexts {
		b, _ := json.MarshalIndent(got, "", "  ")
		os.MkdirAll("testdata", 0o755)
		if err := os.WriteFile(golden, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err = os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	var want map[string][]string
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	for name, texts := range want {
		if !slices.Equal(got[name], texts) {
			t.Errorf("%s: texts %q, want %q", name, got[name], texts)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d figures, the golden file has %d", len(got), len(want))
	}
}
