package study

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	_ "modernc.org/sqlite" // the "sqlite" database/sql driver
)

// migrations[v] brings the schema from version v to v+1. Append only.
var migrations = []string{
	`CREATE TABLE studies (
		name    TEXT PRIMARY KEY,
		spec    TEXT NOT NULL, -- the specification, JSON
		actions TEXT NOT NULL, -- the decision set, JSON [[x…]…]
		seeds   TEXT NOT NULL, -- the seed set, JSON [i…]
		created TEXT NOT NULL
	);
	CREATE TABLE events (
		study     TEXT    NOT NULL REFERENCES studies(name),
		seq       INTEGER NOT NULL,              -- per-study order of asks and tells
		kind      TEXT    NOT NULL CHECK (kind IN ('ask', 'tell')),
		ask       INTEGER,                       -- an ask's own id (= seq); a tell's ask, or NULL
		idx       INTEGER NOT NULL,              -- the action
		f         REAL,
		g         TEXT,                          -- JSON [g1…], tells only
		violation INTEGER NOT NULL DEFAULT 0,
		created   TEXT    NOT NULL,
		PRIMARY KEY (study, seq)
	);
	CREATE UNIQUE INDEX one_tell_per_ask ON events(study, ask) WHERE kind = 'tell' AND ask IS NOT NULL;`,
}

// Store is a SQLite file holding any number of studies.
type Store struct {
	db *sql.DB
}

// Open opens (creating it if needed) the database at path and brings its
// schema up to date. WAL mode with full synchronization: a committed tell
// survives a crash of the process or of the machine.
func Open(path string) (*Store, error) {
	dsn := "file:" + path + "?_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)&_pragma=busy_timeout(10000)&_pragma=foreign_keys(1)&_txlock=immediate"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	s := &Store{db: db}
	if err := s.migrate(); err != nil {
		db.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	return s, nil
}

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

func (s *Store) migrate() error {
	tx, err := s.db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.Exec(`CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)`); err != nil {
		return err
	}
	var v int
	switch err := tx.QueryRow(`SELECT version FROM schema_version`).Scan(&v); {
	case errors.Is(err, sql.ErrNoRows):
		if _, err := tx.Exec(`INSERT INTO schema_version (version) VALUES (0)`); err != nil {
			return err
		}
	case err != nil:
		return err
	}
	if v > len(migrations) {
		return fmt.Errorf("schema version %d is newer than this safegp knows (%d): upgrade safegp", v, len(migrations))
	}
	for ; v < len(migrations); v++ {
		if _, err := tx.Exec(migrations[v]); err != nil {
			return fmt.Errorf("migrate schema to version %d: %w", v+1, err)
		}
	}
	if _, err := tx.Exec(`UPDATE schema_version SET version = ?`, v); err != nil {
		return err
	}
	return tx.Commit()
}

// Event is one recorded ask or tell.
type Event struct {
	Seq       int       `json:"seq"`
	Kind      string    `json:"kind"`
	Ask       int       `json:"ask,omitempty"` // an ask's id; the ask a tell answers (0: outside the loop)
	Index     int       `json:"index"`
	F         float64   `json:"f,omitempty"`
	G         []float64 `json:"g,omitempty"`
	Violation bool      `json:"violation,omitempty"`
	Created   time.Time `json:"created"`
}

// stored is a study's row.
type stored struct {
	spec    []byte
	actions [][]float64
	seeds   []int
	created time.Time
}

func (s *Store) create(ctx context.Context, name string, spec []byte, actions [][]float64, seeds []int) error {
	a, err := json.Marshal(actions)
	if err != nil {
		return err
	}
	sd, _ := json.Marshal(seeds)
	_, err = s.db.ExecContext(ctx, `INSERT INTO studies (name, spec, actions, seeds, created) VALUES (?, ?, ?, ?, ?)`,
		name, string(spec), string(a), string(sd), time.Now().UTC().Format(time.RFC3339Nano))
	if err != nil && strings.Contains(err.Error(), "UNIQUE") {
		return fmt.Errorf("%w: %q", ErrExists, name)
	}
	return err
}

func (s *Store) load(ctx context.Context, name string) (*stored, []Event, error) {
	var st stored
	var spec, actions, seeds, created string
	err := s.db.QueryRowContext(ctx, `SELECT spec, actions, seeds, created FROM studies WHERE name = ?`, name).Scan(&spec, &actions, &seeds, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil, fmt.Errorf("%w: %q", ErrNotFound, name)
	}
	if err != nil {
		return nil, nil, err
	}
	st.spec = []byte(spec)
	st.created, _ = time.Parse(time.RFC3339Nano, created)
	if err := json.Unmarshal([]byte(actions), &st.actions); err != nil {
		return nil, nil, fmt.Errorf("study %q: stored actions: %w", name, err)
	}
	if err := json.Unmarshal([]byte(seeds), &st.seeds); err != nil {
		return nil, nil, fmt.Errorf("study %q: stored seeds: %w", name, err)
	}
	rows, err := s.db.QueryContext(ctx, `SELECT seq, kind, ask, idx, f, g, violation, created FROM events WHERE study = ? ORDER BY seq`, name)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	var evs []Event
	for rows.Next() {
		var e Event
		var ask sql.NullInt64
		var f sql.NullFloat64
		var g sql.NullString
		var created string
		if err := rows.Scan(&e.Seq, &e.Kind, &ask, &e.Index, &f, &g, &e.Violation, &created); err != nil {
			return nil, nil, err
		}
		e.Ask, e.F = int(ask.Int64), f.Float64
		if g.Valid {
			if err := json.Unmarshal([]byte(g.String), &e.G); err != nil {
				return nil, nil, fmt.Errorf("study %q: event %d: %w", name, e.Seq, err)
			}
		}
		e.Created, _ = time.Parse(time.RFC3339Nano, created)
		evs = append(evs, e)
	}
	return &st, evs, rows.Err()
}

// append records one event in its own transaction. A conflict on the
// sequence number means another process wrote to the study meanwhile.
func (s *Store) append(ctx context.Context, name string, e *Event) error {
	var ask any
	if e.Ask != 0 {
		ask = e.Ask
	}
	var f, g any
	if e.Kind == "tell" {
		f = e.F
		b, _ := json.Marshal(e.G)
		g = string(b)
	}
	_, err := s.db.ExecContext(ctx, `INSERT INTO events (study, seq, kind, ask, idx, f, g, violation, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		name, e.Seq, e.Kind, ask, e.Index, f, g, e.Violation, e.Created.UTC().Format(time.RFC3339Nano))
	if err != nil && strings.Contains(err.Error(), "UNIQUE") {
		return fmt.Errorf("%w: study %q changed in another process; retry", ErrStale, name)
	}
	return err
}

// Events returns a study's recorded asks and tells in order.
func (s *Store) Events(ctx context.Context, name string) ([]Event, error) {
	_, evs, err := s.load(ctx, name)
	return evs, err
}

// Names lists the stored studies.
func (s *Store) Names(ctx context.Context) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT name FROM studies ORDER BY name`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		names = append(names, n)
	}
	return names, rows.Err()
}
