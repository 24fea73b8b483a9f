package store

import (
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
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
		ask   INTEGER NOT NULL,                  -- a pending ask (its event's seq; from version 9 its ID, ask_base + seq)
		until INTEGER NOT NULL,                  -- the end of the lease, Unix time in milliseconds
		token TEXT    NOT NULL,                  -- the holder's lease token, new at every leased hand-out; '': handed out again without a lease
		since INTEGER NOT NULL,                  -- when the holder got the ask, Unix time in milliseconds
		PRIMARY KEY (study, ask)
	) WITHOUT ROWID;`,
	// Version 7: contextMigration.
	contextMigration,
	// Version 8: importMigration.
	importMigration,
	// Version 9: askBaseMigration.
	askBaseMigration,
	// Version 10: failMigration.
	failMigration,
}

// failMigration admits events of kind 'fail' (issue 43): a trial that
// produced no values, told of an ask or of a setting outside the loop. It
// has no f and no g. It admits events of kind 'extend' too, a study's
// horizon extended, with their new horizon in a column of its own. SQLite cannot change a CHECK constraint, so the
// table is rebuilt with its rows, as for version 5; at most one tell or
// failure answers an ask.
const failMigration = `CREATE TABLE events_v10 (
		study     TEXT    NOT NULL REFERENCES studies(name),
		seq       INTEGER NOT NULL,              -- per-study order of asks, tells, failures, retractions and fits
		kind      TEXT    NOT NULL CHECK (kind IN ('ask', 'tell', 'fail', 'retract', 'fit', 'extend')),
		ask       INTEGER,                       -- an ask's own id; the ask a tell or failure answers, or NULL
		idx       INTEGER,                       -- the action's index in the decision set; NULL: a point outside it, or a fit
		x         TEXT    NOT NULL,              -- the point, JSON [x1…] (a retraction: the retracted tell's; a fit: [])
		f         REAL,
		g         TEXT,                          -- JSON [g1…], tells only
		violation INTEGER NOT NULL DEFAULT 0,
		created   TEXT    NOT NULL,
		ref       INTEGER,                       -- a retraction's observation: the seq of the tell or failure it retracts
		noise_std REAL CHECK (noise_std IS NULL OR noise_std >= 0), -- a tell's own noise standard deviation; NULL: the model's σ
		model     TEXT,                          -- a fit's record, JSON (config.FitRecord)
		context   TEXT,                          -- an ask's, tell's or failure's context values, JSON [c1…]; NULL: no context
		horizon   INTEGER,                       -- an extension's new horizon
		CHECK ((kind = 'retract') = (ref IS NOT NULL)),
		CHECK ((kind = 'extend') = (horizon IS NOT NULL)),
		CHECK ((kind = 'fit') = (model IS NOT NULL)),
		CHECK (kind != 'fail' OR (f IS NULL AND g IS NULL)),
		PRIMARY KEY (study, seq)
	);
	INSERT INTO events_v10 (study, seq, kind, ask, idx, x, f, g, violation, created, ref, noise_std, model, context)
		SELECT study, seq, kind, ask, idx, x, f, g, violation, created, ref, noise_std, model, context FROM events;
	DROP TABLE events;
	ALTER TABLE events_v10 RENAME TO events;
	CREATE UNIQUE INDEX one_tell_per_ask ON events(study, ask) WHERE kind IN ('tell', 'fail') AND ask IS NOT NULL;
	CREATE UNIQUE INDEX one_retraction_per_observation ON events(study, ref) WHERE kind = 'retract';`

// askBaseMigration keeps ask IDs from being reused within a database
// (issue 40, item 2). A study's ask IDs are ask_base + its event's seq;
// retired_names holds, for each name a study left (deleted, or renamed
// away), the highest ask ID it could have handed out, and a study that
// takes the name later numbers its asks above it: an ask of the old study
// told by a late client is then unknown, never taken as the new one's.
// Existing studies keep ask_base 0, their IDs unchanged.
//
// It also adds record_sum, the sha256 of the study's spec, actions and
// seeds as created (recordSum): an edit of any of them, the seed set
// above all, which replayed silently (issue 40, item 8), is ErrDamaged at
// load. Studies made before keep NULL, unchecked.
const askBaseMigration = `ALTER TABLE studies ADD COLUMN ask_base INTEGER NOT NULL DEFAULT 0; -- the study's ask IDs are ask_base + seq
	ALTER TABLE studies ADD COLUMN record_sum TEXT; -- sha256 of spec, actions and seeds as created, hex; NULL: made before version 9
	CREATE TABLE retired_names (
		name     TEXT    PRIMARY KEY,           -- a name a study left: deleted, or renamed to another
		last_ask INTEGER NOT NULL               -- the highest ask ID a study of this name could have handed out
	) WITHOUT ROWID;`

// contextMigration adds the context of an ask or a tell (a spec's
// context block): its values, JSON [c1…] in the order of context.names. A
// new column, NULL in every existing row — a study without a context —
// so that old studies replay identically; ADD COLUMN keeps the rows and
// indexes as they are.
const contextMigration = `ALTER TABLE events ADD COLUMN context TEXT; -- an ask's or a tell's context values, JSON [c1…] in the order of the spec's context.names; NULL: no context`

// importMigration records the imports made, by the digest of their rows,
// so that a retried import is refused (ErrDuplicateImport) instead of
// stored twice: operational state beside the events, as the leases are.
const importMigration = `CREATE TABLE imports (
		study   TEXT    NOT NULL REFERENCES studies(name),
		digest  TEXT    NOT NULL,               -- sha256 of the rows (ImportDigest), hex
		first   INTEGER NOT NULL,               -- the observations the rows became: first … last
		last    INTEGER NOT NULL,
		created TEXT    NOT NULL,
		PRIMARY KEY (study, digest)
	) WITHOUT ROWID;`

// Store is a SQLite file holding any number of studies.
type Store struct {
	path     string // the database file, absolute
	db       *sql.DB
	version  int     // schema version of the file
	readOnly bool    // opened with ReadOnly
	tmp      string  // a read-only open of an older schema: the folder of its migrated copy
	handle   *handle // this process's registration of the file (handles.go)
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
func Open(path string, opt OpenOptions) (_ *Store, err error) {
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
	// The file is registered as this process's before any connection of
	// the store opens it, and unregistered once they are closed; until then
	// no other Open of this process reads it through a descriptor of its
	// own (held).
	var version int
	h, held, wal, err := register(abs)
	defer func() {
		if err != nil {
			h.release() // its connections, if any, are closed
		}
	}()
	if err == nil {
		version, err = inspect(abs, held, wal)
	}
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
		// A connection opened read-write that may only read: the last
		// connection to close then checkpoints the file and removes its
		// -wal and -shm, which a mode=ro connection creates and cannot
		// remove (a read would leave two files behind). A file this
		// process cannot write is opened mode=ro.
		params := []string{"_pragma=query_only(1)", busy}
		if version < len(migrations) {
			// Only to copy it (migrateCopy): VACUUM INTO writes
			// the copy, which query_only refuses, and reads the file.
			params = params[1:]
		}
		if !writable(abs) {
			params = append(params, "mode=ro")
		}
		db, err = sql.Open("sqlite", dsn(abs, params...))
	} else {
		db, err = sql.Open("sqlite", dsn(abs, "_pragma=journal_mode(WAL)", "_pragma=synchronous(FULL)", busy, "_pragma=foreign_keys(1)", "_txlock=immediate"))
	}
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	s := &Store{path: abs, db: db, version: version, readOnly: opt.ReadOnly, handle: h}
	if version < len(migrations) {
		defer h.identify() // a file this open creates is known by its identity once it exists
		if opt.ReadOnly {
			// Nothing may be written to the file: its copy is
			// migrated instead, so that every reader reads one schema.
			if err := s.migrateCopy(); err != nil {
				s.Close()
				return nil, fmt.Errorf("open %s: %w", path, storageError(err, abs))
			}
			return s, nil
		}
		if err := s.migrate(); err != nil {
			db.Close()
			return nil, fmt.Errorf("open %s: %w", path, storageError(err, abs))
		}
	}
	return s, nil
}

// migrateCopy is a read-only open of an older schema: the database is
// copied (VACUUM INTO, a consistent snapshot, reading only) into a
// temporary folder, which the store then reads, migrated; Close removes
// it. The copy costs the file's size on disk once per open, and only
// for a file no writable open has upgraded yet.
func (s *Store) migrateCopy() error {
	tmp, err := os.MkdirTemp("", "safegp-migrate-")
	if err != nil {
		return err
	}
	s.tmp = tmp
	cp := filepath.Join(tmp, "study.db")
	if _, err := s.db.Exec(`VACUUM INTO ?`, cp); err != nil {
		return fmt.Errorf("copy the database to migrate it: %w", err)
	}
	s.db.Close()
	if s.db, err = sql.Open("sqlite", dsn(cp, "_pragma=foreign_keys(1)", "_txlock=immediate")); err != nil {
		return err
	}
	return s.migrate()
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

// inspect returns the schema version of the study database at abs,
// reading only, through a read-only SQLite connection that sets no pragma:
// wal says the header (read by register) marks a WAL-mode file, so that
// the file, while it has no -wal file, is read as immutable: a read-only
// connection to a WAL-mode file creates its -wal and -shm files and leaves
// them, where an immutable one takes no lock and makes no file. An
// immutable read races a writer that starts meanwhile (another process's:
// one of this process holds the file, and register then says held): what
// it reads is then checked again through a connection that locks, whose
// answer stands.
func inspect(abs string, held, wal bool) (int, error) {
	if wal && !held {
		if _, err := os.Stat(abs + "-wal"); errors.Is(err, fs.ErrNotExist) {
			v, err := inspectSQLite(abs, true)
			_, walErr := os.Stat(abs + "-wal")
			if code := sqliteCode(err); errors.Is(walErr, fs.ErrNotExist) && code != sqliteCorrupt && code != sqliteNotADB {
				return v, err // its verdict, the file unchanged meanwhile
			}
		}
	}
	return inspectSQLite(abs, false)
}

// inspectSQLite reads the schema version of the file at abs through one
// read-only connection, immutable or locking.
func inspectSQLite(abs string, immutable bool) (int, error) {
	// A busy timeout (a setting of the connection, nothing written) lets
	// the check wait out another process's write or checkpoint instead of
	// failing at once with SQLITE_BUSY, which is no reason to call the
	// file foreign (TestConcurrentTellsOfOneAsk raced into it).
	params := []string{"mode=ro", fmt.Sprintf("_pragma=busy_timeout(%d)", DefaultBusyTimeout.Milliseconds())}
	if immutable {
		params = append(params, "immutable=1")
	}
	db, err := sql.Open("sqlite", dsn(abs, params...))
	if err != nil {
		return 0, err
	}
	defer db.Close()
	rows, err := db.Query(`SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('schema_version', 'studies', 'events')`)
	if Busy(err) {
		return 0, err // held by another writer past the timeout: worth a retry, not foreign
	}
	if se := storageError(err, abs); se != err {
		return 0, se // a full disk, an I/O error: not the file's fault
	}
	if code := sqliteCode(err); code == sqliteNotADB {
		return 0, fmt.Errorf("%w: not a SQLite database", ErrNotStudyDB)
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
	err := s.db.Close()
	s.handle.release() // after the connections are closed, never before
	if s.tmp != "" {
		os.RemoveAll(s.tmp)
	}
	return err
}

// Path is the database file, absolute.
func (s *Store) Path() string { return s.path }

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
