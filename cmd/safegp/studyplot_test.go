package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/safegp/safegp/internal/racetest"
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

// svgTexts are the texts of an SVG file: titles, labels, ticks, legends.
func svgTexts(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, part := range strings.Split(string(b), "</text>")[:strings.Count(string(b), "</text>")] {
		out = append(out, part[strings.LastIndex(part, ">")+1:])
	}
	return out
}

// TestStudyPlotInUserUnits (issue 44, item 1): a study stated in
// parameters is drawn in its user's units — kp on a log axis with ticks
// 0.1, 1, 10, ki and settle_time by name with its unit, the overshoot's
// limit, no unit-cube x₁ — in 2-D and in 1-D; on a box, the best safe
// value and the trials in parallel coordinates, by name.
func TestStudyPlotInUserUnits(t *testing.T) {
	racetest.Long(t, "study plots in units take 14 s")
	for _, c := range []struct {
		name, params string
		want         []string
	}{
		{"2-D", "  - {name: kp, low: 0.05, high: 20, scale: log}\n  - {name: ki, low: 0.01, high: 10, scale: log}\n",
			[]string{"kp", "ki", "settle_time (s)", "0.1", "1", "10", "s: settle_time (minimize), posterior mean", "trials"}},
		{"1-D", "  - {name: kp, low: 0.05, high: 20, scale: log}\n",
			[]string{"kp", "settle_time (s)", "overshoot", "0.1", "1", "10", "limit", "s: overshoot (constraint)"}},
		{"box", "  - {name: kp, low: 0.05, high: 20, scale: log}\n  - {name: ki, low: 0.01, high: 10, scale: log}\n  - {name: kd, low: 0.001, high: 2, scale: log}\n",
			[]string{"kp", "ki", "kd", "settle_time (s)", "s: best safe settle_time (minimize)", "s: trials in parallel coordinates"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			spec, db := filepath.Join(dir, "spec.yaml"), filepath.Join(dir, "s.db")
			seed := map[string]string{"2-D": "seeds: [{kp: 0.3, ki: 0.05}]\n", "1-D": "seeds: [{kp: 0.3}]\n", "box": "seeds: [{kp: 0.3, ki: 0.05, kd: 0.01}]\n"}[c.name]
			y := "parameters:\n" + c.params + "objective: {name: settle_time, goal: minimize, unit: s}\nconstraints:\n  - {name: overshoot, max: 0.05}\n" + seed + "horizon: 20\n"
			if err := os.WriteFile(spec, []byte(y), 0o644); err != nil {
				t.Fatal(err)
			}
			do := func(args ...string) string {
				t.Helper()
				var stdout, stderr bytes.Buffer
				if err := run(args, &stdout, &stderr); err != nil {
					t.Fatalf("%v: %v (%s)", args, err, stderr.String())
				}
				return stdout.String()
			}
			do("study", "create", spec, "--db", db, "--study", "s")
			for k := range 5 {
				var a struct {
					Ask int `json:"ask"`
				}
				if err := json.Unmarshal([]byte(do("study", "ask", "--db", db, "--study", "s")), &a); err != nil {
					t.Fatal(err)
				}
				do("study", "tell", "--db", db, "--study", "s", "--ask", strconv.Itoa(a.Ask), "--value", "settle_time="+strconv.Itoa(60-k), "--value", "overshoot=0.01")
			}
			out := filepath.Join(dir, "p.svg")
			do("study", "plot", "--db", db, "--study", "s", "--out", out)
			texts := svgTexts(t, out)
			for _, w := range c.want {
				if !slices.Contains(texts, w) {
					t.Errorf("no text %q in %q", w, texts)
				}
			}
			for _, txt := range texts {
				if strings.Contains(txt, "x₁") || strings.Contains(txt, "x1") {
					t.Errorf("a unit-cube axis: %q", txt)
				}
			}
		})
	}
}
