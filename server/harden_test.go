package server_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/safegp/safegp/server"
	"github.com/safegp/safegp/store"
	"github.com/safegp/safegp/study"
)

// TestRetractRoute: POST /v1/studies/{name}/retract withdraws an
// observation; the observations route flags it; bad retractions get
// 400/404/409 and change nothing.
func TestRetractRoute(t *testing.T) {
	c, _ := newServer(t, "")
	create(c, "a")
	code, told := c.do("POST", "/v1/studies/a/tell", `{"index": 20, "f": -1, "g": [100]}`)
	if code != 200 {
		t.Fatalf("tell: %d %v", code, told)
	}
	if w, _ := told["warnings"].([]any); len(w) != 1 || !strings.Contains(w[0].(string), "g1 = 100") {
		t.Errorf("no warning for g = 100: %v", told)
	}
	obs := int(told["observation"].(float64))
	_, a := c.do("POST", "/v1/studies/a/ask", "")
	for _, tc := range []struct {
		name, body string
		want       int
	}{
		{"unknown observation", `{"observation": 999}`, 404},
		{"an ask", fmt.Sprintf(`{"observation": %v}`, a["ask"]), 404},
		{"null", `{"observation": null}`, 400},
		{"string", `{"observation": "1"}`, 400},
		{"fraction", `{"observation": 1.5}`, 400},
		{"missing", `{}`, 400},
		{"unknown field", `{"observation": 1, "why": "typo"}`, 400},
	} {
		if code, body := c.do("POST", "/v1/studies/a/retract", tc.body); code != tc.want {
			t.Errorf("%s: %d %v, want %d", tc.name, code, body, tc.want)
		}
	}
	if code, s := c.do("GET", "/v1/studies/a", ""); code != 200 || s["retracted"].(float64) != 0 || s["rounds"].(float64) != 1 {
		t.Errorf("bad retractions changed the study: %v", s)
	}
	code, r := c.do("POST", "/v1/studies/a/retract", fmt.Sprintf(`{"observation": %d}`, obs))
	if code != 200 || int(r["observation"].(float64)) != obs || r["withdrawn_ask"] != a["ask"] || r["rounds"].(float64) != 0 {
		t.Fatalf("retract: %d %v", code, r)
	}
	if code, body := c.do("POST", "/v1/studies/a/retract", fmt.Sprintf(`{"observation": %d}`, obs)); code != 409 {
		t.Errorf("second retraction: %d %v", code, body)
	}
	if code, body := c.do("POST", "/v1/studies/a/tell", fmt.Sprintf(`{"ask": %v, "f": 1, "g": [1]}`, a["ask"])); code != 409 {
		t.Errorf("tell of the withdrawn ask: %d %v", code, body)
	}
	_, list := c.do("GET", "/v1/studies/a/observations", "")
	items := list["list"].([]any)
	if len(items) != 1 {
		t.Fatalf("observations %v", items)
	}
	o := items[0].(map[string]any)
	if o["retracted"] != true || o["retracted_by"] != r["retraction"] {
		t.Errorf("observation %v not flagged as retracted by %v", o, r["retraction"])
	}
	if code, s := c.do("GET", "/v1/studies/a", ""); code != 200 || s["retracted"].(float64) != 1 || s["rounds"].(float64) != 0 {
		t.Errorf("after the retraction: %v", s)
	}
}

// TestHorizonRoute: ask and index tells past the horizon get 409.
func TestHorizonRoute(t *testing.T) {
	c, _ := newServer(t, "")
	short := strings.Replace(spec, `"horizon": 100`, `"horizon": 2`, 1)
	if code, body := c.do("POST", "/v1/studies", fmt.Sprintf(`{"name": "h", "spec": %s}`, short)); code != 201 {
		t.Fatalf("create: %d %v", code, body)
	}
	for i := 0; i < 2; i++ {
		if code, body := c.do("POST", "/v1/studies/h/tell", `{"index": 10, "f": 0, "g": [0.5]}`); code != 200 {
			t.Fatalf("tell %d: %d %v", i, code, body)
		}
	}
	if code, body := c.do("POST", "/v1/studies/h/ask", ""); code != 409 || !strings.Contains(body["error"].(string), "horizon") {
		t.Errorf("ask at the horizon: %d %v", code, body)
	}
	if code, body := c.do("POST", "/v1/studies/h/tell", `{"index": 10, "f": 0, "g": [0.5]}`); code != 409 {
		t.Errorf("index tell at the horizon: %d %v", code, body)
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// TestLogDurationMs: the request log gives the duration in milliseconds,
// with the unit in the key (it was bare nanoseconds under "duration").
func TestLogDurationMs(t *testing.T) {
	st, err := store.Open(filepath.Join(t.TempDir(), "l.db"), store.OpenOptions{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var buf syncBuffer
	log := slog.New(slog.NewJSONHandler(&buf, nil))
	ts := httptest.NewServer(server.Handler(study.NewService(st, study.ServiceOptions{}), server.Options{Log: log}))
	defer ts.Close()
	resp, err := http.Get(ts.URL + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	buf.mu.Lock()
	line := buf.b.Bytes()
	buf.mu.Unlock()
	var rec map[string]any
	if err := json.Unmarshal(line, &rec); err != nil {
		t.Fatalf("log %q: %v", line, err)
	}
	ms, ok := rec["duration_ms"].(float64)
	if _, bare := rec["duration"]; bare || !ok || ms < 0 || ms > 10_000 {
		t.Errorf("log record %v: want duration_ms in milliseconds and no bare duration", rec)
	}
}
