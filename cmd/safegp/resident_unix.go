//go:build unix

package main

import (
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
