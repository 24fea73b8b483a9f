package study_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/safegp/safegp/space"
	"github.com/safegp/safegp/store"
	"github.com/safegp/safegp/study/api"
)

// copyDB writes a consistent copy of the (open, WAL-mode) database at src
// to dst with VACUUM INTO, so that a second service can replay exactly
// what the first one has recorded so far while the first keeps its study
// in memory.
func copyDB(t *testing.T, src, dst string) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+src)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`VACUUM INTO ?`, dst); err != nil {
		t.Fatal(err)
	}
}

// replaySpecs are studies whose policies differ in what a replay must
// rebuild: a random phase 1 (its draws must be consumed in the same order;
// long enough to go on after the retraction below), SafeOpt's safe set
// grown once per round from the last one, and StageOpt's GP expanders.
var replaySpecs = map[string]string{
	"sgp-ucb uniform":   `{"name": "sgp-ucb", "phase1": "uniform", "exploration": {"fixed": 30}}`,
	"safeopt lipschitz": `{"name": "safeopt", "lipschitz": 2}`,
	"stageopt gp":       `{"name": "stageopt", "safe_set": "gp", "exploration": {"fixed": 5}}`,
}

func replaySpec(alg string) string {
	return `{"decision_set": {"grid": {"bounds": [[0, 4]], "points": [41]}}, "seed_actions": [10, 11, 12],
	 "thresholds": [0.0],
	 "model": {"objective": {"kernel": "se", "lengthscale": 1}, "constraints": [{"kernel": "se", "lengthscale": 1}], "noise_std": 0.05, "delta": 0.01},
	 "algorithm": ` + alg + `, "horizon": 60, "seed": 5}`
}

// TestReopenedStudySuggestsWhatMemoryDoes: a study kept in memory and a
// copy of its database opened afresh (replayed from the records) must
// suggest the same next action — after asks and tells, after tells outside
// the loop, after a retraction — and keep agreeing. Comparing fresh
// suggestions, not the stored pending ask (which a replay merely reads
// back), is what checks the replay.
func TestReopenedStudySuggestsWhatMemoryDoes(t *testing.T) {
	ctx := context.Background()
	for name, alg := range replaySpecs {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "live.db")
			live, _ := newService(t, path)
			if err := live.Create(ctx, "s", resolved(t, replaySpec(alg))); err != nil {
				t.Fatal(err)
			}
			copies := 0
			// compare asks the live study and a reopened copy for the next
			// action, then tells the live one the truth there.
			compare := func(when string) {
				t.Helper()
				copies++
				cp := filepath.Join(dir, fmt.Sprint("copy", copies, ".db"))
				copyDB(t, path, cp)
				reopened, _ := newService(t, cp)
				want, err := live.Ask(ctx, "s")
				if err != nil {
					t.Fatal(err)
				}
				got, err := reopened.Ask(ctx, "s")
				if err != nil {
					t.Fatal(err)
				}
				if got.Ask != want.Ask || got.Index != want.Index {
					t.Fatalf("%s: reopened, the next ask is %+v; kept in memory, %+v", when, got, want)
				}
				f, g := truth(want.X[0])
				id := want.Ask
				if _, err := live.Tell(ctx, "s", &api.TellRequest{Ask: &id, F: &f, G: g}); err != nil {
					t.Fatal(err)
				}
			}
			compare("at the start")
			drive(t, live, "s", 3)
			compare("after asks and tells")
			tellIndex(t, live, "s", 13, -3, 0.4)
			compare("after a tell outside the loop")
			typo := tellIndex(t, live, "s", 14, -2, 50) // a typo, retracted below
			drive(t, live, "s", 2)
			if _, err := live.Retract(ctx, "s", typo.Observation); err != nil {
				t.Fatal(err)
			}
			compare("right after a retraction")
			drive(t, live, "s", 2)
			compare("rounds after a retraction")
			compare("again")
		})
	}
}

