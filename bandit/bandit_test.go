package bandit_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/safegp/safegp/bandit"
	"github.com/safegp/safegp/gp"
	"github.com/safegp/safegp/kernel"
	"github.com/safegp/safegp/problem"
	"github.com/safegp/safegp/theory"
)

func TestBeta(t *testing.T) {
	t.Parallel()
	// SPEC §3: β_t = 2·log((m+1)·N·t²·π²/(6δ)), worked by hand:
	//   t=1, m=1, N=100, δ=0.01: 2·100·1·π²/0.06 = 32898.681…, log = 10.401188…, β = 20.802376…
	//   t=7, m=2, N=50,  δ=0.1:  3·50·49·π²/0.6  = 120902.65…, log = 11.702741…, β = 23.405482…
	//   t=1, m=1, N=5,   δ=0.1:  2·5·1·π²/0.6    = 164.49341…, log = 5.1028705…, β = 10.205741…
	//   t=2: the argument ×4, β = 10.205741… + 2·log 4 = 12.978330…
	// (digits from Python's math; 1e-12 absolute is float64 rounding of a
	// logarithm of size ≤ 12).
	cases := []struct {
		t, m, n int
		delta   float64
		want    float64
	}{
		{1, 1, 100, 0.01, 20.802375710013745},
		{7, 2, 50, 0.1, 23.405481975343346},
		{1, 1, 5, 0.1, 10.205740976917673},
		{2, 1, 5, 0.1, 12.978329699157454},
	}
	for _, c := range cases {
		if got := bandit.PaperBeta.At(c.t, c.m, c.n, c.delta); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("paper β_%d (m=%d, N=%d, δ=%v) = %v, want %v", c.t, c.m, c.n, c.delta, got, c.want)
		}
	}
	if got := (bandit.Beta{Value: 4}).At(9, 1, 10, 0.5); got != 4 {
		t.Errorf("constant β = %v", got)
	}
	// Round t uses β_t with t = observations + 1 (SPEC §3: the bounds of
	// round t use the data of rounds 1 … t−1): the snapshot of round 1 has
	// √β_1, after one observation √β_2.
	x := [][]float64{{0}, {1}, {2}, {3}, {4}}
	se := kernel.SE{Variance: 1, Lengthscale: 1}
	for _, name := range []string{"sgp-ucb", "safeopt", "gp-ucb-oracle"} {
		s := &bandit.Spec{Name: name}
		if name == "sgp-ucb" {
			s.Exploration = bandit.Exploration{Fixed: ptr(1)}
		}
		pol, err := bandit.Build(s, bandit.Model{Objective: se, Constraints: []kernel.Kernel{se}, NoiseStd: 0.1, Delta: 0.1, Beta: bandit.PaperBeta}, bandit.Domain{Set: bandit.DecisionSet{X: x, Seed: []int{2}}, Truth: &bandit.Truth{Safe: []bool{true, true, true, true, true}, Lipschitz: []float64{1}}}, bandit.Options{Thresholds: []float64{-0.5}, Epsilon: 0.01, Horizon: 10, Rand: rand.New(rand.NewPCG(1, 1))})
		if err != nil {
			t.Fatal(err)
		}
		for round, want := range []float64{10.205740976917673, 12.978329699157454} {
			if got := inspect(pol).SqrtBeta; math.Abs(got*got-want) > 1e-12 {
				t.Errorf("%s round %d: β = %v, want β_%d = %v", name, round+1, got*got, round+1, want)
			}
			observe(pol, next(pol), 0.5, []float64{1})
		}
	}
}

func ptr[T any](v T) *T { return &v }

// instance draws a problem like the paper's regret comparison, smaller.
func instance(t *testing.T, r uint64) (*problem.Problem, *problem.Info) {
	t.Helper()
	spec := &problem.GenerateSpec{
		DecisionSet: problem.DecisionSetSpec{Kind: "unit-disk", Size: 60},
		Objective:   kernel.Spec{Kernel: "se", Lengthscale: kernel.Iso(1)},
		Constraints: []kernel.Spec{{Kernel: "se", Lengthscale: kernel.Iso(0.3)}, {Kernel: "se", Lengthscale: kernel.Iso(0.5)}},
		SeedSet:     problem.SeedSetSpec{Size: []int{3, 8}},
	}
	p, err := problem.Generate(spec, []float64{0, -0.2}, 0.01, 0.1, rand.New(rand.NewPCG(11, r)))
	if err != nil {
		t.Fatal(err)
	}
	info, err := p.Analyze()
	if err != nil {
		t.Fatal(err)
	}
	return p, info
}

