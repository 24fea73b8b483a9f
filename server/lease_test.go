package server_test

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/safegp/safegp/server"
	"github.com/safegp/safegp/store"
	"github.com/safegp/safegp/study"
)

// clock is a settable clock safe to read from the handlers' goroutines.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

var leaseToken = regexp.MustCompile(`^[0-9a-f]{16}$`)

// TestHeartbeatLeaseToken: the review's case over HTTP (issue 12). Worker
// A gets ask 1 leased for 1 s, the lease ends, worker B gets ask 1 for
// 600 s: A's heartbeat naming its token is 409 and does not take the ask
// back; B's renews it and keeps B's token; a heartbeat without a token
// renews whoever holds it. Malformed tokens are 400, and integral numbers
// are integers (2.0 is 2).
func TestHeartbeatLeaseToken(t *testing.T) {
	st, err := store.Open(filepath.Join(t.TempDir(), "s.db"), store.OpenOptions{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	clk := &clock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	ts := httptest.NewServer(server.Handler(study.NewService(st, study.ServiceOptions{Now: clk.now}), server.Options{}))
	defer ts.Close()
	c := client{t: t, url: ts.URL}
	create(c, "s")

	code, a := c.do("POST", "/v1/studies/s/ask", `{"lease_seconds": 1}`)
	tokA, _ := a["lease"].(string)
	if code != http.StatusOK || a["ask"] != 1.0 || !leaseToken.MatchString(tokA) || a["lease_until"] != "2026-03-01T12:00:01.000Z" {
		t.Fatalf("A's ask: %d %v, want ask 1 with a lease token and lease_until", code, a)
	}
	clk.advance(2 * time.Second)
	code, b := c.do("POST", "/v1/studies/s/ask", `{"lease_seconds": 600.0}`)
	tokB, _ := b["lease"].(string)
	if code != http.StatusOK || b["ask"] != 1.0 || !leaseToken.MatchString(tokB) || tokB == tokA {
		t.Fatalf("B's ask: %d %v, want ask 1 again with a new token (A's %s)", code, b, tokA)
	}
	code, lost := c.do("POST", "/v1/studies/s/heartbeat", `{"ask": 1, "lease_seconds": 600, "lease": "`+tokA+`"}`)
	if msg, _ := lost["error"].(string); code != http.StatusConflict || !strings.Contains(msg, "ask 1 of study \"s\" was handed to another caller at 2026-03-01T12:00:02.000Z") {
		t.Fatalf("A's heartbeat: %d %v, want 409 naming B's hand-out", code, lost)
	}
	code, hb := c.do("POST", "/v1/studies/s/heartbeat", `{"ask": 1.0, "lease_seconds": 30, "lease": "`+tokB+`"}`)
	if code != http.StatusOK || hb["lease"] != tokB || hb["lease_until"] != "2026-03-01T12:00:32.000Z" {
		t.Fatalf("B's heartbeat: %d %v, want B's token kept", code, hb)
	}
	code, hb = c.do("POST", "/v1/studies/s/heartbeat", `{"ask": 1, "lease_seconds": 60}`)
	if code != http.StatusOK || hb["lease"] != tokB {
		t.Fatalf("heartbeat without a token: %d %v, want B's token kept", code, hb)
	}
	// count 2.0 and 2e0 are 2: the second seed (ask 1 is leased).
	for _, body := range []string{`{"count": 2.0}`, `{"count": 2e0, "lease_seconds": 0}`} {
		code, batch := c.do("POST", "/v1/studies/s/ask", body)
		asks, _ := batch["asks"].([]any)
		if code != http.StatusOK || len(asks) != 1 {
			t.Errorf("%s: %d %v, want a batch", body, code, batch)
		}
	}
	// A retraction names every ask it withdraws: asks 1 and 2.
	if code, r := c.do("POST", "/v1/studies/s/tell", `{"index": 3, "f": -4, "g": [0.9]}`); code != http.StatusOK || r["observation"] != 3.0 {
		t.Fatalf("tell: %d %v", code, r)
	}
	code, r := c.do("POST", "/v1/studies/s/retract", `{"observation": 3.0}`)
	if w, _ := r["withdrawn_asks"].([]any); code != http.StatusOK || len(w) != 2 || w[0] != 1.0 || w[1] != 2.0 || r["withdrawn_ask"] != 1.0 {
		t.Fatalf("retract: %d %v, want withdrawn_asks [1, 2] and withdrawn_ask 1", code, r)
	}
	for _, bad := range []struct{ body, msg string }{
		{`{"ask": 1, "lease_seconds": 5, "lease": 5}`, "invalid heartbeat: lease must be the lease token of the ask answer, a string, got a number"},
		{`{"ask": 1, "lease_seconds": 5, "lease": null}`, "got null"},
		{`{"ask": 1, "lease_seconds": 5, "lease": ""}`, "invalid heartbeat: lease is empty"},
		{`{"ask": 1, "lease_seconds": 5, "lease": "2026-03-01T12:00:01.000Z"}`, "invalid heartbeat: lease token \"2026-03-01T12:00:01.000Z\": want the token of the ask answer"},
		{`{"ask": 1, "lease_seconds": -1}`, "invalid heartbeat: lease_seconds = -1"},
		{`{"ask": 1.5, "lease_seconds": 5}`, "invalid heartbeat: ask must be an integer, got 1.5"},
		{`{"ask": 1, "lease_seconds": null}`, "invalid heartbeat: lease_seconds is null"},
		{`{"ask": 1, "lease_seconds": 5, "token": "x"}`, "invalid heartbeat: want {\"ask\": ID, \"lease_seconds\": S, \"lease\"?: TOKEN}: unknown field \"token\""},
	} {
		code, body := c.do("POST", "/v1/studies/s/heartbeat", bad.body)
		if msg, _ := body["error"].(string); code != http.StatusBadRequest || !strings.Contains(msg, bad.msg) {
			t.Errorf("%s: %d %q, want 400 with %q", bad.body, code, msg, bad.msg)
		}
	}
}

// TestImportCSVAgainstStudy: a CSV import's header is read against the
// study's columns (its errors say what the study takes), a study's export
// is imported with its retracted rows skipped, and a CSV for an unknown
// study is 404.
func TestImportCSVAgainstStudy(t *testing.T) {
	c, _ := newServer(t, "")
	create(c, "a")
	code, raw := c.post("/v1/studies/a/import", "text/csv", "x1,temperature,f,g1\n1,20,-4,0.9\n")
	if code != http.StatusBadRequest || !strings.Contains(string(raw), `unexpected column \"temperature\": the study has no context variables (want x1,f,g1[,noise_std])`) {
		t.Errorf("a context column for a study without context: %d %s", code, raw)
	}
	export := "seq,kind,ask,index,x1,f,g1,noise_std,violation,retracted_by,retracts,created\n" +
		"2,tell,1,10,1,-4,0.99,,false,3,,2026-03-01T12:00:00Z\n" +
		"3,retract,,10,,,,,,,2,2026-03-01T12:00:01Z\n" +
		"5,tell,4,11,1.1,-3.61,0.98,0.02,false,,,2026-03-01T12:00:02Z\n" +
		"6,tell,0,-1,1.23,-3.1,0.97,,false,,,2026-03-01T12:00:03Z\n"
	code, raw = c.post("/v1/studies/a/import", "text/csv", export)
	if code != http.StatusOK || !strings.Contains(string(raw), `"imported":2`) || !strings.Contains(string(raw), `"outside":1`) {
		t.Fatalf("an export: %d %s, want its 2 observations in force", code, raw)
	}
	if code, raw := c.post("/v1/studies/nope/import", "text/csv", "x1,f,g1\n1,-4,0.9\n"); code != http.StatusNotFound {
		t.Errorf("CSV import into an unknown study: %d %s", code, raw)
	}
}
