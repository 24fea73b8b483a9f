//go:build unix

package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
)

const residentSupported = true

// spawnDetached starts exe with args in a session of its own, with no
// terminal, its standard input and error on /dev/null, and does not wait
// for it: the resident outlives the command that started it, and the
// shell's Ctrl-C does not reach it. Its standard output is the returned
// reader, which the resident closes once it listens or has failed.
func spawnDetached(exe string, args ...string) (io.ReadCloser, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	cmd.Stdout = w
	err = cmd.Start()
	w.Close()
	if err != nil {
		r.Close()
		return nil, err
	}
	return r, cmd.Process.Release()
}

// lockResident takes the lock file path for the resident's lifetime, or
// fails at once when another resident holds it: of two residents started
// together for one database, one serves.
func lockResident(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil
}

// privateDir checks that dir is a directory of this user's own, not a
// link, that no one else may enter or write: another user who made it
// first could put a socket of their own in it and answer our commands.
func privateDir(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !fi.IsDir() || !ok || int(st.Uid) != os.Getuid() || fi.Mode().Perm()&0o077 != 0 {
		return fmt.Errorf("resident: %s is not a directory of this user's own, shut to others", dir)
	}
	return nil
}
