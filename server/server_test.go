package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/safegp/safegp/server"
	"github.com/safegp/safegp/store"
	"github.com/safegp/safegp/study"
)

const spec = `{"decision_set": {"grid": {"bounds": [[0, 4]], "points": [41]}},
 "seed_actions": [10, 11], "thresholds": [0.0],
 "model": {"objective": {"kernel": "se", "lengthscale": 1}, "constraints": [{"kernel": "se", "lengthscale": 1}],
           "noise_std": 0.05, "delta": 0.01, "beta": 4},
 "algorithm": {"name": "sgp-ucb", "phase1": "uniform", "exploration": {"fixed": 5}},
 "horizon": 100, "seed": 7}`

func truth(x float64) (float64, float64) { return -(x - 3) * (x - 3), 1 - math.Pow(x/3.5, 4) }

type client struct {
	t     *testing.T
	url   string
	token string
}

func (c client) do(method, path, body string) (int, map[string]any) {
	c.t.Helper()
	req, err := http.NewRequest(method, c.url+path, strings.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		var list []any
		if json.Unmarshal(raw, &list) == nil {
			return resp.StatusCode, map[string]any{"list": list}
		}
		c.t.Fatalf("%s %s: body %q is not JSON", method, path, raw)
	}
	return resp.StatusCode, out
}

func newServer(t *testing.T, token string) (client, *store.Store) {
	t.Helper()
	c, st, _ := serveWith(t, server.Options{Token: token})
	return c, st
}

func create(c client, name string) {
	c.t.Helper()
	if code, body := c.do("POST", "/v1/studies", fmt.Sprintf(`{"name": %q, "spec": %s}`, name, spec)); code != http.StatusCreated {
		c.t.Fatalf("create %s: %d %v", name, code, body)
	}
}

