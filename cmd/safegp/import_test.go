package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/safegp/safegp/study/api"
)

// importSpec is a 1-D study of n actions with room for many rows.
func importSpec(n, horizon int) string {
	return fmt.Sprintf(`{"decision_set": {"grid": {"bounds": [[0, 2]], "points": [%d]}}, "seed_actions": [1, 2], "thresholds": [0.0],
	 "model": {"objective": {"kernel": "se", "lengthscale": 0.2}, "constraints": [{"kernel": "se", "lengthscale": 0.2}], "noise_std": 0.1, "delta": 0.01},
	 "algorithm": {"name": "sgp-ucb", "phase1": "uniform", "exploration": {"fixed": 10}}, "horizon": %d, "seed": 1}`, n, horizon)
}

// importCSV is rows measurements at the actions of a 1-D grid of n
// points on [0, 2].
func importCSV(rows, n int) []byte {
	var b bytes.Buffer
	b.WriteString("x1,f,g1\n")
	for k := range rows {
		i := (k * 37) % n
		fmt.Fprintf(&b, "%v,%.4f,%.4f\n", float64(i)*2/float64(n-1), float64(k%97)/97, float64(k%89)/89)
	}
	return b.Bytes()
}

func postCSV(t *testing.T, url string, body []byte) (int, string) {
	t.Helper()
	resp, err := http.Post(url, "text/csv", bytes.NewReader(body))
	if err != nil {
		t.Fatalf("POST %s: %v (the import was not answered)", url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestImportOverHTTP is issue 24, item 2, with processes: 45 000 rows
// imported over HTTP were stored but never acknowledged (the answer came
// after the server's write timeout), and a client that retried stored
// them twice. Now the import is answered with what it became, the same
// rows again are refused with 409 naming it, and ?repeat=1 takes them on
// purpose. An import the server could not finish within its timeout is
// refused up front with 413, saying how many rows fit.
func TestImportOverHTTP(t *testing.T) {
	if testing.Short() {
		t.Skip("imports 45 000 rows")
	}
	url, _ := startServer(t, filepath.Join(t.TempDir(), "i.db"))
	if code := post(t, url+"/v1/studies", `{"name": "big", "spec": `+importSpec(100, 200_000)+`}`, nil); code != 201 {
		t.Fatalf("create: %d", code)
	}
	rows := importCSV(45_000, 100)
	code, body := postCSV(t, url+"/v1/studies/big/import", rows)
	var a api.ImportAnswer
	if code != 200 || json.Unmarshal([]byte(body), &a) != nil || a.Imported != 45_000 || a.First != 1 || a.Last != 45_000 {
		t.Fatalf("import of 45 000 rows: %d %.300s", code, body)
	}
	// The client retries (it lost the answer): refused, nothing stored.
	code, body = postCSV(t, url+"/v1/studies/big/import", rows)
	if code != http.StatusConflict || !strings.Contains(body, "were imported at") || !strings.Contains(body, "observations 1…45000") || !strings.Contains(body, "repeat") {
		t.Errorf("the same import again: %d %.300s, want 409 naming observations 1…45000", code, body)
	}
	var sum api.Summary
	resp, err := http.Get(url + "/v1/studies/big")
	if err != nil {
		t.Fatal(err)
	}
	json.NewDecoder(resp.Body).Decode(&sum)
	resp.Body.Close()
	if sum.Rounds != 45_000 {
		t.Errorf("after the refused repeat: %d rounds, want 45 000", sum.Rounds)
	}
	// On purpose: the same 1 000 rows twice.
	few := importCSV(1000, 100)
	if code, body := postCSV(t, url+"/v1/studies/big/import", few); code != 200 {
		t.Fatalf("1 000 rows: %d %.200s", code, body)
	}
	if code, body := postCSV(t, url+"/v1/studies/big/import?repeat=1", few); code != 200 || !strings.Contains(body, `"last":47000`) {
		t.Errorf("1 000 rows again with repeat=1: %d %.200s", code, body)
	}

	// N = 2 000 actions: 30 000 rows cost the GPs about 10¹¹
	// multiply-adds, minutes: refused before anything is done.
	if code := post(t, url+"/v1/studies", `{"name": "wide", "spec": `+importSpec(2000, 40_000)+`}`, nil); code != 201 {
		t.Fatalf("create: %d", code)
	}
	code, body = postCSV(t, url+"/v1/studies/wide/import", importCSV(30_000, 2000))
	if code != http.StatusRequestEntityTooLarge || !strings.Contains(body, "would take about") || !strings.Contains(body, "import at most") {
		t.Errorf("a 30 000-row import into 2 000 actions: %d %.300s, want 413 saying how many rows fit", code, body)
	}
}
