package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/safegp/safegp/server"
	"github.com/safegp/safegp/store"
	"github.com/safegp/safegp/study"
	"github.com/safegp/safegp/study/api"
	"github.com/safegp/safegp/study/exchange"
)

// post sends body with the given Content-Type and returns the status and
// the raw answer.
func (c client) post(path, contentType, body string) (int, []byte) {
	c.t.Helper()
	return c.send("POST", path, contentType, strings.NewReader(body))
}

// get sends a GET and returns the status and the raw answer.
func (c client) get(path string) (int, []byte) {
	c.t.Helper()
	return c.send("GET", path, "", nil)
}

// send sends a request with the token (and the Content-Type, if any) and
// returns the status and the raw answer.
func (c client) send(method, path, contentType string, body io.Reader) (int, []byte) {
	c.t.Helper()
	req, err := http.NewRequest(method, c.url+path, body)
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, raw
}

// TestImportAndPosteriorRoutes: an import as CSV and as JSON, a tell with
// its own noise_std, and the posterior at points between the actions;
// bad requests get the status of the other routes and change nothing.
func TestImportAndPosteriorRoutes(t *testing.T) {
	c, st := newServer(t, "tok")
	create(c, "a")
	csv := "x1,f,g1,noise_std\n0.93,-4.28,0.99,0.1\n1.5,-2.25,0.96,0\n"
	code, raw := c.post("/v1/studies/a/import", "text/csv; charset=utf-8", csv)
	if code != 200 || !strings.Contains(string(raw), `"imported":2`) || !strings.Contains(string(raw), `"outside":1`) {
		t.Fatalf("CSV import: %d %s", code, raw)
	}
	code, raw = c.post("/v1/studies/a/import", "application/json", `[{"x": [2.05], "f": -0.9, "g": [0.88], "noise_std": 0.2}]`)
	if code != 200 || !strings.Contains(string(raw), `"rounds":3`) {
		t.Fatalf("JSON import: %d %s", code, raw)
	}
	if code, body := c.do("POST", "/v1/studies/a/tell", `{"x": [2.51], "f": -0.24, "g": [0.74], "noise_std": 0.01}`); code != 200 {
		t.Fatalf("tell with noise_std: %d %v", code, body)
	}
	code, raw = c.post("/v1/studies/a/posterior", "application/json", `{"points": [[0.93], [1.77], [5]]}`)
	var ans struct {
		Round    int     `json:"round"`
		SqrtBeta float64 `json:"sqrt_beta"`
		Points   []struct {
			X []float64 `json:"x"`
			F struct{ Mean, Std, Lower, Upper float64 }
			G []struct{ Mean, Std, Lower, Upper float64 }
		} `json:"points"`
	}
	if code != 200 || json.Unmarshal(raw, &ans) != nil || ans.Round != 5 || len(ans.Points) != 3 || len(ans.Points[0].G) != 1 || ans.SqrtBeta != 2 {
		t.Fatalf("posterior: %d %s", code, raw)
	}
	if p := ans.Points[0].F; !(p.Std < 0.1) || p.Lower != p.Mean-2*p.Std {
		t.Errorf("posterior at an imported point: %+v, want sd below its noise 0.1 and ℓ = μ − 2σ", p)
	}
	if p := ans.Points[2].F; !(p.Std > 0.9) {
		t.Errorf("posterior far from the data: %+v, want sd near the prior's 1", p)
	}
	code, body := c.do("GET", "/v1/studies/a/observations", "")
	list, _ := body["list"].([]any)
	if code != 200 || len(list) != 4 || list[3].(map[string]any)["noise_std"] != 0.01 {
		t.Fatalf("observations: %d %v", code, body)
	}
	before, _ := st.Events(t.Context(), "a")
	for _, c2 := range []struct {
		name, path, ctype, body string
		want                    int
	}{
		{"CSV short row", "/v1/studies/a/import", "text/csv", "x1,f,g1\n1,1,1\n1,1\n", 400},
		{"CSV seed column", "/v1/studies/a/import", "text/csv", "x1,f,g1,seed\n1,1,1,1\n", 400},
		{"CSV wrong d", "/v1/studies/a/import", "text/csv", "x1,x2,f,g1\n1,1,1,1\n", 400},
		{"CSV negative noise", "/v1/studies/a/import", "text/csv", "x1,f,g1,noise_std\n1,1,1,0\n1,1,1,-1\n", 400},
		{"JSON null noise", "/v1/studies/a/import", "application/json", `[{"x": [1], "f": 1, "g": [1], "noise_std": null}]`, 400},
		{"JSON ask", "/v1/studies/a/import", "application/json", `[{"ask": 1, "f": 1, "g": [1]}]`, 400},
		{"past the horizon", "/v1/studies/a/import", "text/csv", "x1,f,g1\n" + strings.Repeat("1,1,1\n", 97), 409},
		{"text/plain", "/v1/studies/a/import", "text/plain", "x1,f,g1\n1,1,1\n", 415},
		{"unknown study", "/v1/studies/zz/import", "text/csv", "x1,f,g1\n1,1,1\n", 404},
		{"too large", "/v1/studies/a/import", "text/csv", "x1,f,g1\n" + strings.Repeat("1,1,1\n", 3<<20), 413},
		{"tell NaN noise", "/v1/studies/a/tell", "application/json", `{"x": [1], "f": 1, "g": [1], "noise_std": "NaN"}`, 400},
		{"tell negative noise", "/v1/studies/a/tell", "application/json", `{"index": 3, "f": 1, "g": [1], "noise_std": -0.1}`, 400},
		{"posterior wrong d", "/v1/studies/a/posterior", "application/json", `{"points": [[1, 2]]}`, 400},
		{"posterior null", "/v1/studies/a/posterior", "application/json", `{"points": [[null]]}`, 400},
		{"posterior CSV", "/v1/studies/a/posterior", "text/csv", "x1\n1\n", 415},
	} {
		if code, raw := c.post(c2.path, c2.ctype, c2.body); code != c2.want {
			t.Errorf("%s: %d %s, want %d", c2.name, code, raw, c2.want)
		}
	}
	after, _ := st.Events(t.Context(), "a")
	if len(after) != len(before) {
		t.Errorf("bad requests changed the study: %d events, then %d", len(before), len(after))
	}
}

