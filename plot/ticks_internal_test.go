package plot

import (
	"testing"

	gplot "gonum.org/v1/plot"
)

// TestWithZero: an axis whose range holds 0 gets a tick labelled "0":
// none is added when 0 is outside the range or labelled already; a
// minor tick within a thousandth of the range of 0 is dropped for it, and
// so is a labelled tick closer to 0 than half the labels' step (the
// labels would collide). Ticks and the expected lists are worked by hand.
func TestWithZero(t *testing.T) {
	t.Parallel()
	tk := func(v float64, l string) gplot.Tick { return gplot.Tick{Value: v, Label: l} }
	for _, c := range []struct {
		name     string
		ts       []gplot.Tick
		min, max float64
		want     []gplot.Tick
	}{
		{"above 0", []gplot.Tick{tk(1, "1"), tk(2, "2")}, 0.5, 2.5, []gplot.Tick{tk(1, "1"), tk(2, "2")}},
		{"below 0", []gplot.Tick{tk(-2, "-2"), tk(-1, "-1")}, -2.5, -0.5, []gplot.Tick{tk(-2, "-2"), tk(-1, "-1")}},
		{"0 labelled", []gplot.Tick{tk(-1, "-1"), tk(0.0001, "0"), tk(1, "1")}, -1.5, 1.5, []gplot.Tick{tk(-1, "-1"), tk(0.0001, "0"), tk(1, "1")}},
		// eps = 0.0025, step = 1: the minor tick at 0.001 and the label
		// at 0.3 go, the minor tick at 0.5 stays.
		{"0 added", []gplot.Tick{tk(-0.7, "-0.7"), tk(0.001, ""), tk(0.3, "0.3"), tk(0.5, ""), tk(1.3, "1.3")}, -1, 1.5,
			[]gplot.Tick{tk(-0.7, "-0.7"), tk(0, "0"), tk(0.5, ""), tk(1.3, "1.3")}},
		// step = 0.4: the label at 0.1 is within 0.2 of 0 and goes.
		{"0 added, close label", []gplot.Tick{tk(-0.3, "-0.3"), tk(0.1, "0.1"), tk(0.5, "0.5")}, -0.4, 0.6,
			[]gplot.Tick{tk(-0.3, "-0.3"), tk(0, "0"), tk(0.5, "0.5")}},
	} {
		got := withZero(c.ts, c.min, c.max)
		if len(got) != len(c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%s: %v, want %v", c.name, got, c.want)
				break
			}
		}
	}
}
