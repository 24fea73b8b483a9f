package study

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/safegp/safegp/store"
	"github.com/safegp/safegp/study/api"
)

// fitSpec is lruSpec with a fit block (%s) and seed actions 5 and 6:
// min_points defaults to max(2, |D^w|) = 2.
const fitSpec = `{"decision_set": {"grid": {"bounds": [[0, 4]], "points": [21]}}, "seed_actions": [5, 6],
 "thresholds": [0.0],
 "model": {"objective": {"kernel": "se", "lengthscale": 1}, "constraints": [{"kernel": "se", "lengthscale": 1}], "noise_std": 0.05, "delta": 0.1, "beta": 4, "fit": %s},
 "algorithm": {"name": "sgp-ucb", "phase1": "uniform", "exploration": {"fixed": 3}}, "horizon": 100, "seed": 3}`

func fitService(t *testing.T, path, fit string) *Service {
	t.Helper()
	v := lruService(t, path, 4)
	s, err := ParseSpec(fmt.Appendf(nil, fitSpec, fit))
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Resolve("")
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Create(context.Background(), "s", res); err != nil {
		t.Fatal(err)
	}
	return v
}

// fitSeqs lists the seqs of a study's fit events and the observations in
// force at each.
func fitSeqs(t *testing.T, v *Service) []int {
	t.Helper()
	evs, err := v.store.Events(context.Background(), "s")
	if err != nil {
		t.Fatal(err)
	}
	var seqs []int
	for _, e := range evs {
		if e.Kind == "fit" {
			seqs = append(seqs, e.Seq)
		}
	}
	return seqs
}

// TestFitSchedule: with when: seed a study fits once, at the first ask
// with min_points observations in force; with every: 2 it fits again at
// the first ask after 2 more tells; with never it does not fit. Each
// round is an ask (one event) and a tell (one event); the two imported
// rows make events 1 and 2.
func TestFitSchedule(t *testing.T) {
	for _, tc := range []struct {
		fit  string
		want []int // seqs of the fit events after 2 imported rows and 5 rounds
	}{
		// Rows 1–2, fit 3, then asks 4, 6, 8, 10, 12 and their tells.
		{`{"when": "seed"}`, []int{3}},
		// Fit 3, rounds at 4–5 and 6–7, fit 8, rounds 9–10, 11–12, fit 13, round 14–15.
		{`{"when": {"every": 2}}`, []int{3, 8, 13}},
		{`{"when": "never"}`, nil},
		// min_points 4: rows 1–2, rounds 3–4, 5–6, fit 7, then no more.
		{`{"when": "seed", "min_points": 4}`, []int{7}},
	} {
		t.Run(tc.fit, func(t *testing.T) {
			v := fitService(t, filepath.Join(t.TempDir(), "f.db"), tc.fit)
			ctx := context.Background()
			rows := []api.TellRequest{}
			for _, x := range []float64{1.0, 1.2} {
				f, g := -(x-3)*(x-3), 1-math.Pow(x/3.5, 4)
				rows = append(rows, api.TellRequest{X: []float64{x}, F: &f, G: []float64{g}})
			}
			if _, err := v.Import(ctx, "s", rows); err != nil {
				t.Fatal(err)
			}
			for range 5 {
				round(t, v, "s")
			}
			if got := fitSeqs(t, v); !slices.Equal(got, tc.want) {
				t.Errorf("fit events %v, want %v", got, tc.want)
			}
			sum, err := v.Show(ctx, "s")
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case sum.Model == nil:
				t.Fatal("show: no model")
			case len(tc.want) > 0 && (sum.Model.Source != "fitted" || sum.Model.Last == nil || sum.Model.Last.Seq != tc.want[len(tc.want)-1] || len(sum.Model.Last.LML) != 2):
				t.Errorf("show: model %+v, want fitted by event %d with 2 LMLs", sum.Model, tc.want[len(tc.want)-1])
			case len(tc.want) == 0 && sum.Model.Source != "configured":
				t.Errorf("show: model %+v, want configured", sum.Model)
			}
		})
	}
}

