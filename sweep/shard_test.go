package sweep_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/safegp/safegp/internal/outdir"
	"github.com/safegp/safegp/shard"
	"github.com/safegp/safegp/sweep"
)

// TestMergeRefusesAChangedBase: a sweep's shards record the sweep file's
// text and folder, and the merge rebuilds the cells from them; when the
// base file changed in between (so that the cells are not those the
// shards ran), the merge refuses and writes nothing. With the file
// unchanged, the merge's table is the unsharded run's.
func TestMergeRefusesAChangedBase(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeBaseFileSweep(t, dir)
	basePath, sweepPath := filepath.Join(dir, "base.yaml"), filepath.Join(dir, "s.yaml")
	base, err := os.ReadFile(basePath)
	if err != nil {
		t.Fatal(err)
	}
	s, err := sweep.Load(sweepPath)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	whole := filepath.Join(dir, "whole")
	if _, err := sweep.Run(ctx, s, whole, sweep.Options{Workers: 2}); err != nil {
		t.Fatal(err)
	}
	var shards []string
	for i := 1; i <= 2; i++ {
		d := filepath.Join(dir, "shard", string(rune('0'+i)))
		if err := os.MkdirAll(filepath.Dir(d), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := sweep.RunShard(ctx, s, d, shard.Shard{I: i, N: 2}, sweep.Options{Workers: 1}); err != nil {
			t.Fatal(err)
		}
		shards = append(shards, d)
	}
	merged := filepath.Join(dir, "merged")
	if _, err := sweep.Merge(ctx, merged, shards, sweep.Options{}); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"sweep.csv", "sweep.md", "cells/0-lengthscale=0.2,delta=0.01/results.json"} {
		a, err1 := os.ReadFile(filepath.Join(whole, f))
		b, err2 := os.ReadFile(filepath.Join(merged, f))
		if err1 != nil || err2 != nil || string(a) != string(b) {
			t.Errorf("%s differs between the run and the merge of its shards (%v, %v)", f, err1, err2)
		}
	}
	// The base changes: its seed, so every cell's problems would differ.
	if err := os.WriteFile(basePath, []byte(strings.Replace(string(base), "seed: 7", "seed: 8", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	again := filepath.Join(dir, "again")
	if _, err := sweep.Merge(ctx, again, shards, sweep.Options{}); !errors.Is(err, shard.ErrShards) || !strings.Contains(err.Error(), "other cells") {
		t.Fatalf("merge after the base changed: %v, want ErrShards naming other cells", err)
	}
	if _, err := os.Stat(again); !os.IsNotExist(err) {
		t.Errorf("a refused merge left %s behind (%v)", again, err)
	}
}

// TestMergeSaysWhatToDo: the merge's refusals of a wrong set of folders
// name the mistake and what to give instead, and write nothing.
func TestMergeSaysWhatToDo(t *testing.T) {
	t.Parallel()
	s, err := sweep.Parse(mustRead(t, filepath.Join("testdata", "small.yaml")), "testdata")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var shards []string
	for i := 1; i <= 2; i++ {
		d := filepath.Join(dir, fmt.Sprintf("shard-%d", i))
		if err := sweep.RunShard(context.Background(), s, d, shard.Shard{I: i, N: 2}, sweep.Options{Workers: 1}); err != nil {
			t.Fatal(err)
		}
		shards = append(shards, d)
	}
	cell := filepath.Join(shards[0], "cells", s.Cells[0].Name)
	other := filepath.Join(dir, "other")
	if err := os.Mkdir(other, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := shard.Write(other, &shard.Info{Format: shard.Format, Command: "reproduce", Shard: 1, Of: 1, Total: 1, Units: []int{0}}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		shards []string
		want   string
	}{
		{"a cell's folder", []string{cell}, "give the sweep shard's own folder (the one holding cells/), not a cell's"},
		{"a cell's folder among shards", []string{cell, shards[1]}, "not a cell's"},
		{"missing", shards[:1], "missing shard 2/2"},
		{"missing says what to do", shards[:1], "run the same command with --shard"},
		{"twice", []string{shards[0], shards[0], shards[1]}, "give each shard's folder once"},
		{"none", nil, "no shard folders given"},
		{"another command's", []string{other, shards[0], shards[1]}, "is a shard of `safegp reproduce`, not of `safegp sweep`"},
	} {
		out := filepath.Join(dir, "merged")
		_, err := sweep.Merge(context.Background(), out, c.shards, sweep.Options{})
		if !errors.Is(err, shard.ErrShards) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want ErrShards with %q", c.name, err, c.want)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("%s: %s written", c.name, out)
		}
	}
	// An output folder in the way is refused, and kept as it was (checked
	// first; outdir.Publish would refuse it too, after the work).
	out := filepath.Join(dir, "taken")
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, "notes.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = sweep.Merge(context.Background(), out, shards, sweep.Options{})
	if !errors.Is(err, outdir.ErrNotEmpty) || !strings.HasPrefix(err.Error(), "write output: "+out+" exists and is not empty") {
		t.Errorf("merge into a folder holding other files: %v, want ErrNotEmpty naming it", err)
	}
	if b, err := os.ReadFile(filepath.Join(out, "notes.txt")); err != nil || string(b) != "mine" {
		t.Errorf("the refused merge changed %s: %q, %v", out, b, err)
	}
	// And the same for the shards themselves and the unsharded run.
	if err := sweep.RunShard(context.Background(), s, out, shard.Shard{I: 1, N: 2}, sweep.Options{Workers: 1}); !errors.Is(err, outdir.ErrNotEmpty) {
		t.Errorf("a shard into a folder holding other files: %v", err)
	}
	if _, err := sweep.Run(context.Background(), s, out, sweep.Options{Workers: 1}); !errors.Is(err, outdir.ErrNotEmpty) {
		t.Errorf("a run into a folder holding other files: %v", err)
	}
	if entries, _ := os.ReadDir(out); len(entries) != 1 {
		t.Errorf("%s holds %d entries after the refusals, want its 1", out, len(entries))
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