// setup is what bandit.New takes besides the spec.
type setup struct {
	model bandit.Model
	set   bandit.DecisionSet
	truth *bandit.Truth
	opt   bandit.Options
}

func (e *setup) build(s *bandit.Spec) (bandit.Policy, error) {
	return bandit.Build(s, e.model, bandit.Domain{Set: e.set, Truth: e.truth}, e.opt)
}

func env(p *problem.Problem, info *problem.Info, beta bandit.Beta, horizon int) *setup {
	return &setup{
		model: bandit.Model{
			Objective:   kernel.SE{Variance: 1, Lengthscale: 1},
			Constraints: []kernel.Kernel{kernel.SE{Variance: 1, Lengthscale: 0.3}, kernel.SE{Variance: 1, Lengthscale: 0.5}},
			NoiseStd:    0.1, Delta: 0.01, Beta: beta,
		},
		set:   bandit.DecisionSet{X: p.X, Seed: p.Seed},
		truth: &bandit.Truth{Safe: info.SafeTrue, Lipschitz: info.Lipschitz},
		opt:   bandit.Options{Thresholds: p.H, Epsilon: p.Epsilon, Horizon: horizon, Rand: rand.New(rand.NewPCG(1, 2))},
	}
}

// play asks pol and tells it the exact values of p for rounds rounds.
func play(t *testing.T, pol bandit.Policy, p *problem.Problem, rounds int) {
	t.Helper()
	z := make([]float64, p.M())
	for range rounds {
		a, err := pol.Ask()
		if err != nil {
			t.Fatal(err)
		}
		for k := range z {
			z[k] = p.G[k][a.Index]
		}
		if err := pol.Tell(a.ID, bandit.Observation{F: p.F[a.Index], G: z}); err != nil {
			t.Fatal(err)
		}
	}
}

func inspect(pol bandit.Policy) bandit.Snapshot {
	var s bandit.Snapshot
	pol.Inspect(&s, bandit.Full)
	return s
}

