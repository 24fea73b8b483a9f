package study

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/safegp/safegp/config"
	"github.com/safegp/safegp/problem"
	_ "modernc.org/sqlite" // the "sqlite" database/sql driver
)

// Errors of Open: the file is not a study database this safegp can use.
// Open checks this before it writes anything, so that pointing --db at
// another application's file never changes it.
var (
	ErrNotStudyDB  = errors.New("not a safegp study database")
	ErrNewerSchema = errors.New("study database made by a newer safegp")
)

// ErrDamaged: a study's records break the rules every safegp writes them
// by (numbered without gaps, a tell's values present and finite): the
// file was edited or damaged, and replaying it would pass over the
// damage.
var ErrDamaged = errors.New("study database damaged")

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
	// Version 2: retractions. SQLite cannot change a CHECK constraint, so
	// the events table is rebuilt with its rows; dropping the old table
	// drops its index, which is made again.
	`CREATE TABLE events_v2 (
		study     TEXT    NOT NULL REFERENCES studies(name),
		seq       INTEGER NOT NULL,              -- per-study order of asks, tells and retractions
		kind      TEXT    NOT NULL CHECK (kind IN ('ask', 'tell', 'retract')),
		ask       INTEGER,                       -- an ask's own id (= seq); a tell's ask, or NULL
		idx       INTEGER NOT NULL,              -- the action (a retraction: the retracted tell's)
		f         REAL,
		g         TEXT,                          -- JSON [g1…], tells only
		violation INTEGER NOT NULL DEFAULT 0,
		created   TEXT    NOT NULL,
		ref       INTEGER,                       -- a retraction's observation: the seq of the tell it retracts
		CHECK ((kind = 'retract') = (ref IS NOT NULL)),
		PRIMARY KEY (study, seq)
	);
	INSERT INTO events_v2 (study, seq, kind, ask, idx, f, g, violation, created)
		SELECT study, seq, kind, ask, idx, f, g, violation, created FROM events;
	DROP TABLE events;
	ALTER TABLE events_v2 RENAME TO events;
	CREATE UNIQUE INDEX one_tell_per_ask ON events(study, ask) WHERE kind = 'tell' AND ask IS NOT NULL;
	CREATE UNIQUE INDEX one_retraction_per_observation ON events(study, ref) WHERE kind = 'retract';`,
	// Version 3: every event carries its point x, and idx becomes NULL for
	// a point outside the decision set (a measurement made outside the
	// loop). The table is rebuilt, since SQLite cannot drop a NOT NULL;
	// the points of the existing rows are the stored actions at their
	// idx, read through a temporary table keyed by (study, idx), so that
	// the study's actions are parsed once, not once per row. An event
	// whose idx is not an action fails the NOT NULL on x, and with it the
	// migration, rather than be dropped.
	`CREATE TABLE events_v3 (
		study     TEXT    NOT NULL REFERENCES studies(name),
		seq       INTEGER NOT NULL,              -- per-study order of asks, tells and retractions
		kind      TEXT    NOT NULL CHECK (kind IN ('ask', 'tell', 'retract')),
		ask       INTEGER,                       -- an ask's own id (= seq); a tell's ask, or NULL
		idx       INTEGER,                       -- the action's index in the decision set; NULL: a point outside it
		x         TEXT    NOT NULL,              -- the point, JSON [x1…] (a retraction: the retracted tell's)
		f         REAL,
		g         TEXT,                          -- JSON [g1…], tells only
		violation INTEGER NOT NULL DEFAULT 0,
		created   TEXT    NOT NULL,
		ref       INTEGER,                       -- a retraction's observation: the seq of the tell it retracts
		CHECK ((kind = 'retract') = (ref IS NOT NULL)),
		PRIMARY KEY (study, seq)
	);
	CREATE TEMP TABLE migrate_points (study TEXT NOT NULL, idx INTEGER NOT NULL, x TEXT NOT NULL, PRIMARY KEY (study, idx)) WITHOUT ROWID;
	INSERT INTO migrate_points (study, idx, x)
		SELECT s.name, j.key, j.value FROM studies s, json_each(s.actions) j
		WHERE EXISTS (SELECT 1 FROM events e WHERE e.study = s.name);
	INSERT INTO events_v3 (study, seq, kind, ask, idx, x, f, g, violation, created, ref)
		SELECT e.study, e.seq, e.kind, e.ask, e.idx, p.x, e.f, e.g, e.violation, e.created, e.ref
		FROM events e LEFT JOIN migrate_points p ON p.study = e.study AND p.idx = e.idx;
	DROP TABLE migrate_points;
	DROP TABLE events;
	ALTER TABLE events_v3 RENAME TO events;
	CREATE UNIQUE INDEX one_tell_per_ask ON events(study, ask) WHERE kind = 'tell' AND ask IS NOT NULL;
	CREATE UNIQUE INDEX one_retraction_per_observation ON events(study, ref) WHERE kind = 'retract';`,
	// Version 4: a tell may carry its own noise standard deviation
	// (heteroscedastic, known noise). A new column, NULL in every
	// existing row — the model's σ, which is what those tells used — so
	// that old studies replay identically; ADD COLUMN keeps the rows and
	// indexes as they are.
	`ALTER TABLE events ADD COLUMN noise_std REAL CHECK (noise_std IS NULL OR noise_std >= 0); -- a tell's own noise standard deviation; NULL: the model's σ`,
	// Version 5: fits of the model (model.fit), recorded as events of
	// kind 'fit' whose model column holds the fitted kernels and their
	// log marginal likelihoods (JSON), so that a study replays the
	// recorded parameters instead of fitting again. SQLite cannot change
	// a CHECK constraint, so the table is rebuilt with its rows, as for
	// version 2; a fit event has no action (idx NULL) and the point [].
	`CREATE TABLE events_v5 (
		study     TEXT    NOT NULL REFERENCES studies(name),
		seq       INTEGER NOT NULL,              -- per-study order of asks, tells, retractions and fits
		kind      TEXT    NOT NULL CHECK (kind IN ('ask', 'tell', 'retract', 'fit')),
		ask       INTEGER,                       -- an ask's own id (= seq); a tell's ask, or NULL
		idx       INTEGER,                       -- the action's index in the decision set; NULL: a point outside it, or a fit
		x         TEXT    NOT NULL,              -- the point, JSON [x1…] (a retraction: the retracted tell's; a fit: [])
		f         REAL,
		g         TEXT,                          -- JSON [g1…], tells only
		violation INTEGER NOT NULL DEFAULT 0,
		created   TEXT    NOT NULL,
		ref       INTEGER,                       -- a retraction's observation: the seq of the tell it retracts
		noise_std REAL CHECK (noise_std IS NULL OR noise_std >= 0), -- a tell's own noise standard deviation; NULL: the model's σ
		model     TEXT,                          -- a fit's record, JSON (config.FitRecord)
		CHECK ((kind = 'retract') = (ref IS NOT NULL)),
		CHECK ((kind = 'fit') = (model IS NOT NULL)),
		PRIMARY KEY (study, seq)
	);
	INSERT INTO events_v5 (study, seq, kind, ask, idx, x, f, g, violation, created, ref, noise_std)
		SELECT study, seq, kind, ask, idx, x, f, g, violation, created, ref, noise_std FROM events;
	DROP TABLE events;
	ALTER TABLE events_v5 RENAME TO events;
	CREATE UNIQUE INDEX one_tell_per_ask ON events(study, ask) WHERE kind = 'tell' AND ask IS NOT NULL;
	CREATE UNIQUE INDEX one_retraction_per_observation ON events(study, ref) WHERE kind = 'retract';`,
	// Version 6: leases of pending asks (batches handed to parallel
	// workers). Operational state, not part of a study's replay: a row
	// says that the ask is held until then by the caller that was given
	// the token, and a row of an ask no longer pending (told, withdrawn)
	// is ignored and removed at the next ask.
	`CREATE TABLE leases (
		study TEXT    NOT NULL REFERENCES studies(name),
		ask   INTEGER NOT NULL,                  -- a pending ask (its event's seq)
		until INTEGER NOT NULL,                  -- the end of the lease, Unix time in milliseconds
		token TEXT    NOT NULL,                  -- the holder's lease token, new at every leased hand-out; '': handed out again without a lease
		since INTEGER NOT NULL,                  -- when the holder got the ask, Unix time in milliseconds
		PRIMARY KEY (study, ask)
	) WITHOUT ROWID;`,
	// Version 7: contextMigration.
	contextMigration,
	// Version 8: importMigration.
	importMigration,
}

