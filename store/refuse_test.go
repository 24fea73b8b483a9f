package store_test

import (
	"context"
	"database/sql"
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/safegp/safegp/config"
	"github.com/safegp/safegp/store"
)

// TestOpenRefuses: Open refuses bad options and paths before touching
// anything, and a file that is not a safegp database — missing, not
// SQLite at all, another application's SQLite file, a schema version
// below 1 — with the sentinel that says which, leaving the file as it
// was (store.go, Open and inspectSQLite).
func TestOpenRefuses(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	sqlite := func(name string, stmts ...string) string {
		p := filepath.Join(dir, name)
		db, err := sql.Open("sqlite", p)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		for _, q := range stmts {
			if _, err := db.Exec(q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		return p
	}
	text := write("text.db", []byte(strings.Repeat("not a database\n", 100)))
	// The SQLite header, then nonsense where the page size and the rest
	// should be.
	garbage := write("garbage.db", append([]byte("SQLite format 3\x00"), []byte(strings.Repeat("\xff", 4080))...))
	foreign := sqlite("foreign.db", `CREATE TABLE notes (body TEXT)`)
	zero := sqlite("zero.db",
		`CREATE TABLE schema_version (version INTEGER NOT NULL)`, `INSERT INTO schema_version VALUES (0)`,
		`CREATE TABLE studies (name TEXT)`, `CREATE TABLE events (seq INTEGER)`)
	noVersion := sqlite("noversion.db",
		`CREATE TABLE schema_version (version INTEGER NOT NULL)`,
		`CREATE TABLE studies (name TEXT)`, `CREATE TABLE events (seq INTEGER)`)
	for _, c := range []struct {
		name, path string
		opt        store.OpenOptions
		is         error
		msg        string
	}{
		{"create and read-only", filepath.Join(dir, "new.db"), store.OpenOptions{Create: true, ReadOnly: true}, nil, "Create and ReadOnly exclude each other"},
		{"empty path", "", store.OpenOptions{Create: true}, nil, "invalid path"},
		{"NUL in the path", filepath.Join(dir, "a\x00b.db"), store.OpenOptions{Create: true}, nil, "invalid path"},
		{"missing", filepath.Join(dir, "missing.db"), store.OpenOptions{}, fs.ErrNotExist, "create a study first"},
		{"missing read-only", filepath.Join(dir, "missing.db"), store.OpenOptions{ReadOnly: true}, fs.ErrNotExist, "no such file"},
		{"text", text, store.OpenOptions{}, store.ErrNotStudyDB, "not a safegp study database"},
		{"text with create", text, store.OpenOptions{Create: true}, store.ErrNotStudyDB, "not a safegp study database"},
		{"garbage after the header", garbage, store.OpenOptions{}, store.ErrNotStudyDB, "not a safegp study database"},
		{"another application's", foreign, store.OpenOptions{ReadOnly: true}, store.ErrNotStudyDB, "without safegp's tables"},
		{"schema version 0", zero, store.OpenOptions{}, store.ErrNotStudyDB, "schema version 0"},
		{"no schema version", noVersion, store.OpenOptions{}, store.ErrNotStudyDB, "schema version"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var before []byte
			if c.path != "" {
				before, _ = os.ReadFile(c.path)
			}
			st, err := store.Open(c.path, c.opt)
			if err == nil {
				st.Close()
			}
			if err == nil || (c.is != nil && !errors.Is(err, c.is)) || !strings.Contains(err.Error(), c.msg) {
				t.Fatalf("got %v; want an error containing %q (is %v)", err, c.msg, c.is)
			}
			if c.path == "" {
				return
			}
			after, statErr := os.ReadFile(c.path)
			if before == nil && statErr == nil {
				t.Errorf("the refused open made the file %s (%v)", c.path, statErr)
			}
			if before != nil && string(after) != string(before) {
				t.Errorf("the refused open changed the file")
			}
		})
	}
}

// TestReadOnlyRefusesWrites: every write through a store opened
// read-only is ErrReadOnly naming the study, and the file keeps what it
// held.
func TestReadOnlyRefusesWrites(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "r.db")
	w, err := store.Open(path, store.OpenOptions{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Create(ctx, "s", []byte(`{}`), [][]float64{{0}, {1}}, []int{0}); err != nil {
		t.Fatal(err)
	}
	w.Close()
	r, err := store.Open(path, store.OpenOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ask := store.Event{Seq: 1, Kind: "ask", Ask: 1, Index: 0, X: []float64{0}, Created: time.Now()}
	for name, write := range map[string]func() error{
		"create":     func() error { return r.Create(ctx, "t", []byte(`{}`), [][]float64{{0}}, []int{0}) },
		"append":     func() error { return r.Append(ctx, "s", &ask) },
		"append all": func() error { return r.AppendAll(ctx, "s", []store.Event{ask}) },
		"rename":     func() error { return r.Rename(ctx, "s", "u") },
		"delete":     func() error { return r.Delete(ctx, "s", 0, func(map[int]int64) error { return nil }) },
		"retract": func() error {
			return r.AppendRetraction(ctx, "s", &store.Event{Seq: 1, Kind: "retract", Ref: 1, Index: 0, X: []float64{0}})
		},
	} {
		if err := write(); !errors.Is(err, store.ErrReadOnly) {
			t.Errorf("%s: %v, want ErrReadOnly", name, err)
		}
	}
	names, err := r.Names(ctx)
	if err != nil || len(names) != 1 || names[0] != "s" {
		t.Errorf("studies after the refused writes: %v, %v; want [s]", names, err)
	}
	if n, err := r.LastSeq(ctx, "s"); err != nil || n != 0 {
		t.Errorf("events after the refused writes: %d, %v; want 0", n, err)
	}
}

// TestEventsUnwritable: an event whose values JSON cannot hold (NaN in
// its point, context or fit record) is an error naming the event and
// the field, and nothing of the batch is stored; a study unknown to
// Delete is ErrNotFound.
func TestEventsUnwritable(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, err := store.Open(filepath.Join(t.TempDir(), "u.db"), store.OpenOptions{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.Create(ctx, "s", []byte(`{}`), [][]float64{{0}, {1}}, []int{0}); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	nan := math.NaN()
	ok := store.Event{Seq: 1, Kind: "ask", Ask: 1, Index: 0, X: []float64{0}, Created: now}
	for _, c := range []struct {
		name string
		e    store.Event
		want string
	}{
		{"point", store.Event{Seq: 2, Kind: "tell", Index: -1, X: []float64{nan}, G: []float64{}, Created: now}, "event 2: point"},
		{"context", store.Event{Seq: 2, Kind: "tell", Index: -1, X: []float64{0.5}, G: []float64{}, Context: []float64{nan}, Created: now}, "event 2: context"},
		{"fit", store.Event{Seq: 2, Kind: "fit", Index: -1, Fit: &config.FitRecord{Points: 1, LML: []float64{nan}}, Created: now}, "event 2: fit record"},
	} {
		err := st.AppendAll(ctx, "s", []store.Event{ok, c.e})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error containing %q", c.name, err, c.want)
		}
		if n, err := st.LastSeq(ctx, "s"); err != nil || n != 0 {
			t.Errorf("%s: %d events stored (%v), want none", c.name, n, err)
		}
	}
	err = st.Delete(ctx, "nobody", 0, func(map[int]int64) error { return nil })
	if !errors.Is(err, store.ErrNotFound) {
		t.Errorf("delete of an unknown study: %v, want ErrNotFound", err)
	}
}

// TestLoadRefusesDamagedRecord: a study row whose stored decision set or
// seed set is not JSON, or a fit event whose record is not, is an
// error naming what could not be read (the record sum, which would catch
// the edit first, is cleared as a study made before it has none).
func TestLoadRefusesDamagedRecord(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, err := store.Open(filepath.Join(t.TempDir(), "d.db"), store.OpenOptions{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.Create(ctx, "s", []byte(`{}`), [][]float64{{0}, {1}}, []int{0}); err != nil {
		t.Fatal(err)
	}
	fit := store.Event{Seq: 1, Kind: "fit", Index: -1, Fit: &config.FitRecord{Points: 3, Skipped: "too few"}, Created: time.Now()}
	if err := st.Append(ctx, "s", &fit); err != nil {
		t.Fatal(err)
	}
	evs, err := st.Events(ctx, "s")
	if err != nil || len(evs) != 1 || evs[0].Fit == nil || evs[0].Fit.Points != 3 || evs[0].Fit.Skipped != "too few" || evs[0].Index != -1 {
		t.Fatalf("undamaged: %+v, %v", evs, err)
	}
	db := store.DB(st)
	if _, err := db.Exec(`UPDATE studies SET record_sum = NULL`); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ damage, repair, want string }{
		{`UPDATE studies SET actions = 'x'`, `UPDATE studies SET actions = '[[0],[1]]'`, `study "s": stored actions`},
		{`UPDATE studies SET seeds = '{'`, `UPDATE studies SET seeds = '[0]'`, `study "s": stored seeds`},
		{`UPDATE events SET model = '[1'`, `UPDATE events SET model = '{"points":3}'`, "event 1: fit record"},
	} {
		if _, err := db.Exec(c.damage); err != nil {
			t.Fatalf("%s: %v", c.damage, err)
		}
		if _, _, err := st.Load(ctx, "s"); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("after %s: %v, want an error containing %q", c.damage, err, c.want)
		}
		if _, err := db.Exec(c.repair); err != nil {
			t.Fatalf("%s: %v", c.repair, err)
		}
		if _, _, err := st.Load(ctx, "s"); err != nil {
			t.Fatalf("after %s: %v", c.repair, err)
		}
	}
}

// TestImportTwice: the rows of an import, by their digest, are taken
// once; the repeat, in AppendImport's own transaction, is a
// *DuplicateImportError naming the observations they became, and stores
// nothing more. An import to a study that is not there stores nothing.
func TestImportTwice(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, err := store.Open(filepath.Join(t.TempDir(), "i.db"), store.OpenOptions{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.Create(ctx, "s", []byte(`{}`), [][]float64{{0}, {1}}, []int{0}); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	rows := []store.Event{
		{Seq: 1, Kind: "tell", Index: 0, X: []float64{0}, F: 1, G: []float64{}, Created: now},
		{Seq: 2, Kind: "tell", Index: 1, X: []float64{1}, F: 2, G: []float64{}, Created: now},
	}
	if err := st.AppendImport(ctx, "s", rows, "d1"); err != nil {
		t.Fatal(err)
	}
	again := []store.Event{rows[0], rows[1]}
	again[0].Seq, again[1].Seq = 3, 4
	err = st.AppendImport(ctx, "s", again, "d1")
	var dup *store.DuplicateImportError
	if !errors.As(err, &dup) || !errors.Is(err, store.ErrDuplicateImport) || dup.First != 1 || dup.Last != 2 || !strings.Contains(err.Error(), "observations 1…2") {
		t.Fatalf("the repeat: %v, want a DuplicateImportError of observations 1…2", err)
	}
	if n, err := st.LastSeq(ctx, "s"); err != nil || n != 2 {
		t.Errorf("events after the repeat: %d, %v; want 2", n, err)
	}
	if err := st.AppendImport(ctx, "nobody", again, "d2"); err == nil {
		t.Error("an import to an unknown study was taken")
	}
	if n, err := st.LastSeq(ctx, "nobody"); err != nil || n != 0 {
		t.Errorf("events of the unknown study: %d, %v; want 0", n, err)
	}
}
