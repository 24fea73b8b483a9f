package config_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/safegp/safegp/config"
	"github.com/safegp/safegp/internal/strictyaml"
	"github.com/safegp/safegp/kernel"
)

// TestFitDecode: the fit block's forms decode, and read back from their
// JSON (a stored study's spec is JSON, read as YAML) to the same rule;
// bad forms are one error naming the key path.
func TestFitDecode(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		yaml string
		want string // the rule's String, or the error's key path
		bad  bool
	}{
		{"{when: never}", "never", false},
		{"{when: seed}", "seed", false},
		{"{when: auto, min_points: 1}", "auto", false},
		{"{when: {every: 5}}", "{every: 5}", false},
		{"{when: {every: 5}, ard: true, restarts: 3, prior: none, min_points: 4}", "{every: 5}", false},
		{"{when: often}", "model.fit.when", true},
		{"{when: {every: 0}}", "model.fit.when.every", true},
		{"{when: {every: 2.5}}", "model.fit.when.every", true},
		{"{when: {every: 2, seed: 1}}", `model.fit.when: unknown key "seed"`, true},
		{"{when: [seed]}", "model.fit.when", true},
		{"{when: seed, extra: 1}", `model.fit: unknown key "extra"`, true},
		{"{when: {}}", "model.fit.when: want never, seed, auto or {every: k}: every is missing", true},
	} {
		fromYAML, fromJSON, err := decodeFit(tc.yaml)
		if tc.bad {
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s: %v, want an error naming %s", tc.yaml, err, tc.want)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.yaml, err)
			continue
		}
		if got := fromYAML.When.String(); got != tc.want {
			t.Errorf("%s: rule %s, want %s", tc.yaml, got, tc.want)
		}
		if got := fromJSON.When.String(); got != tc.want {
			t.Errorf("%s: read back from JSON as %s, want %s", tc.yaml, got, tc.want)
		}
	}
}

// decodeFit reads a model whose fit block is y (YAML), and that model
// again from its JSON, as a stored study's spec is read back.
func decodeFit(y string) (fromYAML, fromJSON *config.Fit, err error) {
	type doc struct {
		Model config.Model `yaml:"model"`
	}
	var d, back doc
	if err := strictyaml.Decode([]byte("model: {noise_std: 0.1, delta: 0.1, fit: "+y+"}"), &d); err != nil {
		return nil, nil, err
	}
	js, err := json.Marshal(d.Model)
	if err != nil {
		return nil, nil, err
	}
	if err := strictyaml.Decode(append(append([]byte(`{"model": `), js...), '}'), &back); err != nil {
		return nil, nil, fmt.Errorf("JSON %s: %w", js, err)
	}
	return d.Model.Fit, back.Model.Fit, nil
}

// TestFitVarianceFloorsDecode: the two variance floors read from YAML and
// back from the JSON a study stores, each left out as nil — a stored
// block without objective_variance_floor keeps f on the constraints'
// floor (internal/refit), so it must not come back as 0.
func TestFitVarianceFloorsDecode(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		yaml       string
		cons, objf *float64
	}{
		{"{when: auto}", nil, nil},
		{"{when: auto, constraint_variance_floor: 1}", ptr(1.0), nil},
		{"{when: auto, constraint_variance_floor: 1, objective_variance_floor: 0}", ptr(1.0), ptr(0.0)},
		{"{when: auto, objective_variance_floor: 0.5}", nil, ptr(0.5)},
	} {
		fromYAML, fromJSON, err := decodeFit(tc.yaml)
		if err != nil {
			t.Fatalf("%s: %v", tc.yaml, err)
		}
		for name, fb := range map[string]*config.Fit{"YAML": fromYAML, "JSON": fromJSON} {
			if !samePtr(fb.ConstraintVarianceFloor, tc.cons) || !samePtr(fb.ObjectiveVarianceFloor, tc.objf) {
				t.Errorf("%s from %s: floors %v and %v, want %v and %v", tc.yaml, name, show(fb.ConstraintVarianceFloor), show(fb.ObjectiveVarianceFloor), show(tc.cons), show(tc.objf))
			}
		}
	}
}

func ptr(v float64) *float64 { return &v }

func samePtr(a, b *float64) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

func show(p *float64) any {
	if p == nil {
		return "nil"
	}
	return *p
}

