package server_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/safegp/safegp/study"
	"github.com/safegp/safegp/study/api"
	"github.com/safegp/safegp/study/view"
)

// get fetches path with the token (if any) and returns the status, the
// headers and the body.
func get(t *testing.T, url, token, path string, header ...string) (int, http.Header, []byte) {
	t.Helper()
	req, err := http.NewRequest("GET", url+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for k := 0; k+1 < len(header); k += 2 {
		req.Header.Set(header[k], header[k+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, b
}

// TestDashboardData: the list and the view answer what the page draws,
// behind the token, and change nothing.
func TestDashboardData(t *testing.T) {
	fx := newDashFixture(t)
	// A finite set above the view's cap: its posterior is left out.
	large := strings.Replace(oneDSpec, "points: [81]", fmt.Sprintf("points: [%d]", view.MaxActions+1), 1)
	c := client{t: t, url: fx.url, token: dashToken}
	js, err := yamlToJSON(large)
	if err != nil {
		t.Fatal(err)
	}
	if code, body := c.do("POST", "/v1/studies", fmt.Sprintf(`{"name": "large", "spec": %s}`, js)); code != http.StatusCreated {
		t.Fatalf("create large: %d %v", code, body)
	}

	type view struct {
		Summary struct {
			Study   string             `json:"study"`
			Rounds  int                `json:"rounds"`
			Context map[string]float64 `json:"context"`
		} `json:"summary"`
		Thresholds   []float64 `json:"thresholds"`
		Observations []struct {
			Retracted bool `json:"retracted"`
		} `json:"observations"`
		Pending []struct {
			Ask        int                `json:"ask"`
			X          []float64          `json:"x"`
			Context    map[string]float64 `json:"context"`
			LeaseUntil string             `json:"lease_until"`
		} `json:"pending"`
		Posterior *struct {
			X    [][]float64 `json:"x"`
			Safe []bool      `json:"safe"`
			F    struct {
				Mean []float64 `json:"mean"`
			} `json:"f"`
			G []struct {
				Mean []float64 `json:"mean"`
			} `json:"g"`
		} `json:"posterior"`
		Skipped string `json:"posterior_skipped"`
	}
	for _, tc := range []struct {
		name, path, token string
		code              int
		check             func(t *testing.T, body []byte)
	}{
		{"list", "/v1/studies", dashToken, 200, func(t *testing.T, body []byte) {
			var l struct{ Studies []api.StudyInfo }
			if err := json.Unmarshal(body, &l); err != nil {
				t.Fatal(err)
			}
			got := fmt.Sprint(names(l.Studies))
			if got != "[batch-1d beam-box climate-1d fresh large long-1000 pump-1d scatter-2d tune-2gain tune-2gain-b tune-pi tune-pid valve-2d]" {
				t.Errorf("studies %s", got)
			}
			for _, s := range l.Studies {
				if s.Study == "pump-1d" && (s.Rounds != 19 || s.Retracted != 1 || s.Pending != 1 || s.Actions != 81 || s.Dim != 1 || s.Box) {
					t.Errorf("pump-1d listed as %+v", s)
				}
				if s.Study == "beam-box" && (!s.Box || s.Dim != 3 || s.Actions != 0 || s.Algorithm != "line-bo") {
					t.Errorf("beam-box listed as %+v", s)
				}
			}
		}},
		{"view 1-D", "/v1/studies/pump-1d/view", dashToken, 200, func(t *testing.T, body []byte) {
			var v view
			if err := json.Unmarshal(body, &v); err != nil {
				t.Fatal(err)
			}
			p := v.Posterior
			if v.Summary.Study != "pump-1d" || v.Summary.Rounds != 19 || len(v.Observations) != 20 || !v.Observations[19].Retracted && !v.Observations[18].Retracted ||
				len(v.Pending) != 1 || len(v.Thresholds) != 1 || p == nil || len(p.X) != 81 || len(p.Safe) != 81 || len(p.F.Mean) != 81 || len(p.G) != 1 {
				t.Errorf("view %s", body[:min(len(body), 400)])
			}
		}},
		{"view 2-D", "/v1/studies/valve-2d/view", dashToken, 200, func(t *testing.T, body []byte) {
			var v view
			if err := json.Unmarshal(body, &v); err != nil {
				t.Fatal(err)
			}
			if p := v.Posterior; p == nil || len(p.X) != 900 || len(p.X[0]) != 2 || len(p.G[0].Mean) != 900 || len(v.Pending) != 1 {
				t.Errorf("2-D view without its posterior over 900 actions: %s", v.Skipped)
			}
		}},
		{"view box", "/v1/studies/beam-box/view", dashToken, 200, func(t *testing.T, body []byte) {
			var v view
			if err := json.Unmarshal(body, &v); err != nil {
				t.Fatal(err)
			}
			if v.Posterior != nil || !strings.Contains(v.Skipped, "box") || len(v.Observations) != 12 {
				t.Errorf("box view: posterior %v, skipped %q, %d observations", v.Posterior != nil, v.Skipped, len(v.Observations))
			}
		}},
		{"view with a context", "/v1/studies/climate-1d/view", dashToken, 200, func(t *testing.T, body []byte) {
			var v view
			if err := json.Unmarshal(body, &v); err != nil {
				t.Fatal(err)
			}
			if !maps.Equal(v.Summary.Context, climateC1) || len(v.Pending) != 1 || !maps.Equal(v.Pending[0].Context, climateC1) || v.Posterior == nil || len(v.Observations) != 12 {
				t.Errorf("view of climate-1d: context %v, pending %+v, posterior %v, %d observations; want C1 %v, one ask pending in it, a posterior, 12",
					v.Summary.Context, v.Pending, v.Posterior != nil, len(v.Observations), climateC1)
			}
		}},
		{"view with leases", "/v1/studies/batch-1d/view", dashToken, 200, func(t *testing.T, body []byte) {
			var v view
			if err := json.Unmarshal(body, &v); err != nil {
				t.Fatal(err)
			}
			// The asks in order: 2 leased for 10 min, 1 handed out
			// again without a lease, 1 released.
			now := time.Now()
			var kinds []string
			for _, p := range v.Pending {
				until, err := time.Parse(time.RFC3339, p.LeaseUntil)
				switch {
				case p.LeaseUntil == "":
					kinds = append(kinds, "none")
				case err != nil:
					kinds = append(kinds, "bad "+p.LeaseUntil)
				case until.After(now.Add(9 * time.Minute)):
					kinds = append(kinds, "leased")
				case until.Before(now):
					kinds = append(kinds, "released")
				default:
					kinds = append(kinds, "other "+p.LeaseUntil)
				}
			}
			if got := fmt.Sprint(kinds); got != "[leased leased none released]" {
				t.Errorf("pending asks' leases %s, want [leased leased none released]", got)
			}
		}},
		{"view above the cap", "/v1/studies/large/view", dashToken, 200, func(t *testing.T, body []byte) {
			var v view
			if err := json.Unmarshal(body, &v); err != nil {
				t.Fatal(err)
			}
			if v.Posterior != nil || !strings.Contains(v.Skipped, "10001 actions") {
				t.Errorf("view of 10 001 actions: posterior %v, skipped %q", v.Posterior != nil, v.Skipped)
			}
		}},
		{"view not found", "/v1/studies/nope/view", dashToken, 404, nil},
		{"view bad name", "/v1/studies/bad%20name/view", dashToken, 400, nil},
		{"list without token", "/v1/studies", "", 401, nil},
		{"view without token", "/v1/studies/pump-1d/view", "", 401, nil},
		{"view with a wrong token", "/v1/studies/pump-1d/view", "wrong", 401, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, hd, body := get(t, fx.url, tc.token, tc.path)
			if code != tc.code {
				t.Fatalf("status %d, want %d: %s", code, tc.code, body)
			}
			if ct := hd.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type %q", ct)
			}
			if tc.check != nil {
				if cc := hd.Get("Cache-Control"); cc != "no-store" {
					t.Errorf("Cache-Control %q, want no-store", cc)
				}
				tc.check(t, body)
				return
			}
			var e struct{ Error string }
			if json.Unmarshal(body, &e) != nil || e.Error == "" {
				t.Errorf("no JSON error: %s", body)
			}
		})
	}
}

func names(l []api.StudyInfo) []string {
	var out []string
	for _, s := range l {
		out = append(out, s.Study)
	}
	return out
}

// yamlToJSON turns a fixture spec into the JSON a create request takes.
func yamlToJSON(y string) (string, error) {
	s, err := study.ParseSpec([]byte(y))
	if err != nil {
		return "", err
	}
	b, err := json.Marshal(s)
	return string(b), err
}

// TestDashboardViewChangesNothing: fetching the view and the list over
// HTTP, many times, leaves the next ask what it is for a copy of the
// study that was never viewed.
func TestDashboardViewChangesNothing(t *testing.T) {
	viewed, _ := newServer(t, "")
	plain, _ := newServer(t, "")
	for _, c := range []client{viewed, plain} {
		create(c, "a")
	}
	for round := range 12 {
		for range 3 {
			if code, _, body := get(t, viewed.url, "", "/v1/studies/a/view"); code != 200 {
				t.Fatalf("view: %d %s", code, body)
			}
			if code, _, body := get(t, viewed.url, "", "/v1/studies"); code != 200 {
				t.Fatalf("list: %d %s", code, body)
			}
		}
		_, a := viewed.do("POST", "/v1/studies/a/ask", "")
		_, b := plain.do("POST", "/v1/studies/a/ask", "")
		if fmt.Sprint(a) != fmt.Sprint(b) {
			t.Fatalf("round %d: the viewed study asks %v, the other %v", round+1, a, b)
		}
		f, g := truth(a["x"].([]any)[0].(float64))
		for _, c := range []client{viewed, plain} {
			if code, body := c.do("POST", "/v1/studies/a/tell", fmt.Sprintf(`{"ask": %v, "f": %v, "g": [%v]}`, a["ask"], f, g)); code != 200 {
				t.Fatalf("tell: %d %v", code, body)
			}
		}
	}
}

// TestDashboardPage: the page and its assets are served without the
// token (they hold no data), with their content types, no-cache and a
// Content-Security-Policy that allows no inline script; the page holds
// none, nor an inline style or handler, so that the policy holds.
func TestDashboardPage(t *testing.T) {
	c, _ := newServer(t, "s3cret")
	for _, tc := range []struct {
		path, contentType, contains string
	}{
		{"/", "text/html; charset=utf-8", `<script src="assets/dashboard.js"></script>`},
		{"/assets/dashboard.js", "text/javascript; charset=utf-8", "'use strict';"},
		{"/assets/dashboard.css", "text/css; charset=utf-8", ":root"},
		{"/assets/favicon.svg", "image/svg+xml", "<svg"},
		{"/assets/plotly.js", "text/javascript; charset=utf-8", "plotly.js (cartesian - minified) v3.7.0"},
	} {
		code, hd, body := get(t, c.url, "", tc.path)
		if code != 200 || hd.Get("Content-Type") != tc.contentType || !strings.Contains(string(body), tc.contains) {
			t.Errorf("GET %s: %d %q, want 200 %q with %q", tc.path, code, hd.Get("Content-Type"), tc.contentType, tc.contains)
			continue
		}
		// Scripts from the page's origin only; the one allowance is the
		// plotting library's inline styles.
		csp := hd.Get("Content-Security-Policy")
		if !strings.HasPrefix(csp, "default-src 'self';") || strings.Contains(csp, "script-src") || strings.Count(csp, "unsafe") != 1 || !strings.Contains(csp, "style-src 'self' 'unsafe-inline';") {
			t.Errorf("GET %s: Content-Security-Policy %q", tc.path, csp)
		}
		for k, want := range map[string]string{"Cache-Control": "no-cache", "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer", "X-Frame-Options": "DENY"} {
			if got := hd.Get(k); got != want {
				t.Errorf("GET %s: %s %q, want %q", tc.path, k, got, want)
			}
		}
		// Revalidation by ETag.
		if code, _, _ := get(t, c.url, "", tc.path, "If-None-Match", hd.Get("ETag")); code != http.StatusNotModified {
			t.Errorf("GET %s with its ETag: %d, want 304", tc.path, code)
		}
	}
	// Gzipped to a client that takes it (the library: 1.4 MB, about a
	// third of it gzipped), under another ETag; the same bytes unzipped.
	_, plainHd, plain := get(t, c.url, "", "/assets/plotly.js", "Accept-Encoding", "identity")
	code, hd, zipped := get(t, c.url, "", "/assets/plotly.js", "Accept-Encoding", "br, gzip;q=0.8")
	if code != 200 || hd.Get("Content-Encoding") != "gzip" || hd.Get("ETag") == plainHd.Get("ETag") || !strings.Contains(hd.Get("Vary"), "Accept-Encoding") {
		t.Errorf("GET /assets/plotly.js with gzip: %d, Content-Encoding %q, ETag %q (plain %q), Vary %q", code, hd.Get("Content-Encoding"), hd.Get("ETag"), plainHd.Get("ETag"), hd.Get("Vary"))
	} else if zr, err := gzip.NewReader(bytes.NewReader(zipped)); err != nil {
		t.Error(err)
	} else if un, err := io.ReadAll(zr); err != nil || !bytes.Equal(un, plain) || len(zipped) > len(plain)/2 {
		t.Errorf("the gzipped library: %d bytes, %d unzipped (%v), want the %d plain bytes, at most half as many zipped", len(zipped), len(un), err, len(plain))
	}
	if _, hd, _ := get(t, c.url, "", "/assets/plotly.js", "Accept-Encoding", "gzip;q=0"); hd.Get("Content-Encoding") != "" {
		t.Errorf("gzip;q=0 refuses gzip, got Content-Encoding %q", hd.Get("Content-Encoding"))
	}
	_, _, page := get(t, c.url, "", "/")
	scripts := regexp.MustCompile(`<script([^>]*)>([^<]*)</script>`).FindAllSubmatch(page, -1)
	if n := strings.Count(string(page), "<script"); n != len(scripts) || n == 0 {
		t.Errorf("the page has %d script tags, %d of them well formed", n, len(scripts))
	}
	for _, m := range scripts {
		if !strings.Contains(string(m[1]), ` src="assets/`) || strings.TrimSpace(string(m[2])) != "" {
			t.Errorf("script %q: the policy allows only the page's own files, no inline script", m[0])
		}
	}
	for _, bad := range []*regexp.Regexp{
		regexp.MustCompile(`\son[a-z]+\s*=`),     // an inline handler
		regexp.MustCompile(`\sstyle\s*=|<style`), // an inline style
		regexp.MustCompile(`(?i)(src|href)\s*=\s*"(https?:)?//`),
	} {
		if m := bad.Find(page); m != nil {
			t.Errorf("the page holds %q, which its policy would block or which loads from another origin", m)
		}
	}
	for _, tc := range []struct{ path string }{{"/assets/nope.js"}, {"/assets/"}, {"/index.html"}, {"/web/index.html"}} {
		if code, _, _ := get(t, c.url, "", tc.path); code != 404 {
			t.Errorf("GET %s: %d, want 404", tc.path, code)
		}
	}
	if code, _, _ := get(t, c.url, "", "/v1/studies"); code != 401 {
		t.Errorf("the list without the token: %d, want 401", code)
	}
}

// TestDashboardViewETag: the view carries an ETag of the study's version;
// asked again with it, the server answers 304 without a body until the
// study changes, then the new view with a new ETag.
func TestDashboardViewETag(t *testing.T) {
	c, _ := newServer(t, "")
	create(c, "a")
	code, hd, first := get(t, c.url, "", "/v1/studies/a/view")
	etag := hd.Get("ETag")
	if code != 200 || etag == "" {
		t.Fatalf("view: %d, ETag %q", code, etag)
	}
	if code, hd, body := get(t, c.url, "", "/v1/studies/a/view", "If-None-Match", etag); code != http.StatusNotModified || len(body) != 0 || hd.Get("ETag") != etag {
		t.Errorf("view with its ETag: %d, %d bytes, ETag %q; want 304, none, %q", code, len(body), hd.Get("ETag"), etag)
	}
	if code, _, again := get(t, c.url, "", "/v1/studies/a/view"); code != 200 || string(again) != string(first) {
		t.Errorf("view again (from the cache): %d, same body %v", code, string(again) == string(first))
	}
	_, a := c.do("POST", "/v1/studies/a/ask", "")
	code, hd, after := get(t, c.url, "", "/v1/studies/a/view", "If-None-Match", etag)
	if code != 200 || hd.Get("ETag") == etag || string(after) == string(first) || !strings.Contains(string(after), fmt.Sprintf(`"pending":[{"ask":%v`, a["ask"])) {
		t.Errorf("view after an ask, with the old ETag: %d, ETag %q (was %q): %.300s", code, hd.Get("ETag"), etag, after)
	}
	if code, _, _ := get(t, c.url, "", "/v1/studies/nope/view", "If-None-Match", etag); code != 404 {
		t.Errorf("an unknown study with an ETag: %d, want 404", code)
	}
}

// TestDashboardViewETagFollowsLeases: a heartbeat records no event, yet
// changes the view (the lease's end): the ETag changes with it, so that a
// page polling with the old one gets the new lease, then 304 again.
func TestDashboardViewETagFollowsLeases(t *testing.T) {
	c, _ := newServer(t, "")
	create(c, "a")
	if code, body := c.do("POST", "/v1/studies/a/ask", `{"count": 2, "lease_seconds": 60}`); code != 200 {
		t.Fatalf("ask: %d %v", code, body)
	}
	_, hd, first := get(t, c.url, "", "/v1/studies/a/view")
	etag := hd.Get("ETag")
	if n := strings.Count(string(first), `"lease_until":`); n != 2 || etag == "" {
		t.Fatalf("view of 2 leased asks: %d leases, ETag %q: %.400s", n, etag, first)
	}
	code, hb := c.do("POST", "/v1/studies/a/heartbeat", `{"ask": 1, "lease_seconds": 600}`)
	if code != 200 {
		t.Fatalf("heartbeat: %d %v", code, hb)
	}
	code, hd, after := get(t, c.url, "", "/v1/studies/a/view", "If-None-Match", etag)
	if code != 200 || hd.Get("ETag") == etag || !strings.Contains(string(after), fmt.Sprintf(`"lease_until":%q`, hb["lease_until"])) {
		t.Fatalf("view after a heartbeat, with the old ETag: %d, ETag %q (was %q), want the new lease %v: %.400s", code, hd.Get("ETag"), etag, hb["lease_until"], after)
	}
	var v struct{ Version int }
	if err := json.Unmarshal(after, &v); err != nil || !strings.Contains(string(first), fmt.Sprintf(`"version":%d`, v.Version)) {
		t.Errorf("the heartbeat changed the version to %d (%v): it records no event", v.Version, err)
	}
	if code, _, _ := get(t, c.url, "", "/v1/studies/a/view", "If-None-Match", hd.Get("ETag")); code != http.StatusNotModified {
		t.Errorf("view with the new ETag: %d, want 304", code)
	}
}

// TestDashboardMap: GET …/map answers a study stated in parameters over
// two numeric parameters, in their units (kp evenly in log kp over
// [0.05, 20]), the objective's mean in its units and the safe region,
// through the best safe trial; a 400 for what cannot be drawn.
func TestDashboardMap(t *testing.T) {
	fx := newDashFixture(t)
	code, _, body := get(t, fx.url, dashToken, "/v1/studies/tune-2gain/map?x=kp&y=ki")
	if code != 200 {
		t.Fatalf("map: %d %s", code, body)
	}
	var m view.Map
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatal(err)
	}
	n := view.MapPoints
	if m.X != "kp" || m.Y != "ki" || len(m.XS) != n || len(m.YS) != n || len(m.Mean) != n || len(m.Mean[0]) != n || len(m.Safe) != n || m.Objective.Name != "settle_time" {
		t.Fatalf("map: %s × %s, %d × %d values, objective %q", m.X, m.Y, len(m.XS), len(m.YS), m.Objective.Name)
	}
	// Evenly in log kp from 0.05 to 20 (to rounding: the unit
	// coordinate's inverse), evenly in ki from 0.01 to 10.
	if math.Abs(m.XS[0]-0.05) > 1e-12 || math.Abs(m.XS[n-1]-20) > 1e-9 || math.Abs(math.Log(m.XS[1]/m.XS[0])-math.Log(m.XS[n-1]/m.XS[n-2])) > 1e-9 ||
		math.Abs(m.YS[0]-0.01) > 1e-12 || math.Abs(m.YS[n-1]-10) > 1e-9 || math.Abs((m.YS[1]-m.YS[0])-(m.YS[n-1]-m.YS[n-2])) > 1e-9 {
		t.Errorf("map grid: kp %v … %v, ki %v … %v", m.XS[:2], m.XS[n-2:], m.YS[:2], m.YS[n-2:])
	}
	vw, err := view.Of(context.Background(), fx.svc, "tune-2gain")
	if err != nil {
		t.Fatal(err)
	}
	// Drawn through the best safe trial; near it the safe region holds
	// (the trial kept every limit, and the model knows it there), and
	// the hot corner, measured past the limit, is outside it.
	b := vw.Summary.Best
	if m.At["kp"].Num != b.Params["kp"].Num || m.At["ki"].Num != b.Params["ki"].Num {
		t.Errorf("map drawn through %v, want the best safe trial's %v", m.At, b.Params)
	}
	near := func(xs []float64, v float64) int {
		k := 0
		for j := range xs {
			if math.Abs(math.Log(xs[j]/v)) < math.Abs(math.Log(xs[k]/v)) {
				k = j
			}
		}
		return k
	}
	if !m.Safe[near(m.YS, b.Params["ki"].Num)][near(m.XS, b.Params["kp"].Num)] || m.Safe[n-1][n-1] {
		t.Errorf("map: safe at the best trial %v, at the hot corner %v; want true, false", m.Safe[near(m.YS, b.Params["ki"].Num)][near(m.XS, b.Params["kp"].Num)], m.Safe[n-1][n-1])
	}
	// The mean in seconds: near the best trial, near its measured value.
	if got, want := m.Mean[near(m.YS, b.Params["ki"].Num)][near(m.XS, b.Params["kp"].Num)], b.Values["settle_time"]; math.Abs(got-want) > 0.2*want {
		t.Errorf("map: mean settle_time near the best trial %.4g s, it measured %.4g s", got, want)
	}
	for _, q := range []string{"x=kp&y=kp", "x=kp&y=nope", "x=kp", "x=kp&y=mode"} {
		if code, _, body := get(t, fx.url, dashToken, "/v1/studies/tune-pid/map?"+q); code != 400 {
			t.Errorf("map ?%s: %d %s, want 400", q, code, body)
		}
	}
	if code, _, _ := get(t, fx.url, dashToken, "/v1/studies/pump-1d/map?x=x1&y=x2"); code != 400 {
		t.Errorf("map of a study not stated in parameters: %d, want 400", code)
	}
	if code, _, _ := get(t, fx.url, "", "/v1/studies/tune-2gain/map?x=kp&y=ki"); code != 401 {
		t.Errorf("map without the token: %d, want 401", code)
	}
}
