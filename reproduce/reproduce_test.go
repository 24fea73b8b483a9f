package reproduce_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/safegp/safegp/internal/outdir"
	"github.com/safegp/safegp/internal/racetest"
	"github.com/safegp/safegp/reproduce"
	"github.com/safegp/safegp/shard"
)

// TestQuick runs the whole reproduction with a few realizations and checks
// that every experiment wrote its files and the report covers every claim.
// It runs over an earlier output with Force, which must be replaced whole.
func TestQuick(t *testing.T) {
	t.Parallel()
	q := quick(t)
	parent, dir, o := q.parent, q.dir, q.out
	for _, f := range []string{"stale.txt", "linear/stale.csv"} {
		if _, err := os.Stat(filepath.Join(dir, f)); !os.IsNotExist(err) {
			t.Errorf("%s of the earlier output survived --force", f)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, outdir.Marker)); err != nil {
		t.Errorf("no %s: a later --force could not replace this output", outdir.Marker)
	}
	if entries, _ := os.ReadDir(parent); len(entries) != 1 {
		t.Errorf("%d entries beside the output, want none: %v", len(entries)-1, entries)
	}
	want := []string{"REPORT.md", "fig2-regret.png", "fig2-regret.svg",
		"fig6-regret-1-10.png", "fig7-regret-11-20.svg", "fig8-regret-21-25.png",
		"illustration/illustration.png", "illustration/illustration.svg", "illustration/illustration.json",
		"linear/regret.png", "linear/results.json", "phase1/regret.svg", "phase1/summary.csv"}
	for _, r := range reproduce.Regimes {
		for _, f := range []string{"results.json", "summary.csv", "regret.png", "regret.svg"} {
			want = append(want, "regret-"+r+"/"+f)
		}
	}
	for _, f := range want {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: missing or empty", f)
		}
	}
	// Five claims as in the paper (SafeOpt-MC switched at t*), four again
	// with SafeOpt-MC switched by the plateau rule, four under keep_seed /
	// safe_set gp.
	if len(o.Claims) != 13 {
		t.Errorf("%d claims, want 13", len(o.Claims))
	}
	for _, c := range o.Claims {
		switch c.Verdict {
		case reproduce.Holds, reproduce.DoesNotHold, reproduce.Indistinct:
		default:
			t.Errorf("claim %q: verdict %q", c.Claim, c.Verdict)
		}
	}
	for _, e := range o.Experiments {
		if e.Config.Realizations != reproduce.QuickRealizations {
			t.Errorf("%s: %d realizations in a quick run", e.Name, e.Config.Realizations)
		}
	}
	// Each regime runs the paper's five algorithms, four ablations of
	// keep_seed / safe_set gp and SafeOpt-MC switched by the plateau rule.
	var labels []string
	for _, c := range o.Experiments[0].Curves {
		labels = append(labels, c.Label)
	}
	if want := []string{"sgp-ucb", "stageopt", "safeopt-mc", "naive-sgp-ucb", "gp-ucb-oracle",
		"sgp-ucb keep_seed", "stageopt gp", "safeopt-mc gp", "naive-sgp-ucb keep_seed", "safeopt-mc (plateau)"}; !slices.Equal(labels, want) {
		t.Errorf("regime 1-10: labels %q, want %q", labels, want)
	}
	// As in the paper SafeOpt-MC explores until t*, beyond T here: it
	// never switches; the plateau ablation switches by round 100.
	for _, r := range o.Experiments[0].Results.Runs {
		switch {
		case r.Label == "safeopt-mc" && r.ExplorationRounds != o.Experiments[0].Config.Horizon,
			r.Label == "safeopt-mc (plateau)" && r.ExplorationRounds > 100:
			t.Errorf("%s, realization %d: %d exploration rounds", r.Label, r.Realization, r.ExplorationRounds)
		}
	}
	if th := o.Theory["1-10"]; th == nil || th.TStar == nil || th.TStar.Within(th.Horizon) {
		t.Errorf("regime 1-10: theory %+v, want a t* beyond T", th)
	}
	if len(o.Illustration.Snapshots) != 2 {
		t.Errorf("%d illustration snapshots, want 2", len(o.Illustration.Snapshots))
	}
	report, _ := os.ReadFile(filepath.Join(dir, "REPORT.md"))
	for _, s := range []string{"## The paper's claims", "## SafeOpt-MC's switch: t* or the plateau rule", "We found t* numerically", "Quick run", "Linear kernels", "Phase-1 rule", "Illustration", "λ_−"} {
		if !strings.Contains(string(report), s) && !(s == "λ_−" && strings.Contains(string(report), "no T'")) {
			t.Errorf("REPORT.md lacks %q", s)
		}
	}
}

