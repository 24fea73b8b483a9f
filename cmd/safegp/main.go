package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"syscall"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		printError(os.Stderr, err)
		os.Exit(exitCode(err))
	}
}

// printError writes a command's error as "safegp: …", unless it is a
// usage error (the usage was printed).
func printError(w io.Writer, err error) {
	if err != errUsage && !errors.Is(err, syscall.EPIPE) { // a reader gone: nothing to say, as a shell's SIGPIPE
		fmt.Fprintln(w, "safegp:", err)
	}
}

// useCores caps the process at n cores (--workers), n > 0, until the
// returned function restores the cap: the parallel runs and the work
// within a run (the GP update's column bands, the problem analysis, the
// fit's restarts) then share n cores between them, so that --workers 1
// means one core and timings per worker count mean what they say. The
// results never depend on it.
func useCores(n int) func() {
	prev := runtime.GOMAXPROCS(0)
	if n <= 0 || n >= prev {
		return func() {}
	}
	runtime.GOMAXPROCS(n)
	return func() { runtime.GOMAXPROCS(prev) }
}
