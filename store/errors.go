package store

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/safegp/safegp/internal/errclass"
)

// Errors of Open: the file is not a study database this safegp can use.
// Open checks this before it writes anything, so that pointing --db at
// another application's file never changes it.
var (
	ErrNotStudyDB  = errors.New("not a safegp study database")
	ErrNewerSchema = errors.New("study database made by a newer safegp")
)

// Errors of the records.
var (
	ErrNotFound = errclass.New(errclass.ErrNotFound, "no such study")
	ErrExists   = errclass.New(errclass.ErrConflict, "study exists already")
	// ErrStale: another process wrote to the study since the caller's
	// state was read (a conflict on a sequence number, a second tell of
	// an ask, a second retraction of an observation).
	ErrStale = errclass.New(errclass.ErrConflict, "stale study")
	// ErrGone: the study was renamed or deleted by another caller while
	// a write to it ran; nothing was written. It comes with ErrStale.
	ErrGone = errors.New("study renamed or deleted meanwhile")
	// ErrDamaged: a study's records break the rules every safegp writes
	// them by (numbered without gaps, a tell's values present and
	// finite): the file was edited or damaged, and replaying it would
	// pass over the damage.
	ErrDamaged = errors.New("study database damaged")
	// ErrReadOnly: a write to a store opened with ReadOnly.
	ErrReadOnly = errors.New("the database was opened read-only")
	// ErrDuplicateImport: the same rows were imported into the study
	// before (a client that retried an import whose answer it lost); the
	// error is a *DuplicateImportError.
	ErrDuplicateImport = errclass.New(errclass.ErrConflict, "import made already")
	// ErrLeaseLost: a heartbeat named a lease token that is not the ask's
	// current one — its lease ended and the ask was handed to another
	// caller. Do not measure it; tell it if it was measured already (the
	// first tell wins).
	ErrLeaseLost = errclass.New(errclass.ErrConflict, "lease lost")
)

// Errors of the file system under a study database: what a user must act
// on, told apart from a database that is not a study's.
var (
	// ErrDiskFull: the file system holding the database is full; nothing
	// was recorded (the HTTP service answers 507).
	ErrDiskFull = errors.New("disk full")
	// ErrStorage: the database could not be read or written (an I/O
	// error other than a full disk).
	ErrStorage = errors.New("storage error")
)

// Busy reports whether err is a database held by another writer for
// longer than the busy timeout: worth a retry.
func Busy(err error) bool {
	return err != nil && (strings.Contains(err.Error(), "SQLITE_BUSY") || strings.Contains(err.Error(), "database is locked"))
}

// DuplicateImportError is an import whose rows, by their digest, the study
// took before: they are its observations First … Last, recorded at
// Created.
type DuplicateImportError struct {
	Digest      string
	First, Last int
	Created     string
}

func (e *DuplicateImportError) Error() string {
	at := e.Created
	if t, err := time.Parse(time.RFC3339Nano, e.Created); err == nil {
		at = t.UTC().Format("2006-01-02 15:04:05 UTC")
	}
	return fmt.Sprintf("%v: these rows (sha256 %.16s…) were imported at %s as observations %d…%d; a retry of an import whose answer was lost finds them there. To import the same rows once more on purpose, repeat the import with repeat (safegp study import --repeat, POST …/import?repeat=1)", ErrDuplicateImport, e.Digest, at, e.First, e.Last)
}

func (e *DuplicateImportError) Unwrap() error { return ErrDuplicateImport }

// errWrittenSince is ErrStale for study name.
func errWrittenSince(name string) error {
	return fmt.Errorf("%w: study %q was written by another process since it was loaded; retry", ErrStale, name)
}

// gone is err, a write's error on study name, as ErrStale and ErrGone
// when the write referenced a study row that is no longer there: another
// caller renamed or deleted the study between the caller's look at it and
// the write (SQLite reports the foreign key, which is no reason to give a
// client).
func gone(err error, name string) error {
	if err != nil && strings.Contains(err.Error(), "FOREIGN KEY constraint failed") {
		return fmt.Errorf("%w: %w: study %q was renamed or deleted by another caller while this call ran; nothing was recorded", ErrStale, ErrGone, name)
	}
	return err
}

// errReadOnly is ErrReadOnly for a write to study name.
func errReadOnly(name string) error {
	return fmt.Errorf("study %q: %w", name, ErrReadOnly)
}
