package main

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// maxErrorBytes bounds what an error may print about a bad input: the
// message, and a 64-byte prefix of the value escaped (4 bytes a byte at
// worst, \x00) and JSON-escaped again over HTTP.
const maxErrorBytes = 2 << 10

// TestErrorsQuoteAPrefix is issue 24, item 3: errors quoted the whole
// offending value — a 16 MB import with one bad cell answered with an
// 80 MB error, safegp fit on 5 MB of NUL bytes printed 20 MB. Every entry
// point now quotes a short prefix and the value's length.
func TestErrorsQuoteAPrefix(t *testing.T) {
	dir := t.TempDir()
	file := func(name string, content []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, content, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	nul := bytes.Repeat([]byte{0}, 5<<20)
	bigCell := append([]byte("x1,f,g1\n1,"), append(bytes.Repeat([]byte{1}, 15<<20), ",1\n"...)...)
	bigHeader := append(append([]byte("x1,f,"), bytes.Repeat([]byte{'\x7f'}, 15<<20)...), "\n1,1,1\n"...)
	db := filepath.Join(dir, "s.db")
	safegp(t, "study", "create", writeSpec(t, dir), "--db", db)
	huge := strings.Repeat("\x01", 100<<10) // an argument holds at most 128 KiB (MAX_ARG_STRLEN)
	for _, c := range []struct {
		name string
		args []string
	}{
		{"fit on NUL bytes", []string{"fit", file("nul.csv", nul)}},
		{"fit, a 15 MB cell", []string{"fit", file("cell.csv", bigCell)}},
		{"import, a 15 MB cell", []string{"study", "import", "--db", db, file("cell2.csv", bigCell)}},
		{"import, a 15 MB header", []string{"study", "import", "--db", db, file("header.csv", bigHeader)}},
		{"import NUL bytes", []string{"study", "import", "--db", db, file("nul2.csv", nul)}},
		{"create, a 1 MB key", []string{"study", "create", file("spec.yaml", []byte("decision_set: {grid: {bounds: [[0, 1]], points: [5]}}\n"+strings.Repeat("k", 1<<20)+": 1\n")), "--db", filepath.Join(dir, "c.db")}},
		{"create, a 1 MB kernel name", []string{"study", "create", file("spec2.yaml", []byte("decision_set: {grid: {bounds: [[0, 1]], points: [5]}}\nseed_actions: [1]\nthresholds: [0]\nmodel: {objective: {kernel: \""+strings.Repeat("s", 1<<20)+"\"}, constraints: [{kernel: se}]}\nalgorithm: {name: sgp-ucb}\nhorizon: 10\n")), "--db", filepath.Join(dir, "c2.db")}},
		{"tell --f, 100 KB", []string{"study", "tell", "--db", db, "--ask", "1", "--f", huge, "--g", "1"}},
		{"tell --g, 100 KB", []string{"study", "tell", "--db", db, "--ask", "1", "--f", "1", "--g", huge}},
		{"a 100 KB flag", []string{"study", "tell", "--db", db, "--" + strings.Repeat("z", 100<<10), "1"}},
		{"a 100 KB command", []string{"study", huge}},
		{"--context, 100 KB", []string{"study", "ask", "--db", db, "--context", huge}},
		{"--max-memory, 100 KB", []string{"study", "ask", "--db", db, "--max-memory", huge}},
		{"study name, 100 KB", []string{"study", "ask", "--db", db, "--study", huge}},
	} {
		_, stderr, code := runBinary(t, c.args...)
		if code == 0 || len(stderr) > maxErrorBytes {
			t.Errorf("%s: exit %d with %d bytes on stderr (at most %d): %.200q", c.name, code, len(stderr), maxErrorBytes, stderr)
		}
	}

	url, _ := startServer(t, filepath.Join(dir, "h.db"))
	spec := `{"decision_set": {"grid": {"bounds": [[0, 4]], "points": [41]}}, "seed_actions": [10, 12], "thresholds": [0.0],
	 "model": {"objective": {"kernel": "se", "lengthscale": 1}, "constraints": [{"kernel": "se", "lengthscale": 1}], "noise_std": 0.05, "delta": 0.01},
	 "algorithm": {"name": "sgp-ucb", "phase1": "uniform", "exploration": {"fixed": 6}}, "horizon": 50, "seed": 9}`
	if code := post(t, url+"/v1/studies", `{"name": "s", "spec": `+spec+`}`, nil); code != 201 {
		t.Fatalf("create: %d", code)
	}
	for _, c := range []struct {
		name, path, ctype string
		body              []byte
		host              string
	}{
		{"import, a 15 MB cell", "/v1/studies/s/import", "text/csv", bigCell, ""},
		{"import, a 15 MB header", "/v1/studies/s/import", "text/csv", bigHeader, ""},
		{"import NUL bytes", "/v1/studies/s/import", "text/csv", nul, ""},
		{"import JSON, a 15 MB key", "/v1/studies/s/import", "application/json", []byte(`[{"` + strings.Repeat("k", 15<<20) + `": 1}]`), ""},
		{"tell, a 60 KB key", "/v1/studies/s/tell", "application/json", []byte(`{"` + strings.Repeat("\x01", 60<<10) + `": 1}`), ""},
		{"create, a 15 MB key", "/v1/studies", "application/json", []byte(`{"name": "t", "spec": {"` + strings.Repeat("k", 15<<20) + `": 1}}`), ""},
		{"create, a 15 MB name", "/v1/studies", "application/json", []byte(`{"name": "` + strings.Repeat("n", 15<<20) + `", "spec": {}}`), ""},
		{"posterior, a 15 MB context name", "/v1/studies/s/posterior", "application/json", []byte(`{"points": [[1]], "context": {"` + strings.Repeat("c", 15<<20) + `": 1}}`), ""},
		{"a 500 KB Host", "/v1/studies", "application/json", []byte(`{}`), strings.Repeat("h", 500<<10)},
	} {
		req, _ := http.NewRequest("POST", url+c.path, bytes.NewReader(c.body))
		req.Header.Set("Content-Type", c.ctype)
		if c.host != "" {
			req.Host = c.host
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode < 400 || len(b) > maxErrorBytes {
			t.Errorf("%s: %d with %d bytes (at most %d): %.200q", c.name, resp.StatusCode, len(b), maxErrorBytes, b)
		}
	}
}