// TestFitReplay: a study that fitted replays to the same state in a new
// Service on the same file — the same next ask, the same model, the fits
// applied as recorded (not fitted again: a record altered in the file is
// what the replay uses) — and a retraction after a fit keeps the fitted
// kernels.
func TestFitReplay(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "r.db")
	v := fitService(t, path, `{"when": {"every": 3}, "restarts": 2}`)
	for range 8 {
		round(t, v, "s")
	}
	a1, err := v.Ask(ctx, "s") // fits first: 3 tells since the last fit
	if err != nil {
		t.Fatal(err)
	}
	before, err := v.Show(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	if before.Model.Source != "fitted" || before.Model.Fits != 3 {
		t.Fatalf("after 8 rounds and an ask: %+v, want 3 fits", before.Model)
	}
	st, err := store.Open(path, store.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	w := NewService(st, ServiceOptions{})
	a2, err := w.Ask(ctx, "s")
	if err != nil || a2.Ask != a1.Ask || a2.Index != a1.Index {
		t.Fatalf("reopened: asks %+v (%v), the original %+v", a2, err, a1)
	}
	after, err := w.Show(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	if !sameModel(before.Model, after.Model) {
		t.Errorf("reopened: model %+v, the original %+v", after.Model, before.Model)
	}
	// Retract the first observation: the policy is rebuilt with the
	// fitted kernels, not the configured ones.
	if _, err := w.Retract(ctx, "s", 2); err != nil {
		t.Fatal(err)
	}
	ret, err := w.Show(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	if !sameModel(before.Model, ret.Model) || ret.Model.Source != "fitted" {
		t.Errorf("after a retraction: model %+v, want the fitted %+v", ret.Model, before.Model)
	}
	// And the rebuilt policy is what a reopened study rebuilds too.
	b1, err := w.Ask(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	st2, err := store.Open(path, store.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer st2.Close()
	b2, err := NewService(st2, ServiceOptions{}).Ask(ctx, "s")
	if err != nil || b2.Ask != b1.Ask || b2.Index != b1.Index {
		t.Errorf("after retraction, reopened: asks %+v (%v), want %+v", b2, err, b1)
	}
}

// TestFitReplaysRecord: replay applies a fit's record, never a new fit:
// a log marginal likelihood changed in the file (which a new fit would
// compute afresh, and which does not change the policy) is what the
// reopened study shows, and its kernels are the recorded ones.
func TestFitReplaysRecord(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "p.db")
	v := fitService(t, path, `{"when": "seed", "restarts": 1}`)
	for range 3 {
		round(t, v, "s")
	}
	seqs := fitSeqs(t, v)
	if len(seqs) != 1 {
		t.Fatalf("fits %v, want one", seqs)
	}
	evs, _ := v.store.Events(ctx, "s")
	rec := *evs[seqs[0]-1].Fit
	rec.LML = []float64{12345, -6789}
	b, _ := json.Marshal(rec)
	if _, err := rawDB(t, v).Exec(`UPDATE events SET model = ? WHERE study = 's' AND seq = ?`, string(b), seqs[0]); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(path, store.OpenOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sum, err := NewService(st, ServiceOptions{}).Show(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	if got := sum.Model.Last.LML; !slices.Equal(got, rec.LML) {
		t.Errorf("replayed LML %v, want the recorded %v", got, rec.LML)
	}
	if got, want := sum.Model.Objective.Lengthscale, rec.Objective.Lengthscale; !slices.Equal(got, want) {
		t.Errorf("replayed lengthscale %v, want the recorded %v", got, want)
	}
}

func sameModel(a, b *api.ModelInfo) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// TestFitSpecErrors: a fit block the study cannot use is one clear error
// naming its key, and no study is created.
func TestFitSpecErrors(t *testing.T) {
	for _, tc := range []struct{ fit, algo, want string }{
		{`{"when": "often"}`, "", "model.fit.when"},
		{`{"when": {"every": 0}}`, "", "model.fit.when.every"},
		{`{}`, "", "model.fit.when: missing"},
		{`{"when": "seed", "restarts": 0}`, "", "model.fit.restarts"},
		{`{"when": "seed", "prior": "flat"}`, "", "model.fit.prior"},
		{`{"when": "seed", "min_points": 0}`, "", "model.fit.min_points"},
		{`{"when": "seed", "ard": 1}`, "", "model.fit.ard"},
		{`{"when": "seed"}`, `{"name": "sgp-ucb", "exploration": "theory"}`, "algorithm.exploration"},
	} {
		spec := fmt.Sprintf(fitSpec, tc.fit)
		if tc.algo != "" {
			spec = strings.Replace(spec, `{"name": "sgp-ucb", "phase1": "uniform", "exploration": {"fixed": 3}}`, tc.algo, 1)
		}
		s, err := ParseSpec([]byte(spec))
		if err == nil {
			_, err = s.Resolve("")
		}
		if !errors.Is(err, api.ErrSpec) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("fit %s: %v, want api.ErrSpec naming %s", tc.fit, err, tc.want)
		}
	}
	// A linear kernel cannot be fitted.
	spec := strings.Replace(fmt.Sprintf(fitSpec, `{"when": "seed"}`), `{"kernel": "se", "lengthscale": 1}]`, `{"kernel": "linear"}]`, 1)
	s, err := ParseSpec([]byte(spec))
	if err == nil {
		_, err = s.Resolve("")
	}
	if !errors.Is(err, api.ErrSpec) || !strings.Contains(err.Error(), "model.constraints[0].kernel") {
		t.Errorf("linear kernel with fit: %v, want api.ErrSpec naming model.constraints[0].kernel", err)
	}
}

// TestFitCancelled is issue 25, item 4: a fit due at an ask stops when
// the ask's context is done (the client went away, the server shuts
// down): the ask fails with the context's error and records nothing — no
// fit event, no ask — and the next ask fits as if nothing had happened.
func TestFitCancelled(t *testing.T) {
	ctx := context.Background()
	v := fitService(t, filepath.Join(t.TempDir(), "f.db"), `{"when": "seed"}`)
	ref := fitService(t, filepath.Join(t.TempDir(), "ref.db"), `{"when": "seed"}`)
	rows := []api.TellRequest{}
	for _, x := range []float64{1.0, 1.2} {
		f, g := -(x-3)*(x-3), 1-math.Pow(x/3.5, 4)
		rows = append(rows, api.TellRequest{X: []float64{x}, F: &f, G: []float64{g}})
	}
	for _, s := range []*Service{v, ref} {
		if _, err := s.Import(ctx, "s", rows); err != nil {
			t.Fatal(err)
		}
	}
	cancelled, cancel := context.WithCancel(ctx)
	testAfterCheck = func(string) { cancel() }
	_, err := v.Ask(cancelled, "s")
	testAfterCheck = nil
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("an ask whose fit was cancelled: %v, want context.Canceled", err)
	}
	evs, err := v.store.Events(ctx, "s")
	if err != nil || len(evs) != 2 {
		t.Fatalf("after the cancelled ask the records hold %d events (%v), want the 2 imported", len(evs), err)
	}
	a, err := v.Ask(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	b, err := ref.Ask(ctx, "s")
	if err != nil || a.Index != b.Index || a.Ask != b.Ask {
		t.Errorf("the ask after a cancelled fit: %+v, a study that never saw it: %+v (%v)", a, b, err)
	}
	if got := fitSeqs(t, v); !slices.Equal(got, []int{3}) {
		t.Errorf("fit events %v, want [3]", got)
	}
}
