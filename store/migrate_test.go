package store_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/safegp/safegp/store"
	"github.com/safegp/safegp/study"
	"github.com/safegp/safegp/study/api"
)

// The migration tests build files of every older schema with the
// migrations' own SQL (export_test.go), copy a study recorded with the
// current schema into them, and check that the store reads them, as
// they are or migrated, as the events of the source, and that the study
// replays to the source's state.

const lruSpec = `{"decision_set": {"grid": {"bounds": [[0, 4]], "points": [21]}}, "seed_actions": [5, 6],
 "thresholds": [0.0],
 "model": {"objective": {"kernel": "se", "lengthscale": 1}, "constraints": [{"kernel": "se", "lengthscale": 1}], "noise_std": 0.05, "delta": 0.1, "beta": 4},
 "algorithm": {"name": "sgp-ucb", "phase1": "uniform", "exploration": {"fixed": 3}}, "horizon": 100, "seed": %d}`

// newService opens a new store at path and serves it.
func newService(t testing.TB, path string) (*study.Service, *store.Store) {
	t.Helper()
	st, err := store.Open(path, store.OpenOptions{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return study.NewService(st, study.ServiceOptions{}), st
}

// round asks and tells once, with a smooth system's values.
func round(t testing.TB, v *study.Service, name string) int {
	t.Helper()
	ctx := context.Background()
	a, err := v.Ask(ctx, name)
	if err != nil {
		t.Error(err)
		return -1
	}
	f, g := -(a.X[0]-3)*(a.X[0]-3), 1-math.Pow(a.X[0]/3.5, 4)
	id := a.Ask
	if _, err := v.Tell(ctx, name, &api.TellRequest{Ask: &id, F: &f, G: []float64{g}}); err != nil {
		t.Error(err)
	}
	return a.Index
}

// TestOpenKeepsPragmasWithURICharacters: the pragmas in the data source
// name apply even when the file name holds '?', '&' or '#'.
func TestOpenKeepsPragmasWithURICharacters(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"plain.db", "we?ird.db", "a&_pragma=synchronous(OFF).db", "h#sh.db"} {
		st, err := store.Open(filepath.Join(t.TempDir(), name), store.OpenOptions{Create: true})
		if err != nil {
			t.Fatal(err)
		}
		var mode string
		var sync, fk, busy int
		for q, dst := range map[string]any{"journal_mode": &mode, "synchronous": &sync, "foreign_keys": &fk, "busy_timeout": &busy} {
			if err := store.DB(st).QueryRow("PRAGMA " + q).Scan(dst); err != nil {
				t.Fatal(err)
			}
		}
		if mode != "wal" || sync != 2 || fk != 1 || busy != 10000 {
			t.Errorf("%s: journal_mode %s, synchronous %d, foreign_keys %d, busy_timeout %d; want wal, 2 (FULL), 1, 10000", name, mode, sync, fk, busy)
		}
		st.Close()
	}
}

// TestMigrateFromVersion1: a database of schema 1 (before retractions)
// opens read-only as it is, untouched, and a writable open migrates it
// keeping every event, after which retractions work.
func TestMigrateFromVersion1(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	// A study recorded with the current schema, to copy from.
	src, srcSt := newService(t, filepath.Join(dir, "src.db"))
	s, _ := study.ParseSpec(fmt.Appendf(nil, lruSpec, 2))
	res, err := s.Resolve("")
	if err != nil {
		t.Fatal(err)
	}
	if err := src.Create(ctx, "s", res); err != nil {
		t.Fatal(err)
	}
	for range 5 {
		round(t, src, "s")
	}
	if _, err := src.Ask(ctx, "s"); err != nil {
		t.Fatal(err)
	}
	want, _ := src.Show(ctx, "s")

	// The schema-1 file, written as safegp 1 did.
	old := filepath.Join(dir, "v1.db")
	db, err := sql.Open("sqlite", "file:"+old+"?_pragma=journal_mode(WAL)")
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`CREATE TABLE schema_version (version INTEGER NOT NULL)`,
		`INSERT INTO schema_version (version) VALUES (1)`,
		store.Migrations[0],
		`ATTACH DATABASE '` + filepath.Join(dir, "src.db") + `' AS src`,
		`INSERT INTO studies SELECT name, spec, actions, seeds, created FROM src.studies`,
		`INSERT INTO events SELECT study, seq, kind, ask, idx, f, g, violation, created FROM src.events`,
		`DETACH DATABASE src`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	db.Close()
	before, _ := os.ReadFile(old)

	ro, err := store.Open(old, store.OpenOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	got, err := study.NewService(ro, study.ServiceOptions{}).Show(ctx, "s")
	ro.Close()
	if err != nil || got.Rounds != want.Rounds || got.Best.Index != want.Best.Index || *got.Pending != *want.Pending {
		t.Errorf("read-only schema 1: %+v %v, want %+v", got, err, want)
	}
	if after, _ := os.ReadFile(old); string(after) != string(before) {
		t.Error("a read-only open changed a schema-1 file")
	}

	st, err := store.Open(old, store.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if store.Version(st) != len(store.Migrations) {
		t.Errorf("schema version %d after a writable open, want %d", store.Version(st), len(store.Migrations))
	}
	var v int
	store.DB(st).QueryRow(`SELECT version FROM schema_version`).Scan(&v)
	if v != len(store.Migrations) {
		t.Errorf("stored schema version %d", v)
	}
	evs, err := st.Events(ctx, "s")
	srcEvs, _ := srcSt.Events(ctx, "s")
	if err != nil || len(evs) != len(srcEvs) {
		t.Fatalf("%d events after migrating, want %d (%v)", len(evs), len(srcEvs), err)
	}
	for i := range evs {
		if evs[i].Seq != srcEvs[i].Seq || evs[i].Kind != srcEvs[i].Kind || evs[i].Index != srcEvs[i].Index || !slices.Equal(evs[i].G, srcEvs[i].G) {
			t.Errorf("event %d: %+v, want %+v", i, evs[i], srcEvs[i])
		}
	}
	v2 := study.NewService(st, study.ServiceOptions{})
	tells := 0
	for _, e := range evs {
		if e.Kind == "tell" {
			tells = e.Seq
		}
	}
	if _, err := v2.Retract(ctx, "s", tells); err != nil {
		t.Fatal(err)
	}
	// The unique indexes survived the rebuild: a second tell of an ask, a
	// second retraction of an observation, are refused by the database.
	for _, q := range []string{
		`INSERT INTO events (study, seq, kind, ask, idx, x, f, g, violation, created) SELECT study, 1000, 'tell', ask, idx, x, f, g, 0, created FROM events WHERE kind = 'tell' AND ask IS NOT NULL LIMIT 1`,
		`INSERT INTO events (study, seq, kind, idx, x, created, ref) SELECT study, 1001, 'retract', idx, x, created, ref FROM events WHERE kind = 'retract' LIMIT 1`,
		`INSERT INTO events (study, seq, kind, idx, x, created) VALUES ('s', 1002, 'retract', 0, '[0]', 'x')`,
	} {
		if _, err := store.DB(st).Exec(q); err == nil {
			t.Errorf("the database accepted %s", q)
		}
	}
	// Only those constraints refused them: the same rows at new places
	// are accepted.
	if _, err := store.DB(st).Exec(`INSERT INTO events (study, seq, kind, ask, idx, x, f, g, violation, created) SELECT study, 1003, 'tell', NULL, idx, x, f, g, 0, created FROM events WHERE kind = 'tell' LIMIT 1`); err != nil {
		t.Errorf("a tell outside the loop at a new seq: %v", err)
	}
}

// TestMigrateFromVersion2: a database of schema 2 (no points) opens
// read-only as it is, with every event's point read from the stored
// actions, and a writable open migrates it to schema 3, storing those
// points in x; the study replays and asks exactly what the study it was
// copied from asks. An event whose action is not in the stored decision
// set fails the migration, which then changes nothing.
func TestMigrateFromVersion2(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	src, srcSt := newService(t, filepath.Join(dir, "src.db"))
	s, _ := study.ParseSpec(fmt.Appendf(nil, lruSpec, 3))
	res, err := s.Resolve("")
	if err != nil {
		t.Fatal(err)
	}
	if err := src.Create(ctx, "s", res); err != nil {
		t.Fatal(err)
	}
	for range 4 {
		round(t, src, "s")
	}
	f, g, idx := 0.1, []float64{0.9}, 7
	if _, err := src.Tell(ctx, "s", &api.TellRequest{Index: &idx, F: &f, G: g}); err != nil {
		t.Fatal(err)
	}
	if _, err := src.Ask(ctx, "s"); err != nil { // pending, then withdrawn
		t.Fatal(err)
	}
	if _, err := src.Retract(ctx, "s", 4); err != nil {
		t.Fatal(err)
	}
	round(t, src, "s")
	pending, err := src.Ask(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	srcEvs, _ := srcSt.Events(ctx, "s")

	// v2 writes the schema-2 file, events without points, as safegp did
	// before schema 3; extra runs after the copy.
	v2 := func(name string, extra ...string) string {
		return oldSchema(t, dir, name, 2, "study, seq, kind, ask, idx, f, g, violation, created, ref", extra...)
	}
	old := v2("v2.db")
	before, _ := os.ReadFile(old)
	ro, err := store.Open(old, store.OpenOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	roEvs, err := ro.Events(ctx, "s")
	ro.Close()
	if err != nil || !slices.EqualFunc(roEvs, srcEvs, sameEvent) {
		t.Errorf("read-only schema 2: events differ from the source's (%v)", err)
	}
	if after, _ := os.ReadFile(old); string(after) != string(before) {
		t.Error("a read-only open changed a schema-2 file")
	}

	st, err := store.Open(old, store.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var v int
	store.DB(st).QueryRow(`SELECT version FROM schema_version`).Scan(&v)
	if v != len(store.Migrations) || store.Version(st) != len(store.Migrations) {
		t.Errorf("schema version %d (%d) after a writable open, want %d", v, store.Version(st), len(store.Migrations))
	}
	evs, err := st.Events(ctx, "s")
	if err != nil || !slices.EqualFunc(evs, srcEvs, sameEvent) {
		t.Errorf("migrated schema 3: events differ from the source's (%v)", err)
	}
	// The stored x is the action's JSON, as safegp writes it.
	migrated, _ := store.DB(st).Query(`SELECT seq, x FROM events WHERE study = 's' ORDER BY seq`)
	for k := 0; migrated.Next(); k++ {
		var seq int
		var x string
		if err := migrated.Scan(&seq, &x); err != nil {
			t.Fatal(err)
		}
		if want, _ := json.Marshal(srcEvs[k].X); x != string(want) {
			t.Errorf("event %d: x = %s, want %s", seq, x, want)
		}
	}
	migrated.Close()
	again, err := study.NewService(st, study.ServiceOptions{}).Ask(ctx, "s")
	if err != nil || again.Ask != pending.Ask || again.Index != pending.Index {
		t.Errorf("after the migration the pending ask is %+v (%v), want %+v", again, err, pending)
	}
	next := func(v *study.Service) []int {
		var idx []int
		for range 5 {
			idx = append(idx, round(t, v, "s"))
		}
		return idx
	}
	if got, want := next(study.NewService(st, study.ServiceOptions{})), next(src); !slices.Equal(got, want) {
		t.Errorf("after the migration the study plays %v, the source %v", got, want)
	}

	bad := v2("bad.db", `UPDATE events SET idx = 21 WHERE seq = 2`)
	if st, err := store.Open(bad, store.OpenOptions{}); err == nil {
		st.Close()
		t.Fatal("an event outside the decision set migrated")
	}
	// A read-only open migrates a copy, which fails the same way, and
	// leaves no copy behind. The copies go to a temporary folder of this
	// test's own: other packages' tests, running at once, make and remove
	// copies in the machine's.
	t.Setenv("TMPDIR", t.TempDir())
	tmps, _ := filepath.Glob(filepath.Join(os.TempDir(), "safegp-migrate-*"))
	if ro, err := store.Open(bad, store.OpenOptions{ReadOnly: true}); err == nil || !strings.Contains(err.Error(), "migrate schema to version 3") {
		if err == nil {
			ro.Close()
		}
		t.Errorf("read-only open of a file that does not migrate: %v", err)
	}
	if after, _ := filepath.Glob(filepath.Join(os.TempDir(), "safegp-migrate-*")); len(after) != len(tmps) {
		t.Errorf("a failed read-only open left its copy: %v", after)
	}
	db, err := sql.Open("sqlite", "file:"+bad+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var left int
	if err := db.QueryRow(`SELECT version FROM schema_version`).Scan(&left); err != nil || left != 2 {
		t.Errorf("a failed migration left schema version %d (%v), want 2", left, err)
	}
}

// sameEvent compares two events but their times.
func sameEvent(a, b store.Event) bool {
	return a.Seq == b.Seq && a.Kind == b.Kind && a.Ask == b.Ask && a.Index == b.Index && slices.Equal(a.X, b.X) &&
		a.F == b.F && slices.Equal(a.G, b.G) && a.Violation == b.Violation && a.Ref == b.Ref &&
		(a.NoiseStd == nil) == (b.NoiseStd == nil) && (a.NoiseStd == nil || *a.NoiseStd == *b.NoiseStd) &&
		slices.Equal(a.Context, b.Context)
}

// TestMigrateFromVersion3: a database of schema 3 (no noise_std column)
// opens read-only as it is, and a writable open adds the column, NULL in
// every row (the model's σ, which those tells used); the study replays to
// the state of the study it was copied from — the same events, the same
// pending ask and the same next ask after it is told — with tells at
// actions, at points outside the set and a retraction among them.
func TestMigrateFromVersion3(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	src, srcEvs, pending := tellsAndRetraction(t, dir, nil)
	old := oldSchema(t, dir, "v3.db", 3, "study, seq, kind, ask, idx, x, f, g, violation, created, ref")
	before, _ := os.ReadFile(old)
	ro, err := store.Open(old, store.OpenOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	roEvs, err := ro.Events(ctx, "s")
	ro.Close()
	if err != nil || !slices.EqualFunc(roEvs, srcEvs, sameEvent) {
		t.Errorf("read-only schema 3: events differ from the source's (%v)", err)
	}
	if after, _ := os.ReadFile(old); string(after) != string(before) {
		t.Error("a read-only open changed a schema-3 file")
	}
	st, err := store.Open(old, store.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if store.Version(st) != len(store.Migrations) {
		t.Errorf("schema version %d after a writable open, want %d", store.Version(st), len(store.Migrations))
	}
	var nonNull int
	if err := store.DB(st).QueryRow(`SELECT count(*) FROM events WHERE noise_std IS NOT NULL`).Scan(&nonNull); err != nil || nonNull != 0 {
		t.Errorf("%d rows with a noise_std after the migration (%v), want 0", nonNull, err)
	}
	evs, err := st.Events(ctx, "s")
	if err != nil || !slices.EqualFunc(evs, srcEvs, sameEvent) {
		t.Errorf("migrated schema 4: events differ from the source's (%v)", err)
	}
	mig := study.NewService(st, study.ServiceOptions{})
	got, err := mig.Ask(ctx, "s")
	if err != nil || got.Ask != pending.Ask || got.Index != pending.Index {
		t.Fatalf("migrated study asks %+v (%v), the source %+v", got, err, pending)
	}
	if a, b := round(t, mig, "s"), round(t, src, "s"); a != b {
		t.Errorf("after the pending ask: the migrated study asks action %d, the source %d", a, b)
	}
	if a, b := round(t, mig, "s"), round(t, src, "s"); a != b {
		t.Errorf("next: the migrated study asks action %d, the source %d", a, b)
	}
}

// TestMigrateFromVersion4: a database of schema 4 (no fit events) opens
// read-only as it is; a writable open rebuilds the events table for fit
// events, and the study replays to the state of its source: the same
// events and the same next asks.
func TestMigrateFromVersion4(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	noise := 0.02
	src, srcEvs, pending := tellsAndRetraction(t, dir, &noise)
	old := oldSchema(t, dir, "v4.db", 4, "study, seq, kind, ask, idx, x, f, g, violation, created, ref, noise_std")
	ro, err := store.Open(old, store.OpenOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	roEvs, err := ro.Events(ctx, "s")
	ro.Close()
	if err != nil || !slices.EqualFunc(roEvs, srcEvs, sameEvent) {
		t.Errorf("read-only schema 4: events differ from the source's (%v)", err)
	}
	st, err := store.Open(old, store.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if store.Version(st) != len(store.Migrations) {
		t.Errorf("schema version %d after a writable open, want %d", store.Version(st), len(store.Migrations))
	}
	evs, err := st.Events(ctx, "s")
	if err != nil || !slices.EqualFunc(evs, srcEvs, sameEvent) {
		t.Errorf("migrated schema 4: events differ from the source's (%v)", err)
	}
	var sqlText string
	if err := store.DB(st).QueryRow(`SELECT sql FROM sqlite_master WHERE name = 'events'`).Scan(&sqlText); err != nil || !strings.Contains(sqlText, "'fit'") {
		t.Errorf("migrated events table does not take fits: %s (%v)", sqlText, err)
	}
	mig := study.NewService(st, study.ServiceOptions{})
	got, err := mig.Ask(ctx, "s")
	if err != nil || got.Ask != pending.Ask || got.Index != pending.Index {
		t.Fatalf("migrated study asks %+v (%v), the source %+v", got, err, pending)
	}
	for k := range 2 {
		if a, b := round(t, mig, "s"), round(t, src, "s"); a != b {
			t.Errorf("round %d after migration: the migrated study asks action %d, the source %d", k, a, b)
		}
	}
}

// TestMigrateRefusesNewerSchema: the schema check inside the migration's
// transaction (another process may have upgraded the file since Open
// inspected it) refuses a newer version and leaves it alone.
func TestMigrateRefusesNewerSchema(t *testing.T) {
	t.Parallel()
	st, err := store.Open(filepath.Join(t.TempDir(), "n.db"), store.OpenOptions{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	newer := len(store.Migrations) + 1
	if _, err := store.DB(st).Exec(`UPDATE schema_version SET version = ?`, newer); err != nil {
		t.Fatal(err)
	}
	if err := store.Migrate(st); !errors.Is(err, store.ErrNewerSchema) {
		t.Errorf("migrate over schema %d: %v, want store.ErrNewerSchema", newer, err)
	}
	var v int
	if err := store.DB(st).QueryRow(`SELECT version FROM schema_version`).Scan(&v); err != nil || v != newer {
		t.Errorf("schema version now %d (%v), want %d untouched", v, err, newer)
	}
}

// oldSchema writes the file name in dir at schema version (the first
// version migrations applied), with study and events rows copied from
// dir/src.db — the events' columns as that schema had them — and extra
// statements run after the copy: a database as an older safegp left it.
func oldSchema(t *testing.T, dir, name string, version int, eventCols string, extra ...string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	qs := []string{`CREATE TABLE schema_version (version INTEGER NOT NULL)`, fmt.Sprintf(`INSERT INTO schema_version (version) VALUES (%d)`, version)}
	qs = append(qs, store.Migrations[:version]...)
	qs = append(qs,
		`ATTACH DATABASE '`+filepath.Join(dir, "src.db")+`' AS src`,
		`INSERT INTO studies SELECT name, spec, actions, seeds, created FROM src.studies`,
		`INSERT INTO events SELECT `+eventCols+` FROM src.events`,
		`DETACH DATABASE src`)
	for _, q := range append(qs, extra...) {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	return path
}

// tellsAndRetraction is the source study of the schema-3 and schema-4
// tests, in dir/src.db: three tells at points outside the set (each
// with noise, when given) and their rounds, the second observation
// retracted, and an ask pending. It returns the service, its events and
// the pending ask.
func tellsAndRetraction(t *testing.T, dir string, noise *float64) (*study.Service, []store.Event, *api.AskAnswer) {
	t.Helper()
	ctx := context.Background()
	src, srcSt := newService(t, filepath.Join(dir, "src.db"))
	s, _ := study.ParseSpec(fmt.Appendf(nil, lruSpec, 5))
	res, err := s.Resolve("")
	if err != nil {
		t.Fatal(err)
	}
	if err := src.Create(ctx, "s", res); err != nil {
		t.Fatal(err)
	}
	for k, x := range []float64{1.1, 1.33, 2.05} {
		f, g := -(x-3)*(x-3), 1-math.Pow(x/3.5, 4)
		if _, err := src.Tell(ctx, "s", &api.TellRequest{X: []float64{x}, F: &f, G: []float64{g}, NoiseStd: noise}); err != nil {
			t.Fatal(err)
		}
		round(t, src, "s")
		if k == 1 {
			if _, err := src.Retract(ctx, "s", 1); err != nil {
				t.Fatal(err)
			}
		}
	}
	pending, err := src.Ask(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	srcEvs, _ := srcSt.Events(ctx, "s")
	return src, srcEvs, pending
}