// TestActionsInAllowedSet drives each policy on random instances and
// checks every action against its rule, recomputed here from posteriors fed
// the same observations: phase 1 plays a seed (uncertainty sampling: the
// seed of largest max_i σ_{g_i}); phase 2 plays argmax u_f over D^s_t (over
// D^w when D^s_t is empty, over D^s_t ∪ D^w with keep_seed), lowest index
// on ties; the oracle argmax u_f over D^s_0.
func TestActionsInAllowedSet(t *testing.T) {
	t.Parallel()
	specs := []bandit.Spec{
		{Name: "sgp-ucb", Phase1: "uniform", Exploration: bandit.Exploration{Plateau: &bandit.Plateau{Window: 10, Cap: 40}}},
		{Name: "sgp-ucb", Phase1: "uncertainty", Exploration: bandit.Exploration{Fixed: ptr(15)}},
		{Name: "sgp-ucb", Phase1: "uniform", Exploration: bandit.Exploration{Fixed: ptr(5)}, KeepSeed: true},
		{Name: "naive-sgp-ucb"},
		{Name: "gp-ucb-oracle"},
	}
	const T = 80
	checked := 0 // phase-2 rounds with a non-empty D^s_t: the test must see some
	for r := uint64(0); r < 5; r++ {
		p, info := instance(t, r)
		isSeed := make([]bool, p.N())
		for _, s := range p.Seed {
			isSeed[s] = true
		}
		for _, s := range specs {
			e := env(p, info, bandit.PaperBeta, T)
			pol, err := e.build(&s)
			if err != nil {
				t.Fatal(err)
			}
			ref := []*gp.Model{gp.New(e.model.Constraints[0], p.X, 0.1), gp.New(e.model.Constraints[1], p.X, 0.1)}
			refF := gp.New(e.model.Objective, p.X, 0.1)
			noise := rand.New(rand.NewPCG(3, r))
			type step struct {
				a          int
				safe       []bool
				size, told int
				upper, unc []float64 // u_f and max_i σ_{g_i} of the round
			}
			var rounds []step
			for round := 1; round <= T; round++ {
				a := next(pol)
				if b := next(pol); b != a {
					t.Fatalf("%s: Next not idempotent: %d then %d", s.DisplayLabel(), a, b)
				}
				sqb := math.Sqrt(handBeta(round, 2, p.N(), 0.01))
				st := step{a: a, safe: make([]bool, p.N()), told: inspect(pol).SafeSetSize, upper: make([]float64, p.N()), unc: make([]float64, p.N())}
				for i := range st.safe {
					st.safe[i] = true
					for k, g := range ref {
						if g.Mean()[i]-sqb*g.Std(i) < p.H[k] {
							st.safe[i] = false
						}
						st.unc[i] = math.Max(st.unc[i], g.Std(i))
					}
					if st.safe[i] {
						st.size++
					}
					st.upper[i] = refF.Mean()[i] + sqb*refF.Std(i)
				}
				rounds = append(rounds, st)
				y := p.F[a] + 0.1*noise.NormFloat64()
				z := []float64{p.G[0][a] + 0.1*noise.NormFloat64(), p.G[1][a] + 0.1*noise.NormFloat64()}
				observe(pol, a, y, z)
				refF.Observe(a, y)
				for k, g := range ref {
					g.Observe(a, z[k])
				}
			}
			tPrime := inspect(pol).ExplorationRounds
			if s.Name == "sgp-ucb" && tPrime == 0 {
				t.Fatalf("%s: no exploration", s.DisplayLabel())
			}
			for k, st := range rounds {
				round := k + 1
				// argmax: st.a maximizes score over set, the lowest index
				// on ties. The reference posteriors are the same
				// computation as the policy's, so scores compare exactly.
				argmax := func(rule string, set []bool, score []float64) {
					t.Helper()
					if !set[st.a] {
						t.Fatalf("%s round %d: %s: action %d outside the set", s.DisplayLabel(), round, rule, st.a)
					}
					for i, in := range set {
						if in && (score[i] > score[st.a] || (score[i] == score[st.a] && i < st.a)) {
							t.Fatalf("%s round %d: %s: played %d (%v), but %d scores %v", s.DisplayLabel(), round, rule, st.a, score[st.a], i, score[i])
						}
					}
				}
				switch {
				case s.Name == "gp-ucb-oracle":
					argmax("argmax u_f over D^s_0", info.SafeTrue, st.upper)
				case round <= tPrime:
					if !isSeed[st.a] {
						t.Fatalf("%s round %d: phase-1 action %d not a seed", s.DisplayLabel(), round, st.a)
					}
					if s.Phase1 == "uncertainty" {
						argmax("uncertainty sampling", isSeed, st.unc)
					}
				default:
					if st.told != st.size {
						t.Fatalf("%s round %d: |D^s_t| = %d, recomputed %d", s.DisplayLabel(), round, st.told, st.size)
					}
					set := st.safe
					switch {
					case st.size == 0:
						set = isSeed
					case s.KeepSeed:
						set = make([]bool, len(st.safe))
						for i := range set {
							set[i] = st.safe[i] || isSeed[i]
						}
						checked++
					default:
						checked++
					}
					argmax("argmax u_f", set, st.upper)
				}
			}
		}
	}
	if checked < 100 {
		t.Errorf("only %d phase-2 rounds had a non-empty safe set", checked)
	}
}

func TestExplorationLength(t *testing.T) {
	t.Parallel()
	// β = 1e6 keeps every lower bound below its threshold, so |D^s_t| = 0 in
	// every round: the plateau rule ends phase 1 after `window` unchanged
	// rounds (|D^s_1| … |D^s_{w+1}| equal), unless the cap comes first;
	// T' never exceeds the horizon.
	p, info := instance(t, 0)
	cases := []struct {
		rule    bandit.Exploration
		horizon int
		want    int
	}{
		{bandit.Exploration{Plateau: &bandit.Plateau{Window: 20, Cap: 100}}, 60, 20},
		{bandit.Exploration{Plateau: &bandit.Plateau{Window: 50, Cap: 7}}, 60, 7},
		{bandit.Exploration{Plateau: &bandit.Plateau{Window: 50, Cap: 100}}, 30, 30},
		{bandit.Exploration{Fixed: ptr(12)}, 60, 12},
		{bandit.Exploration{Fixed: ptr(1000)}, 25, 25},
	}
	for _, c := range cases {
		pol, err := env(p, info, bandit.Beta{Value: 1e6}, c.horizon).build(&bandit.Spec{Name: "sgp-ucb", Exploration: c.rule})
		if err != nil {
			t.Fatal(err)
		}
		play(t, pol, p, c.horizon)
		if got := inspect(pol).ExplorationRounds; got != c.want {
			t.Errorf("%+v, T=%d: T' = %d, want %d", c.rule, c.horizon, got, c.want)
		}
	}
}

