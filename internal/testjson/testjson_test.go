package testjson

import "testing"

func TestKeysOnce(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		doc   string
		exact []string
		ok    bool
	}{
		{`{"a": 1, "b": {"a": 1}}`, []string{"a", "b"}, true},
		{`{"a": 1, "a": 2}`, nil, false},
		{`{"a": {"x": [1, {"y": 1, "y": 2}]}}`, nil, false},
		{`{"a": [{"k": 1}, {"k": 1}]}`, nil, true}, // one key in each of two objects
		{`{"A": 1}`, []string{"a"}, false},
		{`[{"a": 1}, {"a": 1}]`, nil, true},
		{`{"a": "b", "b": "a"}`, []string{"a", "b"}, true},
		{`not json`, nil, true},
	} {
		if err := KeysOnce([]byte(c.doc), c.exact...); (err == nil) != c.ok {
			t.Errorf("%s: %v, want ok = %v", c.doc, err, c.ok)
		}
	}
}
