package server_test

import (
	"net/http"
	"testing"
)

// TestObjectiveThresholdOverHTTP: a study created over HTTP with an
// objective threshold and no constraint takes tells with "g": [] and
// answers f < h_f with "violated_objective": true; show reports h_f.
func TestObjectiveThresholdOverHTTP(t *testing.T) {
	c, _ := newServer(t, "")
	const hfSpec = `{"name": "hf", "spec": {"decision_set": {"grid": {"bounds": [[0, 4]], "points": [41]}},
 "seed_actions": [30], "objective_threshold": -1.5,
 "model": {"objective": {"kernel": "se", "lengthscale": 1}, "noise_std": 0.05, "delta": 0.01, "beta": 4},
 "algorithm": {"name": "safeopt", "safe_set": "gp"}, "horizon": 20, "seed": 7}}`
	if code, body := c.do("POST", "/v1/studies", hfSpec); code != http.StatusCreated {
		t.Fatalf("create: %d %v", code, body)
	}
	code, body := c.do("POST", "/v1/studies/hf/tell", `{"index": 0, "f": -9, "g": []}`)
	if code != http.StatusOK || body["violation"] != true || body["violated_objective"] != true || body["violated"] != nil {
		t.Errorf("f < h_f: %d %v", code, body)
	}
	code, body = c.do("POST", "/v1/studies/hf/tell", `{"index": 30, "f": 0, "g": []}`)
	if _, named := body["violated_objective"]; code != http.StatusOK || body["violation"] != false || named {
		t.Errorf("f ≥ h_f: %d %v", code, body)
	}
	code, body = c.do("GET", "/v1/studies/hf", "")
	if code != http.StatusOK || body["objective_threshold"] != -1.5 || body["violations"] != float64(1) {
		t.Errorf("show: %d %v", code, body)
	}
}
