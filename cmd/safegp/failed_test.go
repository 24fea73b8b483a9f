package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStudyCLIFailed (issue 43): tell --failed answers an ask without
// values and is refused with them; show counts the failure; a study with
// no seed left safe asks nothing and exits 4; one at its horizon exits 3
// (not 1, the code of errors).
func TestStudyCLIFailed(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "spec.yaml")
	if err := os.WriteFile(spec, []byte(`parameters:
  - {name: kp, low: 0.05, high: 20, scale: log}
objective: {name: settle_time, goal: minimize}
constraints:
  - {name: overshoot, max: 0.05}
seeds: [{kp: 0.3}]
horizon: 3
`), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "s.db")
	do := func(want int, args ...string) (string, string) {
		t.Helper()
		var stdout, stderr bytes.Buffer
		err := run(args, &stdout, &stderr)
		if code := map[bool]int{true: 0, false: exitCode(err)}[err == nil]; code != want {
			t.Fatalf("%v: exit %d (%v, %s), want %d", args, code, err, stderr.String(), want)
		}
		if err != nil {
			return stdout.String(), stderr.String() + err.Error()
		}
		return stdout.String(), stderr.String()
	}
	do(0, "study", "create", spec, "--db", db)
	do(0, "study", "ask", "--db", db)
	do(1, "study", "tell", "--db", db, "--ask", "1", "--failed", "--value", "settle_time=3")
	out, _ := do(0, "study", "tell", "--db", db, "--ask", "1", "--failed")
	var ans struct {
		Failed    bool `json:"failed"`
		Violation bool `json:"violation"`
	}
	if err := json.Unmarshal([]byte(out), &ans); err != nil || !ans.Failed || ans.Violation {
		t.Errorf("tell --failed: %s (%v)", out, err)
	}
	if out, _ := do(0, "study", "show", "--db", db); !strings.Contains(out, "1 failed trial without values") {
		t.Errorf("show: %s", out)
	}
	// The only seed failed: nothing is left to ask.
	if _, errs := do(exitNoSafe, "study", "ask", "--db", db); !strings.Contains(errs, "no safe setting left to ask") {
		t.Errorf("ask: %s", errs)
	}
	// tell --f on a study stated in parameters names --value.
	if _, errs := do(1, "study", "tell", "--db", db, "--param", "kp=0.3", "--f", "1"); !strings.Contains(errs, "--value") {
		t.Errorf("tell --f: %s", errs)
	}
	// Two more rounds reach the horizon: an ask then exits 3.
	do(0, "study", "tell", "--db", db, "--param", "kp=0.3", "--value", "settle_time=9", "--value", "overshoot=0")
	do(0, "study", "tell", "--db", db, "--param", "kp=0.32", "--value", "settle_time=9", "--value", "overshoot=0")
	if _, errs := do(exitFinished, "study", "ask", "--db", db); !strings.Contains(errs, "horizon") {
		t.Errorf("ask at the horizon: %s", errs)
	}
	// Extended, it goes on; not below its horizon.
	do(1, "study", "extend", "--db", db, "--horizon", "3")
	if out, _ := do(0, "study", "extend", "--db", db, "--horizon", "5"); !strings.Contains(out, `"horizon":5`) {
		t.Errorf("extend: %s", out)
	}
	do(0, "study", "ask", "--db", db)
	if out, _ := do(0, "study", "list", "--db", db); !strings.Contains(out, " 5 ") {
		t.Errorf("list after extend: %s", out)
	}
}
