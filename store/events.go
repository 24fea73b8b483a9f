package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/safegp/safegp/config"
	"github.com/safegp/safegp/internal/vec"
	"github.com/safegp/safegp/problem"
)

// Event is one recorded ask, tell, retraction or fit.
type Event struct {
	Seq   int    `json:"seq"`
	Kind  string `json:"kind"`          // ask, tell, fail, retract, fit or extend
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
	Fit *config.FitRecord `json:"fit,omitempty"`
	Ref int               `json:"ref,omitempty"` // a retraction's observation: the Seq of the tell it retracts
	// Horizon is an extension's new horizon (kind extend).
	Horizon int       `json:"horizon,omitempty"`
	Created time.Time `json:"created"`
}

// Record is a study's row: its specification as created (JSON), its
// decision set's actions and seed set, and when it was created.
type Record struct {
	Spec    []byte
	Actions [][]float64
	Seeds   []int
	Created time.Time
	// AskBase numbers the study's asks: the ask of event seq has the ID
	// AskBase + seq, above every ask ID a study of the same name handed
	// out before (retired_names): IDs are never reused within a database.
	AskBase int
}

// Create stores a new study: its specification spec (JSON, opaque to the
// store) and its decision set. A name taken is ErrExists.
func (s *Store) Create(ctx context.Context, name string, spec []byte, actions [][]float64, seeds []int) error {
	return storageError(s.create(ctx, name, spec, actions, seeds), s.path)
}

func (s *Store) create(ctx context.Context, name string, spec []byte, actions [][]float64, seeds []int) error {
	if s.readOnly {
		return errReadOnly(name)
	}
	a, err := json.Marshal(actions)
	if err != nil {
		return err
	}
	sd, _ := json.Marshal(seeds)
	_, err = s.db.ExecContext(ctx, `INSERT INTO studies (name, spec, actions, seeds, created, ask_base, record_sum)
		VALUES (?, ?, ?, ?, ?, COALESCE((SELECT last_ask FROM retired_names WHERE name = ?), 0), ?)`,
		name, string(spec), string(a), string(sd), time.Now().UTC().Format(time.RFC3339Nano), name, recordSum(string(spec), string(a), string(sd)))
	if err != nil && strings.Contains(err.Error(), "UNIQUE") {
		return fmt.Errorf("%w: %q", ErrExists, name)
	}
	return err
}

