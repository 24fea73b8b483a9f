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
	_, err = tx.ExecContext(ctx, `INSERT INTO studies (name, spec, actions, seeds, created)
		SELECT ?, spec, actions, seeds, created FROM studies WHERE name = ?`, new, old)
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
	for _, t := range studyTables {
		if _, err := tx.ExecContext(ctx, `UPDATE `+t+` SET study = ? WHERE study = ?`, new, old); err != nil {
			return fmt.Errorf("study %q: rename its %s: %w", old, t, err)
		}
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM studies WHERE name = ?`, old); err != nil {
		return err
	}
	return tx.Commit()
}