// TestTamperedDatabaseFailsReplay: an ask whose recorded action is not the
// one the policy suggests when replayed — here the database was edited —
// makes opening the study fail with ErrReplay naming the event, and never
// serves a study whose memory differs from its records.
func TestTamperedDatabaseFailsReplay(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name  string
		which string // SQL choosing the ask to edit
	}{
		{"an ask told long ago", `SELECT MIN(seq) FROM events WHERE kind = 'ask'`},
		{"the pending ask", `SELECT MAX(seq) FROM events WHERE kind = 'ask'`},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "t.db")
			v, st := newService(t, path)
			if err := v.Create(ctx, "s", resolved(t, specYAML)); err != nil {
				t.Fatal(err)
			}
			drive(t, v, "s", 6)
			if _, err := v.Ask(ctx, "s"); err != nil { // pending
				t.Fatal(err)
			}
			st.Close()

			db, err := sql.Open("sqlite", "file:"+path)
			if err != nil {
				t.Fatal(err)
			}
			var seq, idx int
			if err := db.QueryRow(`SELECT seq, idx FROM events WHERE study = 's' AND seq = (`+c.which+`)`).Scan(&seq, &idx); err != nil {
				t.Fatal(err)
			}
			// The index alone edited: its x disagrees, and the load says
			// so (issue 40, item 8: it replayed at the index, silently).
			if _, err := db.Exec(`UPDATE events SET idx = ? WHERE study = 's' AND seq = ?`, (idx+7)%21, seq); err != nil {
				t.Fatal(err)
			}
			damaged, _ := newService(t, path)
			if _, err := damaged.Show(ctx, "s"); !errors.Is(err, store.ErrDamaged) || !strings.Contains(err.Error(), fmt.Sprintf("event %d: x = ", seq)) {
				t.Errorf("ask %d's index edited from %d to %d, its x not: got %v, want ErrDamaged naming event %d's x", seq, idx, (idx+7)%21, err, seq)
			}
			// Both edited, consistently: the policy disagrees.
			if _, err := db.Exec(`UPDATE events SET x = json_extract((SELECT actions FROM studies WHERE name = 's'), '$[' || idx || ']') WHERE study = 's' AND seq = ?`, seq); err != nil {
				t.Fatal(err)
			}
			db.Close()

			reopened, _ := newService(t, path)
			for _, op := range []func() error{
				func() error { _, err := reopened.Show(ctx, "s"); return err },
				func() error { _, err := reopened.Ask(ctx, "s"); return err },
			} {
				err := op()
				if !errors.Is(err, api.ErrReplay) || !strings.Contains(err.Error(), fmt.Sprintf("event %d", seq)) {
					t.Errorf("ask %d edited from action %d to %d: got %v, want api.ErrReplay naming event %d", seq, idx, (idx+7)%21, err, seq)
				}
			}
		})
	}
}

// TestStaleStudyIsRebuilt: two services on one database, as two processes
// would be. When one writes, the other sees it at its next call, a read
// above all (issue 24, item 8: GET /v1/studies/{name} showed the old
// state until a write failed with ErrStale): it shows the other's
// observation, and its own tell is numbered after it.
func TestStaleStudyIsRebuilt(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "two.db")
	one, _ := newService(t, path)
	two, _ := newService(t, path)
	if err := one.Create(ctx, "s", resolved(t, specYAML)); err != nil {
		t.Fatal(err)
	}
	a, err := one.Ask(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	if sum, err := two.Show(ctx, "s"); err != nil || sum.Pending == nil || *sum.Pending != a.Ask {
		t.Fatalf("the second service sees %+v, %v; want the pending ask %d", sum, err, a.Ask)
	}
	f, g := truth(a.X[0])
	id := a.Ask
	if _, err := one.Tell(ctx, "s", &api.TellRequest{Ask: &id, F: &f, G: g}); err != nil {
		t.Fatal(err)
	}
	for name, read := range map[string]func() (int, bool, error){
		"show": func() (int, bool, error) {
			sum, err := two.Show(ctx, "s")
			return sum.Rounds, sum.Pending != nil, err
		},
		"observations": func() (int, bool, error) {
			obs, err := two.Observations(ctx, "s")
			return len(obs), false, err
		},
		"export": func() (int, bool, error) {
			x, err := two.Export(ctx, "s")
			return len(x.Observations), false, err
		},
	} {
		if n, pending, err := read(); err != nil || n != 1 || pending {
			t.Errorf("%s after the other service's tell: %d observations, pending %v (%v); the records hold 1 and none pending", name, n, pending, err)
		}
	}
	idx, f2 := 9, -4.0
	tell := &api.TellRequest{Index: &idx, F: &f2, G: []float64{0.5}}
	ans, err := two.Tell(ctx, "s", tell)
	if err != nil {
		t.Fatalf("the tell: %v", err)
	}
	if ans.Rounds != 2 || ans.Observation != 3 {
		t.Errorf("the tell: %+v, want observation 3 and 2 rounds", ans)
	}
	fresh, _ := newService(t, path)
	if obs := mustObs(t, fresh, "s"); len(obs) != 2 {
		t.Errorf("the records hold %d observations, want 2", len(obs))
	}
}

