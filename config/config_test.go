package config_test

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/safegp/safegp/bandit"
	"github.com/safegp/safegp/config"
	"github.com/safegp/safegp/kernel"
)

func f64(v float64) *float64 { return &v }

// model is a valid section for one constraint.
func model() config.Model {
	return config.Model{
		Objective:   &kernel.Spec{Kernel: "se", Lengthscale: kernel.Iso(1)},
		Constraints: []kernel.Spec{{Kernel: "se", Lengthscale: kernel.Iso(0.5)}},
		NoiseStd:    f64(0.1),
		Delta:       f64(0.01),
	}
}

// TestModelCheck: the model section's check that experiment
// configurations and study specifications share. Each bad section is one
// error naming the key relative to the section (SPEC §8: lengthscale or
// variance ≤ 0, δ outside (0, 1), negative noise); a generated problem
// (drawn) may leave the kernels out.
func TestModelCheck(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		edit  func(m *config.Model)
		m     int
		drawn bool
		want  string
	}{
		{"valid", func(m *config.Model) {}, 1, false, ""},
		{"kernels left to a generated problem", func(m *config.Model) { m.Objective, m.Constraints = nil, nil }, 1, true, ""},
		{"constant beta", func(m *config.Model) { m.Beta = &bandit.Beta{Value: 3} }, 1, false, ""},
		{"no objective", func(m *config.Model) { m.Objective = nil }, 1, false, "objective: missing: the kernel of f"},
		{"bad objective", func(m *config.Model) { m.Objective.Lengthscale = kernel.Iso(0) }, 1, false, "objective.lengthscale: must be a finite number > 0, got 0"},
		{"no constraints", func(m *config.Model) { m.Constraints = nil }, 1, false, "constraints: missing: one kernel per threshold"},
		{"no constraint, none given", func(m *config.Model) { m.Constraints = nil }, 0, false, ""},
		{"no constraint, empty list", func(m *config.Model) { m.Constraints = []kernel.Spec{} }, 0, false, ""},
		{"no constraint, one given", func(m *config.Model) {}, 0, false, "constraints: 1 kernel for 0 thresholds"},
		{"constraint count", func(m *config.Model) {}, 2, false, "constraints: 1 kernel for 2 thresholds"},
		{"constraint count, drawn", func(m *config.Model) {}, 2, true, "constraints: 1 kernel for 2 thresholds"},
		{"bad constraint", func(m *config.Model) { m.Constraints[0].Variance = f64(-1) }, 1, false, "constraints[0].variance: must be a finite number > 0, got -1"},
		{"bad ARD entry", func(m *config.Model) { m.Objective.Lengthscale = kernel.Lengthscale{1, -2} }, 1, false, "objective.lengthscale[1]: must be a finite number > 0, got -2"},
		{"a constraint's own noise", func(m *config.Model) { m.Constraints[0].NoiseStd = f64(0.02) }, 1, false, ""},
		{"a constraint's negative noise", func(m *config.Model) { m.Constraints[0].NoiseStd = f64(-1) }, 1, false, "constraints[0].noise_std: must be a finite number in 0…1e100, got -1"},
		{"no noise", func(m *config.Model) { m.NoiseStd = nil }, 1, false, "noise_std: missing: the noise standard deviation σ the model assumes"},
		{"negative noise", func(m *config.Model) { m.NoiseStd = f64(-0.1) }, 1, false, "noise_std: must be a finite number in 0…1e100, got -0.1"},
		{"no delta", func(m *config.Model) { m.Delta = nil }, 1, false, "delta: missing: the confidence parameter δ, in (0, 1)"},
		{"delta 1", func(m *config.Model) { m.Delta = f64(1) }, 1, false, "delta: must be in (0, 1), got 1"},
		{"beta built in Go", func(m *config.Model) { m.Beta = &bandit.Beta{Value: -2} }, 1, false, `beta: want "paper", a finite number > 0 or {rkhs_norm: B, noise_bound: R}, got -2`},
		{"fit of a linear objective", func(m *config.Model) {
			m.Objective = &kernel.Spec{Kernel: "linear"}
			m.Fit = &config.Fit{When: &config.FitWhen{Seed: true}}
		}, 1, false, "objective.kernel: linear cannot be fitted: model.fit re-estimates se, matern32 and matern52 kernels (leave model.fit out, or set when: never, to keep this kernel as configured)"},
		{"frequentist beta", func(m *config.Model) {
			m.Beta = &bandit.Beta{Freq: &bandit.Frequentist{RKHSNorm: 1, NoiseBound: 0.1, Bound: "chowdhury-gopalan"}}
		}, 1, false, ""},
		{"frequentist beta, negative norm", func(m *config.Model) { m.Beta = &bandit.Beta{Freq: &bandit.Frequentist{RKHSNorm: -1, NoiseBound: 0.1}} }, 1, false, "beta: rkhs_norm: want a finite number ≥ 0, got -1"},
		{"frequentist beta, NaN norm", func(m *config.Model) {
			m.Beta = &bandit.Beta{Freq: &bandit.Frequentist{RKHSNorm: math.NaN(), NoiseBound: 0.1}}
		}, 1, false, "beta: rkhs_norm: want a finite number ≥ 0, got NaN"},
		{"frequentist beta, huge norm", func(m *config.Model) {
			m.Beta = &bandit.Beta{Freq: &bandit.Frequentist{RKHSNorm: 1e101, NoiseBound: 0.1}}
		}, 1, false, "beta: rkhs_norm: want a finite number ≥ 0, got 1e+101"},
		{"frequentist beta, huge noise bound", func(m *config.Model) {
			m.Beta = &bandit.Beta{Freq: &bandit.Frequentist{RKHSNorm: 1, NoiseBound: 1e101}}
		}, 1, false, "beta: noise_bound: want a finite number ≥ 0, got 1e+101"},
		{"frequentist beta, both 0", func(m *config.Model) { m.Beta = &bandit.Beta{Freq: &bandit.Frequentist{}} }, 1, false, "beta: rkhs_norm 0 and noise_bound 0 make β = 0: no confidence interval at all"},
		{"frequentist beta, noise bound only", func(m *config.Model) { m.Beta = &bandit.Beta{Freq: &bandit.Frequentist{NoiseBound: 0.1}} }, 1, false, ""},
		{"frequentist beta, unknown bound", func(m *config.Model) {
			m.Beta = &bandit.Beta{Freq: &bandit.Frequentist{RKHSNorm: 1, Bound: "srinivas"}}
		}, 1, false, `beta: bound: want fiedler or chowdhury-gopalan, got "srinivas"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := model()
			c.edit(&m)
			err := m.Check(c.m, c.drawn)
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case c.want != "" && (err == nil || err.Error() != c.want):
				t.Fatalf("got %v\nwant %s", err, c.want)
			case c.want != "" && !errors.Is(err, config.ErrInvalid) && !errors.Is(err, kernel.ErrInvalid):
				t.Errorf("%v is neither config.ErrInvalid nor kernel.ErrInvalid", err)
			}
		})
	}
}

// TestModelResolve: what is left out is filled in — β as the paper's
// schedule, the kernels from a generated problem — and what is given is
// kept; the defaults are copies, not the generator's own slices.
func TestModelResolve(t *testing.T) {
	t.Parallel()
	drawF := kernel.Spec{Kernel: "se", Lengthscale: kernel.Iso(2)}
	drawG := []kernel.Spec{{Kernel: "se", Lengthscale: kernel.Iso(0.3)}}
	m := config.Model{NoiseStd: f64(0.1), Delta: f64(0.01)}
	m.Resolve(&drawF, drawG)
	want := config.Model{Objective: &drawF, Constraints: drawG, NoiseStd: f64(0.1), Delta: f64(0.01), Beta: &bandit.PaperBeta}
	if diff := cmp.Diff(want, m); diff != "" {
		t.Fatalf("resolved (-want +got):\n%s", diff)
	}
	m.Constraints[0].Lengthscale = kernel.Iso(9)
	if m.Objective == &drawF || drawG[0].Lengthscale[0] != 0.3 {
		t.Error("Resolve shares the generator's kernels instead of copying them")
	}
	given := model()
	given.Beta = &bandit.Beta{Value: 2}
	before := model()
	before.Beta = &bandit.Beta{Value: 2}
	given.Resolve(&drawF, drawG)
	if diff := cmp.Diff(before, given); diff != "" {
		t.Errorf("Resolve changed given values (-before +after):\n%s", diff)
	}
}

// TestModelCheckDim: a lengthscale list must have one entry per input
// dimension of the decision set; the error names the kernel's key.
func TestModelCheckDim(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		edit func(m *config.Model)
		d    int
		want string
	}{
		{"isotropic, any d", func(m *config.Model) {}, 7, ""},
		{"ARD of d", func(m *config.Model) { m.Constraints[0].Lengthscale = kernel.Lengthscale{1, 2, 3} }, 3, ""},
		{"kernels left to a generated problem", func(m *config.Model) { m.Objective, m.Constraints = nil, nil }, 3, ""},
		{"objective", func(m *config.Model) { m.Objective.Lengthscale = kernel.Lengthscale{1, 2} }, 3, "objective.lengthscale: 2 lengthscales for 3 input dimensions: give one, or one per dimension"},
		{"constraint", func(m *config.Model) {
			m.Constraints = append(m.Constraints, kernel.Spec{Kernel: "matern32", Lengthscale: kernel.Lengthscale{1, 2, 3}})
		}, 2, "constraints[1].lengthscale: 3 lengthscales for 2 input dimensions: give one, or one per dimension"},
	} {
		m := model()
		c.edit(&m)
		err := m.CheckDim(c.d)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: unexpected error: %v", c.name, err)
		case c.want != "" && (err == nil || err.Error() != c.want || !errors.Is(err, kernel.ErrInvalid)):
			t.Errorf("%s: got %v, want %s (kernel.ErrInvalid)", c.name, err, c.want)
		}
	}
}

// TestModelNoiseStds: each GP's σ is its kernel block's noise_std, else
// the section's; nil when no block gives one.
func TestModelNoiseStds(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		edit func(m *config.Model)
		want []float64
	}{
		{"none given", func(m *config.Model) {}, nil},
		{"a constraint's", func(m *config.Model) {
			m.Constraints = append(m.Constraints, kernel.Spec{Kernel: "linear", NoiseStd: f64(0.02)})
		}, []float64{0.1, 0.1, 0.02}},
		{"the objective's", func(m *config.Model) { m.Objective.NoiseStd = f64(0) }, []float64{0, 0.1}},
		{"every one's", func(m *config.Model) {
			m.Objective.NoiseStd, m.Constraints[0].NoiseStd = f64(0.3), f64(0.4)
		}, []float64{0.3, 0.4}},
	} {
		m := model()
		c.edit(&m)
		if diff := cmp.Diff(c.want, m.NoiseStds()); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, diff)
		}
	}
}

// names returns n distinct context names.
func names(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("c%d", i)
	}
	return out
}

// TestSharedChecks: the horizon, thresholds and non-negative values both
// kinds of file hold.
func TestSharedChecks(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		err  error
		want string
	}{
		{"horizon 1", config.CheckHorizon(1), ""},
		{"horizon max", config.CheckHorizon(config.MaxHorizon), ""},
		{"horizon 0", config.CheckHorizon(0), "horizon: missing or 0: give the number of rounds planned, 1…1000000"},
		{"horizon -1", config.CheckHorizon(-1), "horizon: must be in 1…1000000, got -1"},
		{"horizon past max", config.CheckHorizon(config.MaxHorizon + 1), "horizon: must be in 1…1000000, got 1000001"},
		{"thresholds", config.CheckThresholds([]float64{0, -1e100}), ""},
		{"no thresholds", config.CheckThresholds(nil), "missing: one threshold h_i per constraint"},
		{"huge threshold", config.CheckThresholds([]float64{0, 1e101}), "[1]: must be a finite number within ±1e100, got 1e+101"},
		{"thresholds and h_f", config.CheckSafety([]float64{0}, f64(-1)), ""},
		{"h_f alone", config.CheckSafety(nil, f64(-1)), ""},
		{"thresholds alone", config.CheckSafety([]float64{0}, nil), ""},
		{"no safety condition", config.CheckSafety([]float64{}, nil), "thresholds: missing: one threshold h_i per constraint, or objective_threshold h_f for f ≥ h_f (a safe bandit needs a safety condition)"},
		{"huge threshold beside h_f", config.CheckSafety([]float64{0, 1e101}, f64(0)), "thresholds[1]: must be a finite number within ±1e100, got 1e+101"},
		{"h_f NaN", config.CheckSafety([]float64{0}, f64(math.NaN())), "objective_threshold: must be a finite number within ±1e100, got NaN"},
		{"zero", config.CheckNonNegative(0), ""},
		{"negative", config.CheckNonNegative(-1e-9), "must be a finite number in 0…1e100, got -1e-09"},
		{"context names at the limit", config.CheckContextNames(names(config.MaxContextNames)), ""},
		{"too many context names", config.CheckContextNames(names(config.MaxContextNames + 1)), fmt.Sprintf("%d context variables, at most %d", config.MaxContextNames+1, config.MaxContextNames)},
	} {
		switch {
		case c.want == "" && c.err != nil:
			t.Errorf("%s: unexpected error: %v", c.name, c.err)
		case c.want != "" && (c.err == nil || c.err.Error() != c.want || !errors.Is(c.err, config.ErrInvalid)):
			t.Errorf("%s: got %v, want %s (config.ErrInvalid)", c.name, c.err, c.want)
		}
	}
}

// TestFitGroupsDim: model.fit.groups gives one lengthscale number per
// input dimension, numbered 0 … p−1 with each used.
func TestFitGroupsDim(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		groups []int
		want   string
	}{
		{[]int{0, 0, 1}, ""},
		{[]int{0, 1}, "fit.groups: 2 groups for 3 dimensions: give one per dimension"},
		{[]int{0, 2, 2}, "fit.groups: [0 2 2]: number the lengthscales 0 … 2, each used"},
	} {
		m := model()
		one := config.FitWhen{Auto: true}
		m.Fit = &config.Fit{When: &one, Groups: c.groups}
		err := m.CheckDim(3)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%v: unexpected error: %v", c.groups, err)
		case c.want != "" && (err == nil || err.Error() != c.want || !errors.Is(err, config.ErrInvalid)):
			t.Errorf("%v: got %v, want %s (config.ErrInvalid)", c.groups, err, c.want)
		}
	}
}
