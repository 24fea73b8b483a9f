package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/safegp/safegp/store"
	"github.com/safegp/safegp/study"
	"github.com/safegp/safegp/study/api"
)

// TestStudyLeaseTokenCLI: ask --lease prints each ask's lease token;
// heartbeat --lease-token renews only while the ask is the caller's, and
// fails with exit 1 once its lease ended and another worker got the ask;
// heartbeat without --ask or --lease is a usage error (exit 2, as for a
// missing --db); a retraction names every ask it withdraws.
func TestStudyLeaseTokenCLI(t *testing.T) {
	dir := t.TempDir()
	spec := writeFile(t, dir, "spec.yaml", spec1D)
	db := filepath.Join(dir, "s.db")
	do := func(args ...string) (string, string, error) {
		var stdout, stderr bytes.Buffer
		err := run(append(append([]string{"study"}, args...), "--db", db), &stdout, &stderr)
		return stdout.String(), stderr.String(), err
	}
	must := func(args ...string) (string, string) {
		t.Helper()
		out, errOut, err := do(args...)
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		return out, errOut
	}
	askJSON := func(args ...string) api.AskAnswer {
		t.Helper()
		out, _ := must(append([]string{"ask"}, args...)...)
		var a api.AskAnswer
		if err := json.Unmarshal([]byte(out), &a); err != nil {
			t.Fatalf("ask %v: %q: %v", args, out, err)
		}
		return a
	}
	must("create", spec)
	var obs int
	for range 4 {
		a := askJSON()
		out, _ := must("tell", "--ask", itoa(a.Ask), "--f", "0.3", "--g", "0.9,0.8")
		var ans api.TellAnswer
		if err := json.Unmarshal([]byte(out), &ans); err != nil {
			t.Fatal(err)
		}
		obs = ans.Observation
	}
	// Worker A's lease of 1 ms ends at once; worker B gets the ask.
	a := askJSON("--lease", "0.001")
	if len(a.Lease) != 16 {
		t.Fatalf("ask --lease: lease token %q, want 16 hex digits", a.Lease)
	}
	until, err := time.Parse(time.RFC3339Nano, a.LeaseUntil)
	if err != nil {
		t.Fatalf("lease_until %q: %v", a.LeaseUntil, err)
	}
	time.Sleep(time.Until(until) + time.Millisecond) // past its end, as the answer says it
	b := askJSON("--lease", "600")
	if b.Ask != a.Ask || b.Lease == a.Lease {
		t.Fatalf("B got ask %d, token %q; want A's ask %d with a new token", b.Ask, b.Lease, a.Ask)
	}
	_, _, err = do("heartbeat", "--ask", itoa(a.Ask), "--lease", "600", "--lease-token", a.Lease)
	if !errors.Is(err, store.ErrLeaseLost) || exitCode(err) != 1 || !strings.Contains(err.Error(), "was handed to another caller at") {
		t.Fatalf("A's heartbeat: %v (exit %d), want ErrLeaseLost, exit 1", err, exitCode(err))
	}
	out, _ := must("heartbeat", "--ask", itoa(b.Ask), "--lease", "600", "--lease-token", b.Lease)
	var hb api.LeaseAnswer
	if err := json.Unmarshal([]byte(out), &hb); err != nil || hb.Lease != b.Lease || hb.Ask != b.Ask {
		t.Fatalf("B's heartbeat: %q (%v), want its token kept", out, err)
	}
	for _, args := range [][]string{{"heartbeat", "--ask", itoa(b.Ask)}, {"heartbeat", "--lease", "5"}} {
		_, errOut, err := do(args...)
		if exitCode(err) != 2 || !strings.Contains(errOut, "safegp study heartbeat: --ask ID and --lease SECONDS are required") {
			t.Errorf("%v: %v (exit %d), stderr %q; want a usage error naming the flags", args, err, exitCode(err), errOut)
		}
	}
	if _, _, err := do("heartbeat", "--ask", itoa(b.Ask), "--lease", "5", "--lease-token", "nope"); !errors.Is(err, api.ErrBadHeartbeat) || !strings.Contains(err.Error(), `invalid heartbeat: lease token "nope"`) {
		t.Errorf("a malformed token: %v", err)
	}

	// A batch beside the pending ask: the retraction withdraws them all
	// and names them all.
	askJSON("--count", "2")
	out, _ = must("show", "--json")
	var sum struct {
		PendingAsks []int `json:"pending_asks"`
	}
	if err := json.Unmarshal([]byte(out), &sum); err != nil || len(sum.PendingAsks) < 2 {
		t.Fatalf("show: %q (%v), want 2 or more pending asks", out, err)
	}
	out, errOut := must("retract", "--observation", itoa(obs))
	var r study.RetractAnswer
	if err := json.Unmarshal([]byte(out), &r); err != nil || !slices.Equal(r.WithdrawnAsks, sum.PendingAsks) || r.WithdrawnAsk != sum.PendingAsks[0] {
		t.Fatalf("retract: %q (%v), want withdrawn_asks %v and withdrawn_ask %d", out, err, sum.PendingAsks, sum.PendingAsks[0])
	}
	ids := make([]string, len(sum.PendingAsks))
	for k, id := range sum.PendingAsks {
		ids[k] = itoa(id)
	}
	if want := "safegp: asks " + strings.Join(ids, ", ") + " were withdrawn"; !strings.Contains(errOut, want) {
		t.Errorf("retract's stderr %q lacks %q", errOut, want)
	}
}

// TestServeUsage: serve --help lists the heartbeat route with its lease
// token, and says how a study with a context is asked.
func TestServeUsage(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if err := run([]string{"serve", "--help"}, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	usage := stdout.String() + stderr.String()
	for _, want := range []string{"POST /v1/studies/{name}/heartbeat", `"lease"?: TOKEN`, `"context": {NAME: V, …}`, `"withdrawn_asks"`} {
		if !strings.Contains(usage, want) {
			t.Errorf("serve --help lacks %q:\n%s", want, usage)
		}
	}
}
