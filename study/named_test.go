package study_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/safegp/safegp/internal/racetest"
	"github.com/safegp/safegp/space"
	"github.com/safegp/safegp/study"
	"github.com/safegp/safegp/study/api"
	"github.com/safegp/safegp/study/exchange"
)

// TestNamedAnswers: a study stated in parameters answers in its own
// terms — an ask with its trial and params and no index or x, a tell
// naming the outcomes whose limits it broke, −0 told as 0 — and refuses
// a tell that mixes in the plain form's fields or misses an outcome.
func TestNamedAnswers(t *testing.T) {
	ctx := context.Background()
	v, st := newService(t, filepath.Join(t.TempDir(), "n.db"))
	defer st.Close()
	spec := `
parameters:
  - {name: x, low: 0, high: 10}
  - {name: n, type: int, low: 1, high: 4}
objective: {name: y, goal: maximize, min: 0.5}
constraints:
  - {name: m, min: 6, max: 9}
seeds: [{x: 5, n: 2}]
horizon: 10
`
	if err := v.Create(ctx, "s", resolved(t, spec)); err != nil {
		t.Fatal(err)
	}
	a, err := v.Ask(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(a)
	if got := string(b); got != `{"ask":1,"trial":0,"params":{"n":2,"x":5},"best":null}` {
		t.Errorf("ask answer %s", got)
	}
	id := a.Ask
	for _, c := range []struct {
		values map[string]float64
		want   string
	}{
		// The ask first: a seed measured unsafe withdraws an ask
		// pending at it (issue 43, item 2).
		{map[string]float64{"y": 1, "m": 7}, `"violation":false,"rounds":1,"best":{"trial":0`},
		{map[string]float64{"y": 0.2, "m": 9.5}, `"violation":true,"violated":["y","m"]`},
		{map[string]float64{"y": 1, "m": 5}, `"violation":true,"violated":["m"]`},
	} {
		var ans *api.TellAnswer
		if c.want[len(`"violation":`)] == 't' || id != a.Ask {
			ans, err = v.Tell(ctx, "s", &api.TellRequest{Params: space.Setting{"x": space.Number(5), "n": space.Number(2)}, Values: c.values})
		} else {
			ans, err = v.Tell(ctx, "s", &api.TellRequest{Ask: &id, Values: c.values})
		}
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(ans)
		if !strings.Contains(string(b), c.want) || strings.Contains(string(b), `"index"`) {
			t.Errorf("tell %v: %s, want %s and no index", c.values, b, c.want)
		}
	}
	ans, err := v.Tell(ctx, "s", &api.TellRequest{Params: space.Setting{"x": space.Number(4), "n": space.Number(3)}, Values: map[string]float64{"y": 2, "m": negZero() + 7}})
	if err != nil {
		t.Fatal(err)
	}
	if *ans.Trial != 3 {
		t.Errorf("trial %d, want 3", *ans.Trial)
	}
	z := negZero()
	if _, err := v.Tell(ctx, "s", &api.TellRequest{Params: space.Setting{"x": space.Number(4), "n": space.Number(1)}, Values: map[string]float64{"y": z, "m": 7}}); err != nil {
		t.Fatal(err)
	}
	x, err := v.Export(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	if csv := string(exchange.ExportCSV(x)); !strings.Contains(csv, ",4,1,0,7,true,") {
		t.Errorf("−0 exported as other than 0:\n%s", csv)
	}
	for _, bad := range []struct {
		req  api.TellRequest
		want string
	}{
		{api.TellRequest{Params: space.Setting{"x": space.Number(4), "n": space.Number(1)}, Values: map[string]float64{"y": 1}}, "values: m is missing"},
		{api.TellRequest{Params: space.Setting{"x": space.Number(4), "n": space.Number(1)}, Values: map[string]float64{"y": 1, "m": 7, "q": 1}}, "not an outcome"},
		{api.TellRequest{Params: space.Setting{"x": space.Number(4), "n": space.Number(1.5)}, Values: map[string]float64{"y": 1, "m": 7}}, "want an integer"},
		{api.TellRequest{Params: space.Setting{"x": space.Number(11), "n": space.Number(1)}, Values: map[string]float64{"y": 1, "m": 7}}, "want a number in [0, 10]"},
		{api.TellRequest{Params: space.Setting{"x": space.Number(4)}, Values: map[string]float64{"y": 1, "m": 7}}, "n is missing"},
		// By the outcome's name, not the f or g_k it becomes.
		{api.TellRequest{Params: space.Setting{"x": space.Number(4), "n": space.Number(1)}, Values: map[string]float64{"y": 1e200, "m": 7}}, "values: y = 1e+200 is not a finite number within ±1e100"},
		{api.TellRequest{Params: space.Setting{"x": space.Number(4), "n": space.Number(1)}, Values: map[string]float64{"y": 1, "m": -1e101}}, "values: m = -1e+101 is not a finite number"},
	} {
		if _, err := v.Tell(ctx, "s", &bad.req); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("tell %+v: %v, want an error mentioning %q", bad.req, err, bad.want)
		}
	}
}

func negZero() float64 {
	z := 0.0
	return -z
}

// TestNamedLoSBORefused: losbo's bounds are in the user's units, which a
// study stated in parameters standardizes, so it refuses losbo (alone or
// on line-bo's lines) and names the paper's form; the baselines with no
// bound of their own are taken.
func TestNamedLoSBORefused(t *testing.T) {
	base := `
parameters: [{name: x, low: 0, high: 1}]
objective: {name: y, goal: maximize}
constraints: [{name: m, max: 1}]
seeds: [{x: 0.5}]
horizon: 10
`
	for _, c := range []struct{ alg, want string }{
		// Issue 43: losbo's bounds are the constraints' there, in raw units.
		{"{name: losbo, lipschitz: 1, noise_bound: 0.1}", "takes its bounds from each constraint"},
		{"{name: losbo}", "losbo needs lipschitz"},
		{"{name: line-bo, inner: losbo, lipschitz: 1, noise_bound: 0.1}", "not your units"},
		{"{name: constrained-ei}", ""},
		{"{name: pof-ei}", ""},
	} {
		s, err := study.ParseSpec([]byte(base + "algorithm: " + c.alg + "\n"))
		if err != nil {
			t.Fatal(err)
		}
		_, err = s.Resolve(".")
		if (c.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.want)) {
			t.Errorf("algorithm %s: %v, want %q", c.alg, err, c.want)
		}
	}
}

