//go:build unix

package outdir

import (
	"os"
	"syscall"
)

// lock takes an exclusive flock on f without waiting: it fails while
// another open file holds one, in this process or another. The kernel
// drops the lock when the holder's file is closed or the holder dies;
// flock on NFS is taken as a POSIX lock on the server (Linux ≥ 2.6.12),
// so a shard on another node holds it too.
func lock(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err != syscall.EINTR {
			return err
		}
	}
}
