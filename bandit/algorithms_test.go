package bandit_test

import (
	"testing"

	"github.com/safegp/safegp/bandit"
)

// TestRecordedDefaults: what a recorded spec pins and how an older record
// is read live in the algorithm's row (issue 41, item 1). line-bo ascent
// without a rule is recorded with today's default, sampled, and a record
// without one (made before the rule existed) is read as the mean's
// gradient, the rule of then; a rule given is kept either way, and other
// directions and algorithms are left as they are.
func TestRecordedDefaults(t *testing.T) {
	for _, c := range []struct {
		spec          bandit.Spec
		pin, upgraded string
	}{
		{bandit.Spec{Name: bandit.LineBO, Direction: "ascent"}, "sampled", "mean"},
		{bandit.Spec{Name: bandit.LineBO, Direction: "ascent", AscentRule: "mean"}, "mean", "mean"},
		{bandit.Spec{Name: bandit.LineBO, Direction: "ascent", AscentRule: "sampled"}, "sampled", "sampled"},
		{bandit.Spec{Name: bandit.LineBO, Direction: "random"}, "", ""},
		{bandit.Spec{Name: bandit.SGPUCB}, "", ""},
		{bandit.Spec{Name: "no such algorithm", Direction: "ascent"}, "", ""},
	} {
		pinned, upgraded := c.spec, c.spec
		pinned.PinDefaults()
		upgraded.UpgradeRecorded()
		if pinned.AscentRule != c.pin || upgraded.AscentRule != c.upgraded {
			t.Errorf("%s %s %q: pinned %q, upgraded %q; want %q and %q", c.spec.Name, c.spec.Direction, c.spec.AscentRule, pinned.AscentRule, upgraded.AscentRule, c.pin, c.upgraded)
		}
	}
}
