package study_test

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/safegp/safegp/bandit"
	"github.com/safegp/safegp/internal/racetest"
	"github.com/safegp/safegp/study/api"
)

// TestFiniteAlgorithmsOnClouds: a finite-set algorithm named for a study
// of three numeric parameters — which searches a box — runs as line-bo's
// inner algorithm on its clouds (issue 42, item 2), with the box study's
// max_step, keep_line and seeds_first and its own options; the study's
// asks are settings in range, and a policy of the box family named
// itself is left as given.
func TestFiniteAlgorithmsOnClouds(t *testing.T) {
	t.Parallel()
	const spec = `
parameters:
  - {name: kp, low: 0.05, high: 20, scale: log}
  - {name: ki, low: 0.01, high: 10, scale: log}
  - {name: kd, low: 0.001, high: 2, scale: log}
objective: {name: settle_time, goal: minimize}
constraints:
  - {name: overshoot, max: 0.05}
seeds: [{kp: 0.3, ki: 0.05, kd: 0.01}]
horizon: 20
seed: 1
`
	for _, c := range []struct {
		alg, inner, direction string
	}{
		{"{name: safeopt, safe_set: gp}", bandit.SafeOpt, "cloud"},
		{"{name: constrained-ei}", bandit.ConstrainedEI, "cloud"},
		{"{name: sgp-ucb}", bandit.SGPUCB, "cloud"},
		{"{name: stageopt, safe_set: gp, exploration: {fixed: 5}}", bandit.StageOpt, "cloud"},
		{"{name: line-bo, direction: coordinate}", bandit.SafeOpt, "coordinate"},
	} {
		r := resolved(t, spec+"algorithm: "+c.alg+"\n")
		a := r.Spec.Algorithm
		if l := a.LineOptions(); a.Name != bandit.LineBO || l.Inner.Name != c.inner || l.Direction != c.direction {
			t.Errorf("%s: resolved as %s, inner %s, %s; want line-bo, inner %s, %s", c.alg, a.Name, l.Inner.Name, l.Direction, c.inner, c.direction)
			continue
		}
		if c.direction == "cloud" && (len(a.MaxStep) != 3 || !a.KeepLine || !a.SeedsFirst) {
			t.Errorf("%s: max_step %v, keep_line %v, seeds_first %v; want the box study's", c.alg, a.MaxStep, a.KeepLine, a.SeedsFirst)
		}
		if c.inner == bandit.SGPUCB && (a.Exploration.Fixed == nil || *a.Exploration.Fixed != 0) {
			t.Errorf("%s: exploration %+v, want fixed 0 on a cloud", c.alg, a.Exploration)
		}
		ctx := context.Background()
		v, _ := newService(t, filepath.Join(t.TempDir(), "c.db"))
		if err := v.Create(ctx, "c", r); err != nil {
			t.Fatalf("%s: %v", c.alg, err)
		}
		for trial := range 4 {
			ask, err := v.Ask(ctx, "c")
			if err != nil {
				t.Fatalf("%s, trial %d: %v", c.alg, trial, err)
			}
			kp := ask.Params["kp"].Num
			if kp < 0.05 || kp > 20 {
				t.Fatalf("%s, trial %d: kp %v out of range", c.alg, trial, kp)
			}
			id := ask.Ask
			if _, err := v.Tell(ctx, "c", &api.TellRequest{Ask: &id, Values: map[string]float64{"settle_time": 60 - kp, "overshoot": 0}}); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestDefaultSearch: a study that names no algorithm and no β gets the
// measured default search (issue 42, docs/tuning.md): sgp-ucb (inside
// line-bo on a box) with repeats: explore, and objective_beta 9 beside
// the paper's β; a stated β keeps it for both bounds (the paper's β one
// key away), and a named algorithm runs as published.
func TestDefaultSearch(t *testing.T) {
	t.Parallel()
	grid, box := piSpec, tuneCases["pid"].spec
	for _, c := range []struct {
		name, spec, extra string
		repeats           string
		objectiveBeta     float64 // 0: none
	}{
		{"grid", grid, "", bandit.RepeatsExplore, 9},
		{"box", box, "", bandit.RepeatsExplore, 9},
		{"grid, beta: paper", grid, "model: {beta: paper}\n", bandit.RepeatsExplore, 0},
		{"grid, beta: 16", grid, "model: {beta: 16}\n", bandit.RepeatsExplore, 0},
		{"grid, objective_beta: 4", grid, "model: {objective_beta: 4}\n", bandit.RepeatsExplore, 4},
		{"grid, sgp-ucb named", grid, "algorithm: {name: sgp-ucb, phase1: uncertainty, exploration: {fixed: 3}}\n", "", 0},
		{"box, sgp-ucb named", box, "algorithm: {name: sgp-ucb}\n", "", 0},
	} {
		r := resolved(t, c.spec+c.extra)
		a := r.Spec.Algorithm
		if onBox := strings.HasPrefix(c.name, "box"); onBox != (a.Name == bandit.LineBO) {
			t.Errorf("%s: resolved as %s", c.name, a.Name)
		}
		if a.Name == bandit.LineBO {
			a = a.LineOptions().Inner
		}
		if a.Name != bandit.SGPUCB || a.Repeats != c.repeats {
			t.Errorf("%s: %s with repeats %q, want sgp-ucb with %q", c.name, a.Name, a.Repeats, c.repeats)
		}
		ob := r.Spec.Model.ObjectiveBeta
		switch {
		case c.objectiveBeta == 0 && ob != nil:
			t.Errorf("%s: objective_beta %+v, want none", c.name, *ob)
		case c.objectiveBeta != 0 && (ob == nil || ob.Paper || ob.Value != c.objectiveBeta):
			t.Errorf("%s: objective_beta %+v, want %v", c.name, ob, c.objectiveBeta)
		}
	}
}

// TestDefaultFit: the fit a study stated in parameters gets by default
// (study/defaults): the lengthscales' cap never below 0.1 of the cube
// for up to two numeric parameters and √(n/2) times that for n beyond
// (ints count, choices do not), the constraints' variance at least
// their data's second moment about the limit, and no floor on f's when
// f has a limit.
func TestDefaultFit(t *testing.T) {
	t.Parallel()
	oneParam := `
parameters:
  - {name: kp, low: 0.05, high: 20, scale: log}
objective: {name: settle_time, goal: minimize, max: 70}
constraints:
  - {name: overshoot, max: 0.05}
seeds: [{kp: 0.3}]
horizon: 60
`
	for _, c := range []struct {
		name, spec string
		floor      float64
	}{
		{"1 numeric", oneParam, 0.1},
		{"2 numeric", piSpec, 0.1},
		{"3 numeric", tuneCases["pid"].spec, 0.1 * math.Sqrt(1.5)},
		{"4 numeric and a choice", tuneCases["pid-mixed"].spec, 0.1 * math.Sqrt(2)},
		{"10 numeric", tuneCases["gp-sample-10"].spec, 0.1 * math.Sqrt(5)},
	} {
		f := resolved(t, c.spec).Spec.Model.Fit
		switch {
		case f == nil || f.RangeFloor == nil || f.RangeLengthscale == nil || f.ConstraintVarianceFloor == nil || f.ObjectiveVarianceFloor == nil:
			t.Errorf("%s: fit block %+v lacks a default", c.name, f)
		case math.Abs(*f.RangeFloor-c.floor) > 1e-15:
			t.Errorf("%s: range_floor %v, want %v", c.name, *f.RangeFloor, c.floor)
		case *f.RangeLengthscale != 0.25 || *f.ConstraintVarianceFloor != 1 || *f.ObjectiveVarianceFloor != 0:
			t.Errorf("%s: range_lengthscale %v, constraint_variance_floor %v, objective_variance_floor %v; want 0.25, 1 and 0",
				c.name, *f.RangeLengthscale, *f.ConstraintVarianceFloor, *f.ObjectiveVarianceFloor)
		}
	}
}

// TestTuneObjectiveLimits: the suite's cases with a limit on the
// objective have one (their specs are other cases' with the limit
// spliced in, which a changed base would silently undo).
func TestTuneObjectiveLimits(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"pi-iae-max", "pi-settle-max", "gp-sample-10"} {
		if resolved(t, tuneCases[name].spec).Spec.ObjectiveThreshold == nil {
			t.Errorf("%s: no limit on the objective", name)
		}
	}
}

// TestTuneGPSample10: a 10-parameter study whose one safety condition
// is its objective's limit (BenchmarkTuneControllers/gp-sample-10, noise
// realization 0) goes at least 0.75 of the way from its seed to the
// optimum in 100 trials with no violation. It went 0.84 with today's
// defaults (study/defaults); 0.70 with the constraints' variance floor
// on f as well, 0.37 with the lengthscales' cap never below 0.1 of the
// cube, and 0.13 with both (the defaults before issue 42's measurement
// on GP samples; over 48 realizations a median 0.12 against 0.70,
// docs/tuning.md). The margin, 0.09 above 0.75 and 0.05 above the
// nearest break, is for one realization on amd64, where Go does not fuse
// multiply–adds; a platform that does may take another path.
func TestTuneGPSample10(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("100 trials with fits")
	}
	racetest.Long(t, "100 trials with fits in 10 dimensions")
	c := tuneCases["gp-sample-10"]
	r := tune(t, c, 0, nil)
	start := seedValue(t, "gp-sample-10")
	way := (start - r.best) / (start - (-c.optimum))
	if !(way >= 0.75) || r.violations > 0 {
		t.Errorf("went %.2f of the way from %v to %v (best %v) with %d violations; want ≥ 0.75 and none", way, start, -c.optimum, r.best, r.violations)
	}
	t.Logf("went %.3f of the way", way)
}

// TestCloudPoints: a box study's clouds get 50 points a parameter where
// that is more than line-bo's 300 (study/defaults' cloudPointsPerDim),
// named line-bo on its default clouds and the default search alike, a
// choice counting once whatever its values; points the study names, and
// lines, are left as they are, and a study of up to six parameters keeps
// 300 (pinned when the study is created).
func TestCloudPoints(t *testing.T) {
	t.Parallel()
	twenty := boxSpec(20, -0.5, strings.TrimSuffix(strings.Repeat("0.5, ", 20), ", ")) + "horizon: 50\n"
	var w strings.Builder
	w.WriteString("parameters:\n  - {name: a, low: 0, high: 1}\n  - {name: b, low: 0, high: 1}\n  - {name: c, low: 0, high: 1}\n")
	seed := "{a: 0.5, b: 0.5, c: 0.5"
	for k := range 5 {
		fmt.Fprintf(&w, "  - {name: m%d, type: choice, values: [", k)
		for v := range 64 {
			if v > 0 {
				w.WriteString(", ")
			}
			fmt.Fprintf(&w, "v%d", v)
		}
		w.WriteString("]}\n")
		seed += fmt.Sprintf(", m%d: v0", k)
	}
	wide := w.String() + "objective: {name: f, goal: maximize, min: -0.5}\nseeds: [" + seed + "}]\nhorizon: 50\n"
	for _, c := range []struct {
		name, spec string
		want       int // 0: none set
	}{
		{"20 floats, default search", twenty, 1000},
		{"20 floats, line-bo", twenty + "algorithm: {name: line-bo}\n", 1000},
		{"20 floats, line-bo with points", twenty + "algorithm: {name: line-bo, points: 77}\n", 77},
		{"20 floats, coordinate lines", twenty + "algorithm: {name: line-bo, direction: coordinate}\n", 0},
		{"10 floats", tuneCases["gp-sample-10"].spec, 500},
		{"3 floats", tuneCases["pid"].spec, 0},
		// 8 parameters, 3 + 5·64 coordinates: points by parameter.
		{"3 floats and 5 choices of 64 values", wide, 400},
	} {
		a := resolved(t, c.spec).Spec.Algorithm
		got := 0
		if a.Points != nil {
			got = *a.Points
		}
		if a.Name != bandit.LineBO || got != c.want {
			t.Errorf("%s: %s with points %d, want line-bo with %d", c.name, a.Name, got, c.want)
		}
	}
}
