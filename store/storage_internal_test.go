package store

import (
	"errors"
	"strings"
	"testing"
)

type codeErr int

func (c codeErr) Error() string { return "sqlite error" }
func (c codeErr) Code() int     { return int(c) }

// TestStorageError: SQLITE_FULL and an I/O error on a full file system
// are ErrDiskFull, another I/O error ErrStorage, anything else unchanged.
func TestStorageError(t *testing.T) {
	t.Parallel()
	dir := t.TempDir() + "/s.db" // a file system with room
	for _, c := range []struct {
		err  error
		want error
	}{
		{codeErr(13), ErrDiskFull},
		{codeErr(13 | 1<<8), ErrDiskFull},
		{codeErr(10 | 19<<8), ErrStorage}, // SQLITE_IOERR_SHMSIZE with room left
		{codeErr(5), nil},                 // SQLITE_BUSY: not the disk's
		{errors.New("other"), nil},
	} {
		got := storageError(c.err, dir)
		switch {
		case c.want == nil && got != c.err:
			t.Errorf("%v: %v, want it unchanged", c.err, got)
		case c.want != nil && (!errors.Is(got, c.want) || !errors.Is(got, c.err) || !strings.Contains(got.Error(), dir)):
			t.Errorf("%v: %v, want %v naming the file", c.err, got, c.want)
		}
	}
}
