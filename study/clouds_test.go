package study_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/safegp/safegp/bandit"
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
