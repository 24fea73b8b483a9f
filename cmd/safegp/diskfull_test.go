//go:build linux

package main

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/safegp/safegp/study/api"
)

// TestDiskFull is issue 24, item 9: on a full disk, opening a database
// said "not a safegp study database: disk I/O error" and an HTTP write
// answered a bare 500. Each now says the disk is full (507 over HTTP),
// nothing is recorded, and once space is freed the study goes on.
//
// The disk is a 512 KiB tmpfs, mounted in a user and mount namespace of
// its own: the test runs itself again under unshare -rm, where it may
// mount one without privileges.
func TestDiskFull(t *testing.T) {
	if os.Getenv("SAFEGP_DISK_FULL") == "1" {
		diskFull(t)
		return
	}
	if testing.Short() {
		t.Skip("runs the test again in a namespace")
	}
	if err := exec.Command("unshare", "-rm", "true").Run(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("unshare -rm (util-linux, user namespaces) is needed for the full-disk test: %v", err)
		}
		t.Skipf("no user namespaces here (unshare -rm: %v)", err)
	}
	cmd := exec.Command("unshare", "-rm", os.Args[0], "-test.run=^TestDiskFull$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), "SAFEGP_DISK_FULL=1", "SAFEGP_TEST_BINARY="+binary)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestDiskFull") {
		t.Fatalf("in the namespace: %v\n%s", err, out)
	}
}

// diskFull is TestDiskFull inside the namespace.
func diskFull(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=512k"); err != nil {
		t.Fatalf("mount a tmpfs: %v", err)
	}
	// After the server's cleanup (last registered, first run), before
	// TempDir's.
	t.Cleanup(func() { syscall.Unmount(dir, syscall.MNT_DETACH) })
	db := filepath.Join(dir, "s.db")
	safegp(t, "study", "create", writeSpec(t, t.TempDir()), "--db", db)
	url, _ := startServer(t, db)
	var a api.AskAnswer
	if code := post(t, url+"/v1/studies/default/ask", "", &a); code != 200 {
		t.Fatalf("ask: %d", code)
	}
	before := safegp(t, "study", "export", "--db", db, "--format", "csv")
	// Fill the disk.
	fill, err := os.Create(filepath.Join(dir, "fill"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(fill, io.LimitReader(zeros{}, 64<<20)); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("filling the disk: %v, want ENOSPC", err)
	}
	fill.Close()

	tell := fmt.Sprintf(`{"ask": %d, "f": 0.5, "g": [0.5]}`, a.Ask)
	resp, err := http.Post(url+"/v1/studies/default/tell", "application/json", strings.NewReader(tell))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusInsufficientStorage || !strings.Contains(string(body), "disk full") || !strings.Contains(string(body), "s.db") {
		t.Errorf("HTTP tell on a full disk: %d %s, want 507 saying the disk is full", resp.StatusCode, body)
	}
	for _, c := range []struct {
		name string
		args []string
	}{
		{"tell", []string{"study", "tell", "--db", db, "--ask", itoa(a.Ask), "--f", "0.5", "--g", "0.5"}},
		{"tell outside the loop", []string{"study", "tell", "--db", db, "--index", "5", "--f", "0.5", "--g", "0.5"}},
		{"create", []string{"study", "create", writeSpec(t, t.TempDir()), "--db", filepath.Join(dir, "new.db")}},
	} {
		_, stderr, code := runBinary(t, c.args...)
		if code != 1 || !strings.Contains(stderr, "disk full") || strings.Contains(stderr, "not a safegp study database") {
			t.Errorf("CLI %s on a full disk: exit %d, %q; want exit 1 saying the disk is full", c.name, code, stderr)
		}
	}
	// Space freed: nothing was recorded meanwhile, and the tell goes in.
	if err := os.Remove(filepath.Join(dir, "fill")); err != nil {
		t.Fatal(err)
	}
	if after := safegp(t, "study", "export", "--db", db, "--format", "csv"); after != before {
		t.Errorf("the full disk changed the study:\n%s\nthen\n%s", before, after)
	}
	if code := post(t, url+"/v1/studies/default/tell", tell, nil); code != 200 {
		t.Errorf("the tell once space is freed: %d", code)
	}
}

// zeros reads as endless zero bytes.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}