func TestBadRequests(t *testing.T) {
	c, _ := newServer(t, "s3cret")
	create(c, "a")
	code, a := c.do("POST", "/v1/studies/a/ask", "")
	if code != 200 {
		t.Fatalf("ask: %d %v", code, a)
	}
	id := int(a["ask"].(float64))
	cases := []struct {
		name, method, path, body string
		token                    string
		want                     int
	}{
		{"no token", "POST", "/v1/studies/a/ask", "", "-", 401},
		{"wrong token", "GET", "/v1/studies/a", "", "nope", 401},
		{"unknown study", "POST", "/v1/studies/zz/ask", "", "", 404},
		{"bad name", "GET", "/v1/studies/bad%20name", "", "", 400},
		{"unknown route", "GET", "/v2/x", "", "", 404},
		{"NaN as string", "POST", "/v1/studies/a/tell", fmt.Sprintf(`{"ask": %d, "f": "NaN", "g": [1]}`, id), "", 400},
		{"huge number", "POST", "/v1/studies/a/tell", fmt.Sprintf(`{"ask": %d, "f": 1e400, "g": [1]}`, id), "", 400},
		{"wrong g count", "POST", "/v1/studies/a/tell", fmt.Sprintf(`{"ask": %d, "f": 1, "g": [1, 2]}`, id), "", 400},
		{"unknown ask", "POST", "/v1/studies/a/tell", `{"ask": 999, "f": 1, "g": [1]}`, "", 404},
		{"index outside", "POST", "/v1/studies/a/tell", `{"index": 41, "f": 1, "g": [1]}`, "", 400},
		{"both ask and index", "POST", "/v1/studies/a/tell", fmt.Sprintf(`{"ask": %d, "index": 1, "f": 1, "g": [1]}`, id), "", 400},
		{"both index and x", "POST", "/v1/studies/a/tell", `{"index": 1, "x": [0.1], "f": 1, "g": [1]}`, "", 400},
		{"x of the wrong dimension", "POST", "/v1/studies/a/tell", `{"x": [0.1, 0.2], "f": 1, "g": [1]}`, "", 400},
		{"null x", "POST", "/v1/studies/a/tell", `{"x": null, "f": 1, "g": [1]}`, "", 400},
		{"x of strings", "POST", "/v1/studies/a/tell", `{"x": ["0.1"], "f": 1, "g": [1]}`, "", 400},
		{"unknown field", "POST", "/v1/studies/a/tell", fmt.Sprintf(`{"ask": %d, "f": 1, "g": [1], "h": 2}`, id), "", 400},
		{"not JSON", "POST", "/v1/studies/a/tell", `f=1`, "", 400},
		{"too large", "POST", "/v1/studies/a/tell", `{"ask": 1, "f": 1, "g": [` + strings.Repeat("1,", 40000) + `1]}`, "", 413},
		{"duplicate study", "POST", "/v1/studies", fmt.Sprintf(`{"name": "a", "spec": %s}`, spec), "", 409},
		{"bad spec", "POST", "/v1/studies", `{"name": "b", "spec": {"horizon": 0}}`, "", 400},
		{"spec unknown key", "POST", "/v1/studies", `{"name": "b", "spec": {"colour": 1}}`, "", 400},
		{"trailing bracket", "POST", "/v1/studies/a/tell", fmt.Sprintf(`{"ask": %d, "f": 1, "g": [1]} ]`, id), "", 400},
		{"null g", "POST", "/v1/studies/a/tell", fmt.Sprintf(`{"ask": %d, "f": 1, "g": [null]}`, id), "", 400},
		{"null f", "POST", "/v1/studies/a/tell", fmt.Sprintf(`{"ask": %d, "f": null, "g": [1]}`, id), "", 400},
		{"string g", "POST", "/v1/studies/a/tell", fmt.Sprintf(`{"ask": %d, "f": 1, "g": ["1"]}`, id), "", 400},
		{"bool f", "POST", "/v1/studies/a/tell", fmt.Sprintf(`{"ask": %d, "f": false, "g": [1]}`, id), "", 400},
		{"fractional ask", "POST", "/v1/studies/a/tell", fmt.Sprintf(`{"ask": %d.5, "f": 1, "g": [1]}`, id), "", 400},
		{"null spec", "POST", "/v1/studies", `{"name": "b", "spec": null}`, "", 400},
		{"no name", "POST", "/v1/studies", fmt.Sprintf(`{"spec": %s}`, spec), "", 400},
		{"bad name in create", "POST", "/v1/studies", fmt.Sprintf(`{"name": "../b", "spec": %s}`, spec), "", 400},
		{"spec with a file", "POST", "/v1/studies", `{"name": "b", "spec": ` + strings.Replace(spec, `"grid": {"bounds": [[0, 4]], "points": [41]}`, `"file": "/etc/passwd"`, 1) + `}`, "", 400},
	}
	for _, tc := range cases {
		cc := c
		switch tc.token {
		case "-":
			cc.token = ""
		case "":
		default:
			cc.token = tc.token
		}
		code, body := cc.do(tc.method, tc.path, tc.body)
		if code != tc.want {
			t.Errorf("%s: status %d, want %d (%v)", tc.name, code, tc.want, body)
		}
		if msg, ok := body["error"].(string); !ok || msg == "" {
			t.Errorf("%s: no JSON error: %v", tc.name, body)
		}
	}
	// A web page cannot post: no JSON content type (no CORS preflight).
	req, _ := http.NewRequest("POST", c.url+"/v1/studies/a/tell", strings.NewReader(fmt.Sprintf(`{"ask": %d, "f": 1, "g": [1]}`, id)))
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("Content-Type", "text/plain")
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusUnsupportedMediaType {
		t.Errorf("text/plain tell: %v %v", resp.StatusCode, err)
	}
	// Nor an ask without a body (the header is what a page cannot send
	// cross-site); the answer says so, its text unescaped for curl.
	req, _ = http.NewRequest("POST", c.url+"/v1/studies/a/ask", nil)
	req.Header.Set("Authorization", "Bearer "+c.token)
	if resp, err := http.DefaultClient.Do(req); err != nil {
		t.Fatal(err)
	} else {
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if want := `"every POST here, with a body or none, must be sent with Content-Type: application/json"`; resp.StatusCode != http.StatusUnsupportedMediaType || !strings.Contains(string(raw), want) {
			t.Errorf("an ask with no body nor Content-Type: %d %s, want 415 saying %s", resp.StatusCode, raw, want)
		}
	}
	req, _ = http.NewRequest("POST", c.url+"/v1/studies", strings.NewReader(`{"name": "lim", "spec": {"parameters": [{"name": "kp", "low": 5, "high": 1}], "objective": {"name": "f", "goal": "maximize"}, "seeds": [{"kp": 2}], "horizon": 5}}`))
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("Content-Type", "application/json")
	if resp, err := http.DefaultClient.Do(req); err != nil {
		t.Fatal(err)
	} else {
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 400 || !strings.Contains(string(raw), "low < high") {
			t.Errorf("a spec with low above high: %d %s, want 400 saying low < high, unescaped", resp.StatusCode, raw)
		}
	}
	// None of that changed the study: the ask is still pending, no observation.
	if code, s := c.do("GET", "/v1/studies/a", ""); code != 200 || s["rounds"].(float64) != 0 || s["pending"].(float64) != float64(id) {
		t.Errorf("after bad requests: %d %v", code, s)
	}
	f, g := truth(a["x"].([]any)[0].(float64))
	if code, body := c.do("POST", "/v1/studies/a/tell", fmt.Sprintf(`{"ask": %d, "f": %v, "g": [%v]}`, id, f, g)); code != 200 {
		t.Fatalf("good tell: %d %v", code, body)
	}
	if code, body := c.do("POST", "/v1/studies/a/tell", fmt.Sprintf(`{"ask": %d, "f": 1, "g": [1]}`, id)); code != 409 {
		t.Errorf("second tell of an ask: %d %v", code, body)
	}
	// A measurement outside the loop at a point between two actions.
	f, g = truth(1.05)
	if code, body := c.do("POST", "/v1/studies/a/tell", fmt.Sprintf(`{"x": [1.05], "f": %v, "g": [%v]}`, f, g)); code != 200 || body["index"].(float64) != -1 || body["rounds"].(float64) != 2 {
		t.Errorf("tell at a point: %d %v, want 200 with index −1 after 2 rounds", code, body)
	}
	code, body := c.do("GET", "/v1/studies/a/observations", "")
	obs, _ := body["list"].([]any)
	if code != 200 || len(obs) != 2 || fmt.Sprint(obs[1].(map[string]any)["index"], obs[1].(map[string]any)["x"]) != "-1 [1.05]" {
		t.Errorf("observations: %d %v, want the second at index −1, x [1.05]", code, body)
	}
	// The same as CSV (a download): `study export --format csv`'s rows.
	req, _ = http.NewRequest("GET", c.url+"/v1/studies/a/observations?format=csv", nil)
	req.Header.Set("Authorization", "Bearer "+c.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/csv; charset=utf-8" || !strings.Contains(resp.Header.Get("Content-Disposition"), `filename="a.csv"`) ||
		len(lines) != 3 || !strings.HasPrefix(lines[0], "seq,kind,ask,index,x1,f,g1,") || !strings.Contains(lines[2], ",1.05,") {
		t.Errorf("observations as CSV: %d %q %q\n%s", resp.StatusCode, resp.Header.Get("Content-Type"), resp.Header.Get("Content-Disposition"), raw)
	}
	if code, body := c.do("GET", "/v1/studies/a/observations?format=xml", ""); code != 400 {
		t.Errorf("observations as xml: %d %v, want 400", code, body)
	}
	if code, body := c.do("GET", "/healthz", ""); code != 200 {
		t.Errorf("healthz: %d %v", code, body)
	}
}

// TestConcurrentClients drives several studies from many clients at once
// (run it with -race). Clients of one study race for its pending ask; the
// one that tells first wins and the others get 409. Afterwards each study's
// event log must show at most one untold ask at any time and each ask told
// at most once.
func TestForeignHostWithoutToken(t *testing.T) {
	// Without a token only loopback Host headers are served (DNS rebinding).
	c, _ := newServer(t, "")
	req, _ := http.NewRequest("GET", c.url+"/v1/studies/a", nil)
	req.Host = "evil.example"
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("foreign Host: status %d, want 403", resp.StatusCode)
	}
	for _, h := range []string{"localhost:8080", "127.0.0.1:9", "[::1]:80", "localhost"} {
		req.Host = h
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound { // the study does not exist, but the request got through
			t.Errorf("Host %s: status %d, want 404", h, resp.StatusCode)
		}
	}
}

