package sweep_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/safegp/safegp/shard"
	"github.com/safegp/safegp/sweep"
)

// writeBaseFileSweep writes testdata/small.yaml into dir as a sweep file
// s.yaml whose base is a file of its own, base.yaml, named relative to it.
func writeBaseFileSweep(t *testing.T, dir string) {
	t.Helper()
	small, err := os.ReadFile(filepath.Join("testdata", "small.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(small)
	i, j := strings.Index(text, "base:\n"), strings.Index(text, "axes:\n")
	var base strings.Builder
	for _, line := range strings.SplitAfter(text[i+len("base:\n"):j], "\n") {
		base.WriteString(strings.TrimPrefix(line, "  "))
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "base.yaml"), []byte(base.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "s.yaml"), []byte("base_file: base.yaml\n"+text[j:]), 0o644); err != nil {
		t.Fatal(err)
	}
}

// recordedDir is the sweep folder shard.json in shard records.
func recordedDir(t *testing.T, dir string) string {
	t.Helper()
	info, err := shard.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	var src struct {
		Dir string `json:"dir"`
	}
	if err := json.Unmarshal(info.Config, &src); err != nil {
		t.Fatal(err)
	}
	return src.Dir
}

// TestMergeFromAnotherDirectory: shards written from the sweep's folder
// with relative paths (`safegp sweep s.yaml --out ../shard/1 --shard 1/2`)
// record that folder absolute, so that a merge run from any other working
// directory (Slurm's merge job, a Kubernetes merge Job) finds base_file
// and gives the unsharded sweep's table byte for byte. A shard.json of
// before, with the folder relative, still merges from the directory it
// is relative to, and from elsewhere fails on the base file, not silently.
func TestMergeFromAnotherDirectory(t *testing.T) {
	root := t.TempDir()
	sweepDir := filepath.Join(root, "sweep")
	writeBaseFileSweep(t, sweepDir)
	elsewhere := filepath.Join(root, "elsewhere")
	if err := os.Mkdir(elsewhere, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	t.Chdir(sweepDir)
	s, err := sweep.Load("s.yaml") // relative: the folder as typed is "."
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sweep.Run(ctx, s, filepath.Join(root, "whole"), sweep.Options{Workers: 1}); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(root, "shard"), 0o755); err != nil {
		t.Fatal(err)
	}
	var shards []string
	for i := 1; i <= 2; i++ {
		rel := filepath.Join("..", "shard", string(rune('0'+i)))
		if err := sweep.RunShard(ctx, s, rel, shard.Shard{I: i, N: 2}, sweep.Options{Workers: 1}); err != nil {
			t.Fatal(err)
		}
		shards = append(shards, filepath.Join(root, "shard", string(rune('0'+i))))
		if got := recordedDir(t, shards[i-1]); got != sweepDir {
			t.Errorf("shard %d records the sweep folder %q, want %q (absolute)", i, got, sweepDir)
		}
	}
	want, err := os.ReadFile(filepath.Join(root, "whole", "sweep.csv"))
	if err != nil {
		t.Fatal(err)
	}
	same := func(merged string) {
		t.Helper()
		got, err := os.ReadFile(filepath.Join(merged, "sweep.csv"))
		if err != nil || string(got) != string(want) {
			t.Errorf("%s/sweep.csv differs from the unsharded sweep's (%v)", merged, err)
		}
	}

	t.Chdir(elsewhere)
	if _, err := sweep.Merge(ctx, "merged", shards, sweep.Options{}); err != nil {
		t.Fatalf("merge from another directory: %v", err)
	}
	same(filepath.Join(elsewhere, "merged"))

	// shard.json as written before: the folder relative to where the
	// shards ran ("sweep" from root), its SHA-256 recomputed so that it is
	// a consistent shard.json and not an edited one.
	for _, d := range shards {
		info, err := shard.Read(d)
		if err != nil {
			t.Fatal(err)
		}
		var src map[string]any
		if err := json.Unmarshal(info.Config, &src); err != nil {
			t.Fatal(err)
		}
		src["dir"] = "sweep"
		if info.Config, err = json.Marshal(src); err != nil {
			t.Fatal(err)
		}
		info.ConfigSHA256 = shard.Hash(info.Config)
		if err := shard.Write(d, info); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := sweep.Merge(ctx, "old", shards, sweep.Options{}); err == nil || !strings.Contains(err.Error(), "base_file") {
		t.Errorf("merge of relative-folder shards from another directory: %v, want an error naming base_file", err)
	}
	t.Chdir(root)
	if _, err := sweep.Merge(ctx, "old", shards, sweep.Options{}); err != nil {
		t.Fatalf("merge of relative-folder shards from the directory they are relative to: %v", err)
	}
	same(filepath.Join(root, "old"))
}
