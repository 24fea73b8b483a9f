package bandit_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/safegp/safegp/bandit"
	"github.com/safegp/safegp/gp"
	"github.com/safegp/safegp/kernel"
	"github.com/safegp/safegp/problem"
	"github.com/safegp/safegp/theory"
)

func TestBeta(t *testing.T) {
	// The paper's schedule is theory.Beta (tested there against hand
	// values); a constant stays constant.
	if got, want := bandit.PaperBeta.At(7, 2, 50, 0.1), theory.Beta(7, 2, 50, 0.1); got != want {
		t.Errorf("paper β = %v, theory.Beta = %v", got, want)
	}
	if got := (bandit.Beta{Value: 4}).At(9, 1, 10, 0.5); got != 4 {
		t.Errorf("constant β = %v", got)
	}
}

func ptr[T any](v T) *T { return &v }

// instance draws a problem like the paper's regret comparison, smaller.
func instance(t *testing.T, r uint64) (*problem.Problem, *problem.Info) {
	t.Helper()
	spec := &problem.GenerateSpec{
		DecisionSet: problem.DecisionSetSpec{Kind: "unit-disk", Size: 60},
		Objective:   kernel.Spec{Kernel: "se", Lengthscale: 1},
		Constraints: []kernel.Spec{{Kernel: "se", Lengthscale: 0.3}, {Kernel: "se", Lengthscale: 0.5}},
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
	return bandit.New(s, e.model, e.set, e.truth, e.opt)
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
// checks every action against the set its rule allows, recomputed here from
// an independent posterior: phase 1 in D^w; phase 2 in D^s_t (or D^w when
// D^s_t is empty, or D^s_t ∪ D^w with keep_seed); the oracle in D^s_0.
func TestActionsInAllowedSet(t *testing.T) {
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
			noise := rand.New(rand.NewPCG(3, r))
			type step struct {
				a          int
				safe       []bool
				size, told int
			}
			var rounds []step
			for round := 1; round <= T; round++ {
				q, err := pol.Ask()
				if err != nil {
					t.Fatal(err)
				}
				if again, err := pol.Ask(); err != nil || again.ID != q.ID || again.Index != q.Index {
					t.Fatalf("%s: Ask not idempotent: %+v then %+v (%v)", s.DisplayLabel(), q, again, err)
				}
				if q.ID != round {
					t.Fatalf("%s: round %d handed out ask %d", s.DisplayLabel(), round, q.ID)
				}
				a := q.Index
				sqb := math.Sqrt(bandit.PaperBeta.At(round, 2, p.N(), 0.01))
				safe, size := make([]bool, p.N()), 0
				for i := range safe {
					safe[i] = true
					for k, g := range ref {
						if g.Mean()[i]-sqb*g.Std(i) < p.H[k] {
							safe[i] = false
						}
					}
					if safe[i] {
						size++
					}
				}
				rounds = append(rounds, step{a, safe, size, inspect(pol).SafeSetSize})
				y := p.F[a] + 0.1*noise.NormFloat64()
				z := []float64{p.G[0][a] + 0.1*noise.NormFloat64(), p.G[1][a] + 0.1*noise.NormFloat64()}
				if err := pol.Tell(q.ID, bandit.Observation{F: y, G: z}); err != nil {
					t.Fatal(err)
				}
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
				switch {
				case s.Name == "gp-ucb-oracle":
					if !info.SafeTrue[st.a] {
						t.Fatalf("oracle played %d outside D^s_0", st.a)
					}
				case round <= tPrime:
					if !isSeed[st.a] {
						t.Fatalf("%s round %d: phase-1 action %d not a seed", s.DisplayLabel(), round, st.a)
					}
				default:
					if st.told != st.size {
						t.Fatalf("%s round %d: |D^s_t| = %d, recomputed %d", s.DisplayLabel(), round, st.told, st.size)
					}
					if st.size > 0 {
						checked++
					}
					if !(st.safe[st.a] || ((st.size == 0 || s.KeepSeed) && isSeed[st.a])) {
						t.Fatalf("%s round %d: action %d outside its set", s.DisplayLabel(), round, st.a)
					}
				}
			}
		}
	}
	if checked < 100 {
		t.Errorf("only %d phase-2 rounds had a non-empty safe set", checked)
	}
}

