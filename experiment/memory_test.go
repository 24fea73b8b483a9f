package experiment_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/safegp/safegp/experiment"
	"github.com/safegp/safegp/internal/memlimit"
)

// bigConfig is regimeConfig with one part made large.
func bigConfig(realizations, horizon int, decisionSet, algorithm string) string {
	return fmt.Sprintf(`seed: 1
realizations: %d
horizon: %d
problem:
  generate:
    decision_set: %s
    objective: {kernel: se, lengthscale: 1}
    constraints: [{kernel: se, lengthscale: 0.2}]
    seed_set: {size: [1, 2]}
  thresholds: [0.0]
model:
  noise_std: 0.1
  delta: 0.01
algorithms:
  - %s
`, realizations, horizon, decisionSet, algorithm)
}

// TestPlanRefusesBeforeAllocating covers the configurations that passed
// validation and then ate all memory: each must be refused at once, with an
// error that names the keys and the estimate, and without allocating what
// it estimates.
func TestPlanRefusesBeforeAllocating(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, config string
		keys         []string
	}{
		{"a million realizations held", bigConfig(1_000_000, 100, "{kind: unit-disk, size: 50}", "{name: naive-sgp-ucb}"),
			[]string{"realizations (1000000)", "horizon (100)"}},
		{"unit-ball of dimension 10⁸", bigConfig(1, 10, "{kind: unit-ball, dim: 100000000, size: 10}", "{name: naive-sgp-ucb}"),
			[]string{"problem.generate.decision_set", "100000000-D"}},
		{"horizon 10⁶ with N = 3 000", bigConfig(1, 1_000_000, "{kind: grid, bounds: [[0, 1], [0, 1]], points: [60, 50]}", "{name: naive-sgp-ucb}"),
			[]string{"horizon (T = 1000000)", "N = 3000"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := experiment.Parse(strings.NewReader(c.config), ".")
			if err != nil {
				t.Fatal(err)
			}
			_, err = experiment.Execute(context.Background(), cfg, experiment.Options{Workers: 2, MaxMemory: 1 << 30})
			if !errors.Is(err, memlimit.ErrTooLarge) || !errors.Is(err, experiment.ErrConfig) {
				t.Fatalf("got %v, want a memory-limit error", err)
			}
			for _, k := range append(c.keys, "--max-memory", "1 GiB") {
				if !strings.Contains(err.Error(), k) {
					t.Errorf("error %q does not name %q", err, k)
				}
			}
		})
	}
}

