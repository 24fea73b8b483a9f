// Package study runs a safe bandit policy against a real system through
// durable ask/tell studies: every ask, tell, retraction and fit is an
// event recorded in a store (package store), and a study reopened after a
// crash replays them to the exact state it had.
//
// A Study is a state machine whose only way to change is applying a
// recorded event (Study.apply). Service runs every call the same way on
// the study, loaded and locked: decide (the study's checks and its
// policy's choices), write the events in one transaction, apply them. A
// write that fails leaves the study as it was — the asks its policy chose
// are taken back (bandit.Rollback) — so that memory never holds what the
// records do not and nothing is thrown away. The studies held in memory
// are a cache (internal/opencache) of at most ServiceOptions.MaxOpen studies within
// MaxMemory.
//
// Asks may come in batches for parallel workers, each ask leased to one
// worker until it is told or its lease ends (Service.AskBatch), under a
// lease token its heartbeats name so that a worker whose ask went to
// another cannot take it back (Service.Heartbeat); the leases are kept in
// the store beside the events, outside the replay. The requests, answers
// and errors are package study/api's; the HTTP wire is the server's
// (server/wire.go): a request comes here decoded, as an api.TellRequest,
// api.AskOptions or api.HeartbeatRequest.
//
// A study stated in parameters is a translating layer in front of the
// study (units.go): its units map settings to the policy's points in the
// unit cube and outcome values to its standardized f and g, and answer in
// the user's terms; a study stated in the cube passes through. The study
// itself knows the cube and the policy. What sits above it: the formats
// of its data (study/exchange: the CSV an import reads, the export) and
// the dashboard's view (study/view, through Reader); below it, the
// calibration check's statistic and words (study/calib).
//
// A study with a context (a spec's context block, context.go) asks in the
// context measured before each ask (AskOptions.Context, Service.AskIn),
// records each event's context, and replays by setting each ask's context
// before asking again. The seed set is assumed safe in every context.
//
// Layer 7 (docs/layout.md): it may import study/api, store, study/calib, bandit,
// config, gp, kernel, problem and internal packages; never server (the
// wire), experiment, reproduce or sweep.
package study
