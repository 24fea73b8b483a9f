package main

import (
	"runtime"
	"testing"
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
