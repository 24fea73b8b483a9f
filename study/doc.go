// Package study runs a safe bandit policy against a real system through
// durable ask/tell studies stored in an embedded SQLite database: every ask,
// tell and retraction is recorded, and a study reopened after a crash
// replays them to the exact state it had.
//
// A study with a context (a spec's context block, context.go) asks in the
// context measured before each ask (Service.AskIn), records each event's
// context, and replays by setting each ask's context before asking again.
// The seed set is assumed safe in every context.
package study