// contextMigration adds the context of an ask or a tell (a spec's
// context block): its values, JSON [c1…] in the order of context.names. A
// new column, NULL in every existing row — a study without a context —
// so that old studies replay identically; ADD COLUMN keeps the rows and
// indexes as they are.
const contextMigration = `ALTER TABLE events ADD COLUMN context TEXT; -- an ask's or a tell's context values, JSON [c1…] in the order of the spec's context.names; NULL: no context`

// contextVersion is the schema version from which events have a context
// column: where contextMigration stands in the list.
var contextVersion = slices.Index(migrations, contextMigration) + 1

// importMigration records the imports made, by the digest of their rows,
// so that a retried import is refused (ErrDuplicateImport) instead of
// stored twice: operational state beside the events, as the leases are.
const importMigration = `CREATE TABLE imports (
		study   TEXT    NOT NULL REFERENCES studies(name),
		digest  TEXT    NOT NULL,               -- sha256 of the rows (importDigest), hex
		first   INTEGER NOT NULL,               -- the observations the rows became: first … last
		last    INTEGER NOT NULL,
		created TEXT    NOT NULL,
		PRIMARY KEY (study, digest)
	) WITHOUT ROWID;`

// Store is a SQLite file holding any number of studies.
type Store struct {
	path     string // the database file, absolute
	db       *sql.DB
	version  int  // schema version of the file
	readOnly bool // opened with ReadOnly
	// listed caches what List reads of each study's spec, which never
	// changes: name → listStatic (dashboard.go).
	listed sync.Map
	// lastStmt reads a study's last sequence number (lastSeq), prepared
	// on first use.
	lastOnce sync.Once
	lastStmt *sql.Stmt
	lastErr  error
}