// TestSpecCheck: each bad spec is refused with ErrConfig, and the message
// starts with the key at fault.
func TestSpecCheck(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		spec bandit.Spec
		key  string
	}{
		{bandit.Spec{Name: "sgp-ucb"}, "exploration"},
		{bandit.Spec{Name: "sgp-ucb", Phase1: "random", Exploration: bandit.Exploration{Fixed: ptr(1)}}, "phase1"},
		{bandit.Spec{Name: "gp-ucb-oracle", KeepSeed: true}, "keep_seed"},
		{bandit.Spec{Name: "naive-sgp-ucb", Phase1: "uniform"}, "phase1"},
		{bandit.Spec{Name: "bogus"}, "name"},
		{bandit.Spec{}, "name"},
		{bandit.Spec{Name: "safeopt", Exploration: bandit.Exploration{Fixed: ptr(3)}}, "exploration"},
		{bandit.Spec{Name: "safeopt-mc"}, "exploration"},
		{bandit.Spec{Name: "stageopt", Exploration: bandit.Exploration{Theory: true}}, "exploration"},
		// t* uses no feature map: Theorem 4's options are refused.
		{bandit.Spec{Name: "safeopt-mc", Exploration: bandit.Exploration{Theory: true, TheoryFeatures: theory.Features{Kind: "qff"}}}, "exploration"},
		// A box has no true constraints, hence no R̄_0(S_0).
		{bandit.Spec{Name: "line-bo", Inner: "safeopt-mc", SafeSet: "gp", Exploration: bandit.Exploration{Theory: true}}, "exploration"},
		{bandit.Spec{Name: "safeopt", SafeSet: "exact"}, "safe_set"},
		{bandit.Spec{Name: "safeopt", SafeSet: "gp", Lipschitz: &bandit.Lipschitz{Value: 1}}, "lipschitz"},
		{bandit.Spec{Name: "stageopt", Phase1: "uniform", Exploration: bandit.Exploration{Fixed: ptr(3)}}, "phase1"},
	} {
		err := c.spec.Check(10)
		if !errors.Is(err, bandit.ErrConfig) || !strings.HasPrefix(err.Error(), c.key+": ") {
			t.Errorf("%+v: got %v, want ErrConfig naming %q", c.spec, err, c.key)
		}
	}
	good := []bandit.Spec{
		{Name: "sgp-ucb", Exploration: bandit.Exploration{Theory: true}},
		{Name: "safeopt-mc", Exploration: bandit.Exploration{Theory: true}},
		{Name: "safeopt-mc", SafeSet: "gp", Exploration: bandit.Exploration{Theory: true}},
		{Name: "line-bo", Inner: "safeopt-mc", SafeSet: "gp", Exploration: bandit.Exploration{Fixed: ptr(3)}},
		{Name: "naive-sgp-ucb", KeepSeed: true},
		{Name: "gp-ucb-oracle"},
		{Name: "safeopt", SafeSet: "gp"},
		{Name: "stageopt", SafeSet: "lipschitz", Lipschitz: &bandit.Lipschitz{Auto: true}, Exploration: bandit.Exploration{Plateau: &bandit.Plateau{Window: 2, Cap: 3}}},
	}
	for _, s := range good {
		if err := s.Check(10); err != nil {
			t.Errorf("%+v: %v", s, err)
		}
	}
}

