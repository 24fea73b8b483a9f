package study

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/safegp/safegp/store"
	"github.com/safegp/safegp/study/api"
)

// leaseRow reads ask's row of the leases table: its end and token.
func leaseRow(t *testing.T, v *Service, name string, ask int) (until int64, token string) {
	t.Helper()
	if err := rawDB(t, v).QueryRow(`SELECT until, token FROM leases WHERE study = ? AND ask = ?`, name, ask).Scan(&until, &token); err != nil {
		t.Fatal(err)
	}
	return until, token
}

// TestLeaseTokens plays the review's case (issue 12): worker A gets an ask
// leased for 1 s, the lease ends, worker B gets the same ask for 600 s, and
// A's heartbeat must not take it back. Every leased hand-out draws a new
// token; a heartbeat naming a token that is not the ask's current one
// fails with store.ErrLeaseLost, names when the ask went to its current holder
// and changes nothing; the holder's heartbeat keeps its token; one without
// a token renews whoever holds the lease; a hand-out without a lease
// leaves the former holder's token lost too; a restart keeps the tokens.
func TestLeaseTokens(t *testing.T) {
	ctx := context.Background()
	c := &fakeClock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	path := filepath.Join(t.TempDir(), "t.db")
	v, done := batchService(t, path, c)
	createStudy(t, v, "s", batchSpec(`{"name": "safeopt", "safe_set": "gp"}`, 100))
	for range 4 {
		a, err := v.Ask(ctx, "s")
		if err != nil {
			t.Fatal(err)
		}
		if err := tellAsk(t, v, "s", a); err != nil {
			t.Fatal(err)
		}
	}
	batch, err := v.AskBatch(ctx, "s", api.AskOptions{Count: 3, LeaseSeconds: 1})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, a := range batch {
		if !store.ValidLeaseToken(a.Lease) || seen[a.Lease] {
			t.Fatalf("ask %d: lease token %q, want 16 hex digits of its own", a.Ask, a.Lease)
		}
		seen[a.Lease] = true
	}
	a := batch[0]
	askBatch := func(o api.AskOptions) []*api.AskAnswer {
		t.Helper()
		as, err := v.AskBatch(ctx, "s", o)
		if err != nil {
			t.Fatal(err)
		}
		return as
	}

	// A's lease ends; B is handed the same ask, with a new token.
	c.advance(2 * time.Second)
	handedB := c.t
	bs, err := v.AskBatch(ctx, "s", api.AskOptions{Count: 1, LeaseSeconds: 600})
	if err != nil {
		t.Fatal(err)
	}
	b := bs[0]
	if b.Ask != a.Ask || b.Lease == a.Lease || !store.ValidLeaseToken(b.Lease) {
		t.Fatalf("B got ask %d with token %q; want A's ask %d again with a new token (A's %q)", b.Ask, b.Lease, a.Ask, a.Lease)
	}
	untilB, _ := leaseRow(t, v, "s", a.Ask)

	// A's heartbeat names its token: refused, nothing changed.
	c.advance(time.Second)
	_, err = v.Heartbeat(ctx, "s", &api.HeartbeatRequest{Ask: a.Ask, LeaseSeconds: 600, Lease: a.Lease})
	if !errors.Is(err, store.ErrLeaseLost) || !strings.Contains(err.Error(), store.LeaseTime(handedB.UnixMilli())) || !strings.Contains(err.Error(), "first tell wins") {
		t.Fatalf("A's heartbeat after B got the ask: %v, want store.ErrLeaseLost naming %s", err, store.LeaseTime(handedB.UnixMilli()))
	}
	if until, token := leaseRow(t, v, "s", a.Ask); until != untilB || token != b.Lease {
		t.Fatalf("the refused heartbeat changed the lease: until %d, token %q; want B's %d, %q", until, token, untilB, b.Lease)
	}
	// B's heartbeat renews it and keeps B's token.
	hb, err := v.Heartbeat(ctx, "s", &api.HeartbeatRequest{Ask: b.Ask, LeaseSeconds: 900, Lease: b.Lease})
	if err != nil || hb.Lease != b.Lease || hb.LeaseUntil != store.LeaseTime(c.t.Add(900*time.Second).UnixMilli()) {
		t.Fatalf("B's heartbeat: %+v (%v); want token %q kept, until %s", hb, err, b.Lease, store.LeaseTime(c.t.Add(900*time.Second).UnixMilli()))
	}
	// Without a token a heartbeat cannot tell holders apart: it renews
	// the lease whoever holds it, keeping the token.
	hb, err = v.Heartbeat(ctx, "s", &api.HeartbeatRequest{Ask: b.Ask, LeaseSeconds: 60})
	if err != nil || hb.Lease != b.Lease {
		t.Fatalf("heartbeat without a token: %+v (%v), want B's token %q kept", hb, err, b.Lease)
	}
	// The other asks of A's batch, whose leases ended and went to no one,
	// are still A's: its heartbeat renews them.
	if hb, err := v.Heartbeat(ctx, "s", &api.HeartbeatRequest{Ask: batch[1].Ask, LeaseSeconds: 30, Lease: batch[1].Lease}); err != nil || hb.Lease != batch[1].Lease {
		t.Fatalf("heartbeat of an ended lease not handed out again: %+v (%v)", hb, err)
	}

	// B's lease ends and a plain ask (no lease) is handed the ask: B's
	// token is lost as well, dated by that hand-out.
	c.advance(61 * time.Second)
	handedPlain := c.t
	var plain *api.AskAnswer
	for _, p := range askBatch(api.AskOptions{Count: 3}) {
		if p.Ask == b.Ask {
			plain = p
		}
	}
	if plain == nil || plain.Lease != "" || plain.LeaseUntil != "" {
		t.Fatalf("plain ask after B's lease ended: %+v, want ask %d without a lease", plain, b.Ask)
	}
	c.advance(time.Second)
	if _, err := v.Heartbeat(ctx, "s", &api.HeartbeatRequest{Ask: b.Ask, LeaseSeconds: 60, Lease: b.Lease}); !errors.Is(err, store.ErrLeaseLost) || !strings.Contains(err.Error(), store.LeaseTime(handedPlain.UnixMilli())) {
		t.Fatalf("B's heartbeat after a plain ask took the ask: %v, want store.ErrLeaseLost naming %s", err, store.LeaseTime(handedPlain.UnixMilli()))
	}
	// A heartbeat without a token makes its caller the holder, with a new
	// token, which then works across a restart.
	hb, err = v.Heartbeat(ctx, "s", &api.HeartbeatRequest{Ask: b.Ask, LeaseSeconds: 60})
	if err != nil || !store.ValidLeaseToken(hb.Lease) || hb.Lease == b.Lease {
		t.Fatalf("heartbeat without a token of a disowned lease: %+v (%v), want a new token", hb, err)
	}
	done()
	v, done = batchService(t, path, c)
	defer done()
	if again, err := v.Heartbeat(ctx, "s", &api.HeartbeatRequest{Ask: b.Ask, LeaseSeconds: 60, Lease: hb.Lease}); err != nil || again.Lease != hb.Lease {
		t.Fatalf("heartbeat with the new token after a restart: %+v (%v)", again, err)
	}
	if _, err := v.Heartbeat(ctx, "s", &api.HeartbeatRequest{Ask: b.Ask, LeaseSeconds: 60, Lease: a.Lease}); !errors.Is(err, store.ErrLeaseLost) {
		t.Fatalf("A's old token after a restart: %v, want store.ErrLeaseLost", err)
	}
	// A well-formed token of an ask never leased: lost, not renewed.
	never := plain.Ask + 1
	for _, p := range askBatch(api.AskOptions{Count: 3}) {
		if p.Ask != b.Ask && p.Ask != batch[1].Ask {
			never = p.Ask
		}
	}
	if _, err := v.Heartbeat(ctx, "s", &api.HeartbeatRequest{Ask: never, LeaseSeconds: 60, Lease: "0123456789abcdef"}); !errors.Is(err, store.ErrLeaseLost) {
		t.Fatalf("a token for ask %d, never leased: %v, want store.ErrLeaseLost", never, err)
	}
	for _, tok := range []string{"0123456789ABCDEF", "0123456789abcde", "0123456789abcdef0", "2026-03-01T12:00:30.000Z", "0123456789abcdeg"} {
		if _, err := v.Heartbeat(ctx, "s", &api.HeartbeatRequest{Ask: b.Ask, LeaseSeconds: 60, Lease: tok}); !errors.Is(err, api.ErrBadHeartbeat) || !strings.Contains(err.Error(), "invalid heartbeat: lease token ") {
			t.Errorf("token %q: %v, want api.ErrBadHeartbeat naming the lease", tok, err)
		}
	}
	// The first tell wins, whoever holds the lease.
	if err := tellAsk(t, v, "s", a); err != nil {
		t.Fatalf("A's tell of its lost ask: %v", err)
	}
	if _, err := v.Heartbeat(ctx, "s", &api.HeartbeatRequest{Ask: b.Ask, LeaseSeconds: 60, Lease: hb.Lease}); !errors.Is(err, api.ErrAlreadyTold) {
		t.Fatalf("heartbeat of a told ask: %v, want api.ErrAlreadyTold", err)
	}
}