// OpenOptions say what Open may do to the file.
type OpenOptions struct {
	// Create lets Open create the database when the file does not exist
	// (study create, serve). Without it a missing file is an error. An
	// existing file must be a safegp database either way: an empty file
	// or another application's SQLite file is refused, never converted.
	Create bool
	// ReadOnly opens for reading only (show, export, plot): nothing is
	// written to the file, not even a schema upgrade.
	ReadOnly bool
	// BusyTimeout is how long a statement waits for another process's
	// lock before it fails as busy (0: DefaultBusyTimeout).
	BusyTimeout time.Duration
}

// DefaultBusyTimeout is the default of OpenOptions.BusyTimeout.
const DefaultBusyTimeout = 10 * time.Second

// sqliteHeader starts every SQLite 3 database file.
const sqliteHeader = "SQLite format 3\x00"

// Open opens the study database at path. Before anything can write to the
// file — a pragma, a journal, the schema — it checks, reading only, that
// the file exists (unless opt.Create) and is a safegp database of a schema
// this safegp knows: ErrNotStudyDB and ErrNewerSchema say why not. A
// writable store is then brought up to date and uses WAL mode with full
// synchronization: a committed tell survives a crash of the process or of
// the machine.
func Open(path string, opt OpenOptions) (*Store, error) {
	if opt.Create && opt.ReadOnly {
		return nil, fmt.Errorf("open %s: Create and ReadOnly exclude each other", path)
	}
	if strings.IndexByte(path, 0) >= 0 || path == "" {
		return nil, fmt.Errorf("open %q: invalid path", path)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	version, err := inspectFile(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist) && opt.Create:
		version = 0
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("open %s: no such file (create a study first with safegp study create): %w", path, err)
	case err != nil:
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	if opt.BusyTimeout <= 0 {
		opt.BusyTimeout = DefaultBusyTimeout
	}
	busy := fmt.Sprintf("_pragma=busy_timeout(%d)", max(opt.BusyTimeout.Milliseconds(), 1))
	var db *sql.DB
	if opt.ReadOnly {
		db, err = sql.Open("sqlite", dsn(abs, "mode=ro", busy))
	} else {
		db, err = sql.Open("sqlite", dsn(abs, "_pragma=journal_mode(WAL)", "_pragma=synchronous(FULL)", busy, "_pragma=foreign_keys(1)", "_txlock=immediate"))
	}
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	s := &Store{path: abs, db: db, version: version, readOnly: opt.ReadOnly}
	if !opt.ReadOnly && version < len(migrations) {
		if err := s.migrate(); err != nil {
			db.Close()
			return nil, fmt.Errorf("open %s: %w", path, storageError(err, abs))
		}
	}
	return s, nil
}

// dsn is the modernc.org/sqlite data source name of the file at the
// absolute path abs: a SQLite URI whose path is percent-escaped, so that a
// '?', '#' or '%' in a file name names that file and cannot start the
// query (which would open another file and drop the pragmas after it).
func dsn(abs string, params ...string) string {
	p := filepath.ToSlash(abs)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // a Windows drive: file:/C:/…
	}
	var b strings.Builder
	b.WriteString("file:")
	for i := 0; i < len(p); i++ {
		c := p[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-._~/", c) >= 0 {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	b.WriteByte('?')
	b.WriteString(strings.Join(params, "&"))
	return b.String()
}

// inspectFile returns the schema version of the study database at abs,
// reading only: the file's header first, then its tables through a
// read-only connection that sets no pragma. A missing file is an error
// wrapping fs.ErrNotExist.
func inspectFile(abs string) (int, error) {
	f, err := os.Open(abs)
	if err != nil {
		return 0, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return 0, err
	}
	if st.IsDir() {
		f.Close()
		return 0, fmt.Errorf("%w: is a directory", ErrNotStudyDB)
	}
	head := make([]byte, 20)
	n, _ := io.ReadFull(f, head)
	f.Close()
	switch {
	case st.Size() == 0:
		return 0, fmt.Errorf("%w: the file is empty (safegp creates its database itself: give a path that does not exist yet)", ErrNotStudyDB)
	case n < len(sqliteHeader) || !bytes.Equal(head[:len(sqliteHeader)], []byte(sqliteHeader)):
		return 0, fmt.Errorf("%w: not a SQLite database", ErrNotStudyDB)
	}
	// A busy timeout (a setting of the connection, nothing written) lets
	// the check wait out another process's write or checkpoint instead of
	// failing at once with SQLITE_BUSY, which is no reason to call the
	// file foreign (TestConcurrentTellsOfOneAsk raced into it).
	params := []string{"mode=ro", fmt.Sprintf("_pragma=busy_timeout(%d)", DefaultBusyTimeout.Milliseconds())}
	// Even a read-only connection to a database in WAL mode (header
	// bytes 18 and 19 = 2) creates the -wal and -shm files beside it, and
	// leaves them. Without a -wal file every page is in the database
	// file, which can then be read as immutable: no locks, no files.
	if _, err := os.Stat(abs + "-wal"); n == 20 && head[18] == 2 && errors.Is(err, fs.ErrNotExist) {
		params = append(params, "immutable=1")
	}
	db, err := sql.Open("sqlite", dsn(abs, params...))
	if err != nil {
		return 0, err
	}
	defer db.Close()
	rows, err := db.Query(`SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('schema_version', 'studies', 'events')`)
	if ErrBusy(err) {
		return 0, err // held by another writer past the timeout: worth a retry, not foreign
	}
	if se := storageError(err, abs); se != err {
		return 0, se // a full disk, an I/O error: not the file's fault
	}
	if err != nil {
		return 0, fmt.Errorf("%w: %w", ErrNotStudyDB, err)
	}
	tables := 0
	for rows.Next() {
		tables++
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		if se := storageError(err, abs); se != err {
			return 0, se
		}
		return 0, fmt.Errorf("%w: %w", ErrNotStudyDB, err)
	}
	if tables != 3 {
		return 0, fmt.Errorf("%w: a SQLite database without safegp's tables (another application's file?)", ErrNotStudyDB)
	}
	var v int
	if err := db.QueryRow(`SELECT version FROM schema_version`).Scan(&v); err != nil {
		if se := storageError(err, abs); se != err {
			return 0, se
		}
		return 0, fmt.Errorf("%w: schema version: %w", ErrNotStudyDB, err)
	}
	if v > len(migrations) {
		return 0, fmt.Errorf("%w: schema version %d, this safegp knows up to %d: upgrade safegp", ErrNewerSchema, v, len(migrations))
	}
	if v < 1 {
		return 0, fmt.Errorf("%w: schema version %d", ErrNotStudyDB, v)
	}
	return v, nil
}

// Close closes the database.
func (s *Store) Close() error {
	if s.lastStmt != nil {
		s.lastStmt.Close()
	}
	return s.db.Close()
}

// migrate brings the schema up to date in one transaction, which holds the
// write lock from its start (_txlock=immediate): a concurrent process
// migrating the same file waits and then finds the work done.
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
		return fmt.Errorf("%w: schema version %d, this safegp knows up to %d: upgrade safegp", ErrNewerSchema, v, len(migrations))
	}
	for ; v < len(migrations); v++ {
		if _, err := tx.Exec(migrations[v]); err != nil {
			return fmt.Errorf("migrate schema to version %d: %w", v+1, err)
		}
	}
	if _, err := tx.Exec(`UPDATE schema_version SET version = ?`, v); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	s.version = v
	return nil
}