func TestTheoryExploration(t *testing.T) {
	t.Parallel()
	// SPEC §4 `theory`, Theorem 2 for a linear constraint kernel (v = 1,
	// φ(x) = x, d_g = 2), worked by hand. Every ‖x‖ ≤ 1, so k(x,x) ≤ 1 as
	// the paper assumes and no scaling by max k applies.
	//   D^w = {(1,0), (0,1), (0.6,0.8)}: Σ = (1/3)·Σ φφᵀ = (1/3)·[[1.36, 0.48], [0.48, 1.64]];
	//   the bracket has trace 3 and determinant 1.36·1.64 − 0.48² = 2, so
	//   eigenvalues 1 and 2, and λ_− = 1/3.
	//   β_T (T = 200, m = 1, N = 5, δ = 0.1) = 2·log(2·5·200²·π²/0.6)
	//     = 2·log(6579736.27) = 2·15.699505 = 31.399010.
	//   t_δ = (8/λ_−)·log(d_g/δ) = 24·log 20 = 24·2.9957323 = 71.897575.
	//   t_ε = 8σ²β_T/(λ_−ε²), σ = 0.1:
	//     ε = 0.5: 0.08·31.399010·3/0.25 = 30.143050 → T' = ⌈max(30.14, 71.90)⌉ = 72;
	//     ε = 0.2: 0.08·31.399010·3/0.04 = 188.39406 → T' = ⌈188.39⌉ = 189.
	x := [][]float64{{1, 0}, {0, 1}, {0.6, 0.8}, {-0.8, 0.6}, {0.3, -0.4}}
	for _, c := range []struct {
		eps  float64
		want int
	}{{0.5, 72}, {0.2, 189}} {
		env := &setup{
			model: bandit.Model{Objective: kernel.Linear{Variance: 1}, Constraints: []kernel.Kernel{kernel.Linear{Variance: 1}}, NoiseStd: 0.1, Delta: 0.1, Beta: bandit.PaperBeta},
			set:   bandit.DecisionSet{X: x, Seed: []int{0, 1, 2}},
			opt:   bandit.Options{Thresholds: []float64{-5}, Epsilon: c.eps, Horizon: 200, Rand: rand.New(rand.NewPCG(1, 1))},
		}
		pol, err := env.build(&bandit.Spec{Name: "sgp-ucb", Exploration: bandit.Exploration{Theory: true}})
		if err != nil {
			t.Fatal(err)
		}
		for range 200 {
			observe(pol, next(pol), 0, []float64{0})
		}
		if got := inspect(pol).ExplorationRounds; got != c.want {
			t.Errorf("ε = %v: T' = %d, want %d", c.eps, got, c.want)
		}
		if got, err := bandit.TheoryLength(env.model, env.set, env.opt, theory.Features{}); err != nil || got != c.want {
			t.Errorf("ε = %v: TheoryLength = %d, %v; want %d", c.eps, got, err, c.want)
		}
	}
	// Each constraint's T' takes its own σ (Model.NoiseStds), not f's nor
	// the default: σ_g = 0.2 multiplies t_ε by 4, to 120.57 at ε = 0.5, so
	// T' = ⌈max(120.57, 71.90)⌉ = 121 (f's σ = 5 is not used).
	env := &setup{
		model: bandit.Model{Objective: kernel.Linear{Variance: 1}, Constraints: []kernel.Kernel{kernel.Linear{Variance: 1}},
			NoiseStd: 0.1, NoiseStds: []float64{5, 0.2}, Delta: 0.1, Beta: bandit.PaperBeta},
		set: bandit.DecisionSet{X: x, Seed: []int{0, 1, 2}},
		opt: bandit.Options{Thresholds: []float64{-5}, Epsilon: 0.5, Horizon: 200, Rand: rand.New(rand.NewPCG(1, 1))},
	}
	if got, err := bandit.TheoryLength(env.model, env.set, env.opt, theory.Features{}); err != nil || got != 121 {
		t.Errorf("σ_g = 0.2: TheoryLength = %d, %v; want 121", got, err)
	}
	// One seed in 2-D cannot span the feature space: λ_− = 0, an error.
	env = &setup{
		model: bandit.Model{Objective: kernel.Linear{Variance: 1}, Constraints: []kernel.Kernel{kernel.Linear{Variance: 1}}, NoiseStd: 0.1, Delta: 0.1, Beta: bandit.PaperBeta},
		set:   bandit.DecisionSet{X: x, Seed: []int{2}},
		opt:   bandit.Options{Thresholds: []float64{-5}, Epsilon: 0.5, Horizon: 200, Rand: rand.New(rand.NewPCG(1, 1))},
	}
	if _, err := env.build(&bandit.Spec{Name: "sgp-ucb", Exploration: bandit.Exploration{Theory: true}}); !errors.Is(err, theory.ErrSeedTooSmall) {
		t.Errorf("one seed in 2-D: got %v, want ErrSeedTooSmall", err)
	}
}