// TestChoiceSeedAsString: a seed that names a choice by a number (YAML
// m: 1 for the choice "1") is asked, and stored, with the choice's
// string, as every other ask gives it (before, the seed came back as
// the number 1 and later asks as "1").
func TestChoiceSeedAsString(t *testing.T) {
	ctx := context.Background()
	v, _ := newService(t, filepath.Join(t.TempDir(), "s.db"))
	r := resolved(t, `
parameters:
  - {name: kp, low: 0.05, high: 20, scale: log}
  - {name: m, type: choice, values: [1, 2]}
objective: {name: y, goal: maximize}
constraints:
  - {name: c, max: 1}
seeds: [{kp: 0.3, m: 1}]
horizon: 20
`)
	if got := r.Spec.Seeds[0]["m"]; !got.IsStr || got.Str != "1" {
		t.Errorf("resolved seed m = %#v, want the string 1", got)
	}
	if err := v.Create(ctx, "s", r); err != nil {
		t.Fatal(err)
	}
	a, err := v.Ask(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	if m := a.Params["m"]; !m.IsStr || m.Str != "1" || a.Params["kp"].Num != 0.3 {
		t.Errorf("the seed asked as %v (m %#v), want m the string 1", a.Params, m)
	}
	// A measurement outside the loop at a candidate, its choice named by
	// the number (as the CLI's --param m=2 sends it), is told at that
	// candidate: found by its canonical setting, even where the
	// candidate's decoded setting does not encode back to its point bit
	// for bit (before, such a tell was recorded at a point outside the
	// decision set, index −1).
	sp, err := space.New(r.Spec.Parameters)
	if err != nil {
		t.Fatal(err)
	}
	xs, sets, err := sp.Candidates()
	if err != nil {
		t.Fatal(err)
	}
	i := -1
	for k, set := range sets {
		if x, err := sp.Encode(set); err == nil && set["m"].Str == "2" && !slices.Equal(x, xs[k]) {
			i = k
			break
		}
	}
	if i < 0 {
		t.Fatal("every candidate encodes back to its point: the case is not reached")
	}
	set := maps.Clone(sets[i])
	set["m"] = space.Number(2)
	ans, err := v.Tell(ctx, "s", &api.TellRequest{Params: set, Values: map[string]float64{"y": 1, "c": 0}})
	if err != nil || ans.Index != i {
		t.Errorf("told at %v: %+v, %v; want index %d", set, ans, err, i)
	}
}

// TestNamedTypoWarning: a value far from the model's mean is warned of in
// the study's own terms — the setting, and retract by the trial — not by
// the action's index and the observation's event number.
func TestNamedTypoWarning(t *testing.T) {
	ctx := context.Background()
	v, _ := newService(t, filepath.Join(t.TempDir(), "s.db"))
	if err := v.Create(ctx, "pi", resolved(t, piSpec)); err != nil {
		t.Fatal(err)
	}
	for trial := range 9 {
		a, err := v.Ask(ctx, "pi")
		if err != nil {
			t.Fatal(err)
		}
		settle, over := plant(a.Params["kp"].Num, a.Params["ki"].Num)
		if trial == 8 {
			over = 100 // a typo
		}
		id := a.Ask
		ans, err := v.Tell(ctx, "pi", &api.TellRequest{Ask: &id, Values: map[string]float64{"settle_time": settle, "overshoot": over}})
		if err != nil {
			t.Fatal(err)
		}
		if trial < 8 {
			// Honest values, the seed's measured again without noise
			// among them, are no typos (space.FitTransform's scale).
			if ans.Warnings != nil {
				t.Errorf("trial %d at %v: warnings %q, want none", trial, a.Params, ans.Warnings)
			}
			continue
		}
		set, _ := json.Marshal(a.Params)
		suffix := " at " + string(set) + "; if it is a typo, retract it (safegp study retract --trial 8, or POST /v1/studies/pi/retract {\"trial\": 8}) and tell the right value"
		if *ans.Trial != 8 || !slices.ContainsFunc(ans.Warnings, func(w string) bool {
			return strings.HasPrefix(w, "overshoot = 100 is ") && strings.HasSuffix(w, suffix)
		}) {
			t.Errorf("trial %d: warnings %q, want one on overshoot ending %q", *ans.Trial, ans.Warnings, suffix)
		}
	}
}

// TestNamedRepeatNoTypo: the seed's settling time measured three times
// with 1 % noise is no typo: after one measurement the transform's scale
// is its magnitude, not 1 in the user's units (which made the second 9.7
// standard deviations off, in seconds, and 9 780 in milliseconds), and a
// noise fitted on fewer than checkMinPoints judges nothing (the third was
// 30 standard deviations off the noise of the first two).
func TestNamedRepeatNoTypo(t *testing.T) {
	ctx := context.Background()
	v, _ := newService(t, filepath.Join(t.TempDir(), "s.db"))
	for _, unit := range []float64{1, 1000} {
		name := fmt.Sprintf("pi%g", unit)
		if err := v.Create(ctx, name, resolved(t, piSpec)); err != nil {
			t.Fatal(err)
		}
		// The third is tune.sh's: judged against a noise fitted on the
		// first two, close together, it was 30 standard deviations off.
		for k, settle := range []float64{61.4499, 61.2712, 63.2224} {
			a, err := v.Ask(ctx, name)
			if err != nil {
				t.Fatal(err)
			}
			id := a.Ask
			ans, err := v.Tell(ctx, name, &api.TellRequest{Ask: &id, Values: map[string]float64{"settle_time": settle * unit, "overshoot": -0.0006}})
			if err != nil {
				t.Fatal(err)
			}
			if ans.Warnings != nil {
				t.Errorf("unit %g, tell %d: warnings %q, want none", unit, k, ans.Warnings)
			}
		}
	}
}

// fopdtPI simulates a PI controller (gain kp, integral time ti) around
// the process 1.5 e^{−0.4s}/(2s + 1) after a unit step of the setpoint,
// for 40 s: the integral of the absolute error, the overshoot and the
// largest |u| (400, 5 and at most 100 for a loop that diverges).
func fopdtPI(kp, ti float64) (iae, overshoot, effort float64) {
	const K, tau, dead, dt, tEnd = 1.5, 2.0, 0.4, 0.01, 40.0
	delay := int(dead / dt)
	buf := make([]float64, delay+1)
	var y, integ, peak float64
	for k := 0; k < int(tEnd/dt); k++ {
		e := 1 - y
		integ += e * dt
		u := kp * (e + integ/ti)
		effort = max(effort, math.Abs(u))
		buf[k%(delay+1)] = u
		y += dt * (K*buf[(k+1)%(delay+1)] - y) / tau
		iae += math.Abs(e) * dt
		peak = max(peak, y)
		if math.Abs(y) > 10 { // unstable: cut there
			return 400, 5, min(effort, 100)
		}
	}
	return iae, peak - 1, effort
}

// TestNamedStallNotes: a study whose objective has a limit of its own,
// from a seed near it (IAE 9.72 against at most 10, measured with 1 %
// noise) where the IAE changes fast, stalls, and its notes say so in its
// terms: settings, the objective's limit as a cause, the shortest fitted
// lengthscale by name and how far a measurement vouches with it (before,
// "actions", and "the lengthscales may be too short" alone; a new user
// found this study stuck at its seed, issue 26's review).
func TestNamedStallNotes(t *testing.T) {
	t.Parallel()
	racetest.Long(t, "60 trials of a simulated plant with fits take 13 s")
	c := tuneCase{spec: `
parameters:
  - {name: kp, low: 0.05, high: 10, scale: log}
  - {name: ti, low: 0.5, high: 20, scale: log}
objective: {name: iae, goal: minimize, max: 10}
constraints:
  - {name: overshoot, max: 0.05}
  - {name: effort, min: 0.5, max: 2.2}
seeds: [{kp: 0.6, ti: 10}]
horizon: 60
seed: 1
`, measure: func(p space.Setting) (map[string]float64, bool) {
		i, o, u := fopdtPI(p["kp"].Num, p["ti"].Num)
		return map[string]float64{"iae": i, "overshoot": o, "effort": u}, i <= 10 && o <= 0.05 && u >= 0.5 && u <= 2.2
	}, noise: []tuneNoise{{"iae", 0.01, true}, {"overshoot", 0.002, false}, {"effort", 0.005, true}}, objective: "iae"}
	r := tune(t, c, 8, nil)
	all := strings.Join(r.notes, "\n")
	for _, want := range []string{
		"the safe set has not grown for ", " of 10001 ",
		"the objective's limit is a safety condition too: a setting is tried only once the model vouches that iae keeps it",
		"the shortest, iae's, is ",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("notes:\n%s\nlack %q", all, want)
		}
	}
}