// TestFitCheck: Model.Check refuses a fit block's bad values and kernels a
// fit cannot re-estimate, naming the keys; a block with when: never
// accepts any kernel.
func TestFitCheck(t *testing.T) {
	t.Parallel()
	i := func(v int) *int { return &v }
	s := func(v string) *string { return &v }
	f := func(v float64) *float64 { return &v }
	seed := &config.FitWhen{Seed: true}
	for _, tc := range []struct {
		name string
		fit  config.Fit
		k    string // the constraint's kernel
		want string // "" for no error
	}{
		{"ok", config.Fit{When: seed}, "se", ""},
		{"missing when", config.Fit{}, "se", "fit.when"},
		{"restarts 0", config.Fit{When: seed, Restarts: i(0)}, "se", "fit.restarts"},
		{"restarts 1001", config.Fit{When: seed, Restarts: i(1001)}, "se", "fit.restarts"},
		{"prior", config.Fit{When: seed, Prior: s("flat")}, "se", "fit.prior"},
		{"min_points 0", config.Fit{When: seed, MinPoints: i(0)}, "se", "fit.min_points"},
		{"constraint_variance_floor 1", config.Fit{When: seed, ConstraintVarianceFloor: f(1)}, "se", ""},
		{"constraint_variance_floor -1", config.Fit{When: seed, ConstraintVarianceFloor: f(-1)}, "se", "fit.constraint_variance_floor"},
		{"constraint_variance_floor NaN", config.Fit{When: seed, ConstraintVarianceFloor: f(math.NaN())}, "se", "fit.constraint_variance_floor"},
		{"constraint_variance_floor 1e7", config.Fit{When: seed, ConstraintVarianceFloor: f(1e7)}, "se", "fit.constraint_variance_floor"},
		{"objective_variance_floor 0", config.Fit{When: seed, ObjectiveVarianceFloor: f(0)}, "se", ""},
		{"objective_variance_floor -1", config.Fit{When: seed, ObjectiveVarianceFloor: f(-1)}, "se", "fit.objective_variance_floor"},
		{"objective_variance_floor NaN", config.Fit{When: seed, ObjectiveVarianceFloor: f(math.NaN())}, "se", "fit.objective_variance_floor"},
		{"objective_variance_floor 1e7", config.Fit{When: seed, ObjectiveVarianceFloor: f(1e7)}, "se", "fit.objective_variance_floor"},
		{"objective_variance_floor +Inf", config.Fit{When: seed, ObjectiveVarianceFloor: f(math.Inf(1))}, "se", "fit.objective_variance_floor"},
		{"every < 0 (Go)", config.Fit{When: &config.FitWhen{Every: -1}}, "se", "fit.when.every"},
		{"linear", config.Fit{When: seed}, "linear", "constraints[0].kernel"},
		{"polynomial", config.Fit{When: &config.FitWhen{Every: 3}}, "polynomial", "constraints[0].kernel"},
		{"linear, never", config.Fit{When: &config.FitWhen{}}, "linear", ""},
		{"max_lengthscale", config.Fit{When: seed, MaxLengthscale: f(5)}, "se", ""},
		{"max_lengthscale 0", config.Fit{When: seed, MaxLengthscale: f(0)}, "se", "fit.max_lengthscale: want a number > 0, got 0"},
		{"max_lengthscale huge", config.Fit{When: seed, MaxLengthscale: f(1e101)}, "se", "fit.max_lengthscale"},
		{"range", config.Fit{When: seed, RangeLengthscale: f(2), RangeFloor: f(0.5)}, "se", ""},
		{"range_lengthscale NaN", config.Fit{When: seed, RangeLengthscale: f(math.NaN()), RangeFloor: f(0.5)}, "se", "fit.range_lengthscale: want a number > 0, got NaN"},
		{"range_lengthscale negative", config.Fit{When: seed, RangeLengthscale: f(-2), RangeFloor: f(0.5)}, "se", "fit.range_lengthscale: want a number > 0, got -2"},
		{"range_lengthscale alone", config.Fit{When: seed, RangeLengthscale: f(2)}, "se", "fit.range_floor: range_lengthscale and range_floor go together"},
		{"range_floor alone", config.Fit{When: seed, RangeFloor: f(0.5)}, "se", "fit.range_floor: range_lengthscale and range_floor go together"},
		{"range_floor negative", config.Fit{When: seed, RangeLengthscale: f(2), RangeFloor: f(-0.5)}, "se", "fit.range_floor: want a number > 0, got -0.5"},
	} {
		m := model()
		m.Constraints = []kernel.Spec{{Kernel: tc.k, Lengthscale: kernel.Iso(1)}}
		if tc.k != "se" {
			m.Constraints[0].Lengthscale = nil
		}
		if tc.k == "polynomial" {
			d := 2
			m.Constraints[0].Degree = &d
		}
		f := tc.fit
		m.Fit = &f
		err := m.Check(1, false)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (!errors.Is(err, config.ErrInvalid) || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v, want ErrInvalid naming %s", tc.name, err, tc.want)
		}
	}
}

