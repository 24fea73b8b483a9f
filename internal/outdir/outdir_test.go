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
	t.Parallel()
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

// TestRemoveStale: Stage removes the staging folders and moved-aside old
// outputs of its own output whose writer died (owner file unlocked), puts
// back an old output whose replacement never came, and leaves alone the
// folders of a live writer, of another output and without an owner.
func TestRemoveStale(t *testing.T) {
	t.Parallel()
	if err := lock(nil); errors.Is(err, errLockUnsupported) {
		t.Skip("no file locks here")
	}
	dir := t.TempDir()
	dead := func(name, target string, files map[string]string) {
		t.Helper()
		tree(t, filepath.Join(dir, name), files)
		// Written but never locked: the writer is gone.
		if err := os.WriteFile(filepath.Join(dir, name, ownerFile), []byte(target+"\n1\nhost\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dead(".safegp-out-1", "out", map[string]string{Marker: markerText, "results.json": "{}"})
	dead(".safegp-out-2", "other", map[string]string{Marker: markerText})
	tree(t, filepath.Join(dir, ".safegp-out-3"), map[string]string{Marker: markerText}) // no owner: an older safegp's
	// A --force replacement killed between its renames: the old output
	// is aside and the target is missing.
	dead(".safegp-old-4", "kept", map[string]string{"old/" + Marker: markerText, "old/results.json": "old"})
	// A live writer of the same output, in this process.
	live, err := Stage(filepath.Join(dir, "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer Discard(live)
	for _, c := range []struct {
		name string
		gone bool
	}{{".safegp-out-1", true}, {".safegp-out-2", false}, {".safegp-out-3", false}, {filepath.Base(live), false}, {".safegp-old-4", false}} {
		if _, err := os.Stat(filepath.Join(dir, c.name)); (err == nil) == c.gone {
			t.Errorf("%s: gone = %v, want %v", c.name, err != nil, c.gone)
		}
	}
	// A second Stage for out leaves the live writer's folder.
	again, err := Stage(filepath.Join(dir, "out"))
	if err != nil {
		t.Fatal(err)
	}
	Discard(again)
	if _, err := os.Stat(live); err != nil {
		t.Errorf("a live staging folder was removed: %v", err)
	}
	// Staging "kept" puts its old output back before anything else.
	st, err := Stage(filepath.Join(dir, "kept"))
	if err != nil {
		t.Fatal(err)
	}
	Discard(st)
	if b, err := os.ReadFile(filepath.Join(dir, "kept", "results.json")); err != nil || string(b) != "old" {
		t.Errorf("the old output was not put back: %q, %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".safegp-old-4")); err == nil {
		t.Error(".safegp-old-4 is still there")
	}
	// Published: no owner file travels into the output.
	pub, err := Stage(filepath.Join(dir, "pub"))
	if err != nil {
		t.Fatal(err)
	}
	if err := Publish(pub, filepath.Join(dir, "pub"), false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "pub", ownerFile)); err == nil {
		t.Error("the owner file was published with the output")
	}
}
