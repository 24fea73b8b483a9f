package server_test

import (
	"fmt"
	"net/http"
	"testing"
)

// TestFailedOverHTTP is issue 43 over the wire: {"ask", "failed": true}
// answers the ask without values, the summary counts it apart from the
// violations, a tell mixing values into it is a 400, an ask at the
// horizon is a 409 with reason "finished", and a study whose seeds all
// failed is a 409 with reason "no_safe_setting".
func TestFailedOverHTTP(t *testing.T) {
	c, _ := newServer(t, "")
	create(c, "a")
	code, ask := c.do("POST", "/v1/studies/a/ask", `{}`)
	if code != http.StatusOK {
		t.Fatalf("ask: %d %v", code, ask)
	}
	id := int(ask["ask"].(float64))
	if code, body := c.do("POST", "/v1/studies/a/tell", fmt.Sprintf(`{"ask": %d, "failed": true, "f": 1}`, id)); code != http.StatusBadRequest {
		t.Errorf("a failed tell with f: %d %v, want 400", code, body)
	}
	if code, body := c.do("POST", "/v1/studies/a/tell", fmt.Sprintf(`{"ask": %d, "failed": "yes"}`, id)); code != http.StatusBadRequest {
		t.Errorf("failed: \"yes\": %d %v, want 400", code, body)
	}
	code, tell := c.do("POST", "/v1/studies/a/tell", fmt.Sprintf(`{"ask": %d, "failed": true}`, id))
	if code != http.StatusOK || tell["failed"] != true || tell["violation"] != false {
		t.Fatalf("failed tell: %d %v", code, tell)
	}
	// The other seed, failed outside the loop: no seed is left.
	if code, body := c.do("POST", "/v1/studies/a/tell", `{"index": 11, "failed": true}`); code != http.StatusOK {
		t.Fatalf("failed tell outside the loop: %d %v", code, body)
	}
	if code, body := c.do("POST", "/v1/studies/a/tell", `{"index": 10, "failed": true}`); code != http.StatusOK {
		t.Fatalf("failed tell outside the loop: %d %v", code, body)
	}
	code, sum := c.do("GET", "/v1/studies/a", "")
	if code != http.StatusOK || sum["failures"] != 2.0+1 || sum["violations"] != 0.0 {
		t.Errorf("summary: %d failures %v violations %v", code, sum["failures"], sum["violations"])
	}
	if code, body := c.do("POST", "/v1/studies/a/ask", `{}`); code != http.StatusConflict || body["reason"] != "no_safe_setting" {
		t.Errorf("ask with every seed failed: %d %v, want 409 no_safe_setting", code, body)
	}
}
