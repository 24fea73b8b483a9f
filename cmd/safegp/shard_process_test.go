package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/safegp/safegp/reproduce"
)

// shardConfig is examples/regime-1-10.yaml cut to 5 realizations of 80
// rounds: 25 units, so that with n = 7 shards hold 3 or 4 of them.
func shardConfig(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile("../../examples/regime-1-10.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Replace(strings.Replace(string(b), "realizations: 30", "realizations: 5", 1), "horizon: 500", "horizon: 80", 1)
	if s == string(b) {
		t.Fatal("examples/regime-1-10.yaml changed: realizations or horizon not found")
	}
	p := filepath.Join(dir, "regime.yaml")
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// tree reads every file under dir (path relative to dir → content).
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		files[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// sameTree compares the folders file by file; in REPORT.md it skips the
// lines reproduce.WallTimeLine names, which must be the only ones to
// differ.
func sameTree(t *testing.T, whole, merged string) {
	t.Helper()
	a, b := tree(t, whole), tree(t, merged)
	if len(a) != len(b) {
		t.Errorf("%s has %d files, %s %d", whole, len(a), merged, len(b))
	}
	for name, x := range a {
		y, ok := b[name]
		switch {
		case !ok:
			t.Errorf("%s: no %s", merged, name)
		case filepath.Base(name) == "REPORT.md":
			xl, yl := strings.Split(x, "\n"), strings.Split(y, "\n")
			if len(xl) != len(yl) {
				t.Errorf("%s: %d lines, unsharded %d", name, len(yl), len(xl))
				continue
			}
			walls := 0
			for k := range xl {
				if reproduce.WallTimeLine(xl[k]) && reproduce.WallTimeLine(yl[k]) {
					walls++
					continue
				}
				if xl[k] != yl[k] {
					t.Errorf("%s line %d differs:\n%s\n%s", name, k+1, xl[k], yl[k])
				}
			}
			if walls != 1 {
				t.Errorf("%s: %d lines state the wall time, want 1", name, walls)
			}
		case x != y:
			t.Errorf("%s differs between %s and %s (%d and %d bytes)", name, whole, merged, len(x), len(y))
		}
	}
}

// TestShardProcessesMerge runs `safegp run` (and `safegp reproduce
// --quick`, and `safegp sweep`) as n shards, each its own process of the built binary, merges
// them with `safegp merge` (given in reverse order) and compares with the
// unsharded run: every file byte for byte (results.json, summary.csv,
// runs.jsonl, the figures), but REPORT.md's wall-time line.
func TestShardProcessesMerge(t *testing.T) {
	dir := t.TempDir()
	cfg := shardConfig(t, dir)
	// A sweep whose cells share runs (the second algorithm's do not
	// depend on the first's window): each is played in one shard only.
	src, err := os.ReadFile("../../sweep/testdata/small.yaml")
	if err != nil {
		t.Fatal(err)
	}
	window := filepath.Join(dir, "window.yaml")
	tail := "axes:\n  algorithms[0].exploration.plateau.window: [3, 4, 6]\n  seed: [7, 8, 9]\nfigure: {x: seed}\n"
	if err := os.WriteFile(window, []byte(string(src[:strings.Index(string(src), "axes:")])+tail), 0o644); err != nil {
		t.Fatal(err)
	}
	commands := []struct {
		name string
		args []string
	}{
		{"run", []string{"run", cfg, "--quiet"}},
		{"reproduce", []string{"reproduce", "--quick"}},
		// 2 × 2 cells, 2 realizations: a sweep's shards hold a share of
		// every cell, and the merge redraws the table and its figure.
		{"sweep", []string{"sweep", filepath.Join("..", "..", "sweep", "testdata", "small.yaml"), "--quiet"}},
		// 9 cells: dealt by cell for n = 1 and 2 (sweep's dealing), where
		// a shard writes the cells it holds whole finished and the merge
		// copies them, and merges the cells whose shared runs another
		// shard holds; by realization for n = 7.
		{"sweep-reuse", []string{"sweep", window, "--quiet"}},
	}
	for _, c := range commands {
		t.Run(c.name, func(t *testing.T) {
			if c.name == "reproduce" && testing.Short() {
				t.Skip("reproduce --quick as 10 shards: seconds")
			}
			whole := filepath.Join(dir, c.name+"-whole")
			if _, stderr, code := runBinary(t, append(c.args, "--out", whole, "--workers", "2")...); code != 0 {
				t.Fatalf("unsharded: exit %d: %s", code, stderr)
			}
			for _, n := range []int{1, 2, 7} {
				var shards []string
				for i := n; i >= 1; i-- {
					d := filepath.Join(dir, fmt.Sprintf("%s-%d-of-%d", c.name, i, n))
					if _, stderr, code := runBinary(t, append(c.args, "--out", d, "--workers", "1", "--shard", fmt.Sprintf("%d/%d", i, n))...); code != 0 {
						t.Fatalf("shard %d/%d: exit %d: %s", i, n, code, stderr)
					}
					shards = append(shards, d)
				}
				merged := filepath.Join(dir, fmt.Sprintf("%s-merged-%d", c.name, n))
				if _, stderr, code := runBinary(t, append([]string{"merge", "--out", merged}, shards...)...); code != 0 {
					t.Fatalf("merge of %d: exit %d: %s", n, code, stderr)
				}
				sameTree(t, whole, merged)
			}
		})
	}
}

// TestMergeCommandRefuses: the command's errors name the folders, exit 1
// or 2 (usage), and write nothing.
func TestMergeCommandRefuses(t *testing.T) {
	dir := t.TempDir()
	cfg := shardConfig(t, dir)
	shard := func(name, s string) string {
		d := filepath.Join(dir, name)
		if _, stderr, code := runBinary(t, "run", cfg, "--quiet", "--workers", "1", "--out", d, "--shard", s); code != 0 {
			t.Fatalf("shard %s: exit %d: %s", s, code, stderr)
		}
		return d
	}
	a1, a2, b1 := shard("a1", "1/2"), shard("a2", "2/2"), shard("b1", "1/3")
	plain := filepath.Join(dir, "plain")
	os.MkdirAll(plain, 0o755)
	for _, c := range []struct {
		name string
		args []string
		code int
		want []string
	}{
		{"no --out", []string{"merge", a1, a2}, 2, []string{"--out DIR is required"}},
		{"no shards", []string{"merge", "--out", filepath.Join(dir, "o")}, 2, []string{"give the shard folders"}},
		{"missing", []string{"merge", "--out", filepath.Join(dir, "o"), a1}, 1, []string{"missing shard 2/2"}},
		{"overlap", []string{"merge", "--out", filepath.Join(dir, "o"), a1, a1, a2}, 1, []string{a1, "both shard 1/2"}},
		{"different n", []string{"merge", "--out", filepath.Join(dir, "o"), a1, b1}, 1, []string{a1, b1, "different n"}},
		{"not a shard", []string{"merge", "--out", filepath.Join(dir, "o"), plain, a2}, 1, []string{plain, "is not a shard folder"}},
		{"out is a shard", []string{"merge", "--out", a1, a1, a2}, 1, []string{a1, "is one of the shard folders"}},
		{"bad --shard", []string{"run", cfg, "--out", filepath.Join(dir, "o"), "--shard", "3/2"}, 2, []string{"1 ≤ i ≤ n"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, stderr, code := runBinary(t, c.args...)
			if code != c.code {
				t.Errorf("exit %d, want %d: %s", code, c.code, stderr)
			}
			for _, w := range c.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr %q does not say %q", stderr, w)
				}
			}
			if _, err := os.Stat(filepath.Join(dir, "o")); !os.IsNotExist(err) {
				t.Errorf("a refused command wrote its output")
			}
		})
	}
}

// TestShardInProcess is TestShardProcessesMerge's run and sweep with two
// shards, in this process (run, not the built binary): what its
// subprocesses run, measured by `go test -cover` too.
func TestShardInProcess(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		args []string
	}{
		{"run", []string{"run", shardConfig(t, dir), "--quiet", "--workers", "2"}},
		{"sweep", []string{"sweep", filepath.Join("..", "..", "sweep", "testdata", "small.yaml"), "--quiet", "--workers", "2"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var stdout, stderr strings.Builder
			cli := func(args ...string) {
				t.Helper()
				stdout.Reset()
				stderr.Reset()
				if err := run(args, &stdout, &stderr); err != nil {
					t.Fatalf("%v: %v\n%s", args, err, stderr.String())
				}
			}
			whole := filepath.Join(dir, c.name+"-whole")
			cli(append(c.args, "--out", whole)...)
			var shards []string
			for i := 2; i >= 1; i-- {
				d := filepath.Join(dir, fmt.Sprintf("%s-%d", c.name, i))
				cli(append(c.args, "--out", d, "--shard", fmt.Sprintf("%d/2", i))...)
				if !strings.Contains(stdout.String(), "shard") {
					t.Errorf("shard %d/2 says %q", i, stdout.String())
				}
				shards = append(shards, d)
			}
			merged := filepath.Join(dir, c.name+"-merged")
			cli(append([]string{"merge", "--out", merged}, shards...)...)
			if !strings.Contains(stdout.String(), "merged from 2 shards") {
				t.Errorf("merge says %q", stdout.String())
			}
			sameTree(t, whole, merged)
			// Refused: no --out, no folders, --out a shard folder, a
			// folder that is no shard; nothing written.
			for _, args := range [][]string{
				{"merge", shards[0]},
				{"merge", "--out", filepath.Join(dir, "x")},
				{"merge", "--out", shards[0], shards[0], shards[1]},
				{"merge", "--out", filepath.Join(dir, "y"), dir},
			} {
				if err := run(args, &stdout, &stderr); err == nil {
					t.Errorf("%v: accepted", args)
				}
			}
			for _, name := range []string{"x", "y"} {
				if _, err := os.Stat(filepath.Join(dir, name)); !os.IsNotExist(err) {
					t.Errorf("a refused merge wrote %s", name)
				}
			}
		})
	}
}