// TestReopenedNamedBoxStudy: a study of three floats (line-bo with
// keep_line by default, refitted at nearly every ask, each refit
// rebuilding the policy and carrying its line over) suggests the same
// setting reopened from its events as kept in memory, at every trial.
func TestReopenedNamedBoxStudy(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, spec string
		measure    func(p space.Setting) (y, m float64)
	}{
		{"floats", `
parameters:
  - {name: a, low: 0, high: 1}
  - {name: b, low: 0, high: 1}
  - {name: c, low: 1, high: 100, scale: log}
objective: {name: y, goal: maximize}
constraints:
  - {name: m, max: 1}
seeds: [{a: 0.3, b: 0.3, c: 3}]
horizon: 40
`, func(p space.Setting) (float64, float64) {
			a, b, c := p["a"].Num, p["b"].Num, math.Log(p["c"].Num)
			return -(a-0.6)*(a-0.6) - (b-0.5)*(b-0.5) - 0.1*(c-2)*(c-2), a*a + b*b + 0.05*c
		}},
		// Issue 42: an int and a choice among three numeric parameters,
		// searched on the box at its lattice's points, one seed per
		// value of the choice, which seeds_first measures first.
		{"mixed", `
parameters:
  - {name: a, low: 0, high: 1}
  - {name: b, low: 0, high: 1}
  - {name: n, type: int, low: 1, high: 6}
  - {name: mode, type: choice, values: [x, y]}
objective: {name: y, goal: maximize}
constraints:
  - {name: m, max: 1}
seeds: [{a: 0.3, b: 0.3, n: 2, mode: x}, {a: 0.3, b: 0.3, n: 2, mode: y}]
horizon: 40
`, func(p space.Setting) (float64, float64) {
			a, b, n := p["a"].Num, p["b"].Num, p["n"].Num
			y := -(a-0.6)*(a-0.6) - (b-0.5)*(b-0.5) - 0.02*(n-4)*(n-4)
			if p["mode"].Str == "y" {
				y += 0.1
			}
			return y, a*a + b*b + 0.02*n
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			reopenNamedBox(t, c.spec, c.measure)
		})
	}
}

// reopenNamedBox runs a study stated in parameters searched on its box
// for 24 trials, reopening a copy of its file every 4th and checking the
// copy asks what the study in memory does; every ask's setting is one
// the parameters allow.
func reopenNamedBox(t *testing.T, spec string, measure func(space.Setting) (y, m float64)) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "live.db")
	live, _ := newService(t, path)
	r := resolved(t, spec)
	if a := r.Spec.Algorithm; a.Name != "line-bo" || !a.KeepLine || !a.SeedsFirst || len(a.MaxStep) != r.Dim() {
		t.Fatalf("the default algorithm is %+v, want line-bo with keep_line, seeds_first and max_step", a)
	}
	sp, err := space.New(r.Spec.Parameters)
	if err != nil {
		t.Fatal(err)
	}
	if err := live.Create(ctx, "s", r); err != nil {
		t.Fatal(err)
	}
	for trial := range 24 {
		want, err := live.Ask(ctx, "s")
		if err != nil {
			t.Fatal(err)
		}
		if trial < len(r.Spec.Seeds) && !reflect.DeepEqual(want.Params, r.Spec.Seeds[trial]) {
			t.Fatalf("trial %d asks %v, want seed %d, %v, first (seeds_first)", trial, want.Params, trial+1, r.Spec.Seeds[trial])
		}
		if _, err := sp.Encode(want.Params); err != nil {
			t.Fatalf("trial %d asks %v: %v", trial, want.Params, err)
		}
		if trial%4 == 3 {
			cp := filepath.Join(dir, fmt.Sprint("copy", trial, ".db"))
			copyDB(t, path, cp)
			reopened, _ := newService(t, cp)
			got, err := reopened.Ask(ctx, "s")
			if err != nil {
				t.Fatal(err)
			}
			if got.Ask != want.Ask || !reflect.DeepEqual(got.Params, want.Params) {
				t.Fatalf("trial %d: reopened, the next ask is %d %v; kept in memory, %d %v", trial, got.Ask, got.Params, want.Ask, want.Params)
			}
		}
		y, m := measure(want.Params)
		id := want.Ask
		if _, err := live.Tell(ctx, "s", &api.TellRequest{Ask: &id, Values: map[string]float64{"y": y, "m": m}}); err != nil {
			t.Fatal(err)
		}
	}
}