// Event is one recorded ask, tell, retraction or fit.
type Event struct {
	Seq   int    `json:"seq"`
	Kind  string `json:"kind"`          // ask, tell or retract
	Ask   int    `json:"ask,omitempty"` // an ask's id; the ask a tell answers (0: outside the loop)
	Index int    `json:"index"`         // the action, −1 for a point outside the decision set (a retraction: the retracted tell's)
	// X is the point (a retraction: the retracted tell's). For an action
	// of the decision set it is the set's own slice, not a copy.
	X []float64 `json:"x"`
	F float64   `json:"f,omitempty"`
	G []float64 `json:"g,omitempty"`
	// NoiseStd is a tell's own noise standard deviation, nil for the
	// model's σ.
	NoiseStd  *float64 `json:"noise_std,omitempty"`
	Violation bool     `json:"violation,omitempty"`
	// Context is the context of an ask or a tell of a study with a
	// context: the values of its variables in the order of the spec's
	// context.names; nil without one.
	Context []float64 `json:"context,omitempty"`
	// Fit is a fit event's record: the kernels fitted (or why the fit
	// was skipped), applied as recorded on replay.
	Fit     *config.FitRecord `json:"fit,omitempty"`
	Ref     int               `json:"ref,omitempty"` // a retraction's observation: the Seq of the tell it retracts
	Created time.Time         `json:"created"`
}