// recordSum is the sha256, hex, of a study's spec, actions and seeds as
// stored, each after its length: what its row's record_sum holds.
func recordSum(spec, actions, seeds string) string {
	h := sha256.New()
	for _, p := range []string{spec, actions, seeds} {
		fmt.Fprintf(h, "%d:", len(p))
		io.WriteString(h, p)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Load reads a study: its row and its events in order. Events that break
// the rules every safegp writes them by are ErrDamaged.
func (s *Store) Load(ctx context.Context, name string) (*Record, []Event, error) {
	st, evs, err := s.load(ctx, name)
	return st, evs, storageError(err, s.path)
}

func (s *Store) load(ctx context.Context, name string) (*Record, []Event, error) {
	var st Record
	var spec, actions, seeds, created string
	var sum sql.NullString
	err := s.db.QueryRowContext(ctx, `SELECT spec, actions, seeds, created, ask_base, record_sum FROM studies WHERE name = ?`, name).Scan(&spec, &actions, &seeds, &created, &st.AskBase, &sum)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil, fmt.Errorf("%w: %q", ErrNotFound, name)
	}
	if err != nil {
		return nil, nil, err
	}
	if sum.Valid && sum.String != recordSum(spec, actions, seeds) {
		return nil, nil, fmt.Errorf("%w: study %q: its specification, decision set or seed set is not what it was created with; the file was edited or damaged: restore it from a backup (safegp study export reads its observations)", ErrDamaged, name)
	}
	st.Spec = []byte(spec)
	st.Created, _ = time.Parse(time.RFC3339Nano, created)
	if err := json.Unmarshal([]byte(actions), &st.Actions); err != nil {
		return nil, nil, fmt.Errorf("study %q: stored actions: %w", name, err)
	}
	if err := json.Unmarshal([]byte(seeds), &st.Seeds); err != nil {
		return nil, nil, fmt.Errorf("study %q: stored seeds: %w", name, err)
	}
	// The x of an action's row repeats the stored action: it is checked
	// against it (an event whose x and index disagree was replayed at the
	// index, silently; issue 40, item 8), through the actions' encodings
	// made once each.
	rows, err := s.db.QueryContext(ctx, `SELECT seq, kind, ask, idx, x, f, g, violation, created, ref, noise_std, model, context, horizon FROM events WHERE study = ? ORDER BY seq`, name)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	var evs []Event
	// One set of scan destinations for all rows: Scan's arguments escape,
	// so variables declared per row would cost an allocation each per
	// event of a long study.
	var r row
	r.encoded = map[int64]string{}
	for rows.Next() {
		if err := rows.Scan(&r.seq, &r.kind, &r.ask, &r.idx, &r.point, &r.f, &r.g, &r.violation, &r.created, &r.ref, &r.noiseStd, &r.fit, &r.context, &r.horizon); err != nil {
			return nil, nil, err
		}
		e, err := r.event(name, len(evs), st.Actions, st.AskBase)
		if err != nil {
			return nil, nil, err
		}
		evs = append(evs, e)
	}
	return &st, evs, rows.Err()
}

// row is an event's row as scanned.
type row struct {
	seq, violation int
	kind, created  string
	ask, idx, ref  sql.NullInt64
	horizon        sql.NullInt64
	f, noiseStd    sql.NullFloat64
	g, point, fit  sql.NullString
	context        sql.NullString
	// encoded holds the JSON of each action as insertEvent writes its x,
	// made at its first use.
	encoded map[int64]string
}

// pointOf checks an action's row: its x must be the stored action idx,
// as written (the encoding insertEvent gives it) or, in a row an older
// safegp migrated, as the same numbers.
func (r *row) pointOf(actions [][]float64) bool {
	want, ok := r.encoded[r.idx.Int64]
	if !ok {
		b, _ := json.Marshal(actions[r.idx.Int64])
		want = string(b)
		r.encoded[r.idx.Int64] = want
	}
	if !r.point.Valid || r.point.String == want {
		return r.point.Valid
	}
	var x []float64
	if err := json.Unmarshal([]byte(r.point.String), &x); err != nil {
		return false
	}
	return vec.SameBits(x, actions[r.idx.Int64])
}

// event checks the row, the study's after its first n events, and makes
// its event: the point of an action is the stored actions' own row, an
// ask's ID askBase + seq.
func (r *row) event(name string, n int, actions [][]float64, askBase int) (Event, error) {
	if err := r.check(name, n, askBase); err != nil {
		return Event{}, err
	}
	e := Event{Seq: r.seq, Kind: r.kind, Violation: r.violation != 0, Ask: int(r.ask.Int64), F: r.f.Float64, Ref: int(r.ref.Int64), Horizon: int(r.horizon.Int64)}
	if r.noiseStd.Valid {
		v := r.noiseStd.Float64
		e.NoiseStd = &v
	}
	if err := r.where(&e, name, actions); err != nil {
		return e, err
	}
	if err := r.values(&e, name); err != nil {
		return e, err
	}
	e.Created, _ = time.Parse(time.RFC3339Nano, r.created)
	return e, nil
}

// damaged is the error of a row that cannot have been written so: the
// study's file was edited or damaged.
func (r *row) damaged(name, format string, args ...any) error {
	return fmt.Errorf("%w: study %q: event %d: %s; the file was edited or damaged: restore it from a backup (safegp study export reads what is left)", ErrDamaged, name, r.seq, fmt.Sprintf(format, args...))
}

// check checks the row's number, after n events, and the columns that
// its kind requires or bounds.
func (r *row) check(name string, n, askBase int) error {
	// Events are numbered 1, 2, … without gaps: a gap is an event
	// deleted, which replay would pass over silently (and the next write
	// would collide with the number after it).
	if r.seq != n+1 {
		return r.damaged(name, "the events before it end at %d: events %d…%d are missing", n, n+1, r.seq-1)
	}
	switch {
	case r.kind == "tell" && !r.f.Valid:
		return r.damaged(name, "a tell without its f (NULL): a missing measurement must not become 0")
	case r.kind == "tell" && !problem.InRange(r.f.Float64):
		return r.damaged(name, "a tell's f = %v is not a finite number within ±1e100", r.f.Float64)
	case r.kind == "tell" && !r.g.Valid:
		return r.damaged(name, "a tell without its g (NULL)")
	case r.kind == "extend" && !(r.horizon.Int64 >= 1 && r.horizon.Int64 <= config.MaxHorizon):
		return r.damaged(name, "an extension to horizon %d", r.horizon.Int64)
	case r.kind == "ask" && r.ask.Int64 != int64(askBase+r.seq):
		return r.damaged(name, "an ask numbered %d", r.ask.Int64)
	case r.noiseStd.Valid && !(r.noiseStd.Float64 >= 0 && problem.InRange(r.noiseStd.Float64)):
		return r.damaged(name, "noise_std = %v", r.noiseStd.Float64)
	}
	return nil
}

// where sets e's fit record, or its action and point, or its point alone.
func (r *row) where(e *Event, name string, actions [][]float64) error {
	switch {
	case r.kind == "fit":
		e.Index = -1
		if !r.fit.Valid {
			return fmt.Errorf("study %q: event %d: a fit without its record", name, e.Seq)
		}
		e.Fit = new(config.FitRecord)
		if err := json.Unmarshal([]byte(r.fit.String), e.Fit); err != nil {
			return fmt.Errorf("study %q: event %d: fit record: %w", name, e.Seq, err)
		}
	case r.idx.Valid:
		if r.idx.Int64 < 0 || r.idx.Int64 >= int64(len(actions)) {
			return fmt.Errorf("study %q: event %d: action %d outside the stored decision set's 0…%d", name, e.Seq, r.idx.Int64, len(actions)-1)
		}
		if !r.pointOf(actions) {
			return r.damaged(name, "x = %.40s is not action %d, %v", r.point.String, r.idx.Int64, actions[r.idx.Int64])
		}
		e.Index, e.X = int(r.idx.Int64), actions[r.idx.Int64]
	case r.point.Valid:
		e.Index = -1
		if err := json.Unmarshal([]byte(r.point.String), &e.X); err != nil {
			return fmt.Errorf("study %q: event %d: point: %w", name, e.Seq, err)
		}
	default:
		return fmt.Errorf("study %q: event %d has neither an action nor a point", name, e.Seq)
	}
	return nil
}

// values sets e's context and g, and checks that every number of its
// point, g and context is finite within ±1e100.
func (r *row) values(e *Event, name string) error {
	if r.context.Valid {
		if err := json.Unmarshal([]byte(r.context.String), &e.Context); err != nil || e.Context == nil {
			return fmt.Errorf("study %q: event %d: context %.40q: want a JSON array of numbers: %v", name, e.Seq, r.context.String, err)
		}
	}
	if r.g.Valid {
		if err := json.Unmarshal([]byte(r.g.String), &e.G); err != nil {
			return r.damaged(name, "g %.40q: want a JSON array of numbers (%v)", r.g.String, err)
		}
	}
	for _, vs := range [][]float64{e.X, e.G, e.Context} {
		for _, v := range vs {
			if !problem.InRange(v) {
				return r.damaged(name, "a value %v that is not a finite number within ±1e100", v)
			}
		}
	}
	return nil
}

// LastSeq returns the sequence number of a study's last event, 0 for
// none: the number of its events, which are numbered from 1 without gaps.
func (s *Store) LastSeq(ctx context.Context, name string) (int, error) {
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

// Append records one event in its own transaction. A conflict on the
// sequence number (or a second tell of an ask, a second retraction of an
// observation) means another process wrote to the study meanwhile:
// ErrStale.
func (s *Store) Append(ctx context.Context, name string, e *Event) error {
	if s.readOnly {
		return errReadOnly(name)
	}
	return storageError(gone(insertFresh(ctx, s.db, name, e), name), s.path)
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
		return nil, errReadOnly(name)
	}
	return s.db.BeginTx(ctx, nil)
}

// AppendAll records events in one transaction: all or none. A conflict
// means another process wrote to the study meanwhile, as for Append.
func (s *Store) AppendAll(ctx context.Context, name string, evs []Event) error {
	return s.AppendImport(ctx, name, evs, "")
}

// AppendImport is AppendAll for an import, recording its digest in the
// same transaction (none when digest is ""): a digest recorded already is
// ErrDuplicateImport, and nothing is written.
func (s *Store) AppendImport(ctx context.Context, name string, evs []Event, digest string) error {
	return storageError(gone(s.appendImport(ctx, name, evs, digest), name), s.path)
}

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

// ImportMade returns the *DuplicateImportError of an import of study name
// whose rows have digest, if the study took them before, and nil if not:
// AppendImport checks again in its transaction, this lets a caller refuse
// a repeat before the work of an import.
func (s *Store) ImportMade(ctx context.Context, name, digest string) error {
	return storageError(importMade(ctx, s.db, name, digest), s.path)
}

// importMade is ImportMade through db, the store or a transaction.
func importMade(ctx context.Context, db interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}, name, digest string) error {
	var f, l int
	var at string
	err := db.QueryRowContext(ctx, `SELECT first, last, created FROM imports WHERE study = ? AND digest = ?`, name, digest).Scan(&f, &l, &at)
	switch {
	case err == nil:
		return &DuplicateImportError{Digest: digest, First: f, Last: l, Created: at}
	case errors.Is(err, sql.ErrNoRows):
		return nil
	}
	return err
}

