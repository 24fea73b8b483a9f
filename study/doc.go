// Package study runs a safe bandit policy against a real system through
// durable ask/tell studies stored in an embedded SQLite database: every ask,
// tell and retraction is recorded, and a study reopened after a crash
// replays them to the exact state it had.
package study