func TestExplorationLength(t *testing.T) {
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

func TestSpecCheck(t *testing.T) {
	for _, s := range []bandit.Spec{
		{Name: "sgp-ucb"},
		{Name: "sgp-ucb", Phase1: "random", Exploration: bandit.Exploration{Fixed: ptr(1)}},
		{Name: "gp-ucb-oracle", KeepSeed: true},
		{Name: "naive-sgp-ucb", Phase1: "uniform"},
		{Name: "bogus"},
		{},
		{Name: "safeopt", Exploration: bandit.Exploration{Fixed: ptr(3)}},
		{Name: "safeopt-mc"},
		{Name: "stageopt", Exploration: bandit.Exploration{Theory: true}},
		{Name: "safeopt", SafeSet: "exact"},
		{Name: "safeopt", SafeSet: "gp", Lipschitz: &bandit.Lipschitz{Value: 1}},
		{Name: "stageopt", Phase1: "uniform", Exploration: bandit.Exploration{Fixed: ptr(3)}},
	} {
		if err := s.Check(10); err == nil {
			t.Errorf("%+v: no error", s)
		}
	}
}

func TestTheoryExploration(t *testing.T) {
	// Linear constraint kernel, seeds e1, e2 and (1,1): Theorem 2 applies and
	// SGP-UCB explores for exactly the T' that theory.ExplorationLength gives.
	x := [][]float64{{1, 0}, {0, 1}, {1, 1}, {-1, 0.5}, {0.3, -0.8}}
	env := &setup{
		model: bandit.Model{Objective: kernel.Linear{Variance: 1}, Constraints: []kernel.Kernel{kernel.Linear{Variance: 1}}, NoiseStd: 0.1, Delta: 0.1, Beta: bandit.PaperBeta},
		set:   bandit.DecisionSet{X: x, Seed: []int{0, 1, 2}},
		opt:   bandit.Options{Thresholds: []float64{-5}, Epsilon: 0.5, Horizon: 200, Rand: rand.New(rand.NewPCG(1, 1))},
	}
	want, err := bandit.TheoryLength(env.model, env.set, env.opt, theory.Features{})
	if err != nil {
		t.Fatal(err)
	}
	if want < 1 || want >= 200 {
		t.Fatalf("T' = %d: the case should give a T' inside the horizon", want)
	}
	pol, err := env.build(&bandit.Spec{Name: "sgp-ucb", Exploration: bandit.Exploration{Theory: true}})
	if err != nil {
		t.Fatal(err)
	}
	for round := 0; round < 200; round++ {
		a, err := pol.Ask()
		if err != nil {
			t.Fatal(err)
		}
		if err := pol.Tell(a.ID, bandit.Observation{F: 0, G: []float64{0}}); err != nil {
			t.Fatal(err)
		}
	}
	if got := inspect(pol).ExplorationRounds; got != want {
		t.Errorf("T' = %d, want %d", got, want)
	}
	env.set.Seed = []int{2}
	if _, err := env.build(&bandit.Spec{Name: "sgp-ucb", Exploration: bandit.Exploration{Theory: true}}); !errors.Is(err, theory.ErrSeedTooSmall) {
		t.Errorf("one seed in 2-D: got %v, want ErrSeedTooSmall", err)
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
	for _, grow := range []bool{false, true} {
		for _, s := range specs {
			e := env(p, info, bandit.PaperBeta, horizon)
			e.opt.Grow = grow
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
			est := bandit.Bytes(&s, p.N(), 2, horizon, grow)
			// Grown models allocate each doubling once: the estimate
			// bounds what is alive at a time, not the garbage made.
			if !grow && got > est {
				t.Errorf("%s %s: allocated %d bytes, estimate %d", s.Name, s.SafeSet, got, est)
			}
			if est > 3*got {
				t.Errorf("%s %s grow=%v: allocated %d bytes, estimate %d is too pessimistic", s.Name, s.SafeSet, grow, got, est)
			}
		}
	}
}