// TestTheoryExplorationObjectiveThreshold: with an objective threshold,
// f ≥ h_f is one of the constraints T' covers, with the objective's kernel
// (SPEC §4 `theory`, SPEC §5 "Safe objective"); β_T still counts m+1 GPs
// with m the number of constraints g_i. The setting is
// TestTheoryExploration's, ε = 0.2:
//   - g linear and f linear with h_f: f's T' equals g's, 189, as before;
//   - f linear with h_f and no constraint: m = 0, so β_T = 2·log(5·200²·π²/0.6)
//     = 31.399010 − 2·log 2 = 30.012716 and t_ε = 0.08·30.012716·3/0.04
//     = 180.0763 → T' = 181 (t_δ = 71.9 as before);
//   - f quadratic (polynomial, degree 2: 6 features) with h_f: three seeds
//     cannot span its features, so λ_− = 0 for f and T' is an error that
//     names the objective threshold, though g's own T' exists.
func TestTheoryExplorationObjectiveThreshold(t *testing.T) {
	t.Parallel()
	x := [][]float64{{1, 0}, {0, 1}, {0.6, 0.8}, {-0.8, 0.6}, {0.3, -0.4}}
	lin := kernel.Linear{Variance: 1}
	quad := kernel.Polynomial{Variance: 1, Offset: 1, Degree: 2}
	hf := -5.0
	for _, c := range []struct {
		name string
		f    kernel.Kernel
		g    []kernel.Kernel
		want int // 0: ErrSeedTooSmall
	}{
		{"linear f and g", lin, []kernel.Kernel{lin}, 189},
		{"linear f alone", lin, nil, 181},
		{"quadratic f", quad, []kernel.Kernel{lin}, 0},
	} {
		h := make([]float64, len(c.g))
		for i := range h {
			h[i] = -5
		}
		model := bandit.Model{Objective: c.f, Constraints: c.g, NoiseStd: 0.1, Delta: 0.1, Beta: bandit.PaperBeta}
		set := bandit.DecisionSet{X: x, Seed: []int{0, 1, 2}}
		opt := bandit.Options{Thresholds: h, ObjectiveThreshold: &hf, Epsilon: 0.2, Horizon: 200}
		got, err := bandit.TheoryLength(model, set, opt, theory.Features{})
		switch {
		case c.want == 0 && (!errors.Is(err, theory.ErrSeedTooSmall) || !strings.HasPrefix(err.Error(), "objective threshold (f ≥ h_f): ")):
			t.Errorf("%s: got %d, %v; want ErrSeedTooSmall for the objective threshold", c.name, got, err)
		case c.want != 0 && (err != nil || got != c.want):
			t.Errorf("%s: T' = %d, %v; want %d", c.name, got, err, c.want)
		}
	}
}

// TestBytes checks bandit.Bytes against what building a policy and playing
// it to its horizon really allocates (runtime.MemStats, single goroutine):
// the estimate must cover the allocation, or a limit could be exceeded,
// and stay within 3× of it, or sound requests would be refused.
func TestBytes(t *testing.T) {
	p, info := instance(t, 1)
	const horizon = 60
	specs := []bandit.Spec{
		{Name: "sgp-ucb", Exploration: bandit.Exploration{Fixed: ptr(10)}},
		{Name: "naive-sgp-ucb"},
		{Name: "gp-ucb-oracle"},
		{Name: "safeopt"},
		{Name: "safeopt", SafeSet: "gp"},
		{Name: "stageopt", SafeSet: "gp", Exploration: bandit.Exploration{Fixed: ptr(10)}},
	}
	// With an objective threshold f ≥ h_f, gp mode keeps f's covariance too.
	hf := slices.Min(p.F) - 1
	for _, c := range []struct {
		grow bool
		hf   *float64
	}{{false, nil}, {true, nil}, {false, &hf}, {true, &hf}} {
		grow := c.grow
		for _, s := range specs {
			e := env(p, info, bandit.PaperBeta, horizon)
			e.opt.Grow = grow
			if c.hf != nil {
				e.opt.ObjectiveThreshold = c.hf
				e.truth.Lipschitz = append(slices.Clone(info.Lipschitz), 1)
			}
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			pol, err := e.build(&s)
			if err != nil {
				t.Fatal(err)
			}
			play(t, pol, p, horizon)
			runtime.ReadMemStats(&after)
			got := int64(after.TotalAlloc - before.TotalAlloc)
			est := bandit.Bytes(&s, p.N(), 2, c.hf != nil, horizon, grow)
			// Grown models allocate each doubling once: the estimate
			// bounds what is alive at a time, not the garbage made.
			if !grow && got > est {
				t.Errorf("%s %s h_f=%v: allocated %d bytes, estimate %d", s.Name, s.SafeSet, c.hf != nil, got, est)
			}
			if est > 3*got {
				t.Errorf("%s %s grow=%v h_f=%v: allocated %d bytes, estimate %d is too pessimistic", s.Name, s.SafeSet, grow, c.hf != nil, got, est)
			}
		}
	}
}
