package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/safegp/safegp/store"
	"github.com/safegp/safegp/study"
	"github.com/safegp/safegp/study/api"
)

// TestStudyFitProcesses drives a study with model.fit (every: 2) through
// separate `safegp study` processes — each opens the file and replays it,
// fits included — and the same study through one Service in this
// process: every ask and the model `study show --json` reports are the
// same, so a reopened study replays its fits to exactly the same state.
func TestStudyFitProcesses(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "spec.yaml")
	if err := os.WriteFile(spec, []byte("decision_set: {grid: {bounds: [[0, 4]], points: [41]}}\nseed_actions: [10, 11]\n"+studyModel+
		"  fit: {when: {every: 2}, restarts: 2}\nalgorithm: {name: sgp-ucb, phase1: uniform, exploration: {fixed: 3}}\nhorizon: 20\nseed: 4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "proc.db")
	safegp(t, "study", "create", spec, "--db", db)

	ctx := context.Background()
	st, err := store.Open(filepath.Join(dir, "live.db"), store.OpenOptions{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	live := study.NewService(st, study.ServiceOptions{})
	res, err := study.LoadSpec(spec, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := live.Create(ctx, "default", res); err != nil {
		t.Fatal(err)
	}
	for k := range 7 {
		var a api.AskAnswer
		if err := json.Unmarshal([]byte(safegp(t, "study", "ask", "--db", db)), &a); err != nil {
			t.Fatal(err)
		}
		b, err := live.Ask(ctx, "default")
		if err != nil {
			t.Fatal(err)
		}
		if a.Ask != b.Ask || a.Index != b.Index {
			t.Fatalf("round %d: the processes ask %+v, the service %+v", k+1, a, *b)
		}
		f, g := problem1D(a.X[0])
		safegp(t, "study", "tell", "--db", db, "--ask", strconv.Itoa(a.Ask), "--f", fmt.Sprint(f), "--g", fmt.Sprint(g))
		if _, err := live.Tell(ctx, "default", &api.TellRequest{Ask: &b.Ask, F: &f, G: []float64{g}}); err != nil {
			t.Fatal(err)
		}
	}
	var shown api.Summary
	if err := json.Unmarshal([]byte(safegp(t, "study", "show", "--db", db, "--json")), &shown); err != nil {
		t.Fatal(err)
	}
	sum, err := live.Show(ctx, "default")
	if err != nil {
		t.Fatal(err)
	}
	if shown.Model == nil || shown.Model.Source != "fitted" || shown.Model.Fits != 3 {
		t.Fatalf("show: model %+v, want 3 fits (before asks 3, 5 and 7: at min_points = |D^w| = 2 observations, then every 2 tells)", shown.Model)
	}
	// The processes' fits ran at other times: all but the dates agree.
	shown.Model.Last.Created = sum.Model.Last.Created
	x, _ := json.Marshal(shown.Model)
	y, _ := json.Marshal(sum.Model)
	if string(x) != string(y) {
		t.Errorf("show: the processes' model\n%s\nthe service's\n%s", x, y)
	}
}
