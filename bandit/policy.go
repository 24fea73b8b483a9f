package bandit

import (
	"fmt"
	"github.com/safegp/safegp/theory"
	"math"
	"math/rand/v2"
	"sync"

	"github.com/safegp/safegp/gp"
	"github.com/safegp/safegp/internal/argmax"
	"github.com/safegp/safegp/kernel"
)

// Policy is an ask/tell bandit algorithm. Next returns the action to play in
// the coming round; calling it again before Observe returns the same action.
// Observe feeds the result of playing an action (usually the one Next
// returned): y observes f, z[i] observes g_i. The policy's state changes
// only in Observe (and in Next's own random draws), so that replaying the
// same calls rebuilds the same state.
type Policy interface {
	Next() int
	Observe(i int, y float64, z []float64)
	// SafeSetSize is the size of the safe set the coming round uses
	// (SPEC §9 `safe_set_size`).
	SafeSetSize() int
	// ExplorationRounds is the length of the exploration phase (T', t* or
	// stage 1), or the rounds spent in it so far while it lasts.
	ExplorationRounds() int
	// Inspect returns the policy's view of the coming round — its safe set
	// and posteriors — without choosing an action or using randomness, so
	// that inspecting never changes what the policy will suggest.
	Inspect() Snapshot
}

// Posterior is a GP's posterior mean and standard deviation over D.
type Posterior struct {
	Mean []float64 `json:"mean"`
	Std  []float64 `json:"std"`
}

// Snapshot is a policy's view of round Round, before it chooses.
type Snapshot struct {
	Round    int         `json:"round"`
	SqrtBeta float64     `json:"sqrt_beta"`
	Safe     []bool      `json:"safe"`
	F        Posterior   `json:"f"`
	G        []Posterior `json:"g"`
	// LowerF is the policy's lower confidence bound ℓ_{f,t} (intersected
	// over time in SafeOpt's lipschitz mode).
	LowerF []float64 `json:"lower_f"`
}

// Env is what a policy knows of its problem. TrueSafe and Lipschitz hold
// knowledge of the true constraints: only gp-ucb-oracle and `lipschitz:
// auto` use them, and they may be nil otherwise.
type Env struct {
	X           [][]float64
	Seed        []int // D^w, ascending
	H           []float64
	Epsilon     float64
	Objective   kernel.Kernel
	Constraints []kernel.Kernel
	NoiseStd    float64 // model σ
	Delta       float64
	Beta        Beta
	Horizon     int
	Rand        *rand.Rand // the policy's own random choices

	TrueSafe  []bool    // D^s_0
	Lipschitz []float64 // L_i

	// Grow makes the GPs allocate their rows as observations come, up to
	// Horizon, instead of for the whole horizon up front: for studies,
	// which may stop long before their horizon.
	Grow bool
	// Expect, with Grow, is the number of observations about to be fed at
	// once (a study's recorded tells, replayed when it is opened): room for
	// them is made up front rather than by doubling.
	Expect int
}

// Bytes estimates the memory a policy of spec s over n actions with m
// constraints holds at its horizon (grow as in Env.Grow): its GPs (SPEC
// §2), and for the SafeOpt family its bounds and, in gp mode, the N×N
// covariance of every constraint. Callers compare it with a limit before
// building the policy.
func Bytes(s *Spec, n, m, horizon int, grow bool) int64 {
	rows := horizon
	if grow {
		// Doubling up to the horizon: the old and the new V are both
		// alive while the rows are copied.
		rows = 2 * horizon
	}
	gps := int64(m + 1)
	if s.Name == "gp-ucb-oracle" {
		gps = 1
	}
	// GPs, safe and seed flags, and a fixed part for the small structures
	// (measured: under 16 KiB, and about 64 bytes a round).
	total := gps*gp.Bytes(n, rows, false) + 2*int64(n) + 16<<10 + 64*int64(horizon)
	switch s.Name {
	case "safeopt", "safeopt-mc", "stageopt":
		// lo, hi per GP; prev/out index lists; three flag vectors.
		total += 8*int64(n)*(2*gps+2) + 3*int64(n)
		if s.SafeSet == "gp" {
			total += 8 * int64(m) * int64(n) * int64(n)
		}
	}
	return total
}

