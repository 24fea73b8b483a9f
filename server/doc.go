// Package server serves studies over HTTP as JSON: create, ask (one, or a
// batch with leases, and heartbeats renewing them; in a context for a
// study with one), tell, retract, show and list observations, with
// bearer-token authentication, size-limited bodies and structured logs.
// The request bodies are decoded strictly here (wire.go) into the study
// package's requests; the errors map to status codes in one place
// (status).
//
// It also serves a read-only dashboard at / (dashboard.go): a page
// embedded from web/ (HTML, one script, one stylesheet; no external
// resource, no build step) that lists the studies and draws each one's
// progress, constraints, best safe point, pending asks and, for 1-D and
// 2-D decision sets, the posterior and the safe set, polling
// GET /v1/studies and GET /v1/studies/{name}/view every 3 s while its tab
// is visible. The page's files carry no data and are served without the
// token; the data routes need it, as every other route does, and the page
// takes it from the URL fragment (#token=…, never sent to the server) or
// a form, keeps it in the tab's sessionStorage and sends it as a bearer
// token. A Content-Security-Policy of default-src 'self' forbids inline
// script and any other origin.
//
// Layer 9 (docs/layout.md): it may import study, study/exchange, study/view, store and internal
// packages; never experiment, reproduce or sweep, and no algorithm directly
// (bandit): it speaks to studies only.
package server
