package main

import (
	"bytes"
	"errors"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/safegp/safegp/plot"
)

// TestUseCores: --workers N caps the process at N cores while the command
// runs and gives the cap back after; 0, or N at or above the cap, leaves
// it.
func TestUseCores(t *testing.T) {
	prev := runtime.GOMAXPROCS(0)
	for _, c := range []struct{ n, during int }{
		{0, prev}, {1, 1}, {prev, prev}, {prev + 3, prev},
	} {
		restore := useCores(c.n)
		if got := runtime.GOMAXPROCS(0); got != c.during {
			t.Errorf("useCores(%d): GOMAXPROCS %d during, want %d", c.n, got, c.during)
		}
		restore()
		if got := runtime.GOMAXPROCS(0); got != prev {
			t.Errorf("useCores(%d): GOMAXPROCS %d after, want %d", c.n, got, prev)
		}
	}
}

// TestFigureWidth: --figure-width makes the figure that wide (at the
// figures' 200 dpi: 3.5 in is 700 pixels), restores plot.Width after,
// and refuses a width below a panel's or above 40 in as a usage error.
func TestFigureWidth(t *testing.T) {
	for _, c := range []struct {
		width string
		px    int   // the PNG's width, 0: refused
		err   error // run's error
	}{
		{"3.5", 700, nil},
		{"0", 640, nil}, // one panel, 3.2 in
		{"1", 0, errUsage},
		{"41", 0, errUsage},
		{"-2", 0, errUsage},
	} {
		cfg, out := setup(t, goodConfig, goodCSV)
		var stderr bytes.Buffer
		err := run([]string{"run", cfg, "--out", out, "--quiet", "--figure-width", c.width}, io.Discard, &stderr)
		if !errors.Is(err, c.err) {
			t.Fatalf("--figure-width %s: %v, want %v\n%s", c.width, err, c.err, stderr.String())
		}
		if plot.Width != 0 {
			t.Errorf("--figure-width %s: plot.Width left at %v", c.width, plot.Width)
		}
		if c.px == 0 {
			if !strings.Contains(stderr.String(), "--figure-width") {
				t.Errorf("--figure-width %s: stderr %q does not name the flag", c.width, stderr.String())
			}
			continue
		}
		f, err := os.Open(filepath.Join(out, "regret.png"))
		if err != nil {
			t.Fatal(err)
		}
		cfgImg, err := png.DecodeConfig(f)
		f.Close()
		if err != nil || cfgImg.Width != c.px {
			t.Errorf("--figure-width %s: regret.png %d px wide (%v), want %d", c.width, cfgImg.Width, err, c.px)
		}
	}
}