// New builds the policy a spec names. The spec must pass Check.
func New(s *Spec, env *Env) (Policy, error) {
	if err := s.Check(env.Horizon); err != nil {
		return nil, err
	}
	if len(env.Constraints) != len(env.H) {
		return nil, fmt.Errorf("%w: %d constraint kernels for %d thresholds", ErrConfig, len(env.Constraints), len(env.H))
	}
	// A kernel that overflows on D (a high-degree polynomial far from the
	// origin) would turn every bound into NaN.
	for j, k := range append([]kernel.Kernel{env.Objective}, env.Constraints...) {
		for i, x := range env.X {
			if v := k.Eval(x, x); math.IsNaN(v) || math.IsInf(v, 0) {
				name := "objective"
				if j > 0 {
					name = fmt.Sprintf("constraint g%d", j)
				}
				return nil, fmt.Errorf("%w: the %s kernel is not finite at action %d: k(x,x) = %v", ErrConfig, name, i, v)
			}
		}
	}
	switch s.Name {
	case "sgp-ucb":
		rule := s.Exploration
		if rule.Theory {
			tPrime, err := TheoryLength(env, rule.TheoryFeatures)
			if err != nil {
				return nil, fmt.Errorf("exploration: theory: %w", err)
			}
			rule = Exploration{Fixed: &tPrime}
		}
		return newSGPUCB(env, s.Phase1 == "uncertainty", rule, s.KeepSeed), nil
	case "naive-sgp-ucb":
		zero := 0
		return newSGPUCB(env, false, Exploration{Fixed: &zero}, s.KeepSeed), nil
	case "gp-ucb-oracle":
		if env.TrueSafe == nil {
			return nil, fmt.Errorf("%w: gp-ucb-oracle needs the true safe set, which this problem does not provide", ErrConfig)
		}
		return newOracle(env), nil
	case "safeopt", "safeopt-mc", "stageopt":
		lip := s.SafeSet != "gp"
		if lip && (s.Lipschitz == nil || s.Lipschitz.Auto) && len(env.Lipschitz) != len(env.Constraints) {
			return nil, fmt.Errorf("%w: lipschitz: auto needs the true constraints, which this problem does not provide; give a number", ErrConfig)
		}
		v := map[string]variant{"safeopt": variantSafeOpt, "safeopt-mc": variantMC, "stageopt": variantStage}[s.Name]
		return newSafeOpt(env, v, s), nil
	}
	return nil, fmt.Errorf("%w: name: unknown algorithm %q", ErrConfig, s.Name)
}

// models holds the GPs of f and every g_i, with the bounds of the coming
// round.
type models struct {
	env *Env
	f   *gp.Model
	g   []*gp.Model
	t   int // observations so far
	sqb float64
}

func newModels(env *Env, withG bool) models {
	m := models{env: env, f: gp.New(env.Objective, env.X, env.NoiseStd)}
	if withG {
		for _, k := range env.Constraints {
			m.g = append(m.g, gp.New(k, env.X, env.NoiseStd))
		}
	}
	for _, g := range append([]*gp.Model{m.f}, m.g...) {
		if env.Grow {
			g.GrowTo(env.Horizon)
			g.Reserve(min(env.Expect, env.Horizon))
		} else {
			g.Reserve(env.Horizon)
		}
	}
	return m
}

// beta sets √β_t for the coming round t = observations + 1.
func (m *models) beta() {
	m.sqb = math.Sqrt(m.env.Beta.At(m.t+1, len(m.env.Constraints), len(m.env.X), m.env.Delta))
}

