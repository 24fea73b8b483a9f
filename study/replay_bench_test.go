package study

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/safegp/safegp/store"
)

// replayStored is a study of algorithm alg on a 1-D grid of n1 points, or
// on an n1×n2 grid when n2 > 0.
func replayStored(tb testing.TB, alg string, n1, n2, horizon int) *store.Record {
	tb.Helper()
	grid := fmt.Sprintf(`{"bounds": [[0, 4]], "points": [%d]}`, n1)
	seed := n1 / 4
	if n2 > 0 {
		grid = fmt.Sprintf(`{"bounds": [[0, 4], [0, 4]], "points": [%d, %d]}`, n1, n2)
		seed = (n1 / 4) * n2
	}
	spec := fmt.Sprintf(`{"decision_set": {"grid": %s}, "seed_actions": [%d], "thresholds": [0.0],
	 "model": {"objective": {"kernel": "se", "lengthscale": 1}, "constraints": [{"kernel": "se", "lengthscale": 1}], "noise_std": 0.05, "delta": 0.01},
	 "algorithm": %s, "horizon": %d, "seed": 5}`, grid, seed, alg, horizon)
	s, err := ParseSpec([]byte(spec))
	if err != nil {
		tb.Fatal(err)
	}
	r, err := s.Resolve("")
	if err != nil {
		tb.Fatal(err)
	}
	return &store.Record{Spec: []byte(spec), Actions: r.X, Seeds: r.Seed}
}

// recordEvents plays t ask/tell rounds live, in memory, against a smooth
// problem (f peaks at x = 1, g ≥ 0 within distance 3 of it) and returns
// the recorded events.
func recordEvents(tb testing.TB, st *store.Record, t int) []store.Event {
	tb.Helper()
	s, err := newStudy("s", st, nil, 0)
	if err != nil {
		tb.Fatal(err)
	}
	now := time.Now().UTC()
	for k := 0; k < t; k++ {
		seq := len(s.events) + 1
		a, err := s.pol.Ask()
		if err != nil {
			tb.Fatal(err)
		}
		e := store.Event{Seq: seq, Kind: "ask", Ask: seq, Index: a.Index, X: a.X, Created: now}
		if err := s.apply(e); err != nil {
			tb.Fatal(err)
		}
		r := 0.0
		for _, v := range s.res.X[e.Index] {
			r += (v - 1) * (v - 1)
		}
		tell := store.Event{Seq: seq + 1, Kind: "tell", Ask: seq, Index: e.Index, X: e.X, F: -r, G: []float64{1 - math.Pow(r/9, 2)}, Created: now}
		if err := s.apply(tell); err != nil {
			tb.Fatal(err)
		}
	}
	return s.events
}

var replayCases = []struct {
	label, alg string
	n1, n2     int
	t          int
}{
	{"sgp-ucb", `{"name": "sgp-ucb", "phase1": "uniform", "exploration": {"fixed": 20}}`, 41, 0, 1000},
	{"sgp-ucb", `{"name": "sgp-ucb", "phase1": "uniform", "exploration": {"fixed": 20}}`, 41, 0, 2000},
	{"sgp-ucb", `{"name": "sgp-ucb", "phase1": "uniform", "exploration": {"fixed": 20}}`, 41, 0, 4000},
	{"sgp-ucb", `{"name": "sgp-ucb", "phase1": "uniform", "exploration": {"fixed": 20}}`, 41, 0, 6900},
	{"sgp-ucb", `{"name": "sgp-ucb", "phase1": "uniform", "exploration": {"fixed": 20}}`, 32, 32, 1000},
	{"sgp-ucb", `{"name": "sgp-ucb", "phase1": "uniform", "exploration": {"fixed": 20}}`, 32, 32, 2000},
	{"safeopt-lipschitz", `{"name": "safeopt", "lipschitz": 2}`, 41, 0, 2000},
	{"safeopt-gp", `{"name": "safeopt", "safe_set": "gp"}`, 41, 0, 2000},
	{"safeopt-gp", `{"name": "safeopt", "safe_set": "gp"}`, 32, 32, 1000},
	{"safeopt-lipschitz", `{"name": "safeopt", "lipschitz": 2}`, 32, 32, 1000},
}

// BenchmarkReplay times rebuilding a study in memory from t recorded
// ask/tell rounds (no database). The GP updates cost O(N·t) each by design
// (SPEC §2), so replay is O(N·t²) in all; everything else should be linear
// in t. Profile with -cpuprofile.
func BenchmarkReplay(b *testing.B) {
	for _, c := range replayCases {
		n := c.n1
		if c.n2 > 0 {
			n *= c.n2
		}
		b.Run(fmt.Sprintf("%s/N=%d/t=%d", c.label, n, c.t), func(b *testing.B) {
			st := replayStored(b, c.alg, c.n1, c.n2, 10000)
			evs := recordEvents(b, st, c.t)
			for b.Loop() {
				if _, err := newStudy("s", st, evs, 0); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkReopenStore times what a CLI command does before its work:
// opening the database, reading a study's t rounds and replaying them.
func BenchmarkReopenStore(b *testing.B) {
	for _, t := range []int{2000, 6900} {
		b.Run(fmt.Sprintf("N=41/t=%d", t), func(b *testing.B) {
			st := replayStored(b, `{"name": "sgp-ucb", "phase1": "uniform", "exploration": {"fixed": 20}}`, 41, 0, 10000)
			evs := recordEvents(b, st, t)
			path := b.TempDir() + "/r.db"
			db, err := store.Open(path, store.OpenOptions{Create: true})
			if err != nil {
				b.Fatal(err)
			}
			res := mustResolve(b, st)
			if err := NewService(db, ServiceOptions{}).Create(b.Context(), "s", res); err != nil {
				b.Fatal(err)
			}
			// Fill fast: one transaction.
			if err := db.AppendAll(b.Context(), "s", evs); err != nil {
				b.Fatal(err)
			}
			db.Close()
			for b.Loop() {
				db, err := store.Open(path, store.OpenOptions{ReadOnly: true})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := NewService(db, ServiceOptions{}).Show(b.Context(), "s"); err != nil {
					b.Fatal(err)
				}
				db.Close()
			}
		})
	}
}

func mustResolve(tb testing.TB, st *store.Record) *Resolved {
	tb.Helper()
	s, err := ParseSpec(st.Spec)
	if err != nil {
		tb.Fatal(err)
	}
	r, err := s.Resolve("")
	if err != nil {
		tb.Fatal(err)
	}
	return r
}
