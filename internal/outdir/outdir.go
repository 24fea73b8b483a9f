package outdir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Marker is the file every output folder holds. Replacing an existing
// folder deletes it, so only folders with the marker (or empty ones) may
// be replaced: a typo in a path must never remove a user's own files.
const Marker = ".safegp-output"

const markerText = "This folder was written by safegp. `safegp run/reproduce --force` may replace it whole.\n"

var (
	// ErrNotEmpty: the target exists and has files, and replacing was not
	// asked for.
	ErrNotEmpty = errors.New("exists and is not empty")
	// ErrNotOutput: the target exists, has files and lacks the Marker.
	ErrNotOutput = errors.New("is not a safegp output folder (it has no " + Marker + " file), so it is never replaced")
	// ErrProtected: the target is the root, the home folder, the current
	// folder or an ancestor of one of them.
	ErrProtected = errors.New("is the root, the home folder, the current folder or one of their parents, so it is never written or replaced")
)

// Check says whether dir may receive an output: it may if it does not
// exist or is empty, and, with replace, if it is an earlier output (holds
// the Marker). A protected folder, a symbolic link or a file is refused
// whatever replace says. The errors do not repeat dir: callers prefix it.
func Check(dir string, replace bool) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	st, err := os.Lstat(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if st.Mode()&fs.ModeSymlink != 0 {
		// Publishing renames: it would replace the link, not fill the
		// folder it points to.
		return errors.New("is a symbolic link: give the folder it points to")
	}
	if !st.IsDir() {
		return errors.New("exists and is not a folder")
	}
	if protected(abs) {
		return ErrProtected
	}
	entries, err := os.ReadDir(abs)
	if err != nil {
		return err
	}
	if len(entries) == 0 {
		return nil
	}
	if !replace {
		return ErrNotEmpty
	}
	if st, err := os.Lstat(filepath.Join(abs, Marker)); err != nil || !st.Mode().IsRegular() {
		return ErrNotOutput
	}
	return nil
}

// protected reports whether dir, which exists, is the root, the home
// folder, the working folder or an ancestor of the home or working folder.
// Paths are compared both as given and with symbolic links resolved.
func protected(dir string) bool {
	var forms []string
	add := func(p string) {
		if p == "" {
			return
		}
		if a, err := filepath.Abs(p); err == nil {
			forms = append(forms, a)
		}
		if r, err := filepath.EvalSymlinks(p); err == nil {
			if a, err := filepath.Abs(r); err == nil {
				forms = append(forms, a)
			}
		}
	}
	add(dir)
	var guarded []string
	if home, err := os.UserHomeDir(); err == nil && home != "" {
		guarded = append(guarded, home)
	}
	if wd, err := os.Getwd(); err == nil {
		guarded = append(guarded, wd)
	}
	n := len(forms)
	for _, g := range guarded {
		add(g)
	}
	mine, theirs := forms[:n], forms[n:]
	for _, d := range mine {
		if filepath.Dir(d) == d { // a root, "/" or a volume
			return true
		}
		for _, g := range theirs {
			if within(d, g) {
				return true
			}
		}
	}
	return false
}

// within reports whether p is dir or lies under it.
func within(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// Stage creates an empty temporary folder beside dir, holding only the
// Marker, to write the output into. Beside, so that publishing is a rename
// within one file system. The caller removes it with Discard when it does
// not publish it; after Publish it no longer exists.
//
// The folder holds a locked owner file while this process lives, so that
// a later Stage for the same dir removes the folders of a process killed
// before it could clean up (SIGKILL, a lost node): Stage does that first.
func Stage(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	parent, target := filepath.Dir(abs), filepath.Base(abs)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", err
	}
	removeStale(parent, target)
	tmp, err := os.MkdirTemp(parent, ".safegp-out-*")
	if err != nil {
		return "", err
	}
	// MkdirTemp makes the folder private (0700); an output is an ordinary folder.
	if err := os.Chmod(tmp, 0o755); err != nil {
		os.RemoveAll(tmp)
		return "", err
	}
	if err := os.WriteFile(filepath.Join(tmp, Marker), []byte(markerText), 0o644); err != nil {
		os.RemoveAll(tmp)
		return "", err
	}
	if err := own(tmp, target); err != nil {
		os.RemoveAll(tmp)
		return "", err
	}
	return tmp, nil
}

// Publish renames the staged folder tmp to dir. An existing dir, which
// Check must allow (with replace), is renamed aside first and removed once
// the new folder is in place; if the new one cannot be put in place the
// old one is put back, so dir always holds either the old output or the
// new one whole.
func Publish(tmp, dir string, replace bool) error {
	if err := Check(dir, replace); err != nil {
		return fmt.Errorf("%s %w", dir, err)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	// The owner file is for the staging folder, not for the output.
	disown(tmp, true)
	if _, err := os.Lstat(abs); errors.Is(err, fs.ErrNotExist) {
		return os.Rename(tmp, abs)
	}
	// The old folder goes into a fresh folder of its own rather than to a
	// guessed name, so that no rename can land on something that exists.
	// It is owned as a staging folder is: if this process dies between
	// the two renames, a later Stage for dir puts the old output back.
	aside, err := os.MkdirTemp(filepath.Dir(abs), ".safegp-old-*")
	if err != nil {
		return err
	}
	defer disown(aside, false)
	if err := own(aside, filepath.Base(abs)); err != nil {
		os.RemoveAll(aside)
		return err
	}
	old := filepath.Join(aside, "old")
	if err := os.Rename(abs, old); err != nil {
		os.RemoveAll(aside)
		return fmt.Errorf("move the old %s aside: %w", dir, err)
	}
	if err := os.Rename(tmp, abs); err != nil {
		if rerr := os.Rename(old, abs); rerr != nil {
			return fmt.Errorf("put the new %s in place: %w; and the old one could not be put back, it is in %s: %v", dir, err, old, rerr)
		}
		os.RemoveAll(aside)
		return fmt.Errorf("put the new %s in place: %w", dir, err)
	}
	if err := os.RemoveAll(aside); err != nil {
		return fmt.Errorf("the new %s is in place, but the old one could not be removed from %s: %w", dir, aside, err)
	}
	return nil
}
