package server_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// ctxSpec is spec with a context: the temperature and the load.
var ctxSpec = strings.TrimSuffix(spec, "}") + `, "context": {"names": ["temperature", "load"], "kernel": {"kernel": "se", "lengthscale": [10, 1]}}}`

// TestContextRoutes: a study with a context asks with the context in the
// body and answers with it; tells outside the loop, imports and the
// posterior carry theirs; bad contexts are 400 naming the variable and
// change nothing; an ask in another context while one is pending is a new
// ask, and both are told.
func TestContextRoutes(t *testing.T) {
	c, st := newServer(t, "tok")
	if code, body := c.do("POST", "/v1/studies", fmt.Sprintf(`{"name": "c", "spec": %s}`, ctxSpec)); code != http.StatusCreated {
		t.Fatalf("create: %d %v", code, body)
	}
	create(c, "plain")
	bad := []struct {
		name, path, body, msg string
		want                  int
	}{
		{"ask without a context", "/v1/studies/c/ask", ``, "context is missing", 400},
		{"ask with {}", "/v1/studies/c/ask", `{}`, "context is missing", 400},
		{"a name missing", "/v1/studies/c/ask", `{"context": {"temperature": 21.5}}`, "context.load is missing", 400},
		{"a name too many", "/v1/studies/c/ask", `{"context": {"temperature": 21.5, "load": 0.3, "humidity": 40}}`, "context.humidity is not a context variable", 400},
		{"NaN", "/v1/studies/c/ask", `{"context": {"temperature": "NaN", "load": 0.3}}`, "context.temperature must be a number", 400},
		{"a string", "/v1/studies/c/ask", `{"context": {"temperature": "21.5", "load": 0.3}}`, "context.temperature must be a number", 400},
		{"null", "/v1/studies/c/ask", `{"context": {"temperature": null, "load": 0.3}}`, "context.temperature is null", 400},
		{"a list", "/v1/studies/c/ask", `{"context": [21.5, 0.3]}`, "must be an object", 400},
		{"an unknown field", "/v1/studies/c/ask", `{"context": {"temperature": 21.5, "load": 0.3}, "counts": 2}`, "unknown field", 400},
		{"a study without", "/v1/studies/plain/ask", `{"context": {"temperature": 21.5, "load": 0.3}}`, "has no context", 400},
		{"tell without its context", "/v1/studies/c/tell", `{"index": 3, "f": 1, "g": [1]}`, "context is missing", 400},
		{"tell with a bad one", "/v1/studies/c/tell", `{"index": 3, "f": 1, "g": [1], "context": {"temperature": 1}}`, "context.load is missing", 400},
		{"posterior without", "/v1/studies/c/posterior", `{"points": [[1]]}`, "context is missing", 400},
		{"import without", "/v1/studies/c/import", `[{"x": [1], "f": 1, "g": [1]}]`, "row 1: invalid observation: invalid context: context is missing", 400},
	}
	for _, b := range bad {
		code, raw := c.post(b.path, "application/json", b.body)
		if code != b.want || !strings.Contains(string(raw), b.msg) {
			t.Errorf("%s: %d %s, want %d with %q", b.name, code, raw, b.want, b.msg)
		}
	}
	if evs, _ := st.Events(context.Background(), "c"); len(evs) != 0 {
		t.Fatalf("bad requests recorded %d events", len(evs))
	}

	code, a := c.do("POST", "/v1/studies/c/ask", `{"context": {"temperature": 21.5, "load": 0.3}}`)
	ctx, _ := a["context"].(map[string]any)
	if code != 200 || ctx["temperature"] != 21.5 || ctx["load"] != 0.3 || a["index"] == nil {
		t.Fatalf("ask: %d %v", code, a)
	}
	id := int(a["ask"].(float64))
	// Another context with ask id pending: a new ask; both are told,
	// each in its own context.
	code, b := c.do("POST", "/v1/studies/c/ask", `{"context": {"temperature": 22, "load": 0.3}}`)
	if code != 200 || int(b["ask"].(float64)) == id {
		t.Fatalf("ask in another context with ask %d pending: %d %v, want a new ask", id, code, b)
	}
	for _, ask := range []map[string]any{a, b} {
		f, g := truth(ask["x"].([]any)[0].(float64))
		if code, body := c.do("POST", "/v1/studies/c/tell", fmt.Sprintf(`{"ask": %v, "f": %v, "g": [%v]}`, ask["ask"], f, g)); code != 200 {
			t.Fatalf("tell: %d %v", code, body)
		}
	}
	if code, body := c.do("POST", "/v1/studies/c/tell", `{"x": [2.2], "f": -0.64, "g": [0.84], "context": {"temperature": 18, "load": 0.5}}`); code != 200 {
		t.Fatalf("tell at a point in a context: %d %v", code, body)
	}
	code, raw := c.post("/v1/studies/c/import", "text/csv", "x1,temperature,load,f,g1\n1.2,19,0.2,-3.2,0.97\n")
	if code != 200 || !strings.Contains(string(raw), `"imported":1`) {
		t.Fatalf("CSV import with context columns: %d %s", code, raw)
	}
	code, raw = c.post("/v1/studies/c/posterior", "application/json", `{"points": [[1.2], [2]], "context": {"temperature": 19, "load": 0.2}}`)
	if code != 200 || !strings.Contains(string(raw), `"context":{"load":0.2,"temperature":19}`) {
		t.Fatalf("posterior in a context: %d %s", code, raw)
	}
	code, obs := c.do("GET", "/v1/studies/c/observations", "")
	list, _ := obs["list"].([]any)
	if code != 200 || len(list) != 4 {
		t.Fatalf("observations: %d %v", code, obs)
	}
	for k, want := range []float64{21.5, 22, 18, 19} {
		if got := list[k].(map[string]any)["context"].(map[string]any)["temperature"]; got != want {
			t.Errorf("observation %d: temperature %v, want %v", k+1, got, want)
		}
	}
	code, sum := c.do("GET", "/v1/studies/c", "")
	if cur, _ := sum["context"].(map[string]any); code != 200 || cur["temperature"] != 22.0 || sum["best"] == nil {
		t.Errorf("show: %d %v", code, sum)
	}
}