func (m *models) observe(i int, y float64, z []float64) {
	if i < 0 || i >= len(m.env.X) {
		panic(fmt.Sprintf("bandit: Observe: action %d outside 0…%d", i, len(m.env.X)-1))
	}
	if len(z) != len(m.env.Constraints) {
		panic(fmt.Sprintf("bandit: Observe: %d constraint values for %d constraints", len(z), len(m.env.Constraints)))
	}
	// Each GP's update is O(N·t) and independent of the others: large ones
	// run concurrently (replaying a stored study is bound by them).
	if len(m.g) > 0 && m.f.N()*(m.t+1) >= parallelObserve {
		var wg sync.WaitGroup
		for k, g := range m.g {
			wg.Add(1)
			go func() {
				defer wg.Done()
				g.Observe(i, z[k])
			}()
		}
		m.f.Observe(i, y)
		wg.Wait()
	} else {
		m.f.Observe(i, y)
		for k, g := range m.g {
			g.Observe(i, z[k])
		}
	}
	m.t++
}

// parallelObserve is the N·t from which the GPs are updated concurrently:
// about a millisecond of work each, far above a goroutine's cost.
const parallelObserve = 1 << 20

func (m *models) upper(g *gp.Model, i int) float64 { return g.Mean()[i] + m.sqb*g.Std(i) }
func (m *models) lower(g *gp.Model, i int) float64 { return g.Mean()[i] - m.sqb*g.Std(i) }

// gpSafe fills safe with D^s_t = {x : ℓ_{g_i,t}(x) ≥ h_i ∀i} (paper eq. 8)
// and returns its size.
func (m *models) gpSafe(safe []bool) int {
	n := 0
	for i := range safe {
		ok := true
		for k, g := range m.g {
			if !(m.lower(g, i) >= m.env.H[k]) { // NaN is not safe
				ok = false
				break
			}
		}
		safe[i] = ok
		if ok {
			n++
		}
	}
	return n
}

// argmaxUpper returns argmax u_f over the actions in set, lowest index on
// ties, or −1 if set is empty.
func (m *models) argmaxUpper(in func(i int) bool) int {
	return argmax.Func(len(m.env.X), in, m.upperF)
}

func (m *models) upperF(i int) float64 { return m.upper(m.f, i) }

func posterior(g *gp.Model) Posterior {
	p := Posterior{Mean: append([]float64(nil), g.Mean()...), Std: make([]float64, g.N())}
	for i := range p.Std {
		p.Std[i] = g.Std(i)
	}
	return p
}

// snapshot copies the models' state for round t with the given safe set.
func (m *models) snapshot(t int, safe []bool) Snapshot {
	s := Snapshot{Round: t, SqrtBeta: m.sqb, Safe: append([]bool(nil), safe...), F: posterior(m.f)}
	for _, g := range m.g {
		s.G = append(s.G, posterior(g))
	}
	s.LowerF = make([]float64, len(s.F.Mean))
	for i := range s.LowerF {
		s.LowerF[i] = s.F.Mean[i] - m.sqb*s.F.Std[i]
	}
	return s
}

// cached makes Next idempotent within a round.
type cached struct {
	round, action int
}

func (c *cached) get(t int) (int, bool) { return c.action, c.round == t }
func (c *cached) set(t, a int) int      { c.round, c.action = t, a; return a }

// TheoryLength is T' = ⌈max(t_ε, t_δ)⌉ of Theorem 2 or 4 (SPEC §4), the
// largest over the constraints, at most the horizon. It fails when a
// constraint's λ_− ≤ 0: the seed set is too small for the guarantee.
func TheoryLength(env *Env, feat theory.Features) (int, error) {
	tPrime := 0
	for i, k := range env.Constraints {
		e, err := theory.ExplorationLength(theory.Problem{
			X: env.X, Seed: env.Seed, Kernel: k, NoiseStd: env.NoiseStd, Delta: env.Delta,
			Epsilon: env.Epsilon, Horizon: env.Horizon, M: len(env.Constraints),
		}, feat)
		if err != nil {
			if len(env.Constraints) > 1 {
				return 0, fmt.Errorf("constraint g%d: %w", i+1, err)
			}
			return 0, err
		}
		tPrime = max(tPrime, e.TPrime)
	}
	return tPrime, nil
}
