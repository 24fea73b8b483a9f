package study_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/csv"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/safegp/safegp/store"
	"github.com/safegp/safegp/study"
	"github.com/safegp/safegp/study/api"
	"github.com/safegp/safegp/study/exchange"
)

// snapshotDir returns every file of dir with its content, to check that an
// operation wrote nothing.
func snapshotDir(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() {
			out[e.Name()] = "<dir>"
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = string(b)
	}
	return out
}

// foreignDB writes another application's SQLite database.
func foreignDB(t *testing.T, path, journal string) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode("+journal+")")
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT)`, `INSERT INTO customers (name) VALUES ('Ada')`} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestOpenRefusesForeignFiles: whatever the options, a file that is not a
// safegp database of a known schema is refused before anything touches it
// — no tables added, no WAL switch, no -wal/-shm files — and a missing file
// is created only with Create.
func TestOpenRefusesForeignFiles(t *testing.T) {
	newer := func(t *testing.T, path string) {
		st, err := store.Open(path, store.OpenOptions{Create: true})
		if err != nil {
			t.Fatal(err)
		}
		st.Close()
		db, err := sql.Open("sqlite", "file:"+path)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(`UPDATE schema_version SET version = 99`); err != nil {
			t.Fatal(err)
		}
		db.Close()
	}
	cases := []struct {
		name string
		make func(t *testing.T, path string)
		want error
	}{
		{"empty file", func(t *testing.T, p string) { os.WriteFile(p, nil, 0o644) }, store.ErrNotStudyDB},
		{"text file", func(t *testing.T, p string) { os.WriteFile(p, []byte("name,score\nada,3\n"), 0o644) }, store.ErrNotStudyDB},
		{"short file", func(t *testing.T, p string) { os.WriteFile(p, []byte("SQLite format"), 0o644) }, store.ErrNotStudyDB},
		{"directory", func(t *testing.T, p string) { os.Mkdir(p, 0o755) }, store.ErrNotStudyDB},
		{"foreign SQLite", func(t *testing.T, p string) { foreignDB(t, p, "DELETE") }, store.ErrNotStudyDB},
		{"foreign SQLite in WAL mode", func(t *testing.T, p string) { foreignDB(t, p, "WAL") }, store.ErrNotStudyDB},
		{"newer schema", newer, store.ErrNewerSchema},
	}
	opts := map[string]store.OpenOptions{"default": {}, "read-only": {ReadOnly: true}, "create": {Create: true}}
	for _, c := range cases {
		for oname, opt := range opts {
			t.Run(c.name+"/"+oname, func(t *testing.T) {
				dir := t.TempDir()
				path := filepath.Join(dir, "other.sqlite")
				c.make(t, path)
				before := snapshotDir(t, dir)
				st, err := store.Open(path, opt)
				if err == nil {
					st.Close()
				}
				if !errors.Is(err, c.want) || !strings.Contains(err.Error(), "other.sqlite") {
					t.Errorf("got %v, want %v naming the file", err, c.want)
				}
				if after := snapshotDir(t, dir); !mapsEqual(before, after) {
					t.Errorf("the folder changed: %d files before, %d after (%v)", len(before), len(after), keys(after))
				}
			})
		}
	}
	t.Run("missing file", func(t *testing.T) {
		for oname, opt := range map[string]store.OpenOptions{"default": {}, "read-only": {ReadOnly: true}} {
			dir := t.TempDir()
			_, err := store.Open(filepath.Join(dir, "none.db"), opt)
			if !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("%s: got %v, want fs.ErrNotExist", oname, err)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Errorf("%s: a missing database was created", oname)
			}
		}
	})
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func keys(m map[string]string) []string {
	var k []string
	for n := range m {
		k = append(k, n)
	}
	slices.Sort(k)
	return k
}

// TestOpenPathsWithURICharacters: '?', '#', '%' and '&' in a file name
// name that very file (they once cut the SQLite URI short: "we?ird.db"
// created "we", "pct%41.db" created "pctA.db", and the pragmas after the
// '?' were lost), and the database is in WAL mode.
func TestOpenPathsWithURICharacters(t *testing.T) {
	for _, name := range []string{"we?ird.db", "pct%41.db", "hash#x.db", "q?_pragma=journal_mode(DELETE)&a=1.db", "sp ace.db", "%"} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, name)
			st, err := store.Open(path, store.OpenOptions{Create: true})
			if err != nil {
				t.Fatal(err)
			}
			v := study.NewService(st, study.ServiceOptions{})
			if err := v.Create(context.Background(), "s", resolved(t, specYAML)); err != nil {
				t.Fatal(err)
			}
			if err := st.Close(); err != nil {
				t.Fatal(err)
			}
			entries, _ := os.ReadDir(dir)
			var names []string
			for _, e := range entries {
				names = append(names, e.Name())
			}
			if !slices.Equal(names, []string{name}) {
				t.Fatalf("files %q, want exactly %q", names, name)
			}
			head := make([]byte, 20)
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			f.Read(head)
			f.Close()
			if head[18] != 2 || head[19] != 2 {
				t.Errorf("file format versions %d, %d: not in WAL mode", head[18], head[19])
			}
			for _, opt := range []store.OpenOptions{{}, {ReadOnly: true}} {
				st, err := store.Open(path, opt)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := study.NewService(st, study.ServiceOptions{}).Show(context.Background(), "s"); err != nil {
					t.Errorf("%+v: %v", opt, err)
				}
				st.Close()
			}
		})
	}
}

// retractSpec is a 1-D study whose constraint kernel has a long
// lengthscale: one large g value makes much of the line safe.
const retractSpec = `{"decision_set": {"grid": {"bounds": [[0, 4]], "points": [41]}}, "seed_actions": [10, 11],
 "thresholds": [0.0],
 "model": {"objective": {"kernel": "se", "lengthscale": 1}, "constraints": [{"kernel": "se", "lengthscale": 1}], "noise_std": 0.05, "delta": 0.01, "beta": 4},
 "algorithm": {"name": "sgp-ucb", "phase1": "uniform", "exploration": {"fixed": 3}}, "horizon": 50, "seed": 11}`

func tellIndex(t *testing.T, v *study.Service, name string, idx int, f float64, g ...float64) *api.TellAnswer {
	t.Helper()
	a, err := v.Tell(context.Background(), name, &api.TellRequest{Index: &idx, F: &f, G: g})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestRetract: a mistyped g = 100 (the "15 of 41 actions safe")
// draws a warning, and retracting it rebuilds the policy exactly as if it
// had never been told; bad retractions change nothing; the pending ask is
// withdrawn; counts, export and replay follow.
func TestRetract(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	v, _ := newService(t, filepath.Join(dir, "r.db"))
	if err := v.Create(ctx, "s", resolved(t, retractSpec)); err != nil {
		t.Fatal(err)
	}
	f10, g10 := truth(1)
	if plain := tellIndex(t, v, "s", 10, f10, g10...); len(plain.Warnings) != 0 {
		t.Errorf("a plausible value warned: %v", plain.Warnings)
	}
	before, _ := v.Show(ctx, "s")
	f20, _ := truth(2)
	typo := tellIndex(t, v, "s", 20, f20, 100) // meant 0.1
	if len(typo.Warnings) != 1 || !strings.Contains(typo.Warnings[0], "g1 = 100 is") || !strings.Contains(typo.Warnings[0], "retract --observation "+itoa(typo.Observation)) {
		t.Errorf("no typo warning: %+v", typo)
	}
	inflated, _ := v.Show(ctx, "s")
	if inflated.SafeSetSize <= before.SafeSetSize {
		t.Fatalf("test premise: g = 100 should grow the safe set (%d → %d)", before.SafeSetSize, inflated.SafeSetSize)
	}
	a, err := v.Ask(ctx, "s") // pending, chosen with the typo
	if err != nil {
		t.Fatal(err)
	}
	evs := func() int { obs, _ := v.Observations(ctx, "s"); return len(obs) }
	n := evs()
	for _, c := range []struct {
		obs  int
		want error
	}{{0, api.ErrUnknownObservation}, {999, api.ErrUnknownObservation}, {a.Ask, api.ErrUnknownObservation} /* an ask */} {
		if _, err := v.Retract(ctx, "s", c.obs); !errors.Is(err, c.want) {
			t.Errorf("retract %d: %v, want %v", c.obs, err, c.want)
		}
	}
	if _, err := v.Retract(ctx, "nope", typo.Observation); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("retract in an unknown study: %v", err)
	}
	r, err := v.Retract(ctx, "s", typo.Observation)
	if err != nil {
		t.Fatal(err)
	}
	if r.Observation != typo.Observation || r.Index != 20 || r.WithdrawnAsk != a.Ask || r.Rounds != typo.Rounds-1 {
		t.Errorf("retract answer %+v (typo %+v, ask %d)", r, typo, a.Ask)
	}
	if _, err := v.Retract(ctx, "s", typo.Observation); !errors.Is(err, api.ErrAlreadyRetracted) {
		t.Errorf("second retraction: %v", err)
	}
	if _, err := v.Retract(ctx, "s", r.Retraction); !errors.Is(err, api.ErrUnknownObservation) {
		t.Errorf("retraction of a retraction: %v", err)
	}
	if evs() != n {
		t.Errorf("bad retractions changed the observations")
	}
	// The withdrawn ask cannot be told; asking again gives a new one.
	f, g := truth(a.X[0])
	id := a.Ask
	if _, err := v.Tell(ctx, "s", &api.TellRequest{Ask: &id, F: &f, G: g}); !errors.Is(err, api.ErrWithdrawn) {
		t.Errorf("tell of a withdrawn ask: %v", err)
	}
	sum, _ := v.Show(ctx, "s")
	if sum.Rounds != inflated.Rounds-1 || sum.Retracted != 1 || sum.Pending != nil {
		t.Errorf("after the retraction: %+v", sum)
	}

	// The same study told without the typo: the policy must be the same.
	ref, _ := newService(t, filepath.Join(dir, "ref.db"))
	if err := ref.Create(ctx, "s", resolved(t, retractSpec)); err != nil {
		t.Fatal(err)
	}
	for _, o := range mustObs(t, v, "s") {
		if !o.Retracted {
			tellIndex(t, ref, "s", o.Index, o.F, o.G...)
		}
	}
	_, _, _, got, _ := v.Inspect(ctx, "s")
	_, _, _, want, _ := ref.Inspect(ctx, "s")
	if !slices.Equal(got.F.Mean, want.F.Mean) || !slices.Equal(got.G[0].Mean, want.G[0].Mean) || !slices.Equal(got.Safe, want.Safe) {
		t.Errorf("after the retraction the posterior differs from a study never told the typo")
	}
	if sum.SafeSetSize >= inflated.SafeSetSize {
		t.Errorf("safe set %d after the retraction, %d with the typo", sum.SafeSetSize, inflated.SafeSetSize)
	}

	// Rounds after the retraction, then a reopened copy must replay them
	// and suggest the same next action.
	drive(t, v, "s", 3)
	next, err := v.Ask(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	reopened, _ := newService(t, filepath.Join(dir, "r.db"))
	again, err := reopened.Ask(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	if again.Ask != next.Ask || again.Index != next.Index {
		t.Errorf("after reopening the pending ask is %+v, live %+v", again, next)
	}
	s1, _ := v.Show(ctx, "s")
	s2, _ := reopened.Show(ctx, "s")
	if s1.Rounds != s2.Rounds || s1.SafeSetSize != s2.SafeSetSize || s1.Retracted != s2.Retracted || s1.Best.Index != s2.Best.Index || s1.Best.LowerF != s2.Best.LowerF {
		t.Errorf("reopened summary %+v, live %+v", s2, s1)
	}

	// Export shows both: the observation flagged, and the retraction.
	x, err := v.Export(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	if len(x.Retractions) != 1 || x.Retractions[0].Observation != typo.Observation || x.Retractions[0].Seq != r.Retraction {
		t.Errorf("export retractions %+v", x.Retractions)
	}
	flagged := 0
	for _, o := range x.Observations {
		if o.Retracted {
			flagged++
			if o.Seq != typo.Observation || o.RetractedBy != r.Retraction {
				t.Errorf("flagged %+v", o)
			}
		}
	}
	if flagged != 1 {
		t.Errorf("%d observations flagged retracted", flagged)
	}
	rows, err := csv.NewReader(bytes.NewReader(exchange.ExportCSV(x))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	var retractRows, typoRows int
	for _, row := range rows[1:] {
		switch {
		case row[col["kind"]] == "retract":
			retractRows++
			if row[col["retracts"]] != itoa(typo.Observation) || row[col["seq"]] != itoa(r.Retraction) {
				t.Errorf("retraction row %v", row)
			}
		case row[col["seq"]] == itoa(typo.Observation):
			typoRows++
			if row[col["retracted_by"]] != itoa(r.Retraction) || row[col["g1"]] != "100" {
				t.Errorf("typo row %v", row)
			}
		}
	}
	if retractRows != 1 || typoRows != 1 || len(rows) != 1+len(x.Observations)+1 {
		t.Errorf("CSV has %d rows, %d retraction rows, %d typo rows", len(rows), retractRows, typoRows)
	}
	js, err := exchange.ExportJSON(x)
	if err != nil {
		t.Fatal(err)
	}
	var back struct {
		Observations []api.Observation `json:"observations"`
		Retractions  []api.Retraction  `json:"retractions"`
	}
	if err := json.Unmarshal(js, &back); err != nil || len(back.Retractions) != 1 || len(back.Observations) != len(x.Observations) {
		t.Errorf("JSON export %s: %v", js, err)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func mustObs(t *testing.T, v *study.Service, name string) []api.Observation {
	t.Helper()
	obs, err := v.Observations(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	return obs
}

// TestViolationsExcludeRetracted: show counts violations among the
// observations in force only.
func TestViolationsExcludeRetracted(t *testing.T) {
	ctx := context.Background()
	v, _ := newService(t, filepath.Join(t.TempDir(), "v.db"))
	if err := v.Create(ctx, "s", resolved(t, retractSpec)); err != nil {
		t.Fatal(err)
	}
	bad := tellIndex(t, v, "s", 10, 0, -0.5)
	tellIndex(t, v, "s", 11, 0, -0.1)
	tellIndex(t, v, "s", 12, 0, 0.4)
	if sum, _ := v.Show(ctx, "s"); sum.Violations != 2 {
		t.Fatalf("violations %d, want 2", sum.Violations)
	}
	if _, err := v.Retract(ctx, "s", bad.Observation); err != nil {
		t.Fatal(err)
	}
	if sum, _ := v.Show(ctx, "s"); sum.Violations != 1 || sum.Rounds != 2 || sum.Retracted != 1 {
		t.Errorf("after retracting a violation: %+v", sum)
	}
}

// TestHorizon: a study takes at most horizon observations. Once it has
// them, ask refuses; a tell of an ask handed out is always accepted; an
// index tell is refused when observations plus the pending ask reach the
// horizon; a retraction frees a round.
func TestHorizon(t *testing.T) {
	ctx := context.Background()
	v, _ := newService(t, filepath.Join(t.TempDir(), "h.db"))
	spec := strings.Replace(specYAML, "horizon: 30", "horizon: 3", 1)
	if err := v.Create(ctx, "s", resolved(t, spec)); err != nil {
		t.Fatal(err)
	}
	drive(t, v, "s", 1)
	tellIndex(t, v, "s", 10, -1, 0.5) // 2 observations
	a, err := v.Ask(ctx, "s")         // the third round, pending
	if err != nil {
		t.Fatal(err)
	}
	idx, f := 9, -1.0
	if _, err := v.Tell(ctx, "s", &api.TellRequest{Index: &idx, F: &f, G: []float64{0.5}}); !errors.Is(err, api.ErrHorizon) {
		t.Errorf("index tell with 2 observations and a pending ask at horizon 3: %v", err)
	}
	fa, ga := truth(a.X[0])
	id := a.Ask
	told, err := v.Tell(ctx, "s", &api.TellRequest{Ask: &id, F: &fa, G: ga})
	if err != nil {
		t.Fatalf("the tell of an ask handed out must be accepted: %v", err)
	}
	if _, err := v.Ask(ctx, "s"); !errors.Is(err, api.ErrHorizon) {
		t.Errorf("ask after 3 observations at horizon 3: %v", err)
	}
	if _, err := v.Tell(ctx, "s", &api.TellRequest{Index: &idx, F: &f, G: []float64{0.5}}); !errors.Is(err, api.ErrHorizon) {
		t.Errorf("index tell at the horizon: %v", err)
	}
	if sum, _ := v.Show(ctx, "s"); sum.Rounds != 3 || sum.Pending != nil {
		t.Errorf("summary %+v", sum)
	}
	if _, err := v.Retract(ctx, "s", told.Observation); err != nil {
		t.Fatal(err)
	}
	if _, err := v.Ask(ctx, "s"); err != nil {
		t.Errorf("ask after a retraction freed a round: %v", err)
	}
}

// TestBestSafeAction: right after a good measurement at a seed action the
// GP safe set may be empty, yet the seed action is known safe; so is an
// action measured with g ≥ h. show must name the best of them.
func TestBestSafeAction(t *testing.T) {
	ctx := context.Background()
	v, _ := newService(t, filepath.Join(t.TempDir(), "b.db"))
	if err := v.Create(ctx, "s", resolved(t, specYAML)); err != nil {
		t.Fatal(err)
	}
	// g = 0.05 at the seed action 10: ℓ_g = 0.05 − 2·σ < 0, so D^s_t = ∅.
	tellIndex(t, v, "s", 10, 1, 0.05)
	sum, err := v.Show(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	if sum.SafeSetSize != 0 {
		t.Fatalf("test premise: safe set of size %d, want empty", sum.SafeSetSize)
	}
	if sum.Best == nil || sum.Best.Index != 10 {
		t.Fatalf("best %+v, want the seed action 10", sum.Best)
	}
	// A large f measured safe (g ≥ h) at action 3, outside the seed set:
	// its ℓ_f is the largest.
	tellIndex(t, v, "s", 3, 5, 0.01)
	if sum, _ := v.Show(ctx, "s"); sum.Best == nil || sum.Best.Index != 3 {
		t.Errorf("best %+v, want the measured-safe action 3", sum.Best)
	}
	// Measured unsafe: never the best, however good f is.
	tellIndex(t, v, "s", 2, 50, -0.01)
	if sum, _ := v.Show(ctx, "s"); sum.Best == nil || sum.Best.Index == 2 {
		t.Errorf("best %+v: a violating action", sum.Best)
	}
}

// TestMaxMemory: a study whose estimate exceeds the service's limit is
// neither created nor loaded.
func TestMaxMemory(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "m.db")
	v, st := newService(t, path)
	if err := v.Create(ctx, "s", resolved(t, specYAML)); err != nil {
		t.Fatal(err)
	}
	small := study.NewService(st, study.ServiceOptions{MaxMemory: 1000})
	if err := small.Create(ctx, "t", resolved(t, specYAML)); !errors.Is(err, api.ErrSpec) {
		t.Errorf("create over the limit: %v", err)
	}
	if _, err := small.Ask(ctx, "s"); !errors.Is(err, api.ErrSpec) {
		t.Errorf("load over the limit: %v", err)
	}
	if names, _ := st.Names(ctx); !slices.Equal(names, []string{"s"}) {
		t.Errorf("studies %v", names)
	}
}

// TestReadOnlyStore: show, export and plot open read-only; a read-only
// store refuses writes and changes nothing.
func TestReadOnlyStore(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "ro.db")
	v, st := newService(t, path)
	if err := v.Create(ctx, "s", resolved(t, specYAML)); err != nil {
		t.Fatal(err)
	}
	drive(t, v, "s", 2)
	st.Close()
	ro, err := store.Open(path, store.OpenOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	before, _ := os.ReadFile(path)
	rv := study.NewService(ro, study.ServiceOptions{})
	if sum, err := rv.Show(ctx, "s"); err != nil || sum.Rounds != 2 {
		t.Fatalf("show: %+v %v", sum, err)
	}
	if _, err := rv.Ask(ctx, "s"); err == nil {
		t.Error("ask through a read-only store")
	}
	if err := rv.Create(ctx, "t", resolved(t, specYAML)); err == nil {
		t.Error("create through a read-only store")
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Error("the database file changed")
	}
}