// stored is a study's row.
type stored struct {
	spec    []byte
	actions [][]float64
	seeds   []int
	created time.Time
}

func (s *Store) create(ctx context.Context, name string, spec []byte, actions [][]float64, seeds []int) error {
	if s.readOnly {
		return fmt.Errorf("study %q: the database was opened read-only", name)
	}
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
	// A read-only store is not migrated: schema 1 had no retractions,
	// schemas 1 and 2 no points (every event was at an action, idx).
	// The x of an action's row repeats the stored action: it is read only
	// for a point outside the decision set (idx NULL), so that reopening
	// a long study does not allocate a string per event.
	ref, x, noise, model, cx := "ref", "CASE WHEN idx IS NULL THEN x END", "noise_std", "model", "context"
	if s.version < 2 {
		ref = "NULL"
	}
	if s.version < 3 {
		x = "NULL"
	}
	if s.version < 4 {
		noise = "NULL"
	}
	if s.version < 5 {
		model = "NULL"
	}
	if s.version < contextVersion {
		cx = "NULL"
	}
	rows, err := s.db.QueryContext(ctx, `SELECT seq, kind, ask, idx, `+x+`, f, g, violation, created, `+ref+`, `+noise+`, `+model+`, `+cx+` FROM events WHERE study = ? ORDER BY seq`, name)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	var evs []Event
	// One set of scan destinations for all rows: Scan's arguments escape,
	// so variables declared per row would cost an allocation each per
	// event of a long study.
	var (
		ask, idx, retracted sql.NullInt64
		f, noiseStd         sql.NullFloat64
		g, point, fitted    sql.NullString
		ctxv                sql.NullString
		at                  string
		r                   Event
	)
	damaged := func(seq int, format string, args ...any) error {
		return fmt.Errorf("%w: study %q: event %d: %s; the file was edited or damaged: restore it from a backup (safegp study export reads what is left)", ErrDamaged, name, seq, fmt.Sprintf(format, args...))
	}
	for rows.Next() {
		if err := rows.Scan(&r.Seq, &r.Kind, &ask, &idx, &point, &f, &g, &r.Violation, &at, &retracted, &noiseStd, &fitted, &ctxv); err != nil {
			return nil, nil, err
		}
		// Events are numbered 1, 2, … without gaps: a gap is an event
		// deleted, which replay would pass over silently (and the next
		// write would collide with the number after it).
		if r.Seq != len(evs)+1 {
			return nil, nil, damaged(r.Seq, "the events before it end at %d: events %d…%d are missing", len(evs), len(evs)+1, r.Seq-1)
		}
		if r.Kind == "tell" {
			switch {
			case !f.Valid:
				return nil, nil, damaged(r.Seq, "a tell without its f (NULL): a missing measurement must not become 0")
			case !problem.InRange(f.Float64):
				return nil, nil, damaged(r.Seq, "a tell's f = %v is not a finite number within ±1e100", f.Float64)
			case !g.Valid:
				return nil, nil, damaged(r.Seq, "a tell without its g (NULL)")
			}
		}
		if r.Kind == "ask" && ask.Int64 != int64(r.Seq) {
			return nil, nil, damaged(r.Seq, "an ask numbered %d", ask.Int64)
		}
		if noiseStd.Valid && !(noiseStd.Float64 >= 0 && problem.InRange(noiseStd.Float64)) {
			return nil, nil, damaged(r.Seq, "noise_std = %v", noiseStd.Float64)
		}
		e := Event{Seq: r.Seq, Kind: r.Kind, Violation: r.Violation, Ask: int(ask.Int64), F: f.Float64, Ref: int(retracted.Int64)}
		if noiseStd.Valid {
			v := noiseStd.Float64
			e.NoiseStd = &v
		}
		switch {
		case r.Kind == "fit":
			e.Index = -1
			if !fitted.Valid {
				return nil, nil, fmt.Errorf("study %q: event %d: a fit without its record", name, e.Seq)
			}
			e.Fit = new(config.FitRecord)
			if err := json.Unmarshal([]byte(fitted.String), e.Fit); err != nil {
				return nil, nil, fmt.Errorf("study %q: event %d: fit record: %w", name, e.Seq, err)
			}
		case idx.Valid:
			// The index names the point: the stored actions' own row.
			if idx.Int64 < 0 || idx.Int64 >= int64(len(st.actions)) {
				return nil, nil, fmt.Errorf("study %q: event %d: action %d outside the stored decision set's 0…%d", name, e.Seq, idx.Int64, len(st.actions)-1)
			}
			e.Index, e.X = int(idx.Int64), st.actions[idx.Int64]
		case point.Valid:
			e.Index = -1
			if err := json.Unmarshal([]byte(point.String), &e.X); err != nil {
				return nil, nil, fmt.Errorf("study %q: event %d: point: %w", name, e.Seq, err)
			}
		default:
			return nil, nil, fmt.Errorf("study %q: event %d has neither an action nor a point", name, e.Seq)
		}
		if ctxv.Valid {
			if err := json.Unmarshal([]byte(ctxv.String), &e.Context); err != nil || e.Context == nil {
				return nil, nil, fmt.Errorf("study %q: event %d: context %.40q: want a JSON array of numbers: %v", name, e.Seq, ctxv.String, err)
			}
		}
		if g.Valid {
			if err := json.Unmarshal([]byte(g.String), &e.G); err != nil {
				return nil, nil, damaged(e.Seq, "g %.40q: want a JSON array of numbers (%v)", g.String, err)
			}
		}
		for _, vs := range [][]float64{e.X, e.G, e.Context} {
			for _, v := range vs {
				if !problem.InRange(v) {
					return nil, nil, damaged(e.Seq, "a value %v that is not a finite number within ±1e100", v)
				}
			}
		}
		e.Created, _ = time.Parse(time.RFC3339Nano, at)
		evs = append(evs, e)
	}
	return &st, evs, rows.Err()
}

