package study_test

import (
	"testing"

	"github.com/safegp/safegp/internal/memlimit"
	"github.com/safegp/safegp/study"
)

// FuzzSpec feeds the specification loader (YAML and JSON, as over HTTP)
// arbitrary documents: no panic, and an accepted specification resolves to
// a decision set it describes, with a memory estimate.
func FuzzSpec(f *testing.F) {
	f.Add([]byte(specYAML))
	f.Add([]byte(jsonSpec))
	f.Add([]byte(`{"thresholds": [null]}`))
	f.Add([]byte("horizon: 1.5\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := study.ParseSpec(data)
		if err != nil || s.DecisionSet.File != "" {
			return
		}
		r, err := s.Resolve("")
		if err != nil {
			return
		}
		if len(r.X) < 2 || len(r.Seed) == 0 || r.Spec.Horizon < 1 {
			t.Fatalf("accepted %d actions, %d seeds, horizon %d", len(r.X), len(r.Seed), r.Spec.Horizon)
		}
		r.CheckMemory(memlimit.Default)
	})
}
