package store

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/safegp/safegp/internal/memlimit"
)

// SQLite's primary result codes that storageError tells apart (the low
// byte of an extended code).
const (
	sqliteIOErr   = 10
	sqliteCorrupt = 11
	sqliteFull    = 13
	sqliteNotADB  = 26
)

// sqliteCode is the primary result code of a SQLite error, 0 for nil or
// another error.
func sqliteCode(err error) int {
	var ce interface{ Code() int }
	if !errors.As(err, &ce) {
		return 0
	}
	return ce.Code() & 0xff
}

// minFree is the free space below which an I/O error is taken for a full
// disk: SQLite reports a write it could not make room for (its WAL, its
// shared-memory file) as an I/O error rather than SQLITE_FULL.
const minFree = 1 << 20

// storageError wraps err, an error of the database at path, with
// ErrDiskFull when SQLite says the disk is full or reports an I/O error
// while the file system holding path has less than minFree bytes free, and
// with ErrStorage for any other I/O error; other errors pass unchanged.
func storageError(err error, path string) error {
	if err == nil || errors.Is(err, ErrDiskFull) || errors.Is(err, ErrStorage) {
		return err
	}
	code := sqliteCode(err)
	if code != sqliteIOErr && code != sqliteFull {
		return err
	}
	dir := filepath.Dir(path)
	free, known := freeBytes(dir)
	if code == sqliteFull || (known && free < minFree) {
		left := ""
		if known {
			left = fmt.Sprintf(" (%s free)", memlimit.Format(free))
		}
		return fmt.Errorf("%w: the file system holding %s is full%s: free some space there, then retry; nothing was recorded (%w)", ErrDiskFull, path, left, err)
	}
	return fmt.Errorf("%w: reading or writing %s failed: %w", ErrStorage, path, err)
}