// lastSeq returns the sequence number of a study's last event, 0 for
// none: the number of its events, which are numbered from 1 without gaps.
func (s *Store) lastSeq(ctx context.Context, name string) (int, error) {
	s.lastOnce.Do(func() {
		// Prepared once: parsing the statement cost more than running it.
		s.lastStmt, s.lastErr = s.db.Prepare(`SELECT COALESCE(MAX(seq), 0) FROM events WHERE study = ?`)
	})
	if s.lastErr != nil {
		return 0, fmt.Errorf("study %q: last event: %w", name, s.lastErr)
	}
	var last int
	if err := s.lastStmt.QueryRowContext(ctx, name).Scan(&last); err != nil {
		return 0, fmt.Errorf("study %q: last event: %w", name, storageError(err, s.path))
	}
	return last, nil
}

// append records one event in its own transaction. A conflict on the
// sequence number (or a second tell of an ask, a second retraction of an
// observation) means another process wrote to the study meanwhile.
func (s *Store) append(ctx context.Context, name string, e *Event) error {
	if s.readOnly {
		return fmt.Errorf("study %q: the database was opened read-only", name)
	}
	return insertFresh(ctx, s.db, name, e)
}

// errWrittenSince is ErrStale for study name: another process wrote to it
// since it was loaded.
func errWrittenSince(name string) error {
	return fmt.Errorf("%w: study %q was written by another process since it was loaded; retry", ErrStale, name)
}

