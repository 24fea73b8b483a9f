package server_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/safegp/safegp/server"
	"github.com/safegp/safegp/store"
	"github.com/safegp/safegp/study"
)

// TestAskBatchHTTP checks the ask route's bodies: none or {} is one ask,
// as before; "lease_seconds" alone adds "lease_until"; with "count" the
// answer is {"asks": [...]}; a heartbeat renews a lease. Bad bodies are
// 400 naming the field, and nothing is handed out.
func TestAskBatchHTTP(t *testing.T) {
	c, _ := newServer(t, "")
	create(c, "s")
	code, one := c.do("POST", "/v1/studies/s/ask", "")
	if code != http.StatusOK || one["ask"] != 1.0 || one["lease_until"] != nil {
		t.Fatalf("empty body: %d %v, want ask 1 without a lease", code, one)
	}
	if code, again := c.do("POST", "/v1/studies/s/ask", " {} "); code != http.StatusOK || again["ask"] != 1.0 {
		t.Fatalf("{}: %d %v, want the pending ask 1", code, again)
	}
	code, leased := c.do("POST", "/v1/studies/s/ask", `{"lease_seconds": 30}`)
	if code != http.StatusOK || leased["ask"] != 1.0 || leased["lease_until"] == nil {
		t.Fatalf("lease_seconds alone: %d %v, want ask 1 with lease_until", code, leased)
	}
	if _, err := time.Parse(time.RFC3339, leased["lease_until"].(string)); err != nil {
		t.Errorf("lease_until %v is not RFC 3339: %v", leased["lease_until"], err)
	}
	// Ask 1 is leased: a batch of 2 gets new asks (the seeds: 2 at most
	// are safe before any tell, and one of them is pending).
	code, batch := c.do("POST", "/v1/studies/s/ask", `{"count": 2, "lease_seconds": 30}`)
	asks, _ := batch["asks"].([]any)
	if code != http.StatusOK || len(asks) != 1 || asks[0].(map[string]any)["ask"] != 2.0 {
		t.Fatalf("count 2: %d %v, want {\"asks\": [ask 2]}", code, batch)
	}
	code, hb := c.do("POST", "/v1/studies/s/heartbeat", `{"ask": 2, "lease_seconds": 60}`)
	if code != http.StatusOK || hb["ask"] != 2.0 || hb["lease_until"] == nil {
		t.Fatalf("heartbeat: %d %v", code, hb)
	}
	for _, c2 := range []struct {
		path, body string
		status     int
		field      string
	}{
		{"ask", `{"count": 0}`, 400, "count"},
		{"ask", `{"count": 65}`, 400, "count"},
		{"ask", `{"count": 1.5}`, 400, "count"},
		{"ask", `{"count": "2"}`, 400, "count"},
		{"ask", `{"count": null}`, 400, "count"},
		{"ask", `{"lease_seconds": -1}`, 400, "lease_seconds"},
		{"ask", `{"lease_seconds": 1e9}`, 400, "lease_seconds"},
		{"ask", `{"lease_seconds": 1e999}`, 400, "lease_seconds"},
		{"ask", `{"lease_seconds": null}`, 400, "lease_seconds"},
		{"ask", `{"lease": 5}`, 400, "lease"},
		{"ask", `{"count": 2} {}`, 400, "trailing"},
		{"ask", `[1]`, 400, "object"},
		{"heartbeat", `{"ask": 2}`, 400, "lease_seconds"},
		{"heartbeat", `{"lease_seconds": 5}`, 400, "ask"},
		{"heartbeat", `{"ask": 2, "lease_seconds": 0}`, 400, "lease_seconds"},
		{"heartbeat", `{"ask": 99, "lease_seconds": 5}`, 404, "not an ask"},
	} {
		code, body := c.do("POST", "/v1/studies/s/"+c2.path, c2.body)
		msg, _ := body["error"].(string)
		if code != c2.status || !strings.Contains(msg, c2.field) {
			t.Errorf("%s %s: %d %q, want %d naming %s", c2.path, c2.body, code, msg, c2.status, c2.field)
		}
	}
	// Both seeds are pending and leased: nothing to hand out.
	code, none := c.do("POST", "/v1/studies/s/ask", `{"count": 3}`)
	if code != http.StatusConflict || !strings.Contains(none["error"].(string), "no ask available") {
		t.Fatalf("every safe action leased: %d %v, want 409 no ask available", code, none)
	}
	// A tell of a leased ask is accepted.
	if code, body := c.do("POST", "/v1/studies/s/tell", `{"ask": 1, "f": -4, "g": [0.9]}`); code != http.StatusOK {
		t.Fatalf("tell of leased ask 1: %d %v", code, body)
	}
}

// post sends a JSON body from a goroutine: the status and the answer.
func post(url, body string) (int, map[string]any, error) {
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, nil, err
	}
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		return 0, nil, fmt.Errorf("answer %q: %w", raw, err)
	}
	return resp.StatusCode, out, nil
}

