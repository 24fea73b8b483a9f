package server

import (
	"testing"

	"github.com/safegp/safegp/internal/testjson"
	"github.com/safegp/safegp/study/api"
)

// FuzzDecodeCreate: the create decoder never panics, and what it accepts
// has a valid name and a spec without a decision-set file.
func FuzzDecodeCreate(f *testing.F) {
	for _, seed := range []string{
		`{"name": "a", "spec": {"decision_set": {"grid": {"bounds": [[0, 4]], "points": [41]}}, "seed_actions": [10], "thresholds": [0.0], "horizon": 10}}`,
		`{"name": "a", "spec": {"decision_set": {"file": "/etc/passwd"}}}`,
		`{"name": "../etc", "spec": {}}`,
		`{"name": "a", "spec": null}`,
		`{"name": "a", "spec": "decision_set: {grid: 1}"}`,
		`{"name": "a", "spec": {}} trailing`,
		`{"spec": {}}`, `[]`, ``, `{"name": 1}`,
		`{"name": "a", "spec": {"horizon": 1e400, "colour": 1}}`,
		`{"name": "a", "name": "b", "spec": {}}`, `{"NAME": "a", "spec": {}}`, `{"name": "a", "spec": {"horizon": 10, "horizon": 20}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		name, spec, err := decodeCreate(body)
		if err != nil {
			if status(err) != 400 {
				t.Fatalf("error %v maps to %d, want 400", err, status(err))
			}
			return
		}
		// Issue 24, item 5: no key twice anywhere, no "NAME" for "name".
		if err := testjson.KeysOnce(body, "name", "spec"); err != nil {
			t.Fatalf("accepted %q: %v", body, err)
		}
		if err := api.CheckName(name); err != nil {
			t.Fatalf("accepted name %q: %v", name, err)
		}
		if spec == nil || spec.DecisionSet.File != "" {
			t.Fatalf("accepted spec %+v", spec)
		}
	})
}
