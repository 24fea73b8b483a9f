package server_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// TestStrictJSONBodies is issue 24, item 5, over HTTP: a key given twice
// (encoding/json let the last win: a tell {"f":0.1,"f":0.9} stored 0.9, a
// create with two names created the second) and a key in another case
// ({"INDEX":3,"F":0.1} was taken) are refused with 400 naming the key,
// and change nothing.
func TestStrictJSONBodies(t *testing.T) {
	c, _ := newServer(t, "")
	create(c, "s")
	code, a := c.do("POST", "/v1/studies/s/ask", "")
	if code != 200 {
		t.Fatalf("ask: %d %v", code, a)
	}
	ask := int(a["ask"].(float64))
	_, before := c.do("GET", "/v1/studies/s/observations", "")
	for _, r := range []struct{ path, body, msg string }{
		{"/v1/studies/s/tell", fmt.Sprintf(`{"ask":%d,"f":0.1,"f":0.9,"g":[1]}`, ask), `key "f" is given twice`},
		{"/v1/studies/s/tell", `{"INDEX":3,"F":0.1,"g":[1]}`, `key "INDEX": keys are case-sensitive: write "index"`},
		{"/v1/studies/s/tell", `{"index":3,"f":0.1,"g":[1],"context":{"t":1,"t":2}}`, `key "t" in context`},
		{"/v1/studies/s/retract", `{"observation":1,"observation":2}`, `key "observation" is given twice`},
		{"/v1/studies/s/ask", `{"count":2,"Count":3}`, `key "Count": keys are case-sensitive: write "count"`},
		{"/v1/studies/s/heartbeat", fmt.Sprintf(`{"ask":%d,"lease_seconds":5,"lease_seconds":60}`, ask), `key "lease_seconds" is given twice`},
		{"/v1/studies/s/posterior", `{"points":[[1]],"points":[[2]]}`, `key "points" is given twice`},
		{"/v1/studies/s/import", `[{"x":[1],"f":1,"g":[1]},{"x":[2],"f":1,"f":2,"g":[1]}]`, `key "f" in [1] is given twice`},
		{"/v1/studies", `{"name":"first","name":"second","spec":` + spec + `}`, `key "name" is given twice`},
		{"/v1/studies", `{"NAME":"upper","spec":` + spec + `}`, `key "NAME": keys are case-sensitive: write "name"`},
		{"/v1/studies", `{"name":"dup","spec":` + strings.Replace(spec, `"horizon": 100`, `"horizon": 100, "horizon": 5`, 1) + `}`, `key "horizon" in spec is given twice`},
	} {
		code, body := c.do("POST", r.path, r.body)
		msg, _ := body["error"].(string)
		if code != http.StatusBadRequest || !strings.Contains(msg, r.msg) {
			t.Errorf("POST %s %.60s: %d %q, want 400 mentioning %q", r.path, r.body, code, msg, r.msg)
		}
	}
	if _, after := c.do("GET", "/v1/studies/s/observations", ""); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Errorf("the study changed: %v, then %v", before, after)
	}
	for _, name := range []string{"first", "second", "upper", "dup"} {
		if code, _ := c.do("GET", "/v1/studies/"+name, ""); code != http.StatusNotFound {
			t.Errorf("study %s: %d, want 404 (not created)", name, code)
		}
	}
}
