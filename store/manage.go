package store

import (
	"context"
	"fmt"
	"strings"
)

// The tables that hold rows of a study, by its name: every one but
// studies itself, whose rows they reference.
var studyTables = []string{"events", "leases", "imports"}

// Delete removes study name and everything recorded of it — its events,
// leases and imports — in one transaction, all or nothing. The study in
// memory holds n events: a study written to since is refused (ErrStale),
// so that what the caller checked before deleting (check, given the
// study's leases, ask → end in Unix milliseconds, in the transaction) is
// what is deleted.
func (s *Store) Delete(ctx context.Context, name string, n int, check func(leases map[int]int64) error) error {
	err := s.inLeaseTx(ctx, name, n, func(lt *LeaseTx) error {
		leases, err := lt.Leases()
		if err != nil {
			return err
		}
		if err := check(leases); err != nil {
			return err
		}
		if err := retire(ctx, lt.tx, name); err != nil {
			return err
		}
		for _, t := range studyTables {
			if _, err := lt.tx.ExecContext(ctx, `DELETE FROM `+t+` WHERE study = ?`, name); err != nil {
				return fmt.Errorf("study %q: delete its %s: %w", name, t, err)
			}
		}
		res, err := lt.tx.ExecContext(ctx, `DELETE FROM studies WHERE name = ?`, name)
		if err != nil {
			return fmt.Errorf("study %q: delete it: %w", name, err)
		}
		if k, _ := res.RowsAffected(); k == 0 {
			return fmt.Errorf("%w: %q", ErrNotFound, name)
		}
		return nil
	})
	s.listed.Delete(name)
	return storageError(err, s.path)
}

// Rename gives study old the name new, with everything recorded of it, in
// one transaction; a study named new already is refused (ErrExists), and
// so is an unknown old (ErrNotFound).
func (s *Store) Rename(ctx context.Context, old, new string) error {
	if s.readOnly {
		return errReadOnly(old)
	}
	err := s.rename(ctx, old, new)
	s.listed.Delete(old)
	s.listed.Delete(new)
	return storageError(err, s.path)
}

func (s *Store) rename(ctx context.Context, old, new string) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	// The new row first, then the rows that reference the study, then
	// the old row: every reference is valid at every step.
	// The study keeps its ask IDs unless a study of the new name handed
	// out IDs it has too: then its IDs move above both (its pending asks
	// are known by their new IDs, and no old one of either is taken).
	_, err = tx.ExecContext(ctx, `INSERT INTO studies (name, spec, actions, seeds, created, record_sum, ask_base)
		SELECT ?, spec, actions, seeds, created, record_sum, CASE WHEN r.last_ask > ask_base THEN MAX(r.last_ask, `+lastAsk+`) ELSE ask_base END
		FROM studies LEFT JOIN retired_names r ON r.name = ? WHERE studies.name = ?`, new, new, old)
	if err != nil {
		if strings.Contains(err.Error(), "UNIQUE") {
			return fmt.Errorf("%w: %q", ErrExists, new)
		}
		return err
	}
	var found int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM studies WHERE name = ?`, old).Scan(&found); err != nil {
		return err
	}
	if found == 0 {
		return fmt.Errorf("%w: %q", ErrNotFound, old)
	}
	if err := retire(ctx, tx, old); err != nil {
		return err
	}
	var shift int
	if err := tx.QueryRowContext(ctx, `SELECT n.ask_base - o.ask_base FROM studies n, studies o WHERE n.name = ? AND o.name = ?`, new, old).Scan(&shift); err != nil {
		return err
	}
	for _, t := range studyTables {
		if _, err := tx.ExecContext(ctx, `UPDATE `+t+` SET study = ? WHERE study = ?`, new, old); err != nil {
			return fmt.Errorf("study %q: rename its %s: %w", old, t, err)
		}
	}
	if shift != 0 {
		// The new IDs lie above every old one: no step of the update
		// meets an ID in use (one_tell_per_ask, the leases' key).
		for _, q := range []string{`UPDATE events SET ask = ask + ? WHERE study = ? AND ask IS NOT NULL`, `UPDATE leases SET ask = ask + ? WHERE study = ?`} {
			if _, err := tx.ExecContext(ctx, q, shift, new); err != nil {
				return fmt.Errorf("study %q: renumber its asks: %w", old, err)
			}
		}
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM studies WHERE name = ?`, old); err != nil {
		return err
	}
	return tx.Commit()
}

// lastAsk is, in a query over a studies row, the highest ask ID the study
// has handed out or could have: its base and its last event's seq.
const lastAsk = `studies.ask_base + COALESCE((SELECT MAX(seq) FROM events WHERE events.study = studies.name), 0)`

// retire records, before study name leaves its name (deleted, renamed),
// the highest ask ID it could have handed out (askBaseMigration).
func retire(ctx context.Context, tx execer, name string) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO retired_names (name, last_ask) SELECT name, `+lastAsk+` FROM studies WHERE name = ?
		ON CONFLICT (name) DO UPDATE SET last_ask = MAX(last_ask, excluded.last_ask)`, name)
	if err != nil {
		return fmt.Errorf("study %q: retire its ask IDs: %w", name, err)
	}
	return nil
}