// TestImportPastItsDeadline: an import still running at the server's
// ImportDeadline is answered 503, saying so, with nothing stored (issue
// 40, item 6: one ran past the write timeout and was stored unanswered).
func TestImportPastItsDeadline(t *testing.T) {
	c, st, _ := serveWith(t, server.Options{Token: "tok", ImportDeadline: time.Microsecond})
	if code, body := c.do("POST", "/v1/studies", fmt.Sprintf(`{"name": "a", "spec": %s}`, strings.Replace(spec, `"horizon": 100`, `"horizon": 5000`, 1))); code != http.StatusCreated {
		t.Fatalf("create: %d %v", code, body)
	}
	var csv strings.Builder
	csv.WriteString("x1,f,g1\n")
	for k := range 2000 {
		fmt.Fprintf(&csv, "%v,%v,0.5\n", float64(k%41)/10, float64(k%7)/7)
	}
	code, raw := c.post("/v1/studies/a/import", "text/csv", csv.String())
	if code != http.StatusServiceUnavailable || !strings.Contains(string(raw), "nothing recorded") || !strings.Contains(string(raw), "import fewer rows") {
		t.Errorf("an import past its deadline: %d %s, want 503 saying nothing was recorded", code, raw)
	}
	if _, evs, err := st.Load(context.Background(), "a"); err != nil || len(evs) != 0 {
		t.Errorf("%d events stored (%v), want none", len(evs), err)
	}
}

// TestObservationsStreamed: the observations route streams its answer a
// chunk of events at a time (issue 40, item 7: whole exports held 2.2 GB
// at 24 at once); across chunk boundaries, with retractions among them,
// its bytes are the whole record's: the CSV export's and the JSON of
// every observation.
func TestObservationsStreamed(t *testing.T) {
	ctx := context.Background()
	c, _, svc := serveWith(t, server.Options{Token: "tok"})
	n := 2*study.ExportChunk + 100
	if code, body := c.do("POST", "/v1/studies", fmt.Sprintf(`{"name": "a", "spec": %s}`, strings.Replace(spec, `"horizon": 100`, fmt.Sprintf(`"horizon": %d`, n+10), 1))); code != http.StatusCreated {
		t.Fatalf("create: %d %v", code, body)
	}
	rows := make([]api.TellRequest, n)
	for k := range rows {
		i, f := k%41, float64(k%13)/13
		rows[k] = api.TellRequest{Index: &i, F: &f, G: []float64{0.5}}
	}
	if _, err := svc.Import(ctx, "a", rows); err != nil {
		t.Fatal(err)
	}
	for _, obs := range []int{3, study.ExportChunk, study.ExportChunk + 1, n} {
		if code, body := c.do("POST", "/v1/studies/a/retract", fmt.Sprintf(`{"observation": %d}`, obs)); code != 200 {
			t.Fatalf("retract %d: %d %v", obs, code, body)
		}
	}
	x, err := svc.Export(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	obs, err := svc.Observations(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	enc := json.NewEncoder(&want)
	enc.SetEscapeHTML(false)
	enc.Encode(obs)
	for _, c2 := range []struct{ format, want string }{{"csv", string(exchange.ExportCSV(x))}, {"json", want.String()}} {
		if code, got := c.get("/v1/studies/a/observations?format=" + c2.format); code != 200 || string(got) != c2.want {
			t.Errorf("%s: %d, %d bytes, want the whole record's %d bytes", c2.format, code, len(got), len(c2.want))
		}
	}
	// An empty study: an empty array, a header alone.
	if code, body := c.do("POST", "/v1/studies", fmt.Sprintf(`{"name": "e", "spec": %s}`, spec)); code != http.StatusCreated {
		t.Fatalf("create: %d %v", code, body)
	}
	for format, want := range map[string]string{"json": "[]\n", "csv": "seq,kind,ask,index,x1,f,g1,noise_std,violation,retracted_by,retracts,created\n"} {
		if _, got := c.get("/v1/studies/e/observations?format=" + format); string(got) != want {
			t.Errorf("empty study, %s: %q, want %q", format, got, want)
		}
	}
	if code, _ := c.do("GET", "/v1/studies/nope/observations?format=csv", ""); code != 404 {
		t.Errorf("an unknown study's export: %d, want 404", code)
	}
}

// serveWith is newServer with the handler's options: the client, the
// store and the service behind it.
func serveWith(t *testing.T, opt server.Options) (client, *store.Store, *study.Service) {
	t.Helper()
	st, err := store.Open(filepath.Join(t.TempDir(), "s.db"), store.OpenOptions{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	svc := study.NewService(st, study.ServiceOptions{})
	ts := httptest.NewServer(server.Handler(svc, opt))
	t.Cleanup(ts.Close)
	return client{t: t, url: ts.URL, token: opt.Token}, st, svc
}
