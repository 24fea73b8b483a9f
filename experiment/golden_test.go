package experiment_test

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/safegp/safegp/experiment"
)

// TestGolden replays the golden cases of testdata/ (copied from the shared
// cases: an independent numpy implementation recomputing the posterior from
// scratch each round). Observations are exact, so the played actions must
// match exactly; the cumulative regret is a sum of T differences of the
// file's values and must match to 1e-9 absolute.
func TestGolden(t *testing.T) {
	t.Parallel()
	cases, _ := filepath.Glob("../testdata/public_*.yaml")
	if len(cases) == 0 {
		t.Fatal("no golden cases in testdata/")
	}
	for _, path := range cases {
		name := strings.TrimSuffix(filepath.Base(path), ".yaml")
		t.Run(name, func(t *testing.T) {
			cfg, err := experiment.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			raw, err := os.ReadFile(strings.TrimSuffix(path, ".yaml") + ".expected.json")
			if err != nil {
				t.Fatal(err)
			}
			var want map[string]struct {
				Actions          []int   `json:"actions"`
				Violations       int     `json:"violations"`
				CumulativeRegret float64 `json:"cumulative_regret"`
			}
			if err := json.Unmarshal(raw, &want); err != nil {
				t.Fatal(err)
			}
			res, err := experiment.Execute(context.Background(), cfg, experiment.Options{Workers: 2})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Runs) != len(want) {
				t.Fatalf("%d runs, want %d", len(res.Runs), len(want))
			}
			for _, run := range res.Runs {
				w, ok := want[run.Label]
				if !ok {
					t.Errorf("no expected result for label %q", run.Label)
					continue
				}
				if d := cmp.Diff(w.Actions, run.Actions); d != "" {
					t.Errorf("%s: actions differ (-want +got):\n%s", run.Label, d)
				}
				if run.Violations != w.Violations {
					t.Errorf("%s: %d violations, want %d", run.Label, run.Violations, w.Violations)
				}
				var sum float64
				for _, r := range run.Regret {
					sum += r
				}
				if math.Abs(sum-w.CumulativeRegret) > 1e-9 {
					t.Errorf("%s: cumulative regret %v, want %v", run.Label, sum, w.CumulativeRegret)
				}
			}
		})
	}
}

// TestExamplesLoad keeps the example configs valid and in step with the
// paper's comparison: each names the five algorithms of SPEC §6.2.
func TestExamplesLoad(t *testing.T) {
	t.Parallel()
	paths, _ := filepath.Glob("../examples/*.yaml")
	if len(paths) < 3 {
		t.Fatalf("%d example configs, want the three regimes", len(paths))
	}
	highdim, _ := filepath.Glob("../examples/highdim/*.yaml")
	if len(highdim) != 3 {
		t.Fatalf("%d high-dimensional example configs, want d = 10, 20, 40", len(highdim))
	}
	paths = append(paths, highdim...)
	for _, p := range paths {
		if strings.HasPrefix(filepath.Base(p), "sweep-") {
			continue // a sweep file (package sweep tests it)
		}
		cfg, err := experiment.Load(p)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, a := range cfg.Algorithms {
			names = append(names, a.Name)
		}
		want := []string{"sgp-ucb", "stageopt", "safeopt-mc", "naive-sgp-ucb", "gp-ucb-oracle"}
		if d := cmp.Diff(want, names); d != "" && strings.Contains(p, "regime") {
			t.Errorf("%s: algorithms (-want +got):\n%s", p, d)
		}
	}
}
