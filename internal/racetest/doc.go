// Package racetest tells the tests whether the race detector is on, and
// skips under it the tests that run whole examples: simulated plants,
// every scenario of a suite, figures drawn end to end. Under the race
// detector they take 5–10 times as long and exercise no concurrency that
// the other tests do not; without it (`go test ./...`, and the coverage
// run of .ci/run, which therefore runs each of them once) they run.
package racetest
