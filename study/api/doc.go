// Package api is what a study's callers send and get back: the requests
// (TellRequest, AskOptions, HeartbeatRequest), the answers with their JSON
// (AskAnswer, TellAnswer, Summary, Export, …), the limits a request is
// checked against, and the errors a caller can tell apart, each of a class
// (internal/errclass) that the HTTP server maps to a status once.
//
// It holds no state and runs no algorithm: package study makes the
// answers, server/wire.go decodes the requests from HTTP, and the command
// line and the Python client read the same JSON. A study stated in
// parameters marks its answers by their Trial or Params fields, and their
// JSON then speaks in trials, settings and outcome names instead of
// actions, points, f and g.
//
// Layer 6 (docs/layout.md): it may import store, study/calib, bandit,
// config, space, kernel, problem and internal packages; never study.
package api
