// Package server serves studies over HTTP as JSON: create, ask, tell,
// retract, show and list observations, with bearer-token authentication,
// size-limited bodies and structured logs.
package server
