package bandit_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/safegp/safegp/bandit"
)

// TestRecordedDefaults: what a recorded spec pins and how an older record
// is read live in the algorithm's row (issue 41, item 1). line-bo ascent
// without a rule is recorded with today's default, sampled, and a record
// without one (made before the rule existed) is read as the mean's
// gradient, the rule of then; a rule given is kept either way, and other
// directions and algorithms are left as they are.
func TestRecordedDefaults(t *testing.T) {
	t.Parallel()
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

// TestRecordedLineDefaults: line-bo's defaults of issue 42 — a cloud,
// inner sgp-ucb with T′ = 0, 5 evaluations a cloud, 300 points — are
// pinned into a recorded spec, and a record without a direction (made
// before cloud existed) is read as the coordinate lines of then, whose
// inner safeopt and 20 evaluations a line are still the line defaults,
// and one without points (made before they were pinned) as 300 points;
// a pinned record reads back unchanged.
func TestRecordedLineDefaults(t *testing.T) {
	t.Parallel()
	pinned := bandit.Spec{Name: bandit.LineBO}
	pinned.PinDefaults()
	if pinned.Direction != "cloud" || pinned.Inner != bandit.SGPUCB || pinned.PerLine == nil || *pinned.PerLine != 5 ||
		pinned.Exploration.Fixed == nil || *pinned.Exploration.Fixed != 0 || pinned.Points == nil || *pinned.Points != 300 {
		t.Errorf("pinned %+v: want a cloud, inner sgp-ucb with T′ = 0, per_line 5, points 300", pinned)
	}
	again := pinned
	again.UpgradeRecorded()
	if d := cmp.Diff(pinned, again); d != "" {
		t.Errorf("a pinned record upgraded (-pinned +read):\n%s", d)
	}
	if pl, al := pinned.LineOptions(), again.LineOptions(); pl.Direction != al.Direction || pl.PerLine != al.PerLine || pl.Inner.Name != al.Inner.Name {
		t.Errorf("pinned %+v reads as %+v", pl, al)
	}
	old := bandit.Spec{Name: bandit.LineBO, SafeSet: "gp"}
	old.UpgradeRecorded()
	if l := old.LineOptions(); l.Direction != "coordinate" || l.Inner.Name != bandit.SafeOpt || l.PerLine != 20 || old.Points == nil || *old.Points != 300 {
		t.Errorf("a record of before issue 42 reads as %s lines, inner %s, per_line %d, points %v; want coordinate, safeopt, 20, 300", l.Direction, l.Inner.Name, l.PerLine, old.Points)
	}
	given := bandit.Spec{Name: bandit.LineBO, Direction: "random", Inner: bandit.StageOpt, PerLine: ptr(7), Points: ptr(41)}
	kept := given
	kept.PinDefaults()
	if d := cmp.Diff(given, kept); d != "" {
		t.Errorf("given options pinned over (-given +pinned):\n%s", d)
	}
}

// TestRowProperties: what a study needs to know of an algorithm comes
// from its row (issue 41, item 1) — what its safety rests on, whether it
// bounds the outcomes in the user's units, its largest batch — and
// line-bo's safety and units are its inner algorithm's.
func TestRowProperties(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		spec     bandit.Spec
		safety   bandit.Safety
		acting   string
		inUnits  bool
		maxBatch int
	}{
		{bandit.Spec{Name: bandit.SGPUCB}, bandit.SafetyModel, bandit.SGPUCB, false, 0},
		{bandit.Spec{Name: bandit.SafeOpt}, bandit.SafetyModel, bandit.SafeOpt, false, 0},
		{bandit.Spec{Name: bandit.LoSBO}, bandit.SafetyBounds, bandit.LoSBO, true, 0},
		{bandit.Spec{Name: bandit.ConstrainedEI}, bandit.SafetyNone, bandit.ConstrainedEI, false, 0},
		{bandit.Spec{Name: bandit.PoFEI}, bandit.SafetyNone, bandit.PoFEI, false, 0},
		{bandit.Spec{Name: bandit.SafeOptSwarm}, bandit.SafetyModel, bandit.SafeOptSwarm, false, 1},
		{bandit.Spec{Name: bandit.LineBO, Inner: bandit.LoSBO}, bandit.SafetyBounds, bandit.LoSBO, true, 0},
		{bandit.Spec{Name: bandit.LineBO, Inner: bandit.ConstrainedEI}, bandit.SafetyNone, bandit.ConstrainedEI, false, 0},
		{bandit.Spec{Name: bandit.LineBO}, bandit.SafetyModel, bandit.SGPUCB, false, 0},
		{bandit.Spec{Name: bandit.LineBO, SafeSet: "gp"}, bandit.SafetyModel, bandit.SafeOpt, false, 0},
		{bandit.Spec{Name: bandit.LineBO, Direction: "coordinate"}, bandit.SafetyModel, bandit.SafeOpt, false, 0},
	} {
		safety, acting := c.spec.Safety()
		if safety != c.safety || acting != c.acting || c.spec.InUnits() != c.inUnits || c.spec.MaxBatch() != c.maxBatch {
			t.Errorf("%s (inner %q): safety %v of %s, in units %v, max batch %d; want %v of %s, %v, %d",
				c.spec.Name, c.spec.Inner, safety, acting, c.spec.InUnits(), c.spec.MaxBatch(), c.safety, c.acting, c.inUnits, c.maxBatch)
		}
	}
}
