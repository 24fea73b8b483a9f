package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/safegp/safegp/study/api"
)

// TestStudyBatchCLI drives batches and leases through the command line,
// each command a fresh service on the database, as separate processes
// are: a leased batch prints {"asks": [...]} with lease_until, a second
// command hands out other asks (the leases are in the file), a plain ask
// takes none of them, a heartbeat renews a lease, show lists the pending
// asks, and bad flags or asks are errors.
func TestStudyBatchCLI(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "spec.yaml")
	if err := os.WriteFile(spec, []byte(spec1D), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "s.db")
	do := func(args ...string) (string, error) {
		var stdout, stderr bytes.Buffer
		err := run(append(append([]string{"study"}, args...), "--db", db), &stdout, &stderr)
		return stdout.String(), err
	}
	must := func(args ...string) string {
		t.Helper()
		out, err := do(args...)
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		return out
	}
	must("create", spec)
	// Four rounds one at a time widen the safe set beyond the seeds.
	for range 4 {
		var a api.AskAnswer
		if err := json.Unmarshal([]byte(must("ask")), &a); err != nil {
			t.Fatal(err)
		}
		must("tell", "--ask", itoa(a.Ask), "--f", "0.3", "--g", "0.9,0.8")
	}
	batch := func(args ...string) []api.AskAnswer {
		t.Helper()
		var b struct {
			Asks []api.AskAnswer `json:"asks"`
		}
		out := must(append([]string{"ask"}, args...)...)
		if err := json.Unmarshal([]byte(out), &b); err != nil || b.Asks == nil {
			t.Fatalf("ask %v: %q is not {\"asks\": [...]} (%v)", args, out, err)
		}
		return b.Asks
	}
	ids := func(as []api.AskAnswer) []int {
		var v []int
		for _, a := range as {
			v = append(v, a.Ask)
		}
		return v
	}
	b1 := batch("--count", "3", "--lease", "600")
	if len(b1) != 3 {
		t.Fatalf("a batch of %d asks, want 3", len(b1))
	}
	for _, a := range b1 {
		until, err := time.Parse(time.RFC3339, a.LeaseUntil)
		if err != nil || until.Before(time.Now().Add(590*time.Second)) {
			t.Fatalf("ask %d: lease_until %q (%v), want about 10 minutes from now", a.Ask, a.LeaseUntil, err)
		}
	}
	b2 := batch("--count", "2", "--lease", "600")
	if len(b2) != 2 || slices.ContainsFunc(ids(b2), func(id int) bool { return slices.Contains(ids(b1), id) }) {
		t.Fatalf("second command's batch %v shares asks with the leased %v", ids(b2), ids(b1))
	}
	var plain api.AskAnswer
	out := must("ask")
	if err := json.Unmarshal([]byte(out), &plain); err != nil || strings.Contains(out, "asks") || strings.Contains(out, "lease_until") {
		t.Fatalf("plain ask: %q", out)
	}
	if slices.Contains(append(ids(b1), ids(b2)...), plain.Ask) {
		t.Fatalf("plain ask %d is a leased one", plain.Ask)
	}
	var hb api.LeaseAnswer
	if err := json.Unmarshal([]byte(must("heartbeat", "--ask", itoa(b1[0].Ask), "--lease", "60")), &hb); err != nil || hb.Ask != b1[0].Ask || hb.LeaseUntil == "" {
		t.Fatalf("heartbeat: %+v (%v)", hb, err)
	}
	var single api.AskAnswer
	if err := json.Unmarshal([]byte(must("ask", "--lease", "30")), &single); err != nil || single.Ask != plain.Ask || single.LeaseUntil == "" {
		t.Fatalf("ask --lease 30: %+v (%v), want the plain ask %d, now leased", single, err, plain.Ask)
	}
	show := must("show")
	var pending []string
	for _, id := range append(append(ids(b1), ids(b2)...), plain.Ask) {
		pending = append(pending, itoa(id))
	}
	want := "pending asks: " + strings.Join(pending, ", ")
	if !strings.Contains(show, want) {
		t.Errorf("show lacks %q:\n%s", want, show)
	}
	for _, c := range []struct {
		args []string
		want error
	}{
		{[]string{"ask", "--count", "65"}, api.ErrBadAsk},
		{[]string{"ask", "--lease", "-3"}, api.ErrBadAsk},
		{[]string{"heartbeat", "--ask", "999", "--lease", "5"}, api.ErrUnknownAsk},
		{[]string{"heartbeat", "--ask", itoa(b1[0].Ask), "--lease", "0"}, api.ErrBadHeartbeat},
	} {
		if _, err := do(c.args...); !errors.Is(err, c.want) {
			t.Errorf("%v: %v, want %v", c.args, err, c.want)
		}
	}
}
