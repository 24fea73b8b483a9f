package experiment_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/safegp/safegp/shard"

	"github.com/safegp/safegp/experiment"
	"github.com/safegp/safegp/internal/memlimit"
)

// writeShards runs cfg as n shards into dir/shard-i and returns the
// folders.
func writeShards(t *testing.T, dir string, config string, n int) []string {
	t.Helper()
	cfg, err := experiment.Parse(strings.NewReader(config), ".")
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for i := 1; i <= n; i++ {
		s := shard.Shard{I: i, N: n}
		d := filepath.Join(dir, fmt.Sprintf("shard-%d-of-%d", i, n))
		// Two realizations at a time: a shard's chunks are not the whole's.
		_, err := experiment.ExecuteToDir(context.Background(), cfg, experiment.Options{Workers: 2, Chunk: 2, Units: s.ByRealization(0)}, d,
			experiment.WriteOptions{Shard: &shard.Info{Command: "run", Shard: i, Of: n, Name: "regime"}})
		if err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, d)
	}
	return dirs
}

// TestMergeIsWhole: n shards merged (given in reverse order) are byte for
// byte the unsharded output, which is byte for byte Execute and Write's;
// n = 20 exceeds the 18 units, so two shards hold none.
func TestMergeIsWhole(t *testing.T) {
	t.Parallel()
	cfg, err := experiment.Parse(strings.NewReader(regimeConfig), ".")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	res, err := experiment.Execute(context.Background(), cfg, experiment.Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	held := filepath.Join(dir, "held")
	if err := experiment.WriteWith(held, res, nil); err != nil {
		t.Fatal(err)
	}
	whole := filepath.Join(dir, "whole")
	if _, err := experiment.ExecuteToDir(context.Background(), cfg, experiment.Options{Workers: 2}, whole, experiment.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	same(t, held, whole, "results.json", "summary.csv")
	for _, n := range []int{1, 2, 7, 20} {
		dirs := writeShards(t, dir, regimeConfig, n)
		for l, r := 0, len(dirs)-1; l < r; l, r = l+1, r-1 {
			dirs[l], dirs[r] = dirs[r], dirs[l]
		}
		merged := filepath.Join(dir, fmt.Sprintf("merged-%d", n))
		if err := experiment.Merge(context.Background(), merged, dirs, experiment.WriteOptions{}); err != nil {
			t.Fatalf("n = %d: %v", n, err)
		}
		same(t, whole, merged, "results.json", "summary.csv", experiment.RunsFile)
	}
}

// TestMergeStopsWhenCancelled: a merge whose context is done (safegp
// merge got SIGTERM) writes nothing and leaves no staging folder.
func TestMergeStopsWhenCancelled(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	shards := writeShards(t, dir, regimeConfig, 2)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := experiment.Merge(ctx, filepath.Join(dir, "merged"), shards, experiment.WriteOptions{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Merge with a cancelled context: %v, want context.Canceled", err)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), "shard-") {
			t.Errorf("left in the output's parent: %s", e.Name())
		}
	}
}

func same(t *testing.T, a, b string, files ...string) {
	t.Helper()
	for _, f := range files {
		x, err1 := os.ReadFile(filepath.Join(a, f))
		y, err2 := os.ReadFile(filepath.Join(b, f))
		if err1 != nil || err2 != nil || len(x) == 0 || string(x) != string(y) {
			t.Errorf("%s differs between %s and %s (%d and %d bytes; %v, %v)", f, a, b, len(x), len(y), err1, err2)
		}
	}
}

// TestMergeRefuses: merge names the folders it refuses.
func TestMergeRefuses(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	three := writeShards(t, filepath.Join(dir, "a"), regimeConfig, 3)
	two := writeShards(t, filepath.Join(dir, "b"), regimeConfig, 2)
	other := writeShards(t, filepath.Join(dir, "c"), strings.Replace(regimeConfig, "seed: 5", "seed: 6", 1), 3)
	plain := filepath.Join(dir, "plain")
	os.MkdirAll(plain, 0o755)
	edit := func(name, from, to string, file string) string {
		d := filepath.Join(dir, name)
		os.MkdirAll(d, 0o755)
		for _, f := range []string{shard.File, experiment.RunsFile} {
			b, err := os.ReadFile(filepath.Join(three[1], f))
			if err != nil {
				t.Fatal(err)
			}
			if f == file {
				if !strings.Contains(string(b), from) {
					t.Fatalf("%s has no %q", f, from)
				}
				b = []byte(strings.Replace(string(b), from, to, 1))
			}
			os.WriteFile(filepath.Join(d, f), b, 0o644)
		}
		return d
	}
	command := edit("command", `"command": "run"`, `"command": "sweep"`, shard.File)
	renamed := edit("renamed", `"name": "regime"`, `"name": "other"`, shard.File)
	tampered := edit("tampered", `"seed": 5`, `"seed": 9`, shard.File)
	truncated := filepath.Join(dir, "truncated")
	os.MkdirAll(truncated, 0o755)
	b, _ := os.ReadFile(filepath.Join(three[1], shard.File))
	os.WriteFile(filepath.Join(truncated, shard.File), b, 0o644)
	runs, _ := os.ReadFile(filepath.Join(three[1], experiment.RunsFile))
	os.WriteFile(filepath.Join(truncated, experiment.RunsFile), runs[:strings.LastIndexByte(string(runs[:len(runs)-1]), '\n')+1], 0o644)

	for _, c := range []struct {
		name   string
		shards []string
		want   []string // in the error
	}{
		{"not a shard", []string{three[0], plain, three[2]}, []string{plain, "is not a shard folder"}},
		{"missing shard", three[:2], []string{"missing shard 3/3"}},
		{"missing shards", three[1:2], []string{"missing shards 1/3, 3/3"}},
		{"overlapping shards", []string{three[0], three[1], three[1], three[2]}, []string{three[1], "both shard 2/3"}},
		{"different n", []string{three[0], two[1], three[2]}, []string{three[0], two[1], "different n"}},
		{"different configurations", []string{three[0], three[1], other[2]}, []string{three[0], other[2], "different configurations"}},
		{"different commands", []string{three[0], command, three[2]}, []string{command, "sweep"}},
		{"different names", []string{three[0], renamed, three[2]}, []string{renamed, `named "regime" and "other"`}},
		{"edited configuration", []string{three[0], tampered, three[2]}, []string{tampered, "SHA-256"}},
		{"truncated runs", []string{three[0], truncated, three[2]}, []string{truncated, "ends before unit"}},
		{"none", nil, []string{"no shard folders"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(dir, "out-"+strings.ReplaceAll(c.name, " ", "-"))
			err := experiment.Merge(context.Background(), out, c.shards, experiment.WriteOptions{})
			if !errors.Is(err, shard.ErrShards) {
				t.Fatalf("Merge = %v, want shard.ErrShards", err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("a refused merge wrote %s", out)
			}
		})
	}
}

// ExampleMerge runs an experiment as two shards, as two machines would,
// and merges them into the folder the unsharded run writes.
func ExampleMerge() {
	cfg, err := experiment.Parse(strings.NewReader(regimeConfig), ".")
	if err != nil {
		panic(err)
	}
	dir, _ := os.MkdirTemp("", "example-merge-*")
	defer os.RemoveAll(dir)
	var shards []string
	for i := 1; i <= 2; i++ {
		s := shard.Shard{I: i, N: 2}
		d := filepath.Join(dir, s.String()[:1])
		if _, err := experiment.ExecuteToDir(context.Background(), cfg, experiment.Options{Units: s.ByRealization(0)}, d,
			experiment.WriteOptions{Shard: &shard.Info{Command: "run", Shard: s.I, Of: s.N}}); err != nil {
			panic(err)
		}
		info, _ := shard.Read(d)
		fmt.Printf("shard %d/%d holds units %v of %d\n", info.Shard, info.Of, info.Units, info.Total)
		shards = append(shards, d)
	}
	if err := experiment.Merge(context.Background(), filepath.Join(dir, "all"), shards, experiment.WriteOptions{}); err != nil {
		panic(err)
	}
	n := 0
	experiment.ReadRuns(filepath.Join(dir, "all"), func(a int, r *experiment.Run) error {
		n++
		return nil
	})
	fmt.Println(n, "runs merged")
	// Output:
	// shard 1/2 holds units [0 2 4 6 8 10 12 14 16] of 18
	// shard 2/2 holds units [1 3 5 7 9 11 13 15 17] of 18
	// 18 runs merged
}

// TestShardMemoryShare: the memory estimate counts a shard's share of the
// runs Execute holds. The whole experiment (2 000 realizations of 2 000
// rounds, runs of 64 KB each: 128 MB of results) is refused under a
// 100 MB limit, before anything runs; its shard 1/4 (500 runs, 32 MB)
// passes the check (the context, cancelled beforehand, then stops it).
func TestShardMemoryShare(t *testing.T) {
	t.Parallel()
	config := strings.Replace(strings.Replace(strings.Replace(regimeConfig, "realizations: 6", "realizations: 2000", 1),
		"horizon: 60", "horizon: 2000", 1), "size: 50}", "size: 20}", 1)
	config = config[:strings.Index(config, "  - {name: naive-sgp-ucb}")]
	cfg, err := experiment.Parse(strings.NewReader(config), ".")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	const limit = 100 << 20
	if _, err := experiment.Execute(ctx, cfg, experiment.Options{Workers: 1, MaxMemory: limit}); !errors.Is(err, memlimit.ErrTooLarge) {
		t.Errorf("whole: %v, want ErrTooLarge", err)
	}
	s := shard.Shard{I: 1, N: 4}
	if _, err := experiment.Execute(ctx, cfg, experiment.Options{Workers: 1, MaxMemory: limit, Units: s.ByRealization(0)}); !errors.Is(err, context.Canceled) {
		t.Errorf("shard 1/4: %v, want it to pass the memory check and stop at the cancelled context", err)
	}
}

// TestLongRunLines: a run's line longer than the read buffer (64 KiB;
// 2 000 rounds of uniform exploration make ~74 KB) is read whole, by the streamed output and
// by Merge.
func TestLongRunLines(t *testing.T) {
	t.Parallel()
	config := strings.Replace(strings.Replace(strings.Replace(regimeConfig, "realizations: 6", "realizations: 2", 1),
		"horizon: 60", "horizon: 2000", 1), "size: 50}", "size: 20}", 1)
	config = config[:strings.Index(config, "  - {name: sgp-ucb")] + "  - {name: sgp-ucb, phase1: uniform, exploration: {fixed: 2000}}\n"
	cfg, err := experiment.Parse(strings.NewReader(config), ".")
	if err != nil {
		t.Fatal(err)
	}
	res, err := experiment.Execute(context.Background(), cfg, experiment.Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	held, whole := filepath.Join(dir, "held"), filepath.Join(dir, "whole")
	if err := experiment.WriteWith(held, res, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := experiment.ExecuteToDir(context.Background(), cfg, experiment.Options{Workers: 2}, whole, experiment.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	same(t, held, whole, "results.json", "summary.csv")
	b, _ := os.ReadFile(filepath.Join(whole, experiment.RunsFile))
	for k, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		if len(line) <= 64<<10 {
			t.Fatalf("line %d of runs.jsonl has %d bytes, not more than the buffer", k+1, len(line))
		}
	}
	merged := filepath.Join(dir, "merged")
	if err := experiment.Merge(context.Background(), merged, writeShards(t, dir, config, 2), experiment.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	same(t, whole, merged, "results.json", "summary.csv", experiment.RunsFile)
}
