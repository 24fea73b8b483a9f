package bandit

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/safegp/safegp/gp"
	"github.com/safegp/safegp/internal/memlimit"
	"github.com/safegp/safegp/kernel"
	"github.com/safegp/safegp/theory"
)

// DecisionSet is the finite set D = {x_0 … x_{N−1}} a policy chooses from
// (SPEC notation), with the seed set D^w of actions known to be safe.
// A policy keeps the slices: the caller must not change them.
type DecisionSet struct {
	X    [][]float64 // the points, all of one dimension d ≥ 1
	Seed []int       // D^w: indices into X, ascending, at least one
}

// Model is what a policy assumes of f and the g_i (SPEC §2–3, the
// configuration's `model`): the prior kernels, the noise σ of the
// measurements, the confidence δ and the schedule β_t.
type Model struct {
	Objective   kernel.Kernel
	Constraints []kernel.Kernel // one per g_i
	NoiseStd    float64         // σ ≥ 0
	Delta       float64         // δ in (0, 1)
	Beta        Beta
	// ObjectiveBeta, if not nil, is the β of f's upper confidence bound
	// where a rule chooses by it (GP-UCB's argmax, paper eq. 9, on D^s_t
	// and on line-bo's lines); every safety condition, f ≥ h_f among
	// them, keeps Beta. It trades exploration of f for progress without
	// touching what is certified safe (docs/tuning.md measures it).
	ObjectiveBeta *Beta
	// NoiseStds, if not nil, is each GP's own σ in place of NoiseStd —
	// [0] for f, [1+i] for g_i — when the functions are measured by
	// different sensors (a kernel block's noise_std, SPEC §9).
	NoiseStds []float64
}

// Sigma is the noise σ GP j assumes: j = 0 for f, 1+i for g_i.
func (m *Model) Sigma(j int) float64 {
	if m.NoiseStds != nil {
		return m.NoiseStds[j]
	}
	return m.NoiseStd
}

// Truth is what only a simulation knows: the true safe set D^s_0 and the
// true Lipschitz constants L_i of the g_i (SPEC §1), both counting f ≥ h_f
// as one more constraint when there is an objective threshold.
// gp-ucb-oracle reads Safe and `lipschitz: auto` reads Lipschitz; every
// other policy ignores it, and a real system has none (nil).
type Truth struct {
	Safe []bool // D^s_0, one flag per action
	// Lipschitz holds L_i per safety condition: one per constraint, then
	// L_f with an objective threshold (problem.Problem.Safety's order).
	Lipschitz []float64
	// Reach0 is |R̄_0(S_0)|, the safe set reachable from the seed set
	// under the true safety conditions and their L_i (paper §5 for
	// ε = 0), which safeopt-mc's exploration: theory reads (TStar); 0 if
	// not known.
	Reach0 int
}