func TestConcurrentClients(t *testing.T) {
	c, st := newServer(t, "")
	studies := []string{"s1", "s2", "s3", "s4"}
	for _, s := range studies {
		create(c, s)
	}
	const clients, rounds = 6, 8
	var wg sync.WaitGroup
	told := make(map[string]int)
	var mu sync.Mutex
	for _, s := range studies {
		for k := 0; k < clients; k++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for r := 0; r < rounds; r++ {
					code, a := c.do("POST", "/v1/studies/"+s+"/ask", "")
					if code != 200 {
						t.Errorf("ask: %d %v", code, a)
						return
					}
					f, g := truth(a["x"].([]any)[0].(float64))
					code, body := c.do("POST", "/v1/studies/"+s+"/tell", fmt.Sprintf(`{"ask": %v, "f": %v, "g": [%v]}`, a["ask"], f, g))
					switch code {
					case 200:
						mu.Lock()
						told[s]++
						mu.Unlock()
					case 409:
					default:
						t.Errorf("tell: %d %v", code, body)
					}
				}
			}()
		}
	}
	wg.Wait()
	for _, s := range studies {
		evs, err := st.Events(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		pending, tells := map[int]bool{}, 0
		toldOnce := map[int]bool{}
		for _, e := range evs {
			switch e.Kind {
			case "ask":
				pending[e.Ask] = true
				if len(pending) > 1 {
					t.Fatalf("%s: two asks pending at event %d", s, e.Seq)
				}
			case "tell":
				if !pending[e.Ask] || toldOnce[e.Ask] {
					t.Fatalf("%s: tell %d answers ask %d, which was not pending", s, e.Seq, e.Ask)
				}
				delete(pending, e.Ask)
				toldOnce[e.Ask] = true
				tells++
			}
		}
		if tells != told[s] || tells == 0 {
			t.Errorf("%s: %d tells stored, %d answered 200", s, tells, told[s])
		}
	}
}

