package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestCommandsLeaveNothingBehind: every study command run as a process on
// a database file ends with the file alone in its folder (no -wal, -shm,
// lock or socket file: the last connection checkpoints and removes its
// WAL, a reading one too) and no process of the binary left running, so
// that nothing outlives a command.
func TestCommandsLeaveNothingBehind(t *testing.T) {
	dir := t.TempDir()
	spec := writeFile(t, t.TempDir(), "spec.yaml", "decision_set: {grid: {bounds: [[0, 4]], points: [41]}}\nseed_actions: [10]\n"+studyModel+"algorithm: {name: safeopt, safe_set: gp}\nhorizon: 10\nseed: 1\n")
	points := writeFile(t, t.TempDir(), "points.csv", "x1\n1\n")
	db := filepath.Join(dir, "s.db")
	before := binaryProcesses(t)
	for _, args := range [][]string{
		{"create", spec}, {"ask"}, {"tell", "--ask", "1", "--f", "-4", "--g", "0.9"}, {"ask", "--count", "2", "--lease", "60"},
		{"heartbeat", "--ask", "3", "--lease", "30"}, {"show"}, {"show", "--json"}, {"list"}, {"export", "--format", "json"},
		{"posterior", points}, {"retract", "--observation", "2"}, {"plot", "--out", filepath.Join(t.TempDir(), "p.png")},
	} {
		cmd := exec.Command(binary, append(append([]string{"study"}, args...), "--db", db)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		if !slices.Equal(names, []string{"s.db"}) {
			t.Errorf("after study %s the folder holds %v, want [s.db]", args[0], names)
		}
	}
	// A reader that goes away before the answer (safegp study show |
	// head -0): the write fails, the command exits as a shell's SIGPIPE
	// would, and the database is closed all the same.
	cmd := exec.Command(binary, "study", "show", "--json", "--db", db)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	out.Close()
	err = cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 141 {
		t.Errorf("show to a closed pipe: %v, want exit status 141", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("after show to a closed pipe the folder holds %d files, want s.db alone", len(entries))
	}
	if after := binaryProcesses(t); len(after) > len(before) {
		t.Errorf("processes of the binary: %d before the commands, %d after: %v", len(before), len(after), after)
	}
}

// binaryProcesses lists the running processes of the test's binary, by
// their executable (/proc/PID/exe).
func binaryProcesses(t *testing.T) []string {
	t.Helper()
	procs, err := filepath.Glob("/proc/[0-9]*/exe")
	if err != nil || len(procs) == 0 {
		t.Skip("no /proc here")
	}
	var out []string
	for _, p := range procs {
		if exe, err := os.Readlink(p); err == nil && strings.TrimSuffix(exe, " (deleted)") == binary {
			out = append(out, p)
		}
	}
	return out
}
