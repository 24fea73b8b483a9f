package racetest_test

import (
	"testing"

	"github.com/safegp/safegp/internal/racetest"
)

// TestLong checks that Long skips exactly when the race detector is on:
// the inner test reports whether it got past the call.
func TestLong(t *testing.T) {
	ran := false
	t.Run("inner", func(t *testing.T) {
		racetest.Long(t, "a test of Long")
		ran = true
	})
	if ran == racetest.Enabled {
		t.Errorf("race detector %v, test ran %v", racetest.Enabled, ran)
	}
}

// TestCount checks that Count gives the raced count exactly under the
// race detector.
func TestCount(t *testing.T) {
	want := 204
	if racetest.Enabled {
		want = 60
	}
	if got := racetest.Count(204, 60); got != want {
		t.Errorf("Count(204, 60) = %d with the race detector %v, want %d", got, racetest.Enabled, want)
	}
}
