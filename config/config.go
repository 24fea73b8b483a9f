package config

import (
	"errors"
	"fmt"
	"slices"

	"github.com/safegp/safegp/internal/plural"

	"github.com/safegp/safegp/bandit"
	"github.com/safegp/safegp/internal/fielderr"
	"github.com/safegp/safegp/kernel"
	"github.com/safegp/safegp/problem"
)

// ErrInvalid marks a section that fails a check of SPEC §8.
var ErrInvalid = errors.New("invalid configuration section")

// MaxHorizon bounds the rounds T of an experiment or a study: each stored
// round takes about 40 bytes of results, and a model holds N·T floats per
// GP while it runs.
const MaxHorizon = 1_000_000

// Model is the learner's GP model (SPEC §2, §3; the `model` section of SPEC
// §9): the kernels of f and of each g_i, the noise σ it assumes (a kernel
// block's own noise_std overrides it for that function's GP), the
// confidence δ and the β_t schedule.
type Model struct {
	Objective   *kernel.Spec  `yaml:"objective,omitempty" json:"objective,omitempty"`
	Constraints []kernel.Spec `yaml:"constraints,omitempty" json:"constraints,omitempty"`
	NoiseStd    *float64      `yaml:"noise_std" json:"noise_std"`
	Delta       *float64      `yaml:"delta" json:"delta"`
	Beta        *bandit.Beta  `yaml:"beta,omitempty" json:"beta,omitempty"`
	// ObjectiveBeta, if set, is the β of the objective's upper bound
	// where a policy chooses by it (bandit.Model.ObjectiveBeta); the
	// safe set keeps Beta. Nil: Beta for both.
	ObjectiveBeta *bandit.Beta `yaml:"objective_beta,omitempty" json:"objective_beta,omitempty"`
	// Fit, if set, re-estimates the kernels from the observations during
	// the run (Fit); nil is when: never, the configured kernels throughout.
	Fit *Fit `yaml:"fit,omitempty" json:"fit,omitempty"`
}

// Check checks the section for m constraints. drawn says that the problem
// is generated, whose drawing kernels are the default objective and
// constraints; otherwise both must be given. Errors name the key relative
// to the section (objective.lengthscale, constraints[1], noise_std).
func (s *Model) Check(m int, drawn bool) error {
	if err := s.checkKernels(m, drawn); err != nil {
		return err
	}
	switch {
	case s.NoiseStd == nil:
		return badKey("noise_std", "missing: the noise standard deviation σ the model assumes")
	case !(*s.NoiseStd >= 0) || !problem.InRange(*s.NoiseStd):
		return badKey("noise_std", "must be a finite number in 0…1e100, got %v", *s.NoiseStd)
	case s.Delta == nil:
		return badKey("delta", "missing: the confidence parameter δ, in (0, 1)")
	case !(*s.Delta > 0 && *s.Delta < 1):
		return badKey("delta", "must be in (0, 1), got %v", *s.Delta)
	}
	if err := checkBeta("beta", s.Beta); err != nil {
		return err
	}
	if err := checkBeta("objective_beta", s.ObjectiveBeta); err != nil {
		return err
	}
	if s.Fit != nil {
		if err := s.Fit.check(); err != nil {
			return fielderr.Under("fit", err)
		}
	}
	if s.Fit.Active() {
		return s.checkFitKernels()
	}
	return nil
}

// badKey is an ErrInvalid error at key, relative to the section.
func badKey(key, format string, args ...any) error {
	return fielderr.New(ErrInvalid, key, format, args...)
}

