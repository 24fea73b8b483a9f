package experiment

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"github.com/safegp/safegp/bandit"
	"github.com/safegp/safegp/gp"
	"github.com/safegp/safegp/internal/racetest"
	"github.com/safegp/safegp/problem"
)

// TestPlanCoversARun checks the memory estimate of one run against what a
// run holds: the heap live at its rounds (after a collection), the policy
// and the run's results included, must not exceed the estimate's part per
// parallel run, Plan(2 workers) − Plan(1). Two configurations make the
// estimate's terms tell (issue 25, item 6: counting m GPs instead of
// m + 1, or dropping the run's results, passed every test): many actions,
// where the GPs dominate, and 4 actions over a long horizon, where the
// per-round results do.
func TestPlanCoversARun(t *testing.T) {
	racetest.Long(t, "a collection at every round of four runs takes 14 s")
	dir := t.TempDir()
	// A problem file of 40 actions on [0, 4] and a warm start of 600
	// measurements between them: every one outside the decision set keeps
	// its row of L in each of the m + 1 GPs (gp.OutsideBytes), which then
	// dominate.
	var file, warm strings.Builder
	file.WriteString("x1,f,g1,g2,seed\n")
	for i := range 40 {
		x := float64(i) / 10
		fmt.Fprintf(&file, "%g,%g,%g,%g,%d\n", x, -(x-3)*(x-3), 1-x/4, 2-x/4, map[bool]int{true: 1}[i == 5])
	}
	warm.WriteString("x1,f,g1,g2\n")
	for k := range 600 {
		x := 0.013 + 3.9*float64(k)/600
		fmt.Fprintf(&warm, "%g,%g,%g,%g\n", x, math.Sin(x), 1-x/4, 2-x/4)
	}
	os.WriteFile(filepath.Join(dir, "file.csv"), []byte(file.String()), 0o644)
	os.WriteFile(filepath.Join(dir, "warm.csv"), []byte(warm.String()), 0o644)
	warmConfig := `seed: 1
realizations: 2
horizon: 200
problem: {file: file.csv, warm_start: warm.csv, thresholds: [0.0, 0.0], noise_std: 0.1}
model: {objective: {kernel: se, lengthscale: 1}, constraints: [{kernel: se, lengthscale: 1}, {kernel: se, lengthscale: 1}], noise_std: 0.1, delta: 0.01}
algorithms: [{name: naive-sgp-ucb}]
`
	for _, c := range []struct {
		name          string
		n, horizon, m int
		text          string // the configuration, else one made of n, horizon and m
	}{
		{"GPs", 60, 2000, 1, ""},
		{"GPs, 3 constraints", 60, 2000, 3, ""},
		{"results", 4, 20000, 1, ""},
		{"warm start outside the set", 40, 200, 2, warmConfig},
	} {
		t.Run(c.name, func(t *testing.T) {
			kernels := strings.Repeat("{kernel: se, lengthscale: 0.2}, ", c.m)
			text := c.text
			if text == "" {
				text = fmt.Sprintf(`seed: 1
realizations: 2
horizon: %d
problem:
  generate:
    decision_set: {kind: unit-disk, size: %d}
    objective: {kernel: se, lengthscale: 1}
    constraints: [%s]
    seed_set: {size: [1, 2]}
  thresholds: [%s]
model: {noise_std: 0.1, delta: 0.01}
algorithms: [{name: naive-sgp-ucb}]
`, c.horizon, c.n, strings.TrimSuffix(kernels, ", "), strings.TrimSuffix(strings.Repeat("0.0, ", c.m), ", "))
			}
			cfg, err := Parse(strings.NewReader(text), dir)
			if err != nil {
				t.Fatal(err)
			}
			var one, two Plan
			var perRun int64
			fixed, err := cfg.ReadProblem()
			if err != nil {
				t.Fatal(err)
			}
			var info *problem.Info
			if fixed != nil {
				if info, err = fixed.Analyze(); err != nil {
					t.Fatal(err)
				}
			}
			one, err = cfg.Plan(fixed, 1, 0, false)
			if err != nil {
				t.Fatal(err)
			}
			if two, err = cfg.Plan(fixed, 2, 0, false); err != nil {
				t.Fatal(err)
			}
			perRun = two.Bytes - one.Bytes
			in, err := cfg.instance(0, fixed, info)
			if err != nil {
				t.Fatal(err)
			}
			st := cfg.Setting(0, in)
			live := func() int64 {
				var ms runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&ms)
				return int64(ms.HeapAlloc)
			}
			base := live()
			var peak int64
			run, err := Play(&cfg.Algorithms[0], st, OnProblem(in.Problem, in.Info), cfg.Noise(0), func(round int, _ bandit.Policy) error {
				if round%(c.horizon/4) == 0 || round == c.horizon {
					peak = max(peak, live()-base)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			runtime.KeepAlive(run)
			t.Logf("estimate per run %d B, live at most %d B (%.2f)", perRun, peak, float64(perRun)/float64(peak))
			if peak > perRun {
				t.Errorf("a run holds %d B, the estimate per run is %d B", peak, perRun)
			}
			// The estimate holds the policy's and the run's results
			// besides: what the run's slices take, measured.
			results := int64(unsafe.Sizeof(*run))
			for _, n := range []int{cap(run.Actions), cap(run.Regret), cap(run.ReachableRegret), cap(run.SafeSetSize)} {
				results += 8 * int64(n)
			}
			rows := cfg.Horizon
			if cfg.warm != nil {
				rows += len(cfg.warm.Obs)
			}
			pol := bandit.Bytes(&cfg.Algorithms[0], len(st.Set.X), c.m, false, rows, false)
			if perRun < pol+results {
				t.Errorf("the estimate per run, %d B, holds less than the policy's %d B and the results' %d B", perRun, pol, results)
			}
		})
	}
}

// TestPlanCountsOutsideRowsPerGP: a warm start at points outside the
// decision set costs every GP of a run its rows of L (gp.OutsideBytes):
// the per-run estimate of a warm start between the actions exceeds the
// one of the same number of rows at the actions by exactly GPCount times
// that — f and both constraints for sgp-ucb, f alone for the oracle
// (issue 25, item 6: counting m GPs instead of m + 1 passed every test).
func TestPlanCountsOutsideRowsPerGP(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var file, between, at strings.Builder
	file.WriteString("x1,f,g1,g2,seed\n")
	for i := range 40 {
		x := float64(i) / 10
		fmt.Fprintf(&file, "%g,%g,%g,%g,%d\n", x, -(x-3)*(x-3), 1-x/4, 2-x/4, map[bool]int{true: 1}[i == 5])
	}
	between.WriteString("x1,f,g1,g2\n")
	at.WriteString("x1,f,g1,g2\n")
	const out = 150
	for k := range out {
		x := float64(k%40) / 10
		fmt.Fprintf(&between, "%g,%g,%g,%g\n", x+0.05, math.Sin(x), 1-x/4, 2-x/4)
		fmt.Fprintf(&at, "%g,%g,%g,%g\n", x, math.Sin(x), 1-x/4, 2-x/4)
	}
	for name, content := range map[string]string{"file.csv": file.String(), "between.csv": between.String(), "at.csv": at.String()} {
		os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644)
	}
	for _, alg := range []string{"{name: naive-sgp-ucb}", "{name: gp-ucb-oracle}"} {
		perRun := func(warm string) int64 {
			cfg, err := Parse(strings.NewReader(`seed: 1
realizations: 2
horizon: 100
problem: {file: file.csv, warm_start: `+warm+`, thresholds: [0.0, 0.0], noise_std: 0.1}
model: {objective: {kernel: se, lengthscale: 1}, constraints: [{kernel: se, lengthscale: 1}, {kernel: se, lengthscale: 1}], noise_std: 0.1, delta: 0.01}
algorithms: [`+alg+`]
`), dir)
			if err != nil {
				t.Fatal(err)
			}
			fixed, err := cfg.ReadProblem()
			if err != nil {
				t.Fatal(err)
			}
			one, err1 := cfg.Plan(fixed, 1, 0, false)
			two, err2 := cfg.Plan(fixed, 2, 0, false)
			if err1 != nil || err2 != nil || two.Workers != 2 {
				t.Fatal(err1, err2)
			}
			return two.Bytes - one.Bytes
		}
		gps := bandit.GPCount(&bandit.Spec{Name: strings.TrimSuffix(strings.TrimPrefix(alg, "{name: "), "}")}, 2)
		want := int64(gps) * gp.OutsideBytes(1, 100+out, out)
		if got := perRun("between.csv") - perRun("at.csv"); got != want {
			t.Errorf("%s: %d outside rows add %d B per run, want %d (%d GPs × gp.OutsideBytes)", alg, out, got, want, gps)
		}
	}
}
