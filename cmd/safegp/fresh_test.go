package main

import (
	"encoding/json"
	"net/http"
	"path/filepath"
	"testing"

	"github.com/safegp/safegp/study/api"
)

// TestServerReadsAreFresh is issue 24, item 8, with processes: a tell
// made by the CLI on the server's database shows at once in GET
// /v1/studies/{name} and /observations (they showed the old state until
// the server's next write failed with 409).
func TestServerReadsAreFresh(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "s.db")
	safegp(t, "study", "create", writeSpec(t, dir), "--db", db)
	url, _ := startServer(t, db)
	get := func(path string, out any) {
		t.Helper()
		resp, err := http.Get(url + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
			t.Fatal(err)
		}
	}
	var a api.AskAnswer
	if code := post(t, url+"/v1/studies/default/ask", "", &a); code != 200 {
		t.Fatalf("ask: %d", code)
	}
	var before api.Summary
	get("/v1/studies/default", &before) // the server holds the study now
	safegp(t, "study", "tell", "--db", db, "--ask", itoa(a.Ask), "--f", "0.5", "--g", "0.5")
	var after api.Summary
	get("/v1/studies/default", &after)
	if after.Rounds != before.Rounds+1 || after.Pending != nil {
		t.Errorf("GET /v1/studies/default after the CLI's tell: %d rounds, pending %v; want %d and none", after.Rounds, after.Pending, before.Rounds+1)
	}
	var obs []api.Observation
	get("/v1/studies/default/observations", &obs)
	if len(obs) != 1 || obs[0].Ask != a.Ask {
		t.Errorf("observations: %+v", obs)
	}
	// And the server's own next write follows on without a 409.
	var next api.AskAnswer
	if code := post(t, url+"/v1/studies/default/ask", "", &next); code != 200 || next.Ask != a.Ask+2 {
		t.Errorf("the next ask: %d %+v, want 200 and ask %d", code, next, a.Ask+2)
	}
}
