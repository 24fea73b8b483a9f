package reproduce

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/safegp/safegp/experiment"
	"github.com/safegp/safegp/problem"
	"github.com/safegp/safegp/theory"
)

// TestTheorySection: the report's theory paragraph says, per constraint,
// λ_− and T' or why there is no T', and of SafeOpt-MC's t* each of its
// three cases (none up to 2^53, within T, beyond T) or why there is
// none, then the rules' lengths — the sentences report.go writes, read
// off the BoundReport given.
func TestTheorySection(t *testing.T) {
	t.Parallel()
	base := func() *experiment.BoundReport {
		return &experiment.BoundReport{BetaT: 12.34, GammaT: 56.7, B: 2, C1: 3.456, Horizon: 100,
			Constraints: []experiment.ConstraintBound{
				{Exploration: &theory.Exploration{Lambda: 0.25, TPrime: 40}},
				{Error: "λ_− ≤ 0"},
			},
			Rules: []experiment.RuleLength{{Label: "sgp-ucb", Rule: "plateau", Rounds: 15}, {Label: "stageopt", Rule: "fixed", Rounds: 3}},
		}
	}
	for _, c := range []struct {
		name    string
		edit    func(*experiment.BoundReport)
		want    []string
		notWant []string
	}{
		{"no t*", func(*experiment.BoundReport) {}, []string{
			"Theory on realization 0 (`safegp bound`): β_T = 12.3, γ_T ≤ 57, B = 2, C_1 = 3.46. ",
			"Constraint g1: λ_− = 0.25, T' = 40. ",
			"Constraint g2: no T' — λ_− ≤ 0. ",
			"The exploration rules gave on this realization: sgp-ucb 15 (plateau), stageopt 3 (fixed) rounds.\n\n",
		}, []string{"SafeOpt-MC"}},
		{"t* never", func(r *experiment.BoundReport) { r.TStar = &theory.TStar{Reach0: 7, Target: 1e6} }, []string{
			"|R̄_0(D^w)| = 7, C_1·(|R̄_0(D^w)| + 1)/ε² = 1e+06, ", "no t* up to 2^53: SafeOpt-MC never switches. ",
		}, nil},
		{"t* within T", func(r *experiment.BoundReport) { r.TStar = &theory.TStar{Reach0: 7, T: 100} }, []string{"t* = 100 ≤ T. "}, []string{"never switches"}},
		{"t* beyond T", func(r *experiment.BoundReport) { r.TStar = &theory.TStar{Reach0: 7, T: 101} }, []string{"t* = 101 > T = 100: SafeOpt-MC never switches. "}, nil},
		{"t* error", func(r *experiment.BoundReport) { r.TStarError = "ε = 0" }, []string{"SafeOpt-MC: no t* — ε = 0. "}, []string{"Theorem 1"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := base()
			c.edit(r)
			var b bytes.Buffer
			theorySection(&b, r)
			got := b.String()
			for _, w := range c.want {
				if !strings.Contains(got, w) {
					t.Errorf("%q lacks %q", got, w)
				}
			}
			for _, w := range c.notWant {
				if strings.Contains(got, w) {
					t.Errorf("%q has %q", got, w)
				}
			}
		})
	}
}

// TestReportHelpers: the small statistics the report's verdicts rest on,
// at their edges — one value has sd 0, not NaN; a label without a curve
// has no rate; best of no curves is a dash and of one its own value —
// and in general against values worked by hand.
func TestReportHelpers(t *testing.T) {
	t.Parallel()
	if m, sd := meanSD([]float64{3}); m != 3 || sd != 0 {
		t.Errorf("meanSD([3]) = %v, %v; want 3, 0", m, sd)
	}
	// mean 2, sample variance ((1)² + 0 + (1)²)/2 = 1.
	if m, sd := meanSD([]float64{1, 2, 3}); m != 2 || sd != 1 {
		t.Errorf("meanSD([1 2 3]) = %v, %v; want 2, 1", m, sd)
	}
	curve := func(label string, final float64) experiment.Curve {
		c := experiment.Curve{Label: label, MeanAvg: make([]float64, 60)}
		for i := range c.MeanAvg {
			c.MeanAvg[i] = 2 * final
		}
		c.MeanAvg[59] = final
		return c
	}
	e := &Experiment{Config: &experiment.Config{Horizon: 60}, Curves: []experiment.Curve{curve("a", 0.5), curve("b", 0.25)}}
	if r := rate(e, "zz"); !math.IsNaN(r) {
		t.Errorf("rate of a missing label: %v, want NaN", r)
	}
	// R_60/60 over R_50/50: 0.5/1.
	if r := rate(e, "a"); r != 0.5 {
		t.Errorf("rate(a) = %v, want 0.5", r)
	}
	if got := best(e, nil); got != "—" {
		t.Errorf("best of no labels: %q, want —", got)
	}
	if got := best(e, []string{"a", "zz"}); got != "a (0.500)" {
		t.Errorf("best of one curve: %q, want a (0.500)", got)
	}
}