// checkKernels checks the objective's kernel and one constraint kernel
// per threshold; without drawn they must be given.
func (s *Model) checkKernels(m int, drawn bool) error {
	switch {
	case s.Objective != nil:
		if _, err := kernel.New(*s.Objective); err != nil {
			return fielderr.Under("objective", err)
		}
	case !drawn:
		return badKey("objective", "missing: the kernel of f")
	}
	switch {
	case s.Constraints != nil && len(s.Constraints) != m:
		return badKey("constraints", "%s for %s", plural.Count(len(s.Constraints), "kernel"), plural.Count(m, "threshold"))
	case s.Constraints == nil && !drawn && m > 0:
		return badKey("constraints", "missing: one kernel per threshold")
	}
	for i, k := range s.Constraints {
		if _, err := kernel.New(k); err != nil {
			return fielderr.Under(fmt.Sprintf("constraints[%d]", i), err)
		}
	}
	return nil
}

// checkBeta checks a β built in Go (nil: the default); a decoded β is
// checked by its UnmarshalYAML.
func checkBeta(key string, b *bandit.Beta) error {
	if b != nil && b.Freq != nil {
		f := b.Freq
		switch {
		case !(f.RKHSNorm >= 0 && problem.InRange(f.RKHSNorm)):
			return badKey(key, "rkhs_norm: want a finite number ≥ 0, got %v", f.RKHSNorm)
		case !(f.NoiseBound >= 0 && problem.InRange(f.NoiseBound)):
			return badKey(key, "noise_bound: want a finite number ≥ 0, got %v", f.NoiseBound)
		case f.RKHSNorm == 0 && f.NoiseBound == 0:
			return badKey(key, "rkhs_norm 0 and noise_bound 0 make β = 0: no confidence interval at all")
		case f.Bound != "" && f.Bound != "chowdhury-gopalan":
			return badKey(key, "bound: want fiedler or chowdhury-gopalan, got %q", f.Bound)
		}
	} else if b != nil && !b.Paper && !(b.Value > 0 && problem.InRange(b.Value)) {
		return badKey(key, `want "paper", a finite number > 0 or {rkhs_norm: B, noise_bound: R}, got %v`, b.Value)
	}
	return nil
}

// checkFitKernels refuses, with an active fit, a kernel the fit cannot
// re-estimate (CheckFitKernel).
func (s *Model) checkFitKernels() error {
	if s.Objective != nil {
		if err := CheckFitKernel(*s.Objective); err != nil {
			return fielderr.Under("objective", err)
		}
	}
	for i, k := range s.Constraints {
		if err := CheckFitKernel(k); err != nil {
			return fielderr.Under(fmt.Sprintf("constraints[%d]", i), err)
		}
	}
	return nil
}

// Resolve fills in what was left out — β as the paper's schedule, and the
// kernels as objective and constraints (a generated problem's drawing
// kernels; nil: none) — so that the section echoed in results.json or
// stored with a study says everything a run used. Check first.
func (s *Model) Resolve(objective *kernel.Spec, constraints []kernel.Spec) {
	if s.Beta == nil {
		b := bandit.PaperBeta
		s.Beta = &b
	}
	if s.Objective == nil && objective != nil {
		o := *objective
		s.Objective = &o
	}
	if s.Constraints == nil && constraints != nil {
		s.Constraints = append([]kernel.Spec(nil), constraints...)
	}
}

// CheckDim checks the kernels against the input dimension d of the
// decision set: a list of lengthscales needs one per dimension. Errors
// name the key relative to the section (constraints[0].lengthscale).
func (s *Model) CheckDim(d int) error {
	if s.Objective != nil {
		if err := kernel.CheckDim(*s.Objective, d); err != nil {
			return fielderr.Under("objective", err)
		}
	}
	for i, k := range s.Constraints {
		if err := kernel.CheckDim(k, d); err != nil {
			return fielderr.Under(fmt.Sprintf("constraints[%d]", i), err)
		}
	}
	if f := s.Fit; f != nil && f.Groups != nil {
		if len(f.Groups) != d {
			return badKey("fit.groups", "%d groups for %d dimensions: give one per dimension", len(f.Groups), d)
		}
		used := make([]bool, d)
		for _, g := range f.Groups {
			used[g] = true
		}
		if p := slices.Max(f.Groups) + 1; slices.Contains(used[:p], false) {
			return badKey("fit.groups", "%v: number the lengthscales 0 … %d, each used", f.Groups, p-1)
		}
	}
	return nil
}

