package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// longConfig is examples/regime-1-10.yaml with ten times its
// realizations: long enough (≈ 10 CPU-s) that a signal sent once the
// staging folder appears finds the run still working.
func longConfig(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile("../../examples/regime-1-10.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Replace(string(b), "realizations: 30", "realizations: 300", 1)
	if s == string(b) {
		t.Fatal("examples/regime-1-10.yaml changed: realizations not found")
	}
	p := filepath.Join(dir, "long.yaml")
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// staged lists the staging and moved-aside folders in dir.
func staged(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".safegp-out-") || strings.HasPrefix(e.Name(), ".safegp-old-") {
			out = append(out, e.Name())
		}
	}
	return out
}

// startStaged starts safegp with args in dir and waits until its
// staging folder (one that was not there before) holds its owner file:
// the command is at work.
func startStaged(t *testing.T, dir string, args ...string) *exec.Cmd {
	t.Helper()
	before := staged(t, dir)
	cmd := exec.Command(binary, args...)
	cmd.Dir = dir
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		for _, s := range staged(t, dir) {
			if _, err := os.Stat(filepath.Join(dir, s, ".safegp-stage")); err == nil && !slices.Contains(before, s) {
				return cmd
			}
		}
	}
	t.Fatalf("safegp %v: no staging folder after 30 s", args)
	return nil
}

// TestSignalsRemovePartialOutput is issue 24, item 1: SIGINT, SIGTERM and
// SIGHUP stop run, sweep and reproduce with 128 + the signal's number,
// and leave neither the output nor the staging folder.
func TestSignalsRemovePartialOutput(t *testing.T) {
	if testing.Short() {
		t.Skip("starts long commands")
	}
	sweepFile := func(t *testing.T, dir string) string {
		cfg := longConfig(t, dir)
		p := filepath.Join(dir, "sweep.yaml")
		os.WriteFile(p, []byte("base_file: "+filepath.Base(cfg)+"\naxes:\n  model.delta: [0.01, 0.1]\n"), 0o644)
		return p
	}
	cases := []struct {
		name string
		sig  syscall.Signal
		args func(t *testing.T, dir string) []string
	}{
		{"run/SIGINT", syscall.SIGINT, func(t *testing.T, dir string) []string {
			return []string{"run", longConfig(t, dir), "--out", "out", "--workers", "1"}
		}},
		{"run/SIGTERM", syscall.SIGTERM, func(t *testing.T, dir string) []string {
			return []string{"run", longConfig(t, dir), "--out", "out", "--workers", "1"}
		}},
		{"run/SIGHUP", syscall.SIGHUP, func(t *testing.T, dir string) []string {
			return []string{"run", longConfig(t, dir), "--out", "out", "--workers", "1"}
		}},
		{"sweep/SIGTERM", syscall.SIGTERM, func(t *testing.T, dir string) []string {
			return []string{"sweep", sweepFile(t, dir), "--out", "out", "--workers", "1"}
		}},
		{"reproduce/SIGTERM", syscall.SIGTERM, func(t *testing.T, dir string) []string {
			return []string{"reproduce", "--out", "out", "--workers", "1"}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			cmd := startStaged(t, dir, c.args(t, dir)...)
			if err := cmd.Process.Signal(c.sig); err != nil {
				t.Fatal(err)
			}
			err := cmd.Wait()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 128+int(c.sig) {
				t.Fatalf("exit: %v, want status %d", err, 128+int(c.sig))
			}
			if s := staged(t, dir); len(s) != 0 {
				t.Errorf("left behind: %v", s)
			}
			if _, err := os.Stat(filepath.Join(dir, "out")); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("out exists after the signal: %v", err)
			}
		})
	}
}

// TestKilledRunCleanedLater is the other half of item 1: a run killed
// outright (SIGKILL, a lost node) cannot clean up, so the next command with
// the same --out removes the folder it left — and only that one: a
// staging folder of another output, and one whose writer is alive, stay.
func TestKilledRunCleanedLater(t *testing.T) {
	if testing.Short() {
		t.Skip("starts long commands")
	}
	dir := t.TempDir()
	cfg := longConfig(t, dir)
	killed := startStaged(t, dir, "run", cfg, "--out", "out", "--workers", "1")
	killed.Process.Kill()
	killed.Wait()
	dead := staged(t, dir)
	if len(dead) != 1 {
		t.Fatalf("after SIGKILL: %v, want the one staging folder", dead)
	}
	quick := filepath.Join(dir, "quick.yaml")
	b, _ := os.ReadFile(cfg)
	os.WriteFile(quick, []byte(strings.Replace(strings.Replace(string(b), "realizations: 300", "realizations: 1", 1), "horizon: 500", "horizon: 20", 1)), 0o644)
	runQuick := func(out string) {
		t.Helper()
		cmd := exec.Command(binary, "run", quick, "--out", out, "--workers", "1")
		cmd.Dir = dir
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v\n%s", err, b)
		}
	}
	exists := func(name string) bool {
		_, err := os.Stat(filepath.Join(dir, name))
		return err == nil
	}
	// Another output's run leaves the dead folder alone.
	runQuick("other")
	if !exists(dead[0]) {
		t.Fatalf("a run for another --out removed %s", dead[0])
	}
	// A run for the same output removes it.
	alive := startStaged(t, dir, "run", cfg, "--out", "out", "--workers", "1")
	if exists(dead[0]) {
		t.Fatalf("the killed run's %s is still there", dead[0])
	}
	// And a live run's folder is never taken for a dead one's.
	live := staged(t, dir)
	runQuick("out")
	if got := staged(t, dir); len(got) != 1 || got[0] != live[0] {
		t.Errorf("staging folders: %v, want the live run's %v", got, live)
	}
	alive.Process.Signal(syscall.SIGTERM)
	alive.Wait()
	if s := staged(t, dir); len(s) != 0 {
		t.Errorf("after SIGTERM to the live run: %v left", s)
	}
}
