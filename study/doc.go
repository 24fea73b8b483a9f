// Package study runs a safe bandit policy against a real system through
// durable ask/tell studies stored in an embedded SQLite database: every ask,
// tell and retraction is recorded, and a study reopened after a crash
// replays them to the exact state it had. Asks may come in batches for
// parallel workers, each ask leased to one worker until it is told or its
// lease ends (Service.AskBatch), under a lease token its heartbeats name so
// that a worker whose ask went to another cannot take it back
// (Service.Heartbeat, lease.go); the leases are kept in the database beside
// the events, outside the replay. Imports read the study's data columns,
// or its export (ParseImportCSV, importcsv.go).
//
// A study with a context (a spec's context block, context.go) asks in the
// context measured before each ask (AskOptions.Context, Service.AskIn),
// records each event's context, and replays by setting each ask's context
// before asking again. The seed set is assumed safe in every context.
package study
