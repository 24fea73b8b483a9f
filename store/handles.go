package store

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"slices"
	"sync"
)

// handles are the database files that this process's Stores have open.
//
// Closing any descriptor of a file drops every POSIX lock that the process
// holds on it, SQLite's included (fcntl(2)). A descriptor of our own, opened
// to read a file's header while a connection of this process held the
// file, let another process take the file for its last user: it
// checkpointed and removed the write-ahead log under our writer, whose
// acknowledged tells were lost, and readers found the file malformed
// (issue 40, item 1). SQLite shares one descriptor per file among its
// connections within a process and defers their closing for this reason;
// a descriptor of our own escapes that. So register opens the file itself
// only while no Store of this process has it, under the lock that a Store
// takes to register: no connection of ours can hold the file meanwhile.
var handles struct {
	sync.Mutex
	open []*handle
}

// handle is one Store's registration of its file.
type handle struct {
	abs string      // the path it was opened by, absolute
	fi  os.FileInfo // the file's identity; nil while it did not exist
}

// register records that a Store is opening the file at abs and inspects
// what it can of the file without SQLite: that it exists (an error
// wrapping fs.ErrNotExist if not), is a file and not empty, and, unless
// held — another Store of this process has it open, through this path or
// another (a symlink, a hard link) — that its header is SQLite's, and
// whether it marks WAL mode. The handle is registered whatever the error;
// release it.
func register(abs string) (h *handle, held, wal bool, err error) {
	handles.Lock()
	defer handles.Unlock()
	fi, statErr := os.Stat(abs) // fi is nil on an error
	h = &handle{abs: abs, fi: fi}
	for _, o := range handles.open {
		if o.abs == abs || fi != nil && o.fi != nil && os.SameFile(o.fi, fi) {
			held = true
			break
		}
	}
	handles.open = append(handles.open, h)
	switch {
	case statErr != nil:
		return h, held, false, statErr
	case fi.IsDir():
		return h, held, false, fmt.Errorf("%w: is a directory", ErrNotStudyDB)
	case fi.Size() == 0:
		return h, held, false, fmt.Errorf("%w: the file is empty (safegp creates its database itself: give a path that does not exist yet)", ErrNotStudyDB)
	case held:
		// Opened as a database by a Store of this process: SQLite
		// itself says whether it is one (inspect).
		return h, true, false, nil
	}
	f, err := os.Open(abs)
	if err != nil {
		return h, false, false, err
	}
	head := make([]byte, 20)
	n, _ := io.ReadFull(f, head)
	f.Close()
	if n < len(sqliteHeader) || !bytes.Equal(head[:len(sqliteHeader)], []byte(sqliteHeader)) {
		return h, false, false, fmt.Errorf("%w: not a SQLite database", ErrNotStudyDB)
	}
	// Bytes 18 and 19 are the file format's write and read versions: 2
	// is WAL mode.
	return h, false, n == 20 && head[18] == 2, nil
}

// identify records the file's identity once it exists: a Store that
// created its file registered it by path only.
func (h *handle) identify() {
	handles.Lock()
	defer handles.Unlock()
	if h.fi == nil {
		if fi, err := os.Stat(h.abs); err == nil {
			h.fi = fi
		}
	}
}

// release unregisters the handle: its Store's connections are closed.
func (h *handle) release() {
	if h == nil {
		return
	}
	handles.Lock()
	defer handles.Unlock()
	handles.open = slices.DeleteFunc(handles.open, func(o *handle) bool { return o == h })
}