// TestLeasedWorkers runs parallel workers against two servers on one
// database file — two processes' worth of services, which see each
// other's writes only through the file — each asking for leased batches
// and telling them, until the horizon. One worker takes a batch with a
// short lease and abandons it, as a crashed worker would. No ask may be
// handed to a second worker while its lease runs (the second hand-out's
// lease starts after the first's ended), every ask handed out, the
// abandoned ones included, is told exactly once, and the study ends with
// its horizon's observations.
func TestLeasedWorkers(t *testing.T) {
	path := filepath.Join(t.TempDir(), "w.db")
	var urls []string
	for range 2 {
		st, err := store.Open(path, store.OpenOptions{Create: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		ts := httptest.NewServer(server.Handler(study.NewService(st, study.ServiceOptions{}), server.Options{}))
		t.Cleanup(ts.Close)
		urls = append(urls, ts.URL)
	}
	c := client{t: t, url: urls[0]}
	const horizon = 30
	if code, body := c.do("POST", "/v1/studies", `{"name": "w", "spec": `+strings.Replace(spec, `"horizon": 100`, fmt.Sprintf(`"horizon": %d`, horizon), 1)+`}`); code != http.StatusCreated {
		t.Fatalf("create: %d %v", code, body)
	}
	type handing struct {
		worker  int
		until   time.Time
		leaseMs int64
	}
	var (
		mu       sync.Mutex
		handed   = map[int][]handing{}
		told     = map[int]int{}
		failures []string
	)
	fail := func(format string, args ...any) {
		mu.Lock()
		failures = append(failures, fmt.Sprintf(format, args...))
		mu.Unlock()
	}
	const workers = 6
	var wg sync.WaitGroup
	abandon := make(chan struct{}) // closed once worker 0 has its batch (or failed)
	release := sync.OnceFunc(func() { close(abandon) })
	for w := range workers {
		wg.Go(func() {
			if w == 0 {
				defer release()
			} else {
				<-abandon
			}
			base := urls[w%2] + "/v1/studies/w/"
			lease, leaseMs := "30", int64(30000)
			if w == 0 {
				lease, leaseMs = "0.3", 300 // the worker that abandons its batch
			}
			deadline := time.Now().Add(60 * time.Second)
			for time.Now().Before(deadline) {
				code, body, err := post(base+"ask", `{"count": 2, "lease_seconds": `+lease+`}`)
				if err != nil {
					fail("worker %d: ask: %v", w, err)
					return
				}
				msg, _ := body["error"].(string)
				switch {
				case code == http.StatusConflict && strings.Contains(msg, "reached its horizon"):
					return
				case code == http.StatusConflict || code == http.StatusServiceUnavailable:
					// No ask available (the rest leased), or the other
					// server wrote first: retry.
					time.Sleep(20 * time.Millisecond)
					continue
				case code != http.StatusOK:
					fail("worker %d: ask: %d %v", w, code, body)
					return
				}
				var ids []int
				for _, raw := range body["asks"].([]any) {
					a := raw.(map[string]any)
					until, err := time.Parse(time.RFC3339, a["lease_until"].(string))
					if err != nil {
						fail("worker %d: lease_until %v: %v", w, a["lease_until"], err)
						return
					}
					id := int(a["ask"].(float64))
					mu.Lock()
					handed[id] = append(handed[id], handing{worker: w, until: until, leaseMs: leaseMs})
					mu.Unlock()
					ids = append(ids, id)
				}
				if w == 0 {
					return // abandoned: its leases end in 0.3 s
				}
				for _, id := range ids {
					for {
						x := 0.0 // the measurement needs the point: the ask's
						for _, raw := range body["asks"].([]any) {
							if a := raw.(map[string]any); int(a["ask"].(float64)) == id {
								x = a["x"].([]any)[0].(float64)
							}
						}
						f, g := truth(x)
						code, tb, err := post(base+"tell", fmt.Sprintf(`{"ask": %d, "f": %v, "g": [%v]}`, id, f, g))
						if err != nil {
							fail("worker %d: tell %d: %v", w, id, err)
							return
						}
						if code == http.StatusConflict && strings.Contains(fmt.Sprint(tb["error"]), "another process") {
							time.Sleep(5 * time.Millisecond)
							continue // stale: the server reloads the study, retry
						}
						if code != http.StatusOK {
							fail("worker %d: tell %d: %d %v", w, id, code, tb)
							return
						}
						mu.Lock()
						told[id]++
						mu.Unlock()
						break
					}
				}
			}
			fail("worker %d: the study did not reach its horizon in 60 s", w)
		})
	}
	wg.Wait()
	for _, f := range failures {
		t.Error(f)
	}
	abandoned := 0
	for id, hs := range handed {
		slices.SortFunc(hs, func(a, b handing) int { return a.until.Compare(b.until) })
		for k := 1; k < len(hs); k++ {
			// The later hand-out's lease starts at its own time, at least
			// its lease length before its end: it must not start before
			// the earlier lease ended.
			start := hs[k].until.Add(-time.Duration(hs[k].leaseMs) * time.Millisecond)
			if start.Before(hs[k-1].until) {
				t.Errorf("ask %d handed to worker %d while worker %d's lease ran (until %s, new lease from %s)", id, hs[k].worker, hs[k-1].worker, hs[k-1].until, start)
			}
		}
		if hs[0].worker == 0 {
			abandoned++
		}
		if told[id] != 1 {
			t.Errorf("ask %d handed out %d time(s), told %d time(s), want once", id, len(hs), told[id])
		}
	}
	if abandoned == 0 {
		t.Error("the abandoning worker got no ask: the test did not exercise released leases")
	}
	code, obs := c.do("GET", "/v1/studies/w/observations", "")
	if list, _ := obs["list"].([]any); code != http.StatusOK || len(list) != horizon {
		t.Errorf("%d observations, want the horizon %d", len(obs["list"].([]any)), horizon)
	}
	t.Logf("%d asks handed out, %d of them first to the abandoning worker", len(handed), abandoned)
}
