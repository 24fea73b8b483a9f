package server_test

import (
	"net/http"
	"strings"
	"testing"
)

// TestCreateBadSpecIs400: a specification refused by a nested check — a
// kernel, the algorithm's options — is the client's mistake: 400 with the
// key in the message, never 500 (those checks wrap their own packages'
// sentinels, and once the service answered 500).
func TestCreateBadSpecIs400(t *testing.T) {
	c, _ := newServer(t, "")
	for _, b := range []struct{ from, to, key string }{
		{`"objective": {"kernel": "se", "lengthscale": 1}`, `"objective": {"kernel": "se", "lengthscale": -1}`, "model.objective.lengthscale"},
		{`"constraints": [{"kernel": "se", "lengthscale": 1}]`, `"constraints": [{"kernel": "cubic"}]`, "model.constraints[0].kernel"},
		{`"phase1": "uniform"`, `"phase1": "random"`, "algorithm.phase1"},
		{`"exploration": {"fixed": 5}`, `"exploration": {"fixed": 5}, "safe_set": "gp"`, "algorithm.safe_set"},
		{`"name": "sgp-ucb", "phase1": "uniform", "exploration": {"fixed": 5}`, `"name": "sgp-ucb"`, "algorithm.exploration"},
	} {
		if !strings.Contains(spec, b.from) {
			t.Fatalf("%q not in the spec", b.from)
		}
		code, body := c.do("POST", "/v1/studies", `{"name": "x", "spec": `+strings.Replace(spec, b.from, b.to, 1)+`}`)
		if msg, _ := body["error"].(string); code != http.StatusBadRequest || !strings.Contains(msg, b.key) {
			t.Errorf("%s: %d %v, want 400 naming %s", b.to, code, body, b.key)
		}
	}
}
