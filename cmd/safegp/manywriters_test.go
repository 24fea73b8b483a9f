package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/safegp/safegp/study/api"
)

// TestWritersThroughTwoPathsAndBinaries: one database served at once by a
// server and by the CLI commands of two copies of the binary, reached
// through its path and through a symlink to its folder — every way two
// processes came to serve one file in issue 40, item 1, where tells
// answered {"observation": K} and were not stored, and healthy files
// were called "not a safegp study database". Every acknowledged tell must
// be stored once, with its value, under the number it was acknowledged
// with, and no command may fail.
func TestWritersThroughTwoPathsAndBinaries(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the binary")
	}
	dir := t.TempDir()
	db := filepath.Join(dir, "w.db")
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Skip("no symlinks here:", err)
	}
	second := filepath.Join(t.TempDir(), "safegp")
	b, err := os.ReadFile(binary)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(second, b, 0o755); err != nil {
		t.Fatal(err)
	}
	spec := filepath.Join(dir, "spec.yaml")
	if err := os.WriteFile(spec, []byte("decision_set: {grid: {bounds: [[0, 4]], points: [41]}}\nseed_actions: [10, 11]\n"+studyModel+
		"algorithm: {name: sgp-ucb, phase1: uniform, exploration: {fixed: 3}}\nhorizon: 100000\nseed: 4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	safegp(t, "study", "create", spec, "--db", db)
	url, _ := startServer(t, filepath.Join(link, "w.db"))

	const rounds = 25
	var (
		mu    sync.Mutex
		acked = map[int]float64{} // observation → f
		wg    sync.WaitGroup
	)
	ack := func(who string, obs int, f float64) {
		mu.Lock()
		defer mu.Unlock()
		if old, dup := acked[obs]; dup {
			t.Errorf("%s: observation %d acknowledged twice (f %v and %v)", who, obs, old, f)
		}
		acked[obs] = f
	}
	for w, bin := range []string{binary, binary, second, second, binary, binary, second, second} {
		path := []string{db, filepath.Join(link, "w.db")}[w%2]
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range rounds {
				f := float64(w*1000 + r)
				args := []string{"study", "tell", "--index", fmt.Sprint(r % 20), "--f", fmt.Sprint(f), "--g", "0.5", "--db", path}
				cmd := exec.Command(bin, args...)
				var out, errb strings.Builder
				cmd.Stdout, cmd.Stderr = &out, &errb
				if err := cmd.Run(); err != nil {
					t.Errorf("writer %d, tell %d: %v\n%s", w, r, err, errb.String())
					return
				}
				var a struct {
					Observation *int `json:"observation"`
				}
				if err := json.Unmarshal([]byte(out.String()), &a); err != nil || a.Observation == nil {
					t.Errorf("writer %d, tell %d answered %q (%v)", w, r, out.String(), err)
					return
				}
				ack(fmt.Sprint("writer ", w), *a.Observation, f)
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		// A tell that finds the records changed under it by another
		// process is refused (409), nothing stored, and told again.
		for r, refused := 0, 0; r < rounds; {
			f := float64(9000 + r)
			var a struct {
				Observation *int   `json:"observation"`
				Error       string `json:"error"`
			}
			resp, err := http.Post(url+"/v1/studies/default/tell", "application/json", strings.NewReader(fmt.Sprintf(`{"index": %d, "f": %v, "g": [0.5]}`, r%20, f)))
			if err != nil {
				t.Error(err)
				return
			}
			err = json.NewDecoder(resp.Body).Decode(&a)
			resp.Body.Close()
			if resp.StatusCode == http.StatusConflict && strings.Contains(a.Error, "another process") && refused < 10*rounds {
				refused++
				continue
			}
			if resp.StatusCode != 200 || err != nil || a.Observation == nil {
				t.Errorf("server, tell %d: %d %s (%v)", r, resp.StatusCode, a.Error, err)
				return
			}
			ack("server", *a.Observation, f)
			r++
		}
	}()
	wg.Wait()

	var obs []api.Observation
	resp, err := http.Get(url + "/v1/studies/default/observations")
	if err != nil {
		t.Fatal(err)
	}
	err = json.NewDecoder(resp.Body).Decode(&obs)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	stored := map[int]float64{}
	for k, o := range obs {
		stored[k+1] = o.F
	}
	for k, f := range acked {
		if got, ok := stored[k]; !ok || got != f {
			t.Errorf("observation %d acknowledged with f = %v, stored %v (%v)", k, f, got, ok)
		}
	}
	if len(obs) != len(acked) {
		t.Errorf("%d observations stored, %d acknowledged", len(obs), len(acked))
	}
}
