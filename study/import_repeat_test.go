package study_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/safegp/safegp/store"
	"github.com/safegp/safegp/study/api"
	"github.com/safegp/safegp/study/exchange"
)

// repeatSpec is a 1-D study of 20 actions with room for 200 observations.
const repeatSpec = `{"decision_set": {"grid": {"bounds": [[0, 2]], "points": [20]}}, "seed_actions": [4, 5], "thresholds": [0.0],
 "model": {"objective": {"kernel": "se", "lengthscale": 0.3}, "constraints": [{"kernel": "se", "lengthscale": 0.3}], "noise_std": 0.1, "delta": 0.01},
 "algorithm": {"name": "sgp-ucb", "phase1": "uniform", "exploration": {"fixed": 5}}, "horizon": 200, "seed": 3}`

// importRows is n measurements at the 20 actions, by index.
func importRows(n, shift int) []api.TellRequest {
	rows := make([]api.TellRequest, n)
	for k := range rows {
		i := (k*7 + shift) % 20
		f, g := math.Sin(float64(i)/3), 0.5+0.01*float64(k%5)
		rows[k] = api.TellRequest{Index: &i, F: &f, G: []float64{g}}
	}
	return rows
}

// TestImportRepeatRefused is issue 24, item 2: rows imported before — the
// same measurements, by index in JSON or at the actions' points in CSV —
// are refused as a retry naming what they became, and taken with Repeat.
func TestImportRepeatRefused(t *testing.T) {
	ctx := context.Background()
	v, _ := newService(t, filepath.Join(t.TempDir(), "r.db"))
	if err := v.Create(ctx, "s", resolved(t, repeatSpec)); err != nil {
		t.Fatal(err)
	}
	rows := importRows(30, 0)
	if a, err := v.Import(ctx, "s", rows); err != nil || a.First != 1 || a.Last != 30 {
		t.Fatalf("import: %+v, %v", a, err)
	}
	// The same rows as CSV, at the actions' points.
	var csv bytes.Buffer
	csv.WriteString("x1,f,g1\n")
	for _, r := range rows {
		fmt.Fprintf(&csv, "%v,%v,%v\n", float64(*r.Index)*2/19, *r.F, r.G[0])
	}
	cols, err := v.Columns(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	again, err := exchange.ParseImportCSV(&csv, cols)
	if err != nil {
		t.Fatal(err)
	}
	var dup *store.DuplicateImportError
	_, err = v.Import(ctx, "s", again)
	if !errors.As(err, &dup) || !errors.Is(err, store.ErrDuplicateImport) || dup.First != 1 || dup.Last != 30 || !strings.Contains(err.Error(), "observations 1…30") {
		t.Fatalf("the same rows again, as CSV: %v, want a DuplicateImportError for 1…30", err)
	}
	// One value changed: other rows.
	other := importRows(30, 0)
	g := 0.9
	other[29].G = []float64{g}
	if _, err := v.Import(ctx, "s", other); err != nil {
		t.Errorf("rows that differ in one value: %v", err)
	}
	if a, err := v.ImportWith(ctx, "s", rows, api.ImportOptions{Repeat: true}); err != nil || a.First != 61 {
		t.Errorf("the same rows with Repeat: %+v, %v", a, err)
	}
	if obs, _ := v.Observations(ctx, "s"); len(obs) != 90 {
		t.Errorf("%d observations, want 90", len(obs))
	}
}

// cancelAfter is a context whose Err turns Canceled after n calls: an
// import's client that goes away part way through its rows.
type cancelAfter struct {
	context.Context
	n int
}

func (c *cancelAfter) Err() error {
	if c.n--; c.n < 0 {
		return context.Canceled
	}
	return nil
}

// TestImportCancelledStoresNothing is issue 40, item 6: an import whose
// client goes away part way through (or whose deadline passes) is
// cancelled with nothing stored — an import was stored whole while its
// client had been cut off — and the same rows imported again are taken,
// not refused as a repeat; the study then is what a fresh replay gives.
func TestImportCancelledStoresNothing(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "c.db")
	v, _ := newService(t, path)
	if err := v.Create(ctx, "s", resolved(t, repeatSpec)); err != nil {
		t.Fatal(err)
	}
	if _, err := v.Import(ctx, "s", importRows(10, 3)); err != nil {
		t.Fatal(err)
	}
	rows := importRows(120, 0)
	_, err := v.Import(&cancelAfter{Context: ctx, n: 60}, "s", rows)
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "nothing recorded") {
		t.Fatalf("an import cancelled part way: %v, want context.Canceled, nothing recorded", err)
	}
	if obs, err := v.Observations(ctx, "s"); err != nil || len(obs) != 10 {
		t.Fatalf("after the cancelled import: %d observations (%v), want the 10 before it", len(obs), err)
	}
	a, err := v.Import(ctx, "s", rows)
	if err != nil || a.First != 11 || a.Last != 130 {
		t.Fatalf("the same rows again: %+v, %v; want them taken as 11…130", a, err)
	}
	next, err := v.Ask(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	fresh, _ := newService(t, path)
	sum, err := fresh.Show(ctx, "s")
	if err != nil || sum.Pending == nil || *sum.Pending != next.Ask {
		t.Fatalf("replayed: %+v, %v", sum, err)
	}
	want, err := v.Show(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(sum)
	if w, _ := json.Marshal(want); string(got) != string(w) {
		t.Errorf("the study after the cancelled import differs from its replay:\n%s\n%s", w, got)
	}
}