// insertFresh is insertEvent for an event the study in memory numbered:
// a conflict on its sequence number (or a second tell of an ask, a second
// retraction of an observation) is another process's write (ErrStale).
func insertFresh(ctx context.Context, db execer, name string, e *Event) error {
	_, err := insertEvent(ctx, db, name, e)
	if err != nil && strings.Contains(err.Error(), "UNIQUE") {
		return errWrittenSince(name)
	}
	return err
}

// begin starts a write transaction for study name, refused on a store
// opened read-only.
func (s *Store) begin(ctx context.Context, name string) (*sql.Tx, error) {
	if s.readOnly {
		return nil, fmt.Errorf("study %q: the database was opened read-only", name)
	}
	return s.db.BeginTx(ctx, nil)
}

// appendAll records events in one transaction: all or none. A conflict
// means another process wrote to the study meanwhile, as for append.
func (s *Store) appendAll(ctx context.Context, name string, evs []Event) error {
	return s.appendImport(ctx, name, evs, "")
}

// appendImport is appendAll for an import, recording its digest in the
// same transaction (none when digest is ""): a digest recorded already is
// ErrDuplicateImport, and nothing is written.
func (s *Store) appendImport(ctx context.Context, name string, evs []Event, digest string) error {
	tx, err := s.begin(ctx, name)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if digest != "" && len(evs) > 0 {
		if err := recordImport(ctx, tx, name, digest, evs[0].Seq, evs[len(evs)-1].Seq); err != nil {
			return err
		}
	}
	var ins execer = tx
	if len(evs) > 1 {
		st, err := tx.PrepareContext(ctx, insertEventSQL)
		if err != nil {
			return err
		}
		defer st.Close()
		ins = preparedInsert{st}
	}
	for i := range evs {
		if err := insertFresh(ctx, ins, name, &evs[i]); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// preparedInsert runs insertEventSQL through a statement prepared once for
// a transaction of many events (an import): parsing the INSERT cost as
// much as running it (45 % of a 40 000-row import's time).
type preparedInsert struct{ st *sql.Stmt }

func (p preparedInsert) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if query != insertEventSQL {
		panic("study: preparedInsert runs insertEventSQL only")
	}
	return p.st.ExecContext(ctx, args...)
}

// recordImport records an import's digest and the observations its rows
// became, in the import's transaction. Made before, by this study: the
// import is a repeat (ErrDuplicateImport naming when and what it became).
func recordImport(ctx context.Context, tx *sql.Tx, name, digest string, first, last int) error {
	var f, l int
	var at string
	err := tx.QueryRowContext(ctx, `SELECT first, last, created FROM imports WHERE study = ? AND digest = ?`, name, digest).Scan(&f, &l, &at)
	switch {
	case err == nil:
		return &DuplicateImportError{Digest: digest, First: f, Last: l, Created: at}
	case !errors.Is(err, sql.ErrNoRows):
		return err
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO imports (study, digest, first, last, created) VALUES (?, ?, ?, ?, ?)`,
		name, digest, first, last, time.Now().UTC().Format(time.RFC3339Nano))
	return err
}

// execer is the store's database or a transaction of it.
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// insertEvent writes one event row through db (the store or a
// transaction).
func insertEvent(ctx context.Context, db execer, name string, e *Event) (sql.Result, error) {
	var ask, ref any
	if e.Ask != 0 {
		ask = e.Ask
	}
	if e.Kind == "retract" {
		ref = e.Ref
	}
	var f, g, noise any
	if e.Kind == "tell" {
		f = e.F
		b, _ := json.Marshal(e.G)
		g = string(b)
		if e.NoiseStd != nil {
			noise = *e.NoiseStd
		}
	}
	var idx, model, cx any
	if e.Index >= 0 {
		idx = e.Index
	}
	if e.Context != nil {
		b, err := json.Marshal(e.Context)
		if err != nil {
			return nil, fmt.Errorf("study %q: event %d: context: %w", name, e.Seq, err)
		}
		cx = string(b)
	}
	x, err := json.Marshal(e.X)
	if err != nil {
		return nil, fmt.Errorf("study %q: event %d: point: %w", name, e.Seq, err)
	}
	if e.Kind == "fit" {
		b, err := json.Marshal(e.Fit)
		if err != nil {
			return nil, fmt.Errorf("study %q: event %d: fit record: %w", name, e.Seq, err)
		}
		model, x = string(b), []byte("[]")
	}
	return db.ExecContext(ctx, insertEventSQL,
		name, e.Seq, e.Kind, ask, idx, string(x), f, g, e.Violation, e.Created.UTC().Format(time.RFC3339Nano), ref, noise, model, cx)
}

// insertEventSQL writes an event row (insertEvent's arguments).
const insertEventSQL = `INSERT INTO events (study, seq, kind, ask, idx, x, f, g, violation, created, ref, noise_std, model, context) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`

// Events returns a study's recorded asks, tells and retractions in order.
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
