//go:build unix

package store

import (
	"path/filepath"

	"golang.org/x/sys/unix"
)

// writable reports whether this process may write the file at abs and
// create files beside it (its -wal and -shm). access(2) opens no
// descriptor: closing one would drop this process's locks on the file.
func writable(abs string) bool {
	return unix.Access(abs, unix.W_OK) == nil && unix.Access(filepath.Dir(abs), unix.W_OK|unix.X_OK) == nil
}