// preparedInsert runs insertEventSQL through a statement prepared once for
// a transaction of many events (an import): parsing the INSERT cost as
// much as running it (45 % of a 40 000-row import's time).
type preparedInsert struct{ st *sql.Stmt }

func (p preparedInsert) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if query != insertEventSQL {
		panic("store: preparedInsert runs insertEventSQL only")
	}
	return p.st.ExecContext(ctx, args...)
}

// recordImport records an import's digest and the observations its rows
// became, in the import's transaction. Made before, by this study: the
// import is a repeat (ErrDuplicateImport naming when and what it became).
func recordImport(ctx context.Context, tx *sql.Tx, name, digest string, first, last int) error {
	if err := importMade(ctx, tx, name, digest); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO imports (study, digest, first, last, created) VALUES (?, ?, ?, ?, ?)`,
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
	var horizon any
	if e.Kind == "extend" {
		horizon, x = e.Horizon, []byte("[]")
	}
	return db.ExecContext(ctx, insertEventSQL,
		name, e.Seq, e.Kind, ask, idx, string(x), f, g, e.Violation, e.Created.UTC().Format(time.RFC3339Nano), ref, noise, model, cx, horizon)
}

// insertEventSQL writes an event row (insertEvent's arguments).
const insertEventSQL = `INSERT INTO events (study, seq, kind, ask, idx, x, f, g, violation, created, ref, noise_std, model, context, horizon) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`

// Events returns a study's recorded events in order.
func (s *Store) Events(ctx context.Context, name string) ([]Event, error) {
	_, evs, err := s.Load(ctx, name)
	return evs, err
}

// Names lists the stored studies.
func (s *Store) Names(ctx context.Context) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT name FROM studies ORDER BY name`)
	if err != nil {
		return nil, storageError(err, s.path)
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