// TestRetractTrial: a named study's trial is retracted by its number;
// again, it is already retracted, named as the trial; a trial asked and
// not told has no observation yet; one beyond the trials, none; a study
// stated in its decision set has no trials.
func TestRetractTrial(t *testing.T) {
	ctx := context.Background()
	v, _ := newService(t, filepath.Join(t.TempDir(), "s.db"))
	if err := v.Create(ctx, "pi", resolved(t, piSpec)); err != nil {
		t.Fatal(err)
	}
	if err := v.Create(ctx, "plain", resolved(t, specYAML)); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		a, err := v.Ask(ctx, "pi")
		if err != nil {
			t.Fatal(err)
		}
		settle, over := plant(a.Params["kp"].Num, a.Params["ki"].Num)
		id := a.Ask
		if _, err := v.Tell(ctx, "pi", &api.TellRequest{Ask: &id, Values: map[string]float64{"settle_time": settle, "overshoot": over}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := v.Ask(ctx, "pi"); err != nil { // trial 3, pending
		t.Fatal(err)
	}
	if r, err := v.RetractTrial(ctx, "pi", 1); err != nil || r.Trial == nil || *r.Trial != 1 {
		t.Fatalf("retract trial 1: %+v, %v", r, err)
	}
	for _, c := range []struct {
		name  string
		study string
		trial int
		err   error
		want  string
	}{
		{"again", "pi", 1, api.ErrAlreadyRetracted, `trial 1 of study "pi" was retracted by event`},
		{"pending", "pi", 3, api.ErrUnknownObservation, "trial 3 of study \"pi\" has no observation yet"},
		{"beyond", "pi", 9, api.ErrUnknownObservation, "has no trial 9"},
		{"plain", "plain", 0, api.ErrUnknownObservation, "is not stated in parameters and has no trials"},
	} {
		if _, err := v.RetractTrial(ctx, c.study, c.trial); !errors.Is(err, c.err) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %v with %q", c.name, err, c.err, c.want)
		}
	}
}

// TestExportNeutralizesFormulas: choice values a spreadsheet takes for
// formulas (=1+1, @SUM(A1), =HYPERLINK(…), -2+3) reach the CSV export
// behind an apostrophe, numbers (a negative one too) as they are, and
// the export imports back as the values were (issue 40, item 3).
func TestExportNeutralizesFormulas(t *testing.T) {
	ctx := context.Background()
	v, _ := newService(t, filepath.Join(t.TempDir(), "s.db"))
	spec := `
parameters:
  - {name: kp, low: -5, high: 5}
  - {name: m, type: choice, values: ["=1+1", "@SUM(A1)", "=HYPERLINK(\"http://x\",\"y\")", "-2+3"]}
objective: {name: y, goal: maximize}
constraints:
  - {name: c, max: 1}
seeds: [{kp: -1.5, m: "=1+1"}]
horizon: 20
`
	for _, name := range []string{"s", "t"} {
		if err := v.Create(ctx, name, resolved(t, spec)); err != nil {
			t.Fatal(err)
		}
	}
	choices := []string{"=1+1", "@SUM(A1)", `=HYPERLINK("http://x","y")`, "-2+3"}
	for k, m := range choices {
		set := space.Setting{"kp": space.Number(-1.5), "m": space.String(m)}
		if _, err := v.Tell(ctx, "s", &api.TellRequest{Params: set, Values: map[string]float64{"y": float64(-k), "c": 0}}); err != nil {
			t.Fatal(err)
		}
	}
	x, err := v.Export(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	csv := string(exchange.ExportCSV(x))
	for _, line := range strings.Split(csv, "\n")[1:] {
		for _, cell := range strings.Split(line, ",") {
			cell = strings.TrimPrefix(cell, `"`)
			if cell != "" && strings.ContainsRune("=+@\t\r", rune(cell[0])) {
				t.Errorf("a cell begins a formula: %q in %q", cell, line)
			}
		}
	}
	if !strings.Contains(csv, ",-1.5,") || !strings.Contains(csv, `'=1+1`) || !strings.Contains(csv, `'-2+3`) {
		t.Errorf("export:\n%s", csv)
	}
	cols, err := v.Columns(ctx, "t")
	if err != nil {
		t.Fatal(err)
	}
	rows, err := exchange.ParseImportCSV(strings.NewReader(csv), cols)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v.Import(ctx, "t", rows); err != nil {
		t.Fatal(err)
	}
	y, err := v.Export(ctx, "t")
	if err != nil {
		t.Fatal(err)
	}
	for k, m := range choices {
		if got := y.Observations[k].Params["m"]; got.Str != m {
			t.Errorf("imported observation %d: m = %#v, want %q", k, got, m)
		}
	}
}

// TestNamedRefusesUnitBounds: an algorithm whose options bound the
// outcomes (losbo, alone or on line-bo's lines; its row's InUnits) is
// refused by a study stated in parameters, which standardizes them: there
// losbo takes its bounds from the constraints, in raw units (issue 43).
func TestNamedRefusesUnitBounds(t *testing.T) {
	for _, alg := range []string{
		`{name: losbo, lipschitz: 2, noise_bound: 0.1}`,
		`{name: line-bo, inner: losbo, lipschitz: 2, noise_bound: 0.1}`,
	} {
		spec := "parameters:\n  - {name: x, low: 0, high: 1}\n  - {name: y, low: 0, high: 1}\n  - {name: z, low: 0, high: 1}\n" +
			"objective: {name: f, goal: maximize}\nconstraints:\n  - {name: c, max: 1}\nseeds: [{x: 0.5, y: 0.5, z: 0.5}]\nhorizon: 10\nalgorithm: " + alg + "\n"
		s, err := study.ParseSpec([]byte(spec))
		if err == nil {
			_, err = s.Resolve(".")
		}
		if !errors.Is(err, api.ErrSpec) || !strings.Contains(err.Error(), "bounds from each constraint") && !strings.Contains(err.Error(), "not your units") {
			t.Errorf("%s: %v, want refused as bounds in the user's units", alg, err)
		}
	}
}
