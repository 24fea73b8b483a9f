package experiment_test

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/safegp/safegp/experiment"
)

// TestGoldenFiles runs each testdata/*.yaml and compares, byte for byte as
// golang.org/x/perf's benchstat does, what it plays with NAME.runs.golden
// (per run: T', violations, the actions, Σ r_t) and its summary.csv with
// NAME.summary.csv.golden. They guard the plateau rule, the paper's β and
// noisy observations, which the shared golden cases (exact observations,
// constant β, fixed phases) do not reach. `go test ./experiment -run
// GoldenFiles -update` rewrites the files after a deliberate change; the
// diff then shows what changed.
func TestGoldenFiles(t *testing.T) {
	t.Parallel()
	cases, _ := filepath.Glob("testdata/*.yaml")
	if len(cases) < 2 {
		t.Fatalf("%d golden cases in testdata/", len(cases))
	}
	for _, path := range cases {
		name := strings.TrimSuffix(filepath.Base(path), ".yaml")
		t.Run(name, func(t *testing.T) {
			cfg, err := experiment.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			res, err := experiment.Execute(context.Background(), cfg, experiment.Options{Workers: 2})
			if err != nil {
				t.Fatal(err)
			}
			var runs bytes.Buffer
			for _, r := range res.Runs {
				sum := 0.0
				for _, v := range r.Regret {
					sum += v
				}
				fmt.Fprintf(&runs, "%s realization %d: T' %d, violations %d, Σr %s\n  actions %v\n  |S_t| %v\n",
					r.Label, r.Realization, r.ExplorationRounds, r.Violations, strconv.FormatFloat(sum, 'g', -1, 64), r.Actions, r.SafeSetSize)
			}
			golden(t, filepath.Join("testdata", name+".runs.golden"), runs.Bytes())
			golden(t, filepath.Join("testdata", name+".summary.csv.golden"), experiment.SummaryCSV(experiment.Summarize(res)))
		})
	}
}

// golden compares got with the file at path, or rewrites the file with
// -update. The files are written on amd64. Other architectures may fuse a
// multiply and an add into one rounding (the Go specification allows it),
// so there a mismatch in bytes is retried field by field, numbers to 1e-9
// relative; everything else must still match exactly.
func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update writes it)", err)
	}
	if bytes.Equal(got, want) {
		return
	}
	if runtime.GOARCH != "amd64" && sameNumbers(got, want, 1e-9) {
		return
	}
	gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := range max(len(gl), len(wl)) {
		var g, w string
		if i < len(gl) {
			g = gl[i]
		}
		if i < len(wl) {
			w = wl[i]
		}
		if g != w {
			t.Fatalf("%s differs from line %d on (go test -update rewrites it after a deliberate change):\ngot:  %.300s\nwant: %.300s", path, i+1, g, w)
		}
	}
}

// sameNumbers reports whether a and b have the same fields (split at
// separators), numeric fields equal to tol relative, others exactly.
func sameNumbers(a, b []byte, tol float64) bool {
	sep := func(r rune) bool { return strings.ContainsRune(" ,\n[]:", r) }
	fa, fb := strings.FieldsFunc(string(a), sep), strings.FieldsFunc(string(b), sep)
	if len(fa) != len(fb) {
		return false
	}
	for i := range fa {
		x, errA := strconv.ParseFloat(fa[i], 64)
		y, errB := strconv.ParseFloat(fb[i], 64)
		if errA != nil || errB != nil {
			if fa[i] != fb[i] {
				return false
			}
			continue
		}
		if math.Abs(x-y) > tol*math.Max(1, math.Max(math.Abs(x), math.Abs(y))) {
			return false
		}
	}
	return true
}
