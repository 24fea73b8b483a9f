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