// Options are the rest of what a policy runs with: the safety requirement
// g_i(x) ≥ h_i with its tolerance ε (SPEC §1), the horizon, the stream of
// the policy's own random choices, and how its GPs allocate.
type Options struct {
	Thresholds []float64 // h_i, one per constraint
	// ObjectiveThreshold, if not nil, is h_f: f ≥ h_f is then one more
	// safety condition for every policy, exactly a constraint observed
	// through the objective's GP (SPEC §5, "Safe objective"), and there
	// may be no constraint at all.
	ObjectiveThreshold *float64
	Epsilon            float64 // ε ≥ 0: StageOpt's stage-1 end, exploration: theory
	Horizon            int     // T ≥ 1
	// Rand is the stream of the policy's random choices (sgp-ucb's
	// uniform phase 1); it may be nil for a policy that makes none.
	Rand *rand.Rand

	// Grow makes the GPs allocate their rows as observations come, up to
	// Horizon, instead of for the whole horizon up front: for studies,
	// which may stop long before their horizon.
	Grow bool
	// Expect, with Grow, is the number of observations about to be told
	// at once (a study's recorded tells, replayed when it is opened): room
	// for them is made up front rather than by doubling.
	Expect int
	// WarmStart is the number of measurements the caller tells outside
	// the loop on top of the horizon's rounds (an experiment's warm
	// start): the GPs make room for Horizon + WarmStart observations.
	WarmStart int
	// CovarianceSwitch makes each GP over the decision set keep its full
	// N×N posterior covariance once it holds 2N observations
	// (gp.Model.KeepCovarianceFrom): an observation then costs O(N²)
	// instead of O(N·t), so that a long study, and an import of many rows
	// into it, costs time linear in its observations. Every float is the
	// one the GPs compute without it, so a study recorded either way
	// replays either way. SwitchBytes counts the memory.
	CovarianceSwitch bool
	// BetaActions, when > 0, is the N of β_t's union bound (SPEC §3) in
	// place of the decision set's size: line-bo's clouds, drawn anew at
	// every evaluation, count a discretization of the box rather than
	// one cloud (cloudBetaActions).
	BetaActions int
	// KeepContexts, for NewContextual, is how many contexts' inner
	// policies are kept for reuse when their context comes again, least
	// recently used out first: for a simulation drawing from a few
	// contexts, one per context. At most 1 (the default), the current
	// one only, rebuilt at every change of context.
	KeepContexts int
	// LoSBO, when set, is LoSBO's safety bound in the caller's terms in
	// place of the spec's lipschitz and noise_bound (a study stated in
	// parameters: per-parameter bounds in raw units, losbo.go).
	LoSBO *LoSBOBounds
}

// Bytes estimates the memory a policy of spec s over n actions with m
// constraints, and an objective threshold when hf, holds at its horizon
// (grow as in Options.Grow): its GPs (SPEC §2, as many as GPCount), and
// what its algorithm's row adds (Algorithm.bytes: the SafeOpt family's
// bounds, covariances and index).
// Callers compare it with a limit before building the policy.
func Bytes(s *Spec, n, m int, hf bool, horizon int, grow bool) int64 {
	rows := horizon
	if grow {
		// Doubling up to the horizon: the old and the new V are both
		// alive while the rows are copied.
		rows = 2 * horizon
	}
	gps := gpCount(s, m)
	// GPs, safe and seed flags, and a fixed part for the small structures
	// (measured: under 16 KiB, and about 64 bytes a round).
	total := gps*(gp.Bytes(n, rows, false)+gp.PriorRowsBytes(n, rows)) + 2*int64(n) + 16<<10 + 64*int64(horizon)
	if a := s.algorithm(); a != nil && a.bytes != nil {
		total = memlimit.Add(total, a.bytes(s, n, m, hf, rows))
	}
	return total
}

// safeSetBytes is what the SafeOpt family holds beside its GPs over n
// actions with m constraints (and an objective threshold when hf): its
// bounds and flags, and in gp mode the expander test's scratch and the
// N×N covariance of every safety condition where it may be kept
// (safeopt_gp.go, within covarianceBudget) or else the transposed copy of
// its V (gp.Model.KeepTransposed, rows observations); in lipschitz mode
// its index.
func safeSetBytes(s *Spec, n, m int, hf bool, rows int) int64 {
	gps := gpCount(s, m)
	// lo, hi and the widths' scales per GP; prev/out index lists; three
	// flag vectors.
	total := 8*int64(n)*(3*gps+2) + 3*int64(n)
	if s.SafeSet == "gp" {
		safety := m
		if hf {
			safety++
		}
		// The expander test's scratch (reach, surv, idx, a row, the
		// sorted candidates: 7 words an action; the round's answers: a
		// byte), and the covariance.
		total += 57 * int64(n)
		// Vᵀ until the covariance is kept, if it ever is: never both.
		vt := memlimit.Mul(int64(safety), gp.TransposedBytes(n, rows))
		if c := covarianceBytes(n, safety); c <= covarianceBudget {
			vt = max(vt, c)
		}
		total = memlimit.Add(total, vt)
	}
	return memlimit.Add(total, lipIndexBytes(s, n, m, hf))
}

