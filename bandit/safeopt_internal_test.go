package bandit

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/safegp/safegp/kernel"
	"github.com/safegp/safegp/problem"
)

func members(in []bool) []int {
	var s []int
	for i, ok := range in {
		if ok {
			s = append(s, i)
		}
	}
	return s
}

// setup is what New takes besides the spec.
type setup struct {
	model Model
	set   DecisionSet
	truth *Truth
	opt   Options
}

func (e *setup) build(s *Spec) (Policy, error) {
	return Build(s, e.model, Domain{Set: e.set, Truth: e.truth}, e.opt)
}

// safeOptOf is the SafeOpt-family rule behind a policy New built.
func safeOptOf(t *testing.T, p Policy) *safeOpt {
	t.Helper()
	return p.(*loop).rule.(*safeOpt)
}

// ask asks p and fails the test on an error.
func ask(t *testing.T, p Policy) Ask {
	t.Helper()
	a, err := p.Ask()
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// tell tells p the measurement of ask a and fails the test on an error.
func tell(t *testing.T, p Policy, a Ask, f float64, g ...float64) {
	t.Helper()
	if err := p.Tell(a.ID, Observation{F: f, G: g}); err != nil {
		t.Fatal(err)
	}
}

func inspect(p Policy) Snapshot {
	var s Snapshot
	p.Inspect(&s, Full)
	return s
}

// handEnv: five actions 0…4 on a line, SE kernels (v = 1, ℓ = 1) for f and
// g, σ = 0.1, constant β = 1, seed {2}, h = −0.5.
func handEnv() *setup {
	x := [][]float64{{0}, {1}, {2}, {3}, {4}}
	se := kernel.SE{Variance: 1, Lengthscale: 1}
	return &setup{
		model: Model{Objective: se, Constraints: []kernel.Kernel{se}, NoiseStd: 0.1, Delta: 0.1, Beta: Beta{Value: 1}},
		set:   DecisionSet{X: x, Seed: []int{2}},
		truth: &Truth{Lipschitz: []float64{0.8}},
		opt:   Options{Thresholds: []float64{-0.5}, Epsilon: 0.01, Horizon: 10, Rand: rand.New(rand.NewPCG(1, 1))},
	}
}

// TestSafeOptHand checks every set after one observation (y = 0.5,
// z = 1 at x = 2), computed by hand from the one-observation posterior
// μ(x) = k(x,2)·y/1.01, σ²(x) = 1 − k(x,2)²/1.01, with k(1,2) = e^{−1/2},
// k(0,2) = e^{−2}:
//
//	μ_g = (0.134, 0.601, 0.990, …), σ = (0.991, 0.797, 0.0995, …)
//	ℓ_g = (−0.857, −0.197, 0.891, …), u_g = (1.125, 1.398, 1.090, …)
//	ℓ_f(2) = 0.396, u_f = (…, 1.098, 0.595, …)
//
// Lipschitz mode (L = 0.8; bounds intersected with the prior's [−1, 1], so
// every u ≤ 1): S = {2} ∪ {x : 0.891 − 0.8|x−2| ≥ −0.5} = {1, 2, 3};
// G: u_g(1) − 0.8·|1−0| = 0.2 ≥ −0.5, but u_g(2) − 0.8·2 = −0.6, so
// G = {1, 3}; M = {x ∈ S : u_f ≥ 0.396} = {1, 2, 3}; widths at 1 and 3 are
// max(1 + 0.497, 1 + 0.197) = 1.497 (tie: lowest index), at 2 only 0.199.
//
// GP mode: S = {2} ∪ {x : ℓ_g ≥ −0.5} = {1, 2, 3}. Candidate 1 with the
// hypothetical z = u_g(1) = 1.398: cov(0,1) = 0.525, gain = 0.797/0.646,
// so μ'(0) = 0.783, σ'(0) = 0.745, ℓ'(0) = 0.038 ≥ −0.5: an expander.
// Candidate 2 barely moves x = 0 (cov 0.0013): ℓ'(0) ≈ −0.86. G = {1, 3}.
func TestSafeOptHand(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, safeSet string
		variant       variant
		fixed         int
		want          int // action in round 2
	}{
		{"safeopt/lipschitz", "lipschitz", variantSafeOpt, 0, 1},
		{"safeopt/gp", "gp", variantSafeOpt, 0, 1},
		{"safeopt-mc before t*", "lipschitz", variantMC, 5, 1},
		// After t*: argmax_S ℓ_f = ℓ_f(2) = 0.396 against ℓ_f(1) = −0.497.
		{"safeopt-mc after t*", "lipschitz", variantMC, 1, 2},
		// Stage 1: argmax_G of the constraint width, 2σ_g = 1.595 at 1 and 3.
		{"stageopt stage 1", "gp", variantStage, 5, 1},
		// Stage 2: argmax_S u_f: u_f(1) = u_f(3) = 1.098 > u_f(2) = 0.595.
		{"stageopt stage 2", "gp", variantStage, 1, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := &Spec{Name: "safeopt", SafeSet: c.safeSet}
			if c.variant != variantSafeOpt {
				s.Name = map[variant]string{variantMC: "safeopt-mc", variantStage: "stageopt"}[c.variant]
				s.Exploration = Exploration{Fixed: &c.fixed}
			}
			p, err := handEnv().build(s)
			if err != nil {
				t.Fatal(err)
			}
			o := safeOptOf(t, p)
			first := ask(t, p)
			if first.Index != 2 {
				t.Fatalf("round 1: action %d, want the seed 2", first.Index)
			}
			if d := cmp.Diff([]int{2}, members(o.safe)); d != "" {
				t.Errorf("S_1: %s", d)
			}
			tell(t, p, first, 0.5, 1)
			a := ask(t, p).Index
			if d := cmp.Diff([]int{1, 2, 3}, members(o.safe)); d != "" {
				t.Errorf("S_2 (-want +got): %s", d)
			}
			inPhase := c.variant == variantSafeOpt || (c.fixed >= 2)
			// In gp mode choose tests only the expanders it needs; the
			// batch path's sets computes G_t whole.
			o.sets(2, true)
			if inPhase {
				if d := cmp.Diff([]int{1, 3}, members(o.inG)); d != "" {
					t.Errorf("G_2 (-want +got): %s", d)
				}
			}
			if c.variant != variantStage && inPhase {
				if d := cmp.Diff([]int{1, 2, 3}, members(o.inM)); d != "" {
					t.Errorf("M_2 (-want +got): %s", d)
				}
			}
			if a != c.want {
				t.Errorf("round 2: action %d, want %d", a, c.want)
			}
		})
	}
}