// earlier writes a fake earlier output into dir: the marker, REPORT.md and
// stale files.
func earlier(dir string) error {
	for name, content := range map[string]string{outdir.Marker: "", "REPORT.md": "old report", "stale.txt": "x", "linear/stale.csv": "y"} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// quickRun is the one quick reproduction TestQuick checks and
// TestQuickShards compares its merged shards with (a quick run is the
// package's longest work: 18 s under the race detector), run over an
// earlier output with Force, in a folder of its own (parent) that
// TestMain removes.
type quickRun struct {
	parent, dir string
	out         *reproduce.Outcome
}

var (
	quickOnce   sync.Once
	quickResult quickRun
	quickErr    error
)

func quick(t *testing.T) quickRun {
	t.Helper()
	quickOnce.Do(func() {
		parent, err := os.MkdirTemp("", "reproduce-quick-")
		if err != nil {
			quickErr = err
			return
		}
		dir := filepath.Join(parent, "reproduction")
		if quickErr = earlier(dir); quickErr != nil {
			return
		}
		quickResult = quickRun{parent: parent, dir: dir}
		quickResult.out, quickErr = reproduce.Run(context.Background(), reproduce.Options{Out: dir, Quick: true, Workers: 2, Force: true})
	})
	if quickErr != nil {
		t.Fatal(quickErr)
	}
	return quickResult
}

func TestMain(m *testing.M) {
	code := m.Run()
	if quickResult.parent != "" {
		os.RemoveAll(quickResult.parent)
	}
	os.Exit(code)
}

// cancelOnLog cancels the reproduction at its first log line, when the
// illustration is written to the staging folder and the regimes have not
// run.
type cancelOnLog struct{ cancel context.CancelFunc }

func (c cancelOnLog) Write(p []byte) (int, error) { c.cancel(); return len(p), nil }

// TestOutputAllOrNothing: an earlier output is refused without Force, and
// a reproduction that fails midway leaves it exactly as it was, with
// nothing left beside it.
func TestOutputAllOrNothing(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		force   bool
		midway  bool // cancel after the illustration
		wantErr string
	}{
		{name: "refused without force", wantErr: "exists and is not empty"},
		{name: "cancelled midway with force", force: true, midway: true, wantErr: "context canceled"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			parent := t.TempDir()
			dir := filepath.Join(parent, "reproduction")
			if err := earlier(dir); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			opt := reproduce.Options{Out: dir, Quick: true, Workers: 2, Force: c.force}
			if c.midway {
				opt.Log = cancelOnLog{cancel}
			}
			_, err := reproduce.Run(ctx, opt)
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Fatalf("Run: %v, want an error mentioning %q", err, c.wantErr)
			}
			entries, _ := os.ReadDir(dir)
			var names []string
			for _, e := range entries {
				names = append(names, e.Name())
			}
			if got := strings.Join(names, " "); got != outdir.Marker+" REPORT.md linear stale.txt" {
				t.Errorf("the earlier output now holds %s", got)
			}
			if b, _ := os.ReadFile(filepath.Join(dir, "REPORT.md")); string(b) != "old report" {
				t.Errorf("REPORT.md is now %q", b)
			}
			if entries, _ := os.ReadDir(parent); len(entries) != 1 {
				t.Errorf("%d entries beside the output, want none", len(entries)-1)
			}
		})
	}
}

// TestQuickShards: the quick reproduction run as two shards and merged is
// the unsharded one: every experiment's results.json, summary.csv and
// runs.jsonl byte for byte, and REPORT.md but for its wall-time line. A
// shard of another reproduction, and a set with a shard missing, are
// refused.
func TestQuickShards(t *testing.T) {
	t.Parallel()
	racetest.Long(t, "two sharded quick reproductions take 37 s")
	ctx := context.Background()
	parent := t.TempDir()
	whole := quick(t).dir
	var shards []string
	for i := 1; i <= 2; i++ {
		d := filepath.Join(parent, fmt.Sprintf("shard-%d", i))
		if _, err := reproduce.Run(ctx, reproduce.Options{Out: d, Quick: true, Workers: 2, Shard: shard.Shard{I: i, N: 2}}); err != nil {
			t.Fatal(err)
		}
		shards = append(shards, d)
	}
	if _, err := reproduce.Merge(ctx, reproduce.MergeOptions{Out: filepath.Join(parent, "missing"), Shards: shards[:1]}); !errors.Is(err, shard.ErrShards) || !strings.Contains(err.Error(), "missing shard 2/2") {
		t.Errorf("merge of one of two shards: %v, want ErrShards naming the missing one", err)
	}
	merged := filepath.Join(parent, "merged")
	if _, err := reproduce.Merge(ctx, reproduce.MergeOptions{Out: merged, Shards: shards}); err != nil {
		t.Fatal(err)
	}
	files := 0
	err := filepath.WalkDir(whole, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(path, ".png") || strings.HasSuffix(path, ".svg") {
			return err
		}
		rel, _ := filepath.Rel(whole, path)
		a, _ := os.ReadFile(path)
		b, err := os.ReadFile(filepath.Join(merged, rel))
		if err != nil {
			t.Errorf("%s: %v", rel, err)
			return nil
		}
		if rel == "REPORT.md" {
			a, b = withoutWallTime(a), withoutWallTime(b)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs between the merged and the whole reproduction", rel)
		}
		files++
		return nil
	})
	if err != nil || files < 20 {
		t.Fatalf("compared %d files: %v", files, err)
	}
}

func withoutWallTime(b []byte) []byte {
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if !reproduce.WallTimeLine(l) {
			out = append(out, l)
		}
	}
	return []byte(strings.Join(out, "\n"))
}