// TestFitDue: the rule's schedule — the first fit at min_points (default
// max(2, |D^w|)), then with every: k after k observations.
func TestFitDue(t *testing.T) {
	t.Parallel()
	one, three := 1, 3
	for _, tc := range []struct {
		name                         string
		fit                          *config.Fit
		fits, points, since, seedSet int
		want                         bool
	}{
		{"nil", nil, 0, 10, 10, 1, false},
		{"never", &config.Fit{When: &config.FitWhen{}}, 0, 10, 10, 1, false},
		{"seed, too few", &config.Fit{When: &config.FitWhen{Seed: true}}, 0, 4, 4, 5, false},
		{"seed, |D^w|", &config.Fit{When: &config.FitWhen{Seed: true}}, 0, 5, 5, 5, true},
		{"seed, default 2", &config.Fit{When: &config.FitWhen{Seed: true}}, 0, 2, 2, 1, true},
		{"seed, once", &config.Fit{When: &config.FitWhen{Seed: true}}, 1, 50, 48, 1, false},
		{"min_points", &config.Fit{When: &config.FitWhen{Seed: true}, MinPoints: &three}, 0, 2, 2, 1, false},
		{"every, not yet", &config.Fit{When: &config.FitWhen{Every: 3}}, 1, 9, 2, 1, false},
		{"every, due", &config.Fit{When: &config.FitWhen{Every: 3}}, 1, 9, 3, 1, true},
		{"auto, first", &config.Fit{When: &config.FitWhen{Auto: true}, MinPoints: &one}, 0, 1, 1, 1, true},
		{"auto, every tell while few", &config.Fit{When: &config.FitWhen{Auto: true}}, 3, 12, 1, 1, true},
		{"auto, a tenth more later", &config.Fit{When: &config.FitWhen{Auto: true}}, 9, 104, 8, 1, false},
		{"auto, a tenth more: due", &config.Fit{When: &config.FitWhen{Auto: true}}, 9, 110, 10, 1, true},
	} {
		if got := tc.fit.Due(tc.fits, tc.points, tc.since, tc.seedSet); got != tc.want {
			t.Errorf("%s: due %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestWithFit: a fit record's kernels replace the model's when they are
// of its shape (f's and one per constraint, each a valid kernel with its
// noise_std, and one LML per GP); a skipped fit leaves the model as it
// is; anything else is ErrInvalid saying what is wrong, and the model is
// returned unchanged.
func TestWithFit(t *testing.T) {
	t.Parallel()
	f := func(v float64) *float64 { return &v }
	k := func(ls, noise float64) kernel.Spec {
		return kernel.Spec{Kernel: "se", Lengthscale: kernel.Iso(ls), NoiseStd: f(noise)}
	}
	obj := k(2, 0.2)
	for _, c := range []struct {
		name string
		r    config.FitRecord
		want string // "" for no error
	}{
		{"fitted", config.FitRecord{Objective: &obj, Constraints: []kernel.Spec{k(3, 0.3)}, LML: []float64{-1, -2}}, ""},
		{"skipped", config.FitRecord{Skipped: "too few points"}, ""},
		{"no objective", config.FitRecord{Constraints: []kernel.Spec{k(3, 0.3)}, LML: []float64{-1, -2}}, "fit record: want the kernels of f and of 1 constraint"},
		{"constraints", config.FitRecord{Objective: &obj, LML: []float64{-1, -2}}, "fit record: want the kernels of f and of 1 constraint"},
		{"LML", config.FitRecord{Objective: &obj, Constraints: []kernel.Spec{k(3, 0.3)}, LML: []float64{-1}}, "fit record: want the kernels of f and of 1 constraint"},
		{"bad kernel", config.FitRecord{Objective: &obj, Constraints: []kernel.Spec{k(0, 0.3)}, LML: []float64{-1, -2}}, "fit record: kernel 1: "},
		{"no noise", config.FitRecord{Objective: &obj, Constraints: []kernel.Spec{{Kernel: "se", Lengthscale: kernel.Iso(3)}}, LML: []float64{-1, -2}}, "fit record: kernel 1: noise_std missing"},
		{"negative noise", config.FitRecord{Objective: &obj, Constraints: []kernel.Spec{k(3, -1)}, LML: []float64{-1, -2}}, "fit record: kernel 1: noise_std: must be a finite number"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			m := model()
			got, err := m.WithFit(&c.r)
			if c.want != "" {
				if !errors.Is(err, config.ErrInvalid) || !strings.Contains(err.Error(), c.want) {
					t.Fatalf("%v, want ErrInvalid saying %q", err, c.want)
				}
				if diff := cmp.Diff(model(), got); diff != "" {
					t.Errorf("the model changed (-was +now):\n%s", diff)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := model()
			if c.r.Skipped == "" {
				want.Objective, want.Constraints = &obj, []kernel.Spec{k(3, 0.3)}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if m.Objective.Lengthscale[0] != 1 {
				t.Errorf("WithFit changed its receiver's objective to %+v", m.Objective)
			}
		})
	}
}
