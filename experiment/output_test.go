package experiment_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/safegp/safegp/experiment"
	"github.com/safegp/safegp/internal/outdir"
)

// files reads every file under dir, by relative path; nil if dir is missing.
func files(t *testing.T, dir string) map[string]string {
	t.Helper()
	if _, err := os.Stat(dir); os.IsNotExist(err) {
		return nil
	}
	got := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		got[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestWriteReplacesWholeOrNothing: an existing folder is refused unless
// forced, forcing replaces it whole, and a failure midway leaves the old
// folder exactly as it was with no temporary folder beside it.
func TestWriteReplacesWholeOrNothing(t *testing.T) {
	t.Parallel()
	res := execute(t, strings.Replace(regimeConfig, "realizations: 6", "realizations: 2", 1), 2)
	earlier := map[string]string{outdir.Marker: "", "results.json": "old", "regret.png": "old", "notes.txt": "extra"}
	mine := map[string]string{"thesis.tex": "do not lose"}
	failing := func(tmp string, _ []experiment.Curve) error {
		// A figure half-written when the failure strikes.
		os.WriteFile(filepath.Join(tmp, "regret.png"), []byte("partial"), 0o644)
		return errors.New("figure failed")
	}
	cases := []struct {
		name     string
		existing map[string]string // nil: no folder
		opt      experiment.WriteOptions
		unwrit   bool // the parent folder is read-only
		wantErr  string
		replaced bool // else the folder must be exactly as it was
	}{
		{name: "fresh", opt: experiment.WriteOptions{Figures: experiment.RegretFigure("t")}, replaced: true},
		{name: "empty folder", existing: map[string]string{}, replaced: true},
		{name: "earlier output refused", existing: earlier, wantErr: "exists and is not empty"},
		{name: "earlier output forced", existing: earlier, opt: experiment.WriteOptions{Figures: experiment.RegretFigure("t"), Force: true}, replaced: true},
		{name: "user folder forced", existing: mine, opt: experiment.WriteOptions{Force: true}, wantErr: "not a safegp output folder"},
		{name: "figure fails", existing: earlier, opt: experiment.WriteOptions{Figures: failing, Force: true}, wantErr: "figure failed"},
		{name: "unwritable parent", existing: earlier, opt: experiment.WriteOptions{Force: true}, unwrit: true, wantErr: "permission denied"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.unwrit && os.Geteuid() == 0 {
				t.Skip("root ignores file permissions")
			}
			parent := t.TempDir()
			dir := filepath.Join(parent, "out")
			if c.existing != nil {
				os.Mkdir(dir, 0o755)
				for name, content := range c.existing {
					if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
			before := files(t, dir)
			if c.unwrit {
				os.Chmod(parent, 0o555)
				defer os.Chmod(parent, 0o755)
			}
			err := experiment.WriteWithOptions(dir, res, c.opt)
			if c.wantErr == "" && err != nil {
				t.Fatalf("write: %v", err)
			}
			if c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)) {
				t.Fatalf("write: %v, want an error mentioning %q", err, c.wantErr)
			}
			after := files(t, dir)
			if c.replaced {
				want := []string{outdir.Marker, experiment.RunsFile, "results.json", "summary.csv"}
				if c.opt.Figures != nil {
					want = append(want, "regret.png", "regret.svg")
				}
				if len(after) != len(want) {
					t.Errorf("%s holds %d files, want exactly %v", dir, len(after), want)
				}
				for _, f := range want {
					if _, ok := after[f]; !ok {
						t.Errorf("%s missing", f)
					}
				}
				if after["results.json"] == "old" {
					t.Error("results.json is the old one")
				}
			} else if len(after) != len(before) {
				t.Errorf("the folder changed: %v, was %v", after, before)
			} else {
				for name, content := range before {
					if after[name] != content {
						t.Errorf("%s changed: %q, was %q", name, after[name], content)
					}
				}
			}
			entries, _ := os.ReadDir(parent)
			for _, e := range entries {
				if e.Name() != "out" {
					t.Errorf("left behind %s", e.Name())
				}
			}
		})
	}
}
