package outdir

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// ownerFile is the file in a staging folder (Stage) or in the folder an
// old output is moved aside into (Publish) that names the output it is
// for and is locked by the process writing it for as long as that
// process lives. A process killed outright (SIGKILL, a node lost) cannot
// remove its folder, but the kernel drops its lock: a later Stage for the
// same output finds the lock free and removes the folder (removeStale).
const ownerFile = ".safegp-stage"

// errLockUnsupported: this system has no file locks (lock).
var errLockUnsupported = errors.New("file locks not supported")

// owners holds the locked owner file of each folder this process staged
// or moved aside, by path, until Publish or Discard releases it.
var owners sync.Map // string → *os.File

// own writes dir's owner file, naming the output target (its base name)
// and this process, and locks it. The file is written and locked under a
// temporary name and renamed into place only then, so that another
// process never finds an owner file that is not yet locked.
func own(dir, target string) error {
	tmp := filepath.Join(dir, ownerFile+".new")
	f, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if err := lock(f); err != nil {
		f.Close()
		os.Remove(tmp)
		if errors.Is(err, errLockUnsupported) {
			return nil // folders stay behind on a crash, as before
		}
		return err
	}
	host, _ := os.Hostname()
	fmt.Fprintf(f, "%s\n%d\n%s\n", target, os.Getpid(), host)
	if err := os.Rename(tmp, filepath.Join(dir, ownerFile)); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	owners.Store(dir, f)
	return nil
}

// disown releases dir's owner file: its lock, and the file itself unless
// the folder goes with it.
func disown(dir string, removeFile bool) {
	if v, ok := owners.LoadAndDelete(dir); ok {
		if removeFile {
			os.Remove(filepath.Join(dir, ownerFile))
		}
		v.(*os.File).Close()
	}
}

// Discard removes a staging folder that will not be published, and
// releases its lock. Callers defer it after Stage; after Publish it finds
// nothing to do.
func Discard(tmp string) {
	disown(tmp, false)
	os.RemoveAll(tmp)
}

// removeStale removes the staging folders and old outputs moved aside
// beside parent that were made for the output named target by a process
// that has since died (its owner file's lock is free). An old output moved
// aside whose replacement never came (the process died between Publish's
// two renames) is put back at target instead, when target is missing:
// an interrupted --force must not lose the output it was replacing.
// Folders without an owner file — made by an older safegp, or by a
// process that has not yet locked it — and those of other outputs are
// left alone. It returns the folders it removed or put back.
func removeStale(parent, target string) []string {
	entries, err := os.ReadDir(parent)
	if err != nil {
		return nil
	}
	var done []string
	for _, e := range entries {
		name := e.Name()
		aside := strings.HasPrefix(name, ".safegp-old-")
		if !e.IsDir() || !(aside || strings.HasPrefix(name, ".safegp-out-")) {
			continue
		}
		dir := filepath.Join(parent, name)
		f, err := os.OpenFile(filepath.Join(dir, ownerFile), os.O_RDWR, 0)
		if err != nil {
			continue
		}
		first, _ := bufio.NewReader(f).ReadString('\n')
		if strings.TrimSuffix(first, "\n") != target || lock(f) != nil {
			f.Close() // another output's, or its writer is alive
			continue
		}
		if aside {
			final := filepath.Join(parent, target)
			if _, err := os.Lstat(final); errors.Is(err, fs.ErrNotExist) {
				if err := os.Rename(filepath.Join(dir, "old"), final); err != nil && !errors.Is(err, fs.ErrNotExist) {
					f.Close() // keep the only copy of the old output
					continue
				}
			}
		}
		f.Close()
		if os.RemoveAll(dir) == nil {
			done = append(done, dir)
		}
	}
	return done
}
