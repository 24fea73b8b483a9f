package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"time"
)

// Leases are operational state kept beside the events (schema version 6,
// table leases): the end of each leased pending ask's lease and its
// holder's token. They are read and written inside the transaction that
// hands asks out, which holds the database's write lock from its start
// (_txlock=immediate), so that two processes serving one study never hand
// out one leased ask twice.
//
// Every leased hand-out of an ask draws a new token, returned with the ask
// ("lease"). A worker's heartbeat that names its token renews the lease
// only while the ask is still its own: once the lease ended and the ask
// went to another caller, the heartbeat fails with ErrLeaseLost instead of
// taking the ask back, so that two workers never both believe they hold
// it. A heartbeat without a token cannot tell holders apart: it renews the
// lease whoever holds it (the behaviour before tokens).

// LeaseTokenLen is the length of a lease token: 16 hex digits, 64 random
// bits.
const LeaseTokenLen = 16

// newLeaseToken draws a lease token from crypto/rand: unguessable, so
// that a worker cannot renew another's lease by a slip of a counter.
func newLeaseToken() string {
	var b [LeaseTokenLen / 2]byte
	rand.Read(b[:]) // never fails: since Go 1.24 a failing source crashes the program instead
	return hex.EncodeToString(b[:])
}

// ValidLeaseToken reports whether tok is a lease token as an ask answer
// carries it: LeaseTokenLen lowercase hex digits.
func ValidLeaseToken(tok string) bool {
	ok := len(tok) == LeaseTokenLen
	for i := 0; ok && i < len(tok); i++ {
		c := tok[i]
		ok = '0' <= c && c <= '9' || 'a' <= c && c <= 'f'
	}
	return ok
}

// LeaseTx is one transaction of an ask or heartbeat on study name: it
// checks first that the study has the n events the caller's state holds
// (else ErrStale: another process wrote since it was loaded).
type LeaseTx struct {
	tx   *sql.Tx
	ctx  context.Context
	name string
}

// InLeaseTx runs fn in one transaction on study name, whose state in
// memory holds n events, and commits it when fn succeeds.
func (s *Store) InLeaseTx(ctx context.Context, name string, n int, fn func(lt *LeaseTx) error) error {
	return storageError(gone(s.inLeaseTx(ctx, name, n, fn), name), s.path)
}

func (s *Store) inLeaseTx(ctx context.Context, name string, n int, fn func(lt *LeaseTx) error) error {
	tx, err := s.begin(ctx, name)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var last int
	if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(seq), 0) FROM events WHERE study = ?`, name).Scan(&last); err != nil {
		return err
	}
	if last != n {
		return errWrittenSince(name)
	}
	if err := fn(&LeaseTx{tx: tx, ctx: ctx, name: name}); err != nil {
		return err
	}
	return tx.Commit()
}

// Leases returns the study's leases: ask → end, in Unix milliseconds.
func (lt *LeaseTx) Leases() (map[int]int64, error) {
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

// Lease leases ask until the Unix millisecond until to a new holder, who
// got it now, and returns the holder's token, new.
func (lt *LeaseTx) Lease(ask int, until int64, now time.Time) (string, error) {
	tok := newLeaseToken()
	return tok, lt.set(ask, until, tok, now)
}

// set leases ask until the Unix millisecond until to the holder of token,
// who got it now.
func (lt *LeaseTx) set(ask int, until int64, token string, now time.Time) error {
	_, err := lt.tx.ExecContext(lt.ctx, `INSERT INTO leases (study, ask, until, token, since) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (study, ask) DO UPDATE SET until = excluded.until, token = excluded.token, since = excluded.since`,
		lt.name, ask, until, token, now.UnixMilli())
	return err
}

// Disown records that ask, whose lease has ended, was handed out again
// now without a lease: its row stays, ended and without a holder's token,
// so that the former holder's heartbeat learns that it lost the ask, and
// when (renew). A second hand-out without a lease changes nothing.
func (lt *LeaseTx) Disown(ask int, now time.Time) error {
	_, err := lt.tx.ExecContext(lt.ctx, `UPDATE leases SET token = '', since = ? WHERE study = ? AND ask = ? AND token != ''`, now.UnixMilli(), lt.name, ask)
	return err
}

// Renew is a heartbeat of ask: its lease then ends at until. With a token,
// only the holder of that token renews, keeping it; another token fails
// with ErrLeaseLost, naming when the ask went to its current holder.
// Without a token (the heartbeat cannot tell holders apart), the lease is
// renewed whoever holds it, keeping its token, or given a new one when it
// has none. It returns the lease's token.
func (lt *LeaseTx) Renew(ask int, token string, until int64, now time.Time) (string, error) {
	var held string
	var since int64
	err := lt.tx.QueryRowContext(lt.ctx, `SELECT token, since FROM leases WHERE study = ? AND ask = ?`, lt.name, ask).Scan(&held, &since)
	found := err == nil
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return "", err
	}
	switch {
	case token != "" && found && token != held:
		return "", fmt.Errorf("%w: ask %d of study %q was handed to another caller at %s, after your lease ended; do not measure it, or tell it if you already have: the first tell wins", ErrLeaseLost, ask, lt.name, LeaseTime(since))
	case token != "" && !found:
		return "", fmt.Errorf("%w: ask %d of study %q has no lease under token %s (it was handed out without a lease, or with another token); do not measure it, or tell it if you already have: the first tell wins", ErrLeaseLost, ask, lt.name, token)
	case found && held != "":
		_, err := lt.tx.ExecContext(lt.ctx, `UPDATE leases SET until = ? WHERE study = ? AND ask = ?`, until, lt.name, ask)
		return held, err
	}
	// No lease, or one disowned: the caller becomes its holder.
	token = newLeaseToken()
	return token, lt.set(ask, until, token, now)
}

// Drop removes ask's lease, if any.
func (lt *LeaseTx) Drop(ask int) error {
	_, err := lt.tx.ExecContext(lt.ctx, `DELETE FROM leases WHERE study = ? AND ask = ?`, lt.name, ask)
	return err
}

// Insert records an event; a conflict means another process wrote to the
// study, as for Store.Append.
func (lt *LeaseTx) Insert(e *Event) error {
	return insertFresh(lt.ctx, lt.tx, lt.name, e)
}

// LeaseTime formats a lease's end, Unix milliseconds, as RFC 3339 in UTC
// with milliseconds.
func LeaseTime(ms int64) string {
	return time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z07:00")
}

// LeaseEnd is the end, in Unix milliseconds, of a lease of secs seconds
// from now: rounded up to the millisecond, so that a lease is never
// shorter than asked.
func LeaseEnd(now time.Time, secs float64) int64 {
	d := time.Duration(secs * float64(time.Second))
	return now.Add(d + time.Millisecond - 1).UnixMilli()
}

// AppendRetraction records a retraction and drops the study's leases in
// one transaction: a retraction withdraws every pending ask, and a lease
// holds a pending ask only.
func (s *Store) AppendRetraction(ctx context.Context, name string, e *Event) error {
	return storageError(gone(s.appendRetraction(ctx, name, e), name), s.path)
}

func (s *Store) appendRetraction(ctx context.Context, name string, e *Event) error {
	tx, err := s.begin(ctx, name)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	lt := &LeaseTx{tx: tx, ctx: ctx, name: name}
	if err := lt.Insert(e); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM leases WHERE study = ?`, name); err != nil {
		return err
	}
	return tx.Commit()
}