// TestStageOptEndsEarly: with no action outside S_t there is nothing to
// expand, G_t is empty, and stage 1 ends at once.
func TestStageOptEndsEarly(t *testing.T) {
	t.Parallel()
	env := handEnv()
	env.set.Seed = []int{0, 1, 2, 3, 4}
	p, err := env.build(&Spec{Name: "stageopt", SafeSet: "gp", Exploration: Exploration{Fixed: ptr(5)}})
	if err != nil {
		t.Fatal(err)
	}
	ask(t, p)
	if got := inspect(p).ExplorationRounds; got != 0 {
		t.Errorf("stage 1 lasted %d rounds, want 0", got)
	}
}

func ptr[T any](v T) *T { return &v }

// randomInstance draws a 1-D problem with two constraints: g_1 ≡ 10 (safe
// everywhere) and g_2 from its GP prior, so that unsafe actions are unsafe
// for g_2 alone. Observations are exact.
func randomInstance(t *testing.T, seed uint64) (*problem.Problem, *problem.Info) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 99))
	x := problem.Grid([][2]float64{{0, 4}}, []int{41})
	k := kernel.SE{Variance: 1, Lengthscale: 0.5}
	for {
		f, _ := problem.SampleGP(k, x, rng)
		g2, _ := problem.SampleGP(k, x, rng)
		g1 := make([]float64, len(x))
		for i := range g1 {
			g1[i] = 10
		}
		p := &problem.Problem{X: x, F: f, G: [][]float64{g1, g2}, H: []float64{0, 0}, Epsilon: 0.01}
		var seeds []int
		for i, v := range g2 {
			if v > 0.5 {
				seeds = append(seeds, i)
				break
			}
		}
		if seeds == nil {
			continue
		}
		p.Seed = seeds
		info, err := p.Analyze()
		if err != nil {
			continue
		}
		return p, info
	}
}