func Example() {
	// A client of `safegp serve` needs only net/http and encoding/json.
	dir, _ := os.MkdirTemp("", "safegp-example-*")
	defer os.RemoveAll(dir)
	st, _ := store.Open(filepath.Join(dir, "studies.db"), store.OpenOptions{Create: true})
	defer st.Close()
	ts := httptest.NewServer(server.Handler(study.NewService(st, study.ServiceOptions{}), server.Options{}))
	defer ts.Close()

	post := func(path string, body any, out any) {
		b, _ := json.Marshal(body)
		resp, err := http.Post(ts.URL+path, "application/json", bytes.NewReader(b))
		if err != nil {
			panic(err)
		}
		defer resp.Body.Close()
		json.NewDecoder(resp.Body).Decode(out)
	}
	var created map[string]any
	post("/v1/studies", map[string]any{"name": "gains", "spec": json.RawMessage(spec)}, &created)
	for round := 1; round <= 3; round++ {
		var ask struct {
			Ask   int       `json:"ask"`
			Index int       `json:"index"`
			X     []float64 `json:"x"`
		}
		post("/v1/studies/gains/ask", nil, &ask)
		f, g := truth(ask.X[0]) // run the experiment on the real system here
		var told struct {
			Violation bool `json:"violation"`
			Rounds    int  `json:"rounds"`
		}
		post("/v1/studies/gains/tell", map[string]any{"ask": ask.Ask, "f": f, "g": []float64{g}}, &told)
		fmt.Printf("round %d: tried x = %.1f, violation: %v\n", told.Rounds, ask.X[0], told.Violation)
	}
	// Output:
	// round 1: tried x = 1.0, violation: false
	// round 2: tried x = 1.0, violation: false
	// round 3: tried x = 1.1, violation: false
}

// TestCreateNotes: a create answers the spec's notes (a parameter whose
// linear scale is too coarse near its seeds, space.Space.Hints)
// beside the decision set, and none for a study without them.
func TestCreateNotes(t *testing.T) {
	c, _ := newServer(t, "")
	const named = `{"parameters": [{"name": "kp", "low": 0.05, "high": 20%s}],
 "objective": {"name": "settle_time", "goal": "minimize"}, "constraints": [{"name": "overshoot", "max": 0.05}],
 "seeds": [{"kp": 0.3}], "horizon": 20}`
	for _, k := range []struct {
		name, spec, want string
		count            string // the answer's count of its domain
	}{
		{"linear", fmt.Sprintf(named, ""), "kp runs from 0.05 to 20 on a linear scale", "candidate_settings"},
		{"log", fmt.Sprintf(named, `, "scale": "log"`), "", "candidate_settings"},
		{"plain", spec, "", "actions"},
	} {
		code, body := c.do("POST", "/v1/studies", fmt.Sprintf(`{"name": %q, "spec": %s}`, k.name, k.spec))
		if code != http.StatusCreated || body[k.count] == nil {
			t.Fatalf("%s: %d %v, want %s", k.name, code, body, k.count)
		}
		// A study stated in parameters is answered in its terms: counts
		// of its parameters, settings and seeds, not action indices.
		if k.count == "candidate_settings" && (body["parameters"] != 1.0 || body["seeds"] != 1.0 || body["actions"] != nil || body["seed_actions"] != nil) {
			t.Errorf("%s: %v, want 1 parameter, 1 seed and no actions", k.name, body)
		}
		notes, _ := body["notes"].([]any)
		switch {
		case k.want == "" && body["notes"] != nil:
			t.Errorf("%s: notes %v, want none", k.name, body["notes"])
		case k.want != "" && (len(notes) != 1 || !strings.Contains(fmt.Sprint(notes[0]), k.want)):
			t.Errorf("%s: notes %v, want one with %q", k.name, body["notes"], k.want)
		}
	}
}
