package study

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
	"sync"
	"testing"
)

const lruSpec = `{"decision_set": {"grid": {"bounds": [[0, 4]], "points": [21]}}, "seed_actions": [5, 6],
 "thresholds": [0.0],
 "model": {"objective": {"kernel": "se", "lengthscale": 1}, "constraints": [{"kernel": "se", "lengthscale": 1}], "noise_std": 0.05, "delta": 0.1, "beta": 4},
 "algorithm": {"name": "sgp-ucb", "phase1": "uniform", "exploration": {"fixed": 3}}, "horizon": 100, "seed": %d}`

func lruService(t testing.TB, path string, maxOpen int) *Service {
	t.Helper()
	st, err := Open(path, OpenOptions{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return NewService(st, ServiceOptions{MaxOpen: maxOpen})
}

// loaded is the number of studies the service holds.
func (v *Service) loaded() int {
	v.mu.Lock()
	defer v.mu.Unlock()
	return len(v.studies)
}

// round asks and tells once, with a smooth system's values.
func round(t testing.TB, v *Service, name string) int {
	t.Helper()
	ctx := context.Background()
	a, err := v.Ask(ctx, name)
	if err != nil {
		t.Error(err)
		return -1
	}
	f, g := -(a.X[0]-3)*(a.X[0]-3), 1-math.Pow(a.X[0]/3.5, 4)
	id := a.Ask
	if _, err := v.Tell(ctx, name, &TellRequest{Ask: &id, F: &f, G: []float64{g}}); err != nil {
		t.Error(err)
	}
	return a.Index
}

// TestServiceCacheIsBounded: with MaxOpen = 2, driving six studies in
// turn, and then all at once, never holds more than two in memory, and
// the studies evicted and reloaded play exactly what studies kept in
// memory play.
func TestServiceCacheIsBounded(t *testing.T) {
	ctx := context.Background()
	const studies, rounds, maxOpen = 6, 8, 2
	dir := t.TempDir()
	small := lruService(t, filepath.Join(dir, "small.db"), maxOpen)
	big := lruService(t, filepath.Join(dir, "big.db"), 100)
	r := func(seed int) *Resolved {
		s, err := ParseSpec(fmt.Appendf(nil, lruSpec, seed))
		if err != nil {
			t.Fatal(err)
		}
		res, err := s.Resolve("")
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	for k := range studies {
		for _, v := range []*Service{small, big} {
			if err := v.Create(ctx, fmt.Sprint("s", k), r(k)); err != nil {
				t.Fatal(err)
			}
		}
	}
	// In turn: every round of every study evicts another.
	got, want := map[string][]int{}, map[string][]int{}
	for range rounds {
		for k := range studies {
			name := fmt.Sprint("s", k)
			got[name] = append(got[name], round(t, small, name))
			want[name] = append(want[name], round(t, big, name))
			if n := small.loaded(); n > maxOpen {
				t.Fatalf("%d studies in memory, bound %d", n, maxOpen)
			}
		}
	}
	if big.loaded() != studies {
		t.Errorf("the large cache holds %d studies, want %d", big.loaded(), studies)
	}
	for name := range want {
		if !slices.Equal(got[name], want[name]) {
			t.Errorf("%s: evicted and reloaded it played %v, kept in memory %v", name, got[name], want[name])
		}
	}
	// All at once: requests wait for a free place rather than exceed the
	// bound; watch the bound from inside the calls.
	var wg sync.WaitGroup
	var mu sync.Mutex
	most := 0
	for k := range studies {
		for range 3 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				name := fmt.Sprint("s", k)
				err := small.with(ctx, name, func(s *Study) error {
					mu.Lock()
					most = max(most, small.loaded())
					mu.Unlock()
					return nil
				})
				if err != nil {
					t.Error(err)
				}
				if _, err := small.Show(ctx, name); err != nil {
					t.Error(err)
				}
			}()
		}
	}
	wg.Wait()
	if most > maxOpen || small.loaded() > maxOpen {
		t.Errorf("up to %d studies in memory at once (now %d), bound %d", most, small.loaded(), maxOpen)
	}
	// An unknown study takes no place.
	if _, err := small.Show(ctx, "nope"); err == nil {
		t.Error("show of an unknown study")
	}
	if small.loaded() > maxOpen {
		t.Errorf("%d studies in memory after a miss", small.loaded())
	}
}

// TestServiceWaitHonoursContext: a call that waits for a place gives up
// when its context ends.
func TestServiceWaitHonoursContext(t *testing.T) {
	ctx := context.Background()
	v := lruService(t, filepath.Join(t.TempDir(), "w.db"), 1)
	for _, n := range []string{"a", "b"} {
		s, _ := ParseSpec(fmt.Appendf(nil, lruSpec, 1))
		res, err := s.Resolve("")
		if err != nil {
			t.Fatal(err)
		}
		if err := v.Create(ctx, n, res); err != nil {
			t.Fatal(err)
		}
	}
	inA, release := make(chan struct{}), make(chan struct{})
	go v.with(ctx, "a", func(*Study) error { close(inA); <-release; return nil })
	<-inA
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := v.Show(cctx, "b"); err == nil {
		t.Error("a cancelled call waited for a place and got one")
	}
	close(release)
	if _, err := v.Show(ctx, "b"); err != nil {
		t.Errorf("after a was released: %v", err)
	}
}

// TestOpenKeepsPragmasWithURICharacters: the pragmas in the data source
// name apply even when the file name holds '?', '&' or '#'.
func TestOpenKeepsPragmasWithURICharacters(t *testing.T) {
	for _, name := range []string{"plain.db", "we?ird.db", "a&_pragma=synchronous(OFF).db", "h#sh.db"} {
		st, err := Open(filepath.Join(t.TempDir(), name), OpenOptions{Create: true})
		if err != nil {
			t.Fatal(err)
		}
		var mode string
		var sync, fk, busy int
		for q, dst := range map[string]any{"journal_mode": &mode, "synchronous": &sync, "foreign_keys": &fk, "busy_timeout": &busy} {
			if err := st.db.QueryRow("PRAGMA " + q).Scan(dst); err != nil {
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
	ctx := context.Background()
	dir := t.TempDir()
	// A study recorded with the current schema, to copy from.
	src := lruService(t, filepath.Join(dir, "src.db"), 4)
	s, _ := ParseSpec(fmt.Appendf(nil, lruSpec, 2))
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
		migrations[0],
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

	ro, err := Open(old, OpenOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	got, err := NewService(ro, ServiceOptions{}).Show(ctx, "s")
	ro.Close()
	if err != nil || got.Rounds != want.Rounds || got.Best.Index != want.Best.Index || *got.Pending != *want.Pending {
		t.Errorf("read-only schema 1: %+v %v, want %+v", got, err, want)
	}
	if after, _ := os.ReadFile(old); string(after) != string(before) {
		t.Error("a read-only open changed a schema-1 file")
	}

	st, err := Open(old, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if st.version != len(migrations) {
		t.Errorf("schema version %d after a writable open, want %d", st.version, len(migrations))
	}
	var v int
	st.db.QueryRow(`SELECT version FROM schema_version`).Scan(&v)
	if v != len(migrations) {
		t.Errorf("stored schema version %d", v)
	}
	evs, err := st.Events(ctx, "s")
	srcEvs, _ := src.store.Events(ctx, "s")
	if err != nil || len(evs) != len(srcEvs) {
		t.Fatalf("%d events after migrating, want %d (%v)", len(evs), len(srcEvs), err)
	}
	for i := range evs {
		if evs[i].Seq != srcEvs[i].Seq || evs[i].Kind != srcEvs[i].Kind || evs[i].Index != srcEvs[i].Index || !slices.Equal(evs[i].G, srcEvs[i].G) {
			t.Errorf("event %d: %+v, want %+v", i, evs[i], srcEvs[i])
		}
	}
	v2 := NewService(st, ServiceOptions{})
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
		if _, err := st.db.Exec(q); err == nil {
			t.Errorf("the database accepted %s", q)
		}
	}
	// Only those constraints refused them: the same rows at new places
	// are accepted.
	if _, err := st.db.Exec(`INSERT INTO events (study, seq, kind, ask, idx, x, f, g, violation, created) SELECT study, 1003, 'tell', NULL, idx, x, f, g, 0, created FROM events WHERE kind = 'tell' LIMIT 1`); err != nil {
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
	src := lruService(t, filepath.Join(dir, "src.db"), 4)
	s, _ := ParseSpec(fmt.Appendf(nil, lruSpec, 3))
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
	if _, err := src.Tell(ctx, "s", &TellRequest{Index: &idx, F: &f, G: g}); err != nil {
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
	srcEvs, _ := src.store.Events(ctx, "s")

	// v2 writes the schema-2 file, events without points, as safegp did
	// before schema 3; extra runs after the copy.
	v2 := func(name string, extra ...string) string {
		path := filepath.Join(dir, name)
		db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)")
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		for _, q := range append([]string{
			`CREATE TABLE schema_version (version INTEGER NOT NULL)`,
			`INSERT INTO schema_version (version) VALUES (2)`,
			migrations[0],
			migrations[1],
			`ATTACH DATABASE '` + filepath.Join(dir, "src.db") + `' AS src`,
			`INSERT INTO studies SELECT name, spec, actions, seeds, created FROM src.studies`,
			`INSERT INTO events SELECT study, seq, kind, ask, idx, f, g, violation, created, ref FROM src.events`,
			`DETACH DATABASE src`,
		}, extra...) {
			if _, err := db.Exec(q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		return path
	}
	old := v2("v2.db")
	before, _ := os.ReadFile(old)
	ro, err := Open(old, OpenOptions{ReadOnly: true})
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

	st, err := Open(old, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var v int
	st.db.QueryRow(`SELECT version FROM schema_version`).Scan(&v)
	if v != len(migrations) || st.version != len(migrations) {
		t.Errorf("schema version %d (%d) after a writable open, want %d", v, st.version, len(migrations))
	}
	evs, err := st.Events(ctx, "s")
	if err != nil || !slices.EqualFunc(evs, srcEvs, sameEvent) {
		t.Errorf("migrated schema 3: events differ from the source's (%v)", err)
	}
	// The stored x is the action's JSON, as safegp writes it.
	migrated, _ := st.db.Query(`SELECT seq, x FROM events WHERE study = 's' ORDER BY seq`)
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
	again, err := NewService(st, ServiceOptions{}).Ask(ctx, "s")
	if err != nil || again.Ask != pending.Ask || again.Index != pending.Index {
		t.Errorf("after the migration the pending ask is %+v (%v), want %+v", again, err, pending)
	}
	next := func(v *Service) []int {
		var idx []int
		for range 5 {
			idx = append(idx, round(t, v, "s"))
		}
		return idx
	}
	if got, want := next(NewService(st, ServiceOptions{})), next(src); !slices.Equal(got, want) {
		t.Errorf("after the migration the study plays %v, the source %v", got, want)
	}

	bad := v2("bad.db", `UPDATE events SET idx = 21 WHERE seq = 2`)
	if st, err := Open(bad, OpenOptions{}); err == nil {
		st.Close()
		t.Fatal("an event outside the decision set migrated")
	}
	ro, err = Open(bad, OpenOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if ro.version != 2 {
		t.Errorf("a failed migration left schema version %d, want 2", ro.version)
	}
}

// sameEvent compares two events but their times.
func sameEvent(a, b Event) bool {
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
	ctx := context.Background()
	dir := t.TempDir()
	src := lruService(t, filepath.Join(dir, "src.db"), 4)
	s, _ := ParseSpec(fmt.Appendf(nil, lruSpec, 5))
	res, err := s.Resolve("")
	if err != nil {
		t.Fatal(err)
	}
	if err := src.Create(ctx, "s", res); err != nil {
		t.Fatal(err)
	}
	for k, x := range []float64{1.1, 1.33, 2.05} {
		f, g := -(x-3)*(x-3), 1-math.Pow(x/3.5, 4)
		if _, err := src.Tell(ctx, "s", &TellRequest{X: []float64{x}, F: &f, G: []float64{g}}); err != nil {
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
	srcEvs, _ := src.store.Events(ctx, "s")

	old := filepath.Join(dir, "v3.db")
	db, err := sql.Open("sqlite", "file:"+old+"?_pragma=journal_mode(WAL)")
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`CREATE TABLE schema_version (version INTEGER NOT NULL)`,
		`INSERT INTO schema_version (version) VALUES (3)`,
		migrations[0], migrations[1], migrations[2],
		`ATTACH DATABASE '` + filepath.Join(dir, "src.db") + `' AS src`,
		`INSERT INTO studies SELECT name, spec, actions, seeds, created FROM src.studies`,
		`INSERT INTO events SELECT study, seq, kind, ask, idx, x, f, g, violation, created, ref FROM src.events`,
		`DETACH DATABASE src`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	db.Close()
	before, _ := os.ReadFile(old)
	ro, err := Open(old, OpenOptions{ReadOnly: true})
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
	st, err := Open(old, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if st.version != len(migrations) {
		t.Errorf("schema version %d after a writable open, want %d", st.version, len(migrations))
	}
	var nonNull int
	if err := st.db.QueryRow(`SELECT count(*) FROM events WHERE noise_std IS NOT NULL`).Scan(&nonNull); err != nil || nonNull != 0 {
		t.Errorf("%d rows with a noise_std after the migration (%v), want 0", nonNull, err)
	}
	evs, err := st.Events(ctx, "s")
	if err != nil || !slices.EqualFunc(evs, srcEvs, sameEvent) {
		t.Errorf("migrated schema 4: events differ from the source's (%v)", err)
	}
	mig := NewService(st, ServiceOptions{})
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

// TestServiceMemoryBudget: with MaxMemory room for two studies' estimates,
// driving four in turn never holds more than two (least recently used out
// first), and while two are in use a third is refused with ErrOverloaded,
// not loaded beyond the budget.
func TestServiceMemoryBudget(t *testing.T) {
	ctx := context.Background()
	s, err := ParseSpec(fmt.Appendf(nil, lruSpec, 1))
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.Resolve("")
	if err != nil {
		t.Fatal(err)
	}
	st, err := Open(filepath.Join(t.TempDir(), "b.db"), OpenOptions{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	v := NewService(st, ServiceOptions{MaxOpen: 100, MaxMemory: 2*r.Bytes() + r.Bytes()/2})
	for k := range 4 {
		if err := v.Create(ctx, fmt.Sprint("m", k), r); err != nil {
			t.Fatal(err)
		}
	}
	for range 3 {
		for k := range 4 {
			round(t, v, fmt.Sprint("m", k))
			if n := v.loaded(); n > 2 {
				t.Fatalf("%d studies held within a budget of two", n)
			}
		}
	}
	// Hold two studies in use, then ask for a third.
	hold, release := make(chan bool), make(chan bool)
	var wg sync.WaitGroup
	for k := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v.with(ctx, fmt.Sprint("m", k), func(*Study) error { hold <- true; <-release; return nil })
		}()
		<-hold
	}
	_, err = v.Show(ctx, "m3")
	close(release)
	wg.Wait()
	if !errors.Is(err, ErrOverloaded) {
		t.Errorf("third study while two are in use: %v, want ErrOverloaded", err)
	}
	if _, err := v.Show(ctx, "m3"); err != nil {
		t.Errorf("after the others are done: %v", err)
	}
}
