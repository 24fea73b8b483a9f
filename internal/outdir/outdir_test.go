package outdir

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tree writes files (path → content) under dir.
func tree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// snapshot reads every file under dir, by relative path.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
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

// leftovers lists the temporary folders left in parent.
func leftovers(t *testing.T, parent string) []string {
	t.Helper()
	entries, err := os.ReadDir(parent)
	if err != nil {
		t.Fatal(err)
	}
	var left []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".safegp-") {
			left = append(left, e.Name())
		}
	}
	return left
}

func TestCheck(t *testing.T) {
	base := t.TempDir()
	home := filepath.Join(base, "home")
	work := filepath.Join(base, "work", "project")
	tree(t, base, map[string]string{
		"home/notes.txt":             "mine",
		"work/project/go.mod":        "module x",
		"empty/.keep-dir/x":          "",
		"output/" + Marker:           "",
		"output/results.json":        "{}",
		"photos/holiday.jpg":         "jpeg",
		"file":                       "a file",
		"markerdir/" + Marker + "/x": "", // a folder named like the marker is no marker
	})
	os.RemoveAll(filepath.Join(base, "empty", ".keep-dir"))
	if err := os.Symlink(filepath.Join(base, "output"), filepath.Join(base, "link")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	t.Chdir(work)

	cases := []struct {
		dir   string
		force bool
		want  error  // nil: allowed
		text  string // when want is nil but an error is expected
	}{
		{dir: filepath.Join(base, "new"), want: nil},
		{dir: filepath.Join(base, "new", "deeper"), want: nil},
		{dir: filepath.Join(base, "empty"), want: nil},
		{dir: filepath.Join(base, "output"), want: ErrNotEmpty},
		{dir: filepath.Join(base, "output"), force: true, want: nil},
		{dir: filepath.Join(base, "photos"), want: ErrNotEmpty},
		{dir: filepath.Join(base, "photos"), force: true, want: ErrNotOutput},
		{dir: filepath.Join(base, "markerdir"), force: true, want: ErrNotOutput},
		{dir: "/", force: true, want: ErrProtected},
		{dir: "/", want: ErrProtected},
		{dir: home, force: true, want: ErrProtected},
		{dir: ".", force: true, want: ErrProtected},
		{dir: "..", force: true, want: ErrProtected},
		{dir: work, force: true, want: ErrProtected},
		{dir: filepath.Join(base, "work"), force: true, want: ErrProtected},
		{dir: base, force: true, want: ErrProtected}, // an ancestor of home and of the working folder
		{dir: filepath.Join(base, "file"), force: true, text: "not a folder"},
		{dir: filepath.Join(base, "link"), force: true, text: "symbolic link"},
	}
	for _, c := range cases {
		err := Check(c.dir, c.force)
		switch {
		case c.text != "":
			if err == nil || !strings.Contains(err.Error(), c.text) {
				t.Errorf("Check(%s, %v) = %v, want an error mentioning %q", c.dir, c.force, err, c.text)
			}
		case c.want == nil && err != nil:
			t.Errorf("Check(%s, %v) = %v, want nil", c.dir, c.force, err)
		case c.want != nil && !errors.Is(err, c.want):
			t.Errorf("Check(%s, %v) = %v, want %v", c.dir, c.force, err, c.want)
		}
	}
}

func TestPublish(t *testing.T) {
	old := map[string]string{Marker: "", "results.json": "old", "extra.txt": "added by hand", "sub/a": "old"}
	cases := []struct {
		name    string
		existed map[string]string // nil: dir does not exist
		force   bool
		break_  bool // remove the staging folder before publishing: the rename fails
		wantErr bool
		want    map[string]string // dir's files afterwards
	}{
		{name: "fresh", force: false, want: map[string]string{Marker: "", "results.json": "new"}},
		{name: "empty folder", existed: map[string]string{}, want: map[string]string{Marker: "", "results.json": "new"}},
		{name: "replace whole", existed: old, force: true, want: map[string]string{Marker: "", "results.json": "new"}},
		{name: "refused without force", existed: old, wantErr: true, want: old},
		{name: "failed rename puts the old one back", existed: old, force: true, break_: true, wantErr: true, want: old},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			parent := t.TempDir()
			dir := filepath.Join(parent, "out")
			if c.existed != nil {
				if err := os.Mkdir(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				tree(t, dir, c.existed)
			}
			tmp, err := Stage(dir)
			if err != nil {
				t.Fatal(err)
			}
			if filepath.Dir(tmp) != parent {
				t.Errorf("staged in %s, want beside %s", tmp, dir)
			}
			tree(t, tmp, map[string]string{"results.json": "new"})
			if c.break_ {
				os.RemoveAll(tmp)
			}
			err = Publish(tmp, dir, c.force)
			os.RemoveAll(tmp) // what every caller does
			if (err != nil) != c.wantErr {
				t.Fatalf("Publish: %v, want error %v", err, c.wantErr)
			}
			got := snapshot(t, dir)
			if len(got) != len(c.want) {
				t.Errorf("%s holds %v, want %v", dir, got, c.want)
			}
			for name, content := range c.want {
				if name == Marker {
					if _, ok := got[name]; !ok {
						t.Errorf("no %s", Marker)
					}
					continue
				}
				if got[name] != content {
					t.Errorf("%s = %q, want %q", name, got[name], content)
				}
			}
			if left := leftovers(t, parent); len(left) != 0 {
				t.Errorf("left behind %v", left)
			}
		})
	}
}
