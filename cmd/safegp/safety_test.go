package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/safegp/safegp/internal/racetest"
)

// TestSafetyCmd: safegp safety writes its report into --out, refuses
// bad flags with the usage exit, and refuses an existing folder without
// --force.
func TestSafetyCmd(t *testing.T) {
	racetest.Long(t, "every scenario takes 15 s")
	if testing.Short() {
		t.Skip("runs every scenario once")
	}
	out := filepath.Join(t.TempDir(), "s")
	var stdout, stderr bytes.Buffer
	if err := run([]string{"safety", "--out", out, "--realizations", "1"}, &stdout, &stderr); err != nil {
		t.Fatalf("safety: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(stdout.String(), "the report is "+filepath.Join(out, "REPORT.md")) {
		t.Errorf("stdout %q", stdout.String())
	}
	if _, err := os.Stat(filepath.Join(out, "REPORT.md")); err != nil {
		t.Error(err)
	}
	for _, args := range [][]string{{"safety", "--workers", "0"}, {"safety", "--realizations", "-1"}, {"safety", "extra"}} {
		stderr.Reset()
		if err := run(args, &stdout, &stderr); exitCode(err) != 2 {
			t.Errorf("%v: exit %d (%v), want 2", args, exitCode(err), err)
		}
	}
	stderr.Reset()
	if err := run([]string{"safety", "--out", out, "--realizations", "1"}, &stdout, &stderr); err == nil {
		t.Error("safety into a written folder without --force: no error")
	}
}