// SwitchBytes is what Options.CovarianceSwitch adds to Bytes for a policy
// that reaches horizon observations: the N×N covariance of each GP, once
// it holds 2N; nothing for a shorter horizon, or for a policy that keeps
// the covariance anyway (SafeOpt's expander test in gp mode, which Bytes
// counts).
func SwitchBytes(s *Spec, n, m, horizon int) int64 {
	if horizon < 2*n {
		return 0
	}
	return memlimit.Mul(gpCount(s, m), 8*int64(n), int64(n))
}

// check validates what New is given, so that no policy meets an index out
// of range or a nil kernel later: errors wrap ErrConfig.
func check(model *Model, set *DecisionSet, opt *Options) error {
	if err := checkSet(set); err != nil {
		return err
	}
	if err := checkConditions(model, opt); err != nil {
		return err
	}
	if err := checkNoise(model); err != nil {
		return err
	}
	if !(model.Delta > 0 && model.Delta < 1) {
		return configErr("δ = %v: want a number in (0, 1)", model.Delta)
	}
	if opt.Horizon < 1 {
		return configErr("horizon %d: want at least 1", opt.Horizon)
	}
	for j := -1; j < len(model.Constraints); j++ {
		k, name := model.Objective, "objective"
		if j >= 0 {
			k, name = model.Constraints[j], fmt.Sprintf("constraint g%d", j+1)
		}
		if err := checkKernelOn(k, name, set); err != nil {
			return err
		}
	}
	return nil
}

// configErr is an error of what New is given, wrapping ErrConfig.
func configErr(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrConfig, fmt.Sprintf(format, args...))
}

// checkConditions checks the GPs' kernels are given, one per constraint
// threshold, and that there is a safety condition at all.
func checkConditions(model *Model, opt *Options) error {
	if model.Objective == nil {
		return configErr("no objective kernel")
	}
	for i, k := range model.Constraints {
		if k == nil {
			return configErr("no kernel for constraint g%d", i+1)
		}
	}
	if len(model.Constraints) != len(opt.Thresholds) {
		return configErr("%d constraint kernels for %d thresholds", len(model.Constraints), len(opt.Thresholds))
	}
	if hf := opt.ObjectiveThreshold; hf != nil && !finite(*hf) {
		return configErr("objective threshold h_f = %v: want a finite number", *hf)
	}
	if len(opt.Thresholds) == 0 && opt.ObjectiveThreshold == nil {
		return configErr("no safety condition: give a constraint or an objective threshold h_f")
	}
	return nil
}

// checkNoise checks the model's noise σ, and the per-GP ones if given.
func checkNoise(model *Model) error {
	if !(model.NoiseStd >= 0) || math.IsInf(model.NoiseStd, 0) {
		return configErr("noise σ = %v: want a finite number ≥ 0", model.NoiseStd)
	}
	if model.NoiseStds != nil && len(model.NoiseStds) != len(model.Constraints)+1 {
		return configErr("%d noise σ for %d GPs (f and %d constraints)", len(model.NoiseStds), len(model.Constraints)+1, len(model.Constraints))
	}
	for j, s := range model.NoiseStds {
		if !(s >= 0) || math.IsInf(s, 0) {
			return configErr("noise σ of %s = %v: want a finite number ≥ 0", gpName(j), s)
		}
	}
	return nil
}

// checkKernelOn checks kernel k (of the GP name) against the decision
// set: its dimension, and a finite prior variance at every action.
func checkKernelOn(k kernel.Kernel, name string, set *DecisionSet) error {
	d := len(set.X[0])
	// An ARD kernel needs one lengthscale per input dimension: Eval
	// would index past fewer, and ignore more.
	if l := kernel.ARD(k); l != nil && len(l) != d {
		return configErr("the %s kernel has %d lengthscales for %d input dimensions", name, len(l), d)
	}
	if p, ok := k.(kernel.Product); ok {
		if err := p.CheckDim(d); err != nil {
			return configErr("the %s kernel: %v", name, err)
		}
	}
	// A kernel that overflows on D (a high-degree polynomial far from
	// the origin) would turn every bound into NaN.
	for i, x := range set.X {
		if v := k.Eval(x, x); math.IsNaN(v) || math.IsInf(v, 0) {
			return configErr("the %s kernel is not finite at action %d: k(x,x) = %v", name, i, v)
		}
	}
	return nil
}