// TestSwitchSection: the switch paragraph lists t* per regime that has
// one ("none" for T = 0) and says SafeOpt-MC never switches when no
// regime's t* is within its horizon — and not when one is.
func TestSwitchSection(t *testing.T) {
	t.Parallel()
	const beyond = "Beyond T in every regime"
	for _, c := range []struct {
		name   string
		theory map[string]*experiment.BoundReport
		want   string
		beyond bool
	}{
		{"none and beyond", map[string]*experiment.BoundReport{
			"1-10":  {Horizon: 100, TStar: &theory.TStar{T: 0}},
			"11-20": {Horizon: 100, TStar: &theory.TStar{T: 500}},
		}, "; on realization 0 of each regime t* = 1-10: none, 11-20: 500.", true},
		{"one within", map[string]*experiment.BoundReport{
			"1-10":  {Horizon: 100, TStar: &theory.TStar{T: 500}},
			"21-25": {Horizon: 100, TStar: &theory.TStar{T: 99}},
		}, "t* = 1-10: 500, 21-25: 99.", false},
		{"no t*", map[string]*experiment.BoundReport{"1-10": {Horizon: 100, TStarError: "ε = 0"}}, "(`safegp bound` prints it).", false},
	} {
		var b bytes.Buffer
		switchSection(&b, &Outcome{Theory: c.theory})
		got := b.String()
		if !strings.Contains(got, c.want) || strings.Contains(got, beyond) != c.beyond {
			t.Errorf("%s: %q\nwant %q, %q said: %v", c.name, got, c.want, beyond, c.beyond)
		}
	}
}

// TestSeedInterval: the illustration's seed set is illSeedLen adjacent
// actions of x*'s safe interval, gap = illN/10 actions away from x*, on
// the side with more room; none when the interval has no room on either
// side or nothing is safe. g is 1 on the safe interval and −1 elsewhere,
// f peaks at x*, so the intervals below are worked by hand.
func TestSeedInterval(t *testing.T) {
	t.Parallel()
	const gap = illN / 10
	for _, c := range []struct {
		name          string
		lo, hi, xstar int // safe interval [lo, hi]; lo > hi: nothing safe
		start         int // −1: none
	}{
		{"left, more room", 0, illN - 1, 150, 150 - gap - illSeedLen + 1},
		{"right, no room left", 100, illN - 1, 110, 110 + gap},
		{"right, more room", 50, illN - 1, 80, 80 + gap},
		{"left, less room right", 40, 100, 80, 80 - gap - illSeedLen + 1},
		{"no room", 90, 110, 100, -1},
		{"nothing safe", 1, 0, 100, -1},
	} {
		p := &problem.Problem{F: make([]float64, illN), G: [][]float64{make([]float64, illN)}, H: []float64{0}, Epsilon: illEps, X: make([][]float64, illN)}
		for i := range illN {
			p.X[i] = []float64{float64(i) / 20}
			p.F[i] = -math.Abs(float64(i - c.xstar))
			p.G[0][i] = -1
			if i >= c.lo && i <= c.hi {
				p.G[0][i] = 1
			}
		}
		seed, ok := seedInterval(p)
		if c.start < 0 {
			if ok || seed != nil {
				t.Errorf("%s: seed %v, want none", c.name, seed)
			}
			continue
		}
		if !ok || len(seed) != illSeedLen || seed[0] != c.start || seed[illSeedLen-1] != c.start+illSeedLen-1 {
			t.Errorf("%s: seed %v (%v), want %d…%d", c.name, seed, ok, c.start, c.start+illSeedLen-1)
		}
	}
}