// NoiseStds is the σ each GP assumes, as bandit.Model.NoiseStds takes it —
// [0] for f, [1+i] for g_i: the kernel block's noise_std, else the
// section's — or nil when no kernel block gives one, and every GP assumes
// noise_std (Check and Resolve first).
func (s *Model) NoiseStds() []float64 {
	own := s.Objective != nil && s.Objective.NoiseStd != nil
	for _, k := range s.Constraints {
		own = own || k.NoiseStd != nil
	}
	if !own {
		return nil
	}
	pick := func(k *kernel.Spec) float64 {
		if k != nil && k.NoiseStd != nil {
			return *k.NoiseStd
		}
		return *s.NoiseStd
	}
	sigma := []float64{pick(s.Objective)} // no objective yet: the section's σ
	for i := range s.Constraints {
		sigma = append(sigma, pick(&s.Constraints[i]))
	}
	return sigma
}

// Kernels builds the kernels of f and of the g_i (Check and Resolve first).
func (s *Model) Kernels() (f kernel.Kernel, g []kernel.Kernel) {
	f, _ = kernel.New(*s.Objective)
	for _, k := range s.Constraints {
		gk, _ := kernel.New(k)
		g = append(g, gk)
	}
	return f, g
}

// CheckHorizon checks the horizon T; the error names the key "horizon".
func CheckHorizon(t int) error {
	if t == 0 { // absent, or 0: a spec's decoding cannot tell them apart
		return fielderr.New(ErrInvalid, "horizon", "missing or 0: give the number of rounds planned, 1…%d", MaxHorizon)
	}
	if t < 1 || t > MaxHorizon {
		return fielderr.New(ErrInvalid, "horizon", "must be in 1…%d, got %d", MaxHorizon, t)
	}
	return nil
}

// CheckThresholds checks the thresholds h_i, one per constraint: at least
// one, each a finite number within ±1e100. Errors name the entry ("[1]").
func CheckThresholds(h []float64) error {
	if len(h) == 0 {
		return fielderr.New(ErrInvalid, "", "missing: one threshold h_i per constraint")
	}
	for i, v := range h {
		if !problem.InRange(v) {
			return fielderr.New(ErrInvalid, fmt.Sprintf("[%d]", i), "must be a finite number within ±1e100, got %v", v)
		}
	}
	return nil
}

// CheckSafety checks the safety conditions of a problem or a study: the
// thresholds h_i (CheckThresholds) and the optional objective threshold
// h_f (SPEC §5, "Safe objective"), of which there must be at least one
// (a safe bandit needs a safety condition): thresholds may be empty only
// with an objective threshold. Errors name the key relative to the
// section holding both ("thresholds[1]", "objective_threshold").
func CheckSafety(h []float64, hf *float64) error {
	if hf != nil && !problem.InRange(*hf) {
		return fielderr.New(ErrInvalid, "objective_threshold", "must be a finite number within ±1e100, got %v", *hf)
	}
	if len(h) == 0 {
		if hf == nil {
			return fielderr.New(ErrInvalid, "thresholds", "missing: one threshold h_i per constraint, or objective_threshold h_f for f ≥ h_f (a safe bandit needs a safety condition)")
		}
		return nil
	}
	if err := CheckThresholds(h); err != nil {
		return fielderr.Under("thresholds", err)
	}
	return nil
}

// CheckNonNegative checks a value that must be a finite number ≥ 0 within
// 1e100, as ε and the noise's standard deviation.
func CheckNonNegative(v float64) error {
	if !(v >= 0) || !problem.InRange(v) {
		return fielderr.New(ErrInvalid, "", "must be a finite number in 0…1e100, got %v", v)
	}
	return nil
}
