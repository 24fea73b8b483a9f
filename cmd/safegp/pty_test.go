//go:build linux

package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// openPTY opens a pseudo-terminal: its controlling side, and the terminal
// a program writes to.
func openPTY(t *testing.T) (ctl, term *os.File) {
	t.Helper()
	ctl, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_CLOEXEC, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	if err := unix.IoctlSetPointerInt(int(ctl.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(ctl.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	term, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	// A terminal of 0 columns, a new pty's, gets no bar at all.
	if err := unix.IoctlSetWinsize(int(term.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 24, Col: 100}); err != nil {
		t.Fatal(err)
	}
	return ctl, term
}

// escape matches the terminal control sequences a progress bar redraws
// with (cursor up, erase).
var escape = regexp.MustCompile(`\x1b\[[0-9;]*[A-Za-z]`)

// TestSummaryAfterBar is issue 24, item 12: on a terminal, run's and
// sweep's final summary ("wrote DIR: …") comes after the progress bar's
// last redraw, so nothing erases it.
func TestSummaryAfterBar(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the binary on a terminal")
	}
	dir := t.TempDir()
	b, err := os.ReadFile("../../examples/regime-1-10.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "small.yaml")
	os.WriteFile(cfg, []byte(strings.Replace(strings.Replace(string(b), "realizations: 30", "realizations: 20", 1), "horizon: 500", "horizon: 300", 1)), 0o644)
	sw := filepath.Join(dir, "sweep.yaml")
	os.WriteFile(sw, []byte("base_file: small.yaml\naxes:\n  model.delta: [0.01, 0.1]\n"), 0o644)
	for _, args := range [][]string{
		{"run", cfg, "--out", filepath.Join(dir, "run-out")},
		{"sweep", sw, "--out", filepath.Join(dir, "sweep-out")},
	} {
		t.Run(args[0], func(t *testing.T) {
			ctl, term := openPTY(t)
			defer ctl.Close()
			cmd := exec.Command(binary, args...)
			cmd.Stdout, cmd.Stderr = term, term
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			term.Close()
			var screen bytes.Buffer
			io.Copy(&screen, ctl) // ends with EIO once the program has exited
			if err := cmd.Wait(); err != nil {
				t.Fatalf("%v\n%q", err, screen.String())
			}
			out := screen.String()
			if !escape.MatchString(out) {
				t.Fatalf("no progress bar drawn: %q", out)
			}
			last := escape.FindAllStringIndex(out, -1)
			summary := strings.LastIndex(out, "wrote ")
			if summary < 0 || summary < last[len(last)-1][1] {
				t.Errorf("the summary is not after the bar's last redraw:\n%q", out)
			}
		})
	}
}
