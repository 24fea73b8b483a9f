// Package server serves studies over HTTP as JSON: create, ask (one, or a
// batch with leases, and heartbeats renewing them), tell, retract, show
// and list observations, with bearer-token authentication, size-limited
// bodies and structured logs.
package server
