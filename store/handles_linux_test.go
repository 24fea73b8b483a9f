package store_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/safegp/safegp/store"
)

// TestSecondOpenKeepsTheFirstsLocks: a second Open of a file that a Store
// of this process holds, through another path, must not drop the first
// one's locks (issue 40, item 1). Closing a descriptor of the file drops
// every POSIX lock the process holds on it; another process then took the
// file for its last user and removed the write-ahead log under the first
// Store's connection, which is how acknowledged tells were lost. The locks
// are counted from /proc/locks (Linux); then another process — this test
// binary run again — writes and closes, and every event written on either
// side must be read back after.
func TestSecondOpenKeepsTheFirstsLocks(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db := filepath.Join(dir, "s.db")
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Skip("no symlinks here:", err)
	}
	first, err := store.Open(db, store.OpenOptions{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	actions := [][]float64{{0}, {1}, {2}}
	if err := first.Create(ctx, "s", []byte(`{}`), actions, []int{0}); err != nil {
		t.Fatal(err)
	}
	tell := func(st *store.Store, seq int) {
		t.Helper()
		e := store.Event{Seq: seq, Kind: "tell", Index: 1, X: actions[1], F: float64(seq), G: []float64{1}, Created: time.Now()}
		if err := st.Append(ctx, "s", &e); err != nil {
			t.Fatal(err)
		}
	}
	tell(first, 1)
	locks := heldLocks(t, db)
	if locks == 0 {
		t.Skip("the process's locks cannot be read here (/proc/locks)")
	}
	for _, path := range []string{db, filepath.Join(link, "s.db")} {
		second, err := store.Open(path, store.OpenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := second.Events(ctx, "s"); err != nil {
			t.Fatal(err)
		}
		second.Close()
		ro, err := store.Open(path, store.OpenOptions{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		ro.Close()
	}
	if got := heldLocks(t, db); got < locks {
		t.Errorf("a second open dropped this process's locks on the file: %d held, %d before", got, locks)
	}
	child := exec.Command(os.Args[0], "-test.run=^TestHelperOpenAndClose$")
	child.Env = append(os.Environ(), "SAFEGP_STORE_HELPER_DB="+db)
	if out, err := child.CombinedOutput(); err != nil {
		t.Fatalf("the other process: %v\n%s", err, out)
	}
	tell(first, 3)
	first.Close()
	check, err := store.Open(db, store.OpenOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer check.Close()
	evs, err := check.Events(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 3 {
		t.Errorf("read back %d events, want 3 (1 and 3 here, 2 by the other process)", len(evs))
	}
}

// heldLocks counts the POSIX locks this process holds on the file at path,
// as Linux's /proc/locks lists them (0 where it cannot be read): reading
// them through a descriptor of the file would drop them.
func heldLocks(t *testing.T, path string) int {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	b, err := os.ReadFile("/proc/locks")
	if !ok || err != nil {
		return 0
	}
	// A line: "1: POSIX  ADVISORY  READ 17578 fe:00:9979168 1073741826 1073742335".
	pid, ino := strconv.Itoa(os.Getpid()), ":"+strconv.FormatUint(st.Ino, 10)
	n := 0
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) >= 6 && f[1] == "POSIX" && f[4] == pid && strings.HasSuffix(f[5], ino) {
			n++
		}
	}
	return n
}

// TestHelperOpenAndClose is the other process of
// TestSecondOpenKeepsTheFirstsLocks: it writes an event and closes.
func TestHelperOpenAndClose(t *testing.T) {
	db := os.Getenv("SAFEGP_STORE_HELPER_DB")
	if db == "" {
		t.Skip("run by TestSecondOpenKeepsTheFirstsLocks")
	}
	st, err := store.Open(db, store.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	e := store.Event{Seq: 2, Kind: "tell", Index: 2, X: []float64{2}, F: 2, G: []float64{1}, Created: time.Now()}
	if err := st.Append(context.Background(), "s", &e); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
}
