package racetest

import "testing"

// Long skips t under the race detector, saying why (what the test runs and
// how long it takes there) and where it runs instead.
func Long(t testing.TB, why string) {
	t.Helper()
	if Enabled {
		t.Skipf("%s under the race detector: it runs without -race (go test ./..., and .ci/run's coverage run)", why)
	}
}

// Count is how many of a test's n random cases to run: raced under the
// race detector, where each takes 5–10 times as long, n without it (go
// test ./..., and .ci/run's coverage run, which runs them all).
func Count(n, raced int) int {
	if Enabled {
		return raced
	}
	return n
}