// checkSet validates a decision set and its seed set: errors wrap
// ErrConfig.
func checkSet(set *DecisionSet) error {
	n := len(set.X)
	if n == 0 {
		return configErr("empty decision set")
	}
	d := len(set.X[0])
	if d == 0 {
		return configErr("action 0 has no coordinates")
	}
	for i, x := range set.X {
		if len(x) != d {
			return configErr("action %d has %d coordinates, action 0 has %d", i, len(x), d)
		}
	}
	if len(set.Seed) == 0 {
		return configErr("empty seed set: a policy needs at least one action known to be safe")
	}
	for k, i := range set.Seed {
		if i < 0 || i >= n {
			return configErr("seed action %d outside the decision set's 0…%d", i, n-1)
		}
		if k > 0 && i <= set.Seed[k-1] {
			return configErr("seed actions must be ascending and distinct, got %d after %d", i, set.Seed[k-1])
		}
	}
	return nil
}

// newFinite is Build on a finite decision set: the policy spec s names,
// over set, with the GP model model. truth is the simulation's ground
// truth: nil for a real system, required by gp-ucb-oracle and
// `lipschitz: auto`. With pre not nil, pre's GPs already hold pre.t
// observations on set (see newModelsFrom); the caller checks that the
// rule's state after those observations depends on their posterior alone
// (historyFree). Errors wrap ErrConfig.
func newFinite(s *Spec, model Model, set DecisionSet, truth *Truth, opt Options, pre *prebuilt) (*loop, error) {
	if err := s.Check(opt.Horizon); err != nil {
		return nil, err
	}
	if err := check(&model, &set, &opt); err != nil {
		return nil, err
	}
	a := s.algorithm()
	if a.Box {
		return nil, fmt.Errorf("%w: name: %s runs on a box domain (decision_set: {box: …}), not on a finite decision set", ErrConfig, s.Name)
	}
	safety := len(model.Constraints) // the safety conditions: the constraints, and f ≥ h_f
	if opt.ObjectiveThreshold != nil {
		safety++
	}
	r, err := a.rule(&building{spec: s, model: model, set: set, truth: truth, opt: opt, pre: pre, safety: safety})
	if err != nil {
		return nil, err
	}
	return &loop{rule: r, m: r.base()}, nil
}

// TheoryLength is T' = ⌈max(t_ε, t_δ)⌉ of Theorem 2 or 4 (SPEC §4), the
// largest over the constraints (each with its own σ), at most the horizon.
// With an objective threshold f ≥ h_f is one of them, with the objective's
// kernel and σ. It fails when a constraint's λ_− ≤ 0: the seed set is too
// small for the
// guarantee.
func TheoryLength(model Model, set DecisionSet, opt Options, feat theory.Features) (int, error) {
	kernels := model.Constraints
	if opt.ObjectiveThreshold != nil {
		kernels = append(slices.Clip(kernels), model.Objective)
	}
	tPrime := 0
	for i, k := range kernels {
		e, err := theory.ExplorationLength(theory.Problem{
			// M counts the constraints g_i for β_T's m+1 GPs (SPEC §3):
			// f's threshold adds none.
			X: set.X, Seed: set.Seed, Kernel: k, NoiseStd: model.Sigma((1 + i) % (len(model.Constraints) + 1)), Delta: model.Delta,
			Epsilon: opt.Epsilon, Horizon: opt.Horizon, M: len(model.Constraints),
		}, feat)
		if err != nil {
			switch {
			case i == len(model.Constraints):
				return 0, fmt.Errorf("objective threshold (f ≥ h_f): %w", err)
			case len(kernels) > 1:
				return 0, fmt.Errorf("constraint g%d: %w", i+1, err)
			}
			return 0, err
		}
		tPrime = max(tPrime, e.TPrime)
	}
	return tPrime, nil
}

// gpName names GP j in errors: f for j = 0, g_i for j = i.
func gpName(j int) string {
	if j == 0 {
		return "f"
	}
	return fmt.Sprintf("g%d", j)
}