// TestSafeOptProperties drives every variant in both modes on random
// instances: the played action lies in the set its rule allows (G_t ∪ M_t,
// S_t after t*, G_t in stage 1, S_t in stage 2); S_t never shrinks in
// lipschitz mode; with exact observations, the true L_i and the paper's β,
// lipschitz mode never plays an unsafe action and never admits an action
// unsafe for g_2 alone into S_t.
func TestSafeOptProperties(t *testing.T) {
	t.Parallel()
	se := kernel.SE{Variance: 1, Lengthscale: 0.5}
	const T = 60
	for seed := uint64(0); seed < 6; seed++ {
		p, info := randomInstance(t, seed)
		for _, name := range []string{"safeopt", "safeopt-mc", "stageopt"} {
			for _, mode := range []string{"lipschitz", "gp"} {
				s := &Spec{Name: name, SafeSet: mode}
				if name != "safeopt" {
					s.Exploration = Exploration{Plateau: &Plateau{Window: 10, Cap: 40}}
				}
				env := &setup{
					model: Model{Objective: se, Constraints: []kernel.Kernel{se, se}, NoiseStd: 0.01, Delta: 0.01, Beta: PaperBeta},
					set:   DecisionSet{X: p.X, Seed: p.Seed},
					truth: &Truth{Lipschitz: info.Lipschitz},
					opt:   Options{Thresholds: p.H, Epsilon: p.Epsilon, Horizon: T, Rand: rand.New(rand.NewPCG(1, 1))},
				}
				pol, err := env.build(s)
				if err != nil {
					t.Fatal(err)
				}
				o := safeOptOf(t, pol)
				prevSize := 0
				for round := 1; round <= T; round++ {
					q := ask(t, pol)
					a := q.Index
					inPhase := o.phase.in(round)
					o.sets(round, true) // G_t whole (gp mode tests lazily)
					var allowed bool
					switch {
					case name == "safeopt" || (name == "safeopt-mc" && inPhase):
						allowed = o.inG[a] || o.inM[a]
					case name == "stageopt" && inPhase:
						allowed = o.inG[a]
					default:
						allowed = o.safe[a]
					}
					if !allowed || !o.safe[a] {
						t.Fatalf("seed %d %s/%s round %d: action %d outside its set", seed, name, mode, round, a)
					}
					if mode == "lipschitz" {
						if o.size < prevSize {
							t.Fatalf("seed %d %s/%s round %d: S_t shrank from %d to %d", seed, name, mode, round, prevSize, o.size)
						}
						for i, in := range o.safe {
							if in && p.G[1][i] < p.H[1] {
								t.Fatalf("seed %d %s/%s round %d: action %d, unsafe for g_2 (%.3f), is in S_t", seed, name, mode, round, i, p.G[1][i])
							}
						}
						if !p.Safe(a, 0) {
							t.Fatalf("seed %d %s/%s round %d: played unsafe action %d", seed, name, mode, round, a)
						}
					}
					prevSize = o.size
					tell(t, pol, q, p.F[a], p.G[0][a], p.G[1][a])
				}
				if math.IsNaN(o.lo[0][0]) {
					t.Fatal("NaN bounds")
				}
			}
		}
	}
}

// TestSafeOptMisspecifiedNoise: a model that believes σ = 0.001 while the
// observations carry noise 0.5 makes the intersected intervals of lipschitz
// mode disjoint from the new ones. The policy must keep playing actions of
// S_t (here it once returned −1 and the runner crashed).
func TestSafeOptMisspecifiedNoise(t *testing.T) {
	t.Parallel()
	env := handEnv()
	env.model.NoiseStd = 0.001
	env.model.Beta = Beta{Value: 0.0001}
	rng := rand.New(rand.NewPCG(4, 4))
	for _, name := range []string{"safeopt", "safeopt-mc", "stageopt"} {
		s := &Spec{Name: name, SafeSet: "lipschitz"}
		if name != "safeopt" {
			s.Exploration = Exploration{Fixed: ptr(5)}
		}
		p, err := env.build(s)
		if err != nil {
			t.Fatal(err)
		}
		o := safeOptOf(t, p)
		for round := 0; round < 30; round++ {
			q, err := p.Ask()
			a := q.Index
			if err != nil || a < 0 || a >= len(env.set.X) || !o.safe[a] {
				t.Fatalf("%s round %d: action %d", name, round+1, a)
			}
			for j := range o.lo {
				for i := range o.lo[j] {
					if o.lo[j][i] > o.hi[j][i] {
						t.Fatalf("%s: ℓ > u at GP %d action %d", name, j, i)
					}
				}
			}
			tell(t, p, q, 0.5*rng.NormFloat64(), 1+0.5*rng.NormFloat64())
		}
	}
}
