package testbin

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// TestLockSerializes checks that a second holder of the lock waits for
// the first: it records when each held it, and the spans must not
// overlap.
func TestLockSerializes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lock")
	var mu sync.Mutex
	var spans [][2]time.Time
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			unlock, err := lock(path)
			if err != nil {
				t.Error(err)
				return
			}
			start := time.Now()
			time.Sleep(50 * time.Millisecond)
			end := time.Now()
			unlock()
			mu.Lock()
			spans = append(spans, [2]time.Time{start, end})
			mu.Unlock()
		})
	}
	wg.Wait()
	if len(spans) == 2 && spans[0][0].Before(spans[1][1]) && spans[1][0].Before(spans[0][1]) {
		t.Errorf("the lock was held twice at once: %v", spans)
	}
}

// TestBuild builds a one-file program and runs it.
func TestBuild(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	dir := t.TempDir()
	src := "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Print(\"built\") }\n"
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module hello\n\ngo 1.24\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "hello")
	if out, err := Build(dir, bin, "."); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin).Output()
	if err != nil || string(out) != "built" {
		t.Fatalf("run: %q, %v", out, err)
	}
}
