package study

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"
)

// Leases are operational state kept beside the events (schema version 6,
// table leases): the end of each leased pending ask's lease. They are read
// and written inside the transaction that hands asks out, which holds the
// database's write lock from its start (_txlock=immediate), so that two
// processes serving one study never hand out one leased ask twice.

// leaseTx is one transaction of an ask or heartbeat on study name: it
// checks first that the study has the n events the caller's state holds
// (else ErrStale: another process wrote since it was loaded).
type leaseTx struct {
	tx   *sql.Tx
	ctx  context.Context
	name string
}

// inLeaseTx runs fn in one transaction on study name, whose state in
// memory holds n events, and commits it when fn succeeds.
func (s *Store) inLeaseTx(ctx context.Context, name string, n int, fn func(lt *leaseTx) error) error {
	if s.readOnly {
		return fmt.Errorf("study %q: the database was opened read-only", name)
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var last int
	if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(seq), 0) FROM events WHERE study = ?`, name).Scan(&last); err != nil {
		return err
	}
	if last != n {
		return fmt.Errorf("%w: study %q was written by another process since it was loaded; retry", ErrStale, name)
	}
	if err := fn(&leaseTx{tx: tx, ctx: ctx, name: name}); err != nil {
		return err
	}
	return tx.Commit()
}

// leases returns the study's leases: ask → end, in Unix milliseconds.
func (lt *leaseTx) leases() (map[int]int64, error) {
	rows, err := lt.tx.QueryContext(lt.ctx, `SELECT ask, until FROM leases WHERE study = ?`, lt.name)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	m := map[int]int64{}
	for rows.Next() {
		var ask int
		var until int64
		if err := rows.Scan(&ask, &until); err != nil {
			return nil, err
		}
		m[ask] = until
	}
	return m, rows.Err()
}

// set leases ask until the Unix millisecond until.
func (lt *leaseTx) set(ask int, until int64) error {
	_, err := lt.tx.ExecContext(lt.ctx, `INSERT INTO leases (study, ask, until) VALUES (?, ?, ?) ON CONFLICT (study, ask) DO UPDATE SET until = excluded.until`, lt.name, ask, until)
	return err
}

// drop removes ask's lease, if any.
func (lt *leaseTx) drop(ask int) error {
	_, err := lt.tx.ExecContext(lt.ctx, `DELETE FROM leases WHERE study = ? AND ask = ?`, lt.name, ask)
	return err
}

// insert records an event; a conflict means another process wrote to the
// study, as for Store.append.
func (lt *leaseTx) insert(e *Event) error {
	_, err := insertEvent(lt.ctx, lt.tx, lt.name, e)
	if err != nil && strings.Contains(err.Error(), "UNIQUE") {
		return fmt.Errorf("%w: study %q was written by another process since it was loaded; retry", ErrStale, lt.name)
	}
	return err
}

// leaseTime formats a lease's end, Unix milliseconds, as RFC 3339 in UTC
// with milliseconds.
func leaseTime(ms int64) string {
	return time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z07:00")
}

// leaseEnd is the end, in Unix milliseconds, of a lease of secs seconds
// from now: rounded up to the millisecond, so that a lease is never
// shorter than asked.
func leaseEnd(now time.Time, secs float64) int64 {
	d := time.Duration(secs * float64(time.Second))
	return now.Add(d + time.Millisecond - 1).UnixMilli()
}

// appendRetraction records a retraction and drops the study's leases in
// one transaction: a retraction withdraws every pending ask, and a lease
// holds a pending ask only.
func (s *Store) appendRetraction(ctx context.Context, name string, e *Event) error {
	if s.readOnly {
		return fmt.Errorf("study %q: the database was opened read-only", name)
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	lt := &leaseTx{tx: tx, ctx: ctx, name: name}
	if err := lt.insert(e); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM leases WHERE study = ?`, name); err != nil {
		return err
	}
	return tx.Commit()
}