// TestPlanFileGPMode is the problem file of 60 000 actions with safe_set:
// gp, refused before the file's O(N²) analysis. Before issue 13 gp mode
// kept 8·N² bytes per constraint and horizon 10 was refused; it keeps no
// covariance that large now, so the horizon of 10⁵ makes V too large
// (N·T floats per GP, 96 GB).
func TestPlanFileGPMode(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("x1,x2,f,g1,seed\n")
	for i := range 60_000 {
		fmt.Fprintf(&b, "%d,%d,0,1,%d\n", i%300, i/300, map[bool]int{true: 1}[i == 0])
	}
	if err := os.WriteFile(filepath.Join(dir, "p.csv"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	config := `seed: 1
realizations: 1
horizon: 100000
problem: {file: p.csv, thresholds: [0]}
model:
  objective: {kernel: se, lengthscale: 1}
  constraints: [{kernel: se, lengthscale: 1}]
  noise_std: 0.1
  delta: 0.01
algorithms:
  - {name: safeopt, safe_set: gp}
`
	cfg, err := experiment.Parse(strings.NewReader(config), dir)
	if err != nil {
		t.Fatal(err)
	}
	_, err = experiment.Execute(context.Background(), cfg, experiment.Options{Workers: 1})
	if !errors.Is(err, memlimit.ErrTooLarge) || !strings.Contains(err.Error(), "safe_set: gp") || !strings.Contains(err.Error(), "N = 60000") {
		t.Fatalf("got %v, want a memory-limit error naming safe_set: gp and N", err)
	}
}

// TestPlanWorkersAndChunks checks that a limit that fits one run but not
// two runs fewer workers instead of refusing, and that streaming holds a
// bounded number of realizations.
func TestPlanWorkersAndChunks(t *testing.T) {
	t.Parallel()
	cfg, err := experiment.Parse(strings.NewReader(bigConfig(1_000_000, 100, "{kind: unit-disk, size: 50}", "{name: naive-sgp-ucb}")), ".")
	if err != nil {
		t.Fatal(err)
	}
	p, err := cfg.Plan(nil, 8, 1<<30, false)
	if err != nil {
		t.Fatalf("streaming a million realizations: %v", err)
	}
	if p.Chunk >= 1_000_000 || p.Chunk < 1 || p.Bytes > 1<<30 {
		t.Errorf("plan %+v: want a chunk below the realizations and within 1 GiB", p)
	}
	one, err := cfg.Plan(nil, 1, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	two, _ := cfg.Plan(nil, 2, 0, false)
	p, err = cfg.Plan(nil, 2, (one.Bytes+two.Bytes)/2, false)
	if err != nil || p.Workers != 1 {
		t.Errorf("limit between one and two workers: plan %+v, %v; want 1 worker", p, err)
	}
}

// TestStreamMatchesExecute checks that streaming in chunks hands over the
// same runs as Execute holds.
func TestStreamMatchesExecute(t *testing.T) {
	t.Parallel()
	cfg, err := experiment.Parse(strings.NewReader(regimeConfig), ".")
	if err != nil {
		t.Fatal(err)
	}
	res, err := experiment.Execute(context.Background(), cfg, experiment.Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	_, err = experiment.Stream(context.Background(), cfg, experiment.Options{Workers: 2}, func(a int, run *experiment.Run) error {
		want := res.Runs[a*cfg.Realizations+run.Realization]
		if fmt.Sprint(want) != fmt.Sprint(*run) {
			t.Errorf("algorithm %d, realization %d differs", a, run.Realization)
		}
		n++
		return nil
	})
	if err != nil || n != len(res.Runs) {
		t.Errorf("streamed %d runs of %d: %v", n, len(res.Runs), err)
	}
}

// TestExecuteToDirMatchesWrite: streaming runs to disk writes the same
// results.json and summary.csv, byte for byte, as holding them all, with
// realizations held four at a time (of six).
func TestExecuteToDirMatchesWrite(t *testing.T) {
	t.Parallel()
	cfg, err := experiment.Parse(strings.NewReader(regimeConfig), ".")
	if err != nil {
		t.Fatal(err)
	}
	res, err := experiment.Execute(context.Background(), cfg, experiment.Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	held, streamed := filepath.Join(dir, "held"), filepath.Join(dir, "streamed")
	if err := experiment.WriteWith(held, res, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := experiment.ExecuteToDir(context.Background(), cfg, experiment.Options{Workers: 2, Chunk: 4}, streamed, experiment.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{experiment.RunsFile, "results.json", "summary.csv"} {
		a, _ := os.ReadFile(filepath.Join(held, f))
		b, err := os.ReadFile(filepath.Join(streamed, f))
		if err != nil || len(a) == 0 || string(a) != string(b) {
			t.Errorf("%s differs between held and streamed runs (%d and %d bytes, %v)", f, len(a), len(b), err)
		}
	}
	// Both write through the lines of runs.jsonl: check them against
	// the plain serialisation of the held results, which does not.
	js, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	for f, want := range map[string][]byte{"results.json": append(js, '\n'), "summary.csv": experiment.SummaryCSV(experiment.Summarize(res))} {
		if got, _ := os.ReadFile(filepath.Join(streamed, f)); string(got) != string(want) {
			t.Errorf("%s differs from the held results' own serialisation (%d and %d bytes)", f, len(got), len(want))
		}
	}
	entries, _ := os.ReadDir(streamed)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".runs") {
			t.Errorf("left %s behind", e.Name())
		}
	}
}

// TestSlotsShared: three executions side by side on one pool of slots
// (reproduce's experiments) give the runs of one execution alone, and
// never play more runs at once than the pool holds: a run counts while
// its Progress call (made holding its slot) sleeps, so with the two
// executions' four workers a pool of 1 or 2 would be overrun if the
// slots were not taken.
func TestSlotsShared(t *testing.T) {
	cfg, err := experiment.Parse(strings.NewReader(regimeConfig), ".")
	if err != nil {
		t.Fatal(err)
	}
	want, err := experiment.Execute(context.Background(), cfg, experiment.Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, slots := range []int{1, 2} {
		pool := make(chan struct{}, slots)
		var playing, most atomic.Int64
		progress := func() {
			n := playing.Add(1)
			for {
				m := most.Load()
				if n <= m || most.CompareAndSwap(m, n) {
					break
				}
			}
			time.Sleep(time.Millisecond)
			playing.Add(-1)
		}
		got := make([]*experiment.Results, 3)
		errs := make([]error, 3)
		var wg sync.WaitGroup
		for i := range got {
			wg.Go(func() {
				got[i], errs[i] = experiment.Execute(context.Background(), cfg, experiment.Options{Workers: 2, Slots: pool, Progress: progress})
			})
		}
		wg.Wait()
		for i := range got {
			if errs[i] != nil {
				t.Fatal(errs[i])
			}
			if fmt.Sprint(got[i].Runs) != fmt.Sprint(want.Runs) {
				t.Errorf("slots %d, execution %d: runs differ from one execution alone", slots, i)
			}
		}
		if m := most.Load(); m > int64(slots) {
			t.Errorf("slots %d: %d runs played at once", slots, m)
		}
	}
}
