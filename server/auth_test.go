package server_test

import (
	"net/http"
	"testing"
)

// TestAuthScheme: the bearer scheme is matched without regard to case
// (RFC 9110 §11.1) and may be followed by more than one space; any other
// scheme, a missing or wrong token is 401, with WWW-Authenticate and
// Cache-Control: no-store (a cache must not answer a later request that
// carries the token with the 401).
func TestAuthScheme(t *testing.T) {
	c, _ := newServer(t, "s3cret")
	for _, tc := range []struct {
		header string
		want   int
	}{
		{"Bearer s3cret", 200},
		{"bearer s3cret", 200},
		{"BEARER s3cret", 200},
		{"bEaReR s3cret", 200},
		{"Bearer   s3cret", 200},
		{"", 401},
		{"Bearer", 401},
		{"Bearer ", 401},
		{"Bearers3cret", 401},
		{"Bearer\ts3cret", 401},
		{"Basic s3cret", 401},
		{"Token s3cret", 401},
		{"Bearer S3CRET", 401}, // the token itself is compared exactly
		{"Bearer s3cret s3cret", 401},
		{"bearer wrong", 401},
	} {
		var header []string
		if tc.header != "" {
			header = []string{"Authorization", tc.header}
		}
		code, h, body := get(t, c.url, "", "/v1/studies", header...)
		if code != tc.want {
			t.Errorf("Authorization: %q: %d %s, want %d", tc.header, code, body, tc.want)
			continue
		}
		if code != http.StatusUnauthorized {
			continue
		}
		if cc := h.Get("Cache-Control"); cc != "no-store" {
			t.Errorf("Authorization: %q: 401 with Cache-Control %q, want no-store", tc.header, cc)
		}
		if wa := h.Get("WWW-Authenticate"); wa != `Bearer realm="safegp"` {
			t.Errorf("Authorization: %q: 401 with WWW-Authenticate %q", tc.header, wa)
		}
	}
	// A POST is refused the same way, before its body is read.
	code, body := client{t: t, url: c.url, token: ""}.do("POST", "/v1/studies/a/ask", "")
	if code != http.StatusUnauthorized {
		t.Errorf("POST without a token: %d %v, want 401", code, body)
	}
}

// TestNoSniff is issue 24, item 11: every answer — JSON, errors, the
// dashboard's page — tells browsers not to guess its type.
func TestNoSniff(t *testing.T) {
	c, _ := newServer(t, "s3cret")
	for _, r := range []struct{ method, path, auth string }{
		{"GET", "/healthz", ""},
		{"GET", "/v1/studies", "Bearer s3cret"},
		{"GET", "/v1/studies", ""},                   // 401
		{"GET", "/v1/studies/none", "Bearer s3cret"}, // 404
		{"GET", "/", ""},
	} {
		req, _ := http.NewRequest(r.method, c.url+r.path, nil)
		if r.auth != "" {
			req.Header.Set("Authorization", r.auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if got := resp.Header.Get("X-Content-Type-Options"); got != "nosniff" {
			t.Errorf("%s %s (%d): X-Content-Type-Options %q, want nosniff", r.method, r.path, resp.StatusCode, got)
		}
	}
}
