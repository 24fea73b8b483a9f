package bandit_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/safegp/safegp/bandit"
	"github.com/safegp/safegp/kernel"
)

// losboProblem is a finite problem for LoSBO's tests: a grid, f and the
// constraints' true values there, and their thresholds.
type losboProblem struct {
	x    [][]float64
	f    []float64
	g    [][]float64 // per constraint, per action
	h    []float64
	seed int
}

// smooth draws a smooth function on x: a sum of 6 random cosines
// (frequencies up to freq), of amplitude about 1.
func smooth(rng *rand.Rand, x [][]float64, freq float64) []float64 {
	d := len(x[0])
	type wave struct {
		w     []float64
		phase float64
		amp   float64
	}
	var ws []wave
	for range 6 {
		w := make([]float64, d)
		for j := range w {
			w[j] = freq * rng.NormFloat64()
		}
		ws = append(ws, wave{w, 2 * math.Pi * rng.Float64(), 0.6 * rng.NormFloat64()})
	}
	out := make([]float64, len(x))
	for i, p := range x {
		for _, v := range ws {
			var dot float64
			for j := range p {
				dot += v.w[j] * p[j]
			}
			out[i] += v.amp * math.Cos(dot+v.phase)
		}
	}
	return out
}

// lipschitzOn is the Lipschitz constant of v on the finite set x:
// max |v_a − v_b|/‖x_a − x_b‖ over pairs, the smallest L that LoSBO's
// argument needs there.
func lipschitzOn(x [][]float64, v []float64) float64 {
	var l float64
	for a := range x {
		for b := a + 1; b < len(x); b++ {
			var d2 float64
			for j := range x[a] {
				d2 += (x[a][j] - x[b][j]) * (x[a][j] - x[b][j])
			}
			l = math.Max(l, math.Abs(v[a]-v[b])/math.Sqrt(d2))
		}
	}
	return l
}

func grid2(n int) [][]float64 {
	var x [][]float64
	for i := range n {
		for j := range n {
			x = append(x, []float64{float64(i) / float64(n-1), float64(j) / float64(n-1)})
		}
	}
	return x
}

// TestLoSBOSafeSetFromScratch checks LoSBO round by round against its
// definition computed from scratch (package doc, losbo.go): the safe set
// S_t = D^w ∪ ⋂_i ⋃_k {x : y_i(x_k) − E − L_i‖x − x_k‖ ≥ h_i} over the
// measurements told so far, exactly (the same float expressions), and the
// action played: the most uncertain of M_t ∪ G_t, with the GP's bounds
// ℓ, u = μ ∓ √β_t·σ read from the policy's posterior, M_t = {x ∈ S_t :
// u_f(x) ≥ max_{S_t} ℓ_f}, G_t = {x ∈ S_t : ∃x' ∉ S_t ∀i u_{g_i}(x) −
// L_i‖x − x'‖ ≥ h_i}, width max_j (u_j − ℓ_j)/√k_j(x,x), lowest index on
// ties. Two constraints with different L_i, and the same with an
// objective threshold as a third condition.
func TestLoSBOSafeSetFromScratch(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		hf   *float64
		l1   bool // the bounds as LoSBOBounds: ℓ1 distances of L_c·x (the k-d tree's path)
	}{{"two constraints", nil, false}, {"and an objective threshold", ptr(-0.8), false}, // the seed keeps f ≥ −0.8
		{"ℓ1 bounds of the caller's", nil, true}, {"ℓ1 bounds and an objective threshold", ptr(-0.8), true}} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(5, 6))
			x := grid2(12)
			p := losboProblem{x: x, f: smooth(rng, x, 2), h: []float64{-1, -1.2}}
			p.g = [][]float64{smooth(rng, x, 1), smooth(rng, x, 1.5)}
			margin := math.Inf(-1) // the seed: where every condition holds with the widest margin
			for i := range x {
				if m := min(p.g[0][i]-p.h[0], p.g[1][i]-p.h[1], p.f[i]+0.8); m > margin {
					p.seed, margin = i, m
				}
			}
			L := []float64{lipschitzOn(x, p.g[0]), lipschitzOn(x, p.g[1])}
			conds := [][]float64{p.g[0], p.g[1]}
			h := slices.Clone(p.h)
			if tc.hf != nil {
				L = append(L, lipschitzOn(x, p.f))
				conds = append(conds, p.f)
				h = append(h, *tc.hf)
			}
			const E = 0.05
			// The distance the bounds hold in: Euclidean, or with
			// LoSBOBounds the ℓ1 distance of x scaled by L_c, which bounds
			// the conditions too (‖·‖₂ ≤ ‖·‖₁): |g(x) − g(x')| ≤
			// L‖x − x'‖₂ ≤ ‖L·x − L·x'‖₁.
			metric := dist
			opt := bandit.Options{Thresholds: p.h, ObjectiveThreshold: tc.hf, Horizon: 40}
			if tc.l1 {
				metric = func(a, b []float64) float64 { return math.Abs(a[0]-b[0]) + math.Abs(a[1]-b[1]) }
				es := make([]float64, len(L))
				for c := range es {
					es[c] = E
				}
				opt.LoSBO = &bandit.LoSBOBounds{NoiseBounds: es, Embed: func(c int, x, dst []float64) []float64 {
					return append(dst, L[c]*x[0], L[c]*x[1])
				}}
			}
			k := kernel.SE{Variance: 1, Lengthscale: 0.3}
			pol, err := bandit.Build(&bandit.Spec{Name: bandit.LoSBO, Lipschitz: &bandit.Lipschitz{Values: L}, NoiseBound: ptr(E)},
				bandit.Model{Objective: k, Constraints: []kernel.Kernel{k, k}, NoiseStd: 0.05, Delta: 0.1, Beta: bandit.Beta{Value: 4}},
				bandit.Domain{Set: bandit.DecisionSet{X: x, Seed: []int{p.seed}}}, opt)
			if err != nil {
				t.Fatal(err)
			}
			var played []int
			var measured [][]float64 // per measurement, the conditions' values
			var view bandit.Snapshot
			grew := false
			for round := 1; round <= 40; round++ {
				pol.Inspect(&view, bandit.Full)
				// S_t from scratch.
				safe := make([]bool, len(x))
				for a := range x {
					all := true
					for c := range conds {
						any := false
						for k, b := range played {
							if measured[k][c]-E-L[c]*metric(x[a], x[b]) >= h[c] {
								any = true
								break
							}
						}
						if !any {
							all = false
							break
						}
					}
					safe[a] = all || a == p.seed
				}
				if !slices.Equal(safe, view.Safe) {
					t.Fatalf("round %d: safe set %v, from scratch %v", round, count(view.Safe), count(safe))
				}
				grew = grew || count(safe) > 1
				want := scratchChoice(x, safe, &view, L, h, tc.hf != nil, metric)
				a, err := pol.Ask()
				if err != nil {
					t.Fatal(err)
				}
				if a.Index != want {
					t.Fatalf("round %d: played %d, from scratch %d", round, a.Index, want)
				}
				noise := func() float64 { return E * (2*rng.Float64() - 1) }
				y := bandit.Observation{F: p.f[a.Index] + noise(), G: []float64{p.g[0][a.Index] + noise(), p.g[1][a.Index] + noise()}}
				m := []float64{y.G[0], y.G[1]}
				if tc.hf != nil {
					m = append(m, y.F)
				}
				played, measured = append(played, a.Index), append(measured, m)
				for c := range conds {
					if conds[c][a.Index] < h[c] {
						t.Errorf("round %d: action %d violates condition %d: %v < %v", round, a.Index, c+1, conds[c][a.Index], h[c])
					}
				}
				if err := pol.Tell(a.ID, y); err != nil {
					t.Fatal(err)
				}
			}
			if !grew {
				t.Error("the safe set never grew beyond the seed: the test checks nothing")
			}
		})
	}
}

// scratchChoice is LoSBO's action from the snapshot's posteriors
// (TestLoSBOSafeSetFromScratch). The conditions are g_1, g_2, then f with
// an objective threshold; the kernels' variance is 1.
func scratchChoice(x [][]float64, safe []bool, v *bandit.Snapshot, L, h []float64, hf bool, dist func(a, b []float64) float64) int {
	b := v.SqrtBeta
	post := []bandit.Posterior{v.F, v.G[0], v.G[1]}
	lo := func(j, a int) float64 { return post[j].Mean[a] - b*post[j].Std[a] }
	up := func(j, a int) float64 { return post[j].Mean[a] + b*post[j].Std[a] }
	condGP := []int{1, 2}
	if hf {
		condGP = append(condGP, 0)
	}
	best := math.Inf(-1)
	for a, in := range safe {
		if in {
			best = math.Max(best, lo(0, a))
		}
	}
	choice, wmax := -1, math.Inf(-1)
	for a, in := range safe {
		if !in {
			continue
		}
		m := up(0, a) >= best
		g := false
		for o, out := range safe {
			if out {
				continue
			}
			all := true
			for c, j := range condGP {
				if !(up(j, a)-L[c]*dist(x[a], x[o]) >= h[c]) {
					all = false
					break
				}
			}
			if all {
				g = true
				break
			}
		}
		if !m && !g {
			continue
		}
		w := math.Inf(-1)
		for j := range post {
			w = math.Max(w, up(j, a)-lo(j, a))
		}
		if w > wmax {
			choice, wmax = a, w
		}
	}
	return choice
}

func count(s []bool) int {
	n := 0
	for _, v := range s {
		if v {
			n++
		}
	}
	return n
}

// TestLoSBONeverViolates is the property of Fiedler et al. (2024) that
// LoSBO is built for: whenever every L_i is a Lipschitz constant of g_i
// on the decision set and every measurement lies within E of the truth,
// no action it plays violates a constraint — whatever the GP. Over 40
// random problems on 12 × 12 grids, each modelled badly on purpose (the
// kernel's lengthscale 3× too long and its variance 4× too small for
// functions of this roughness, with the noise's σ a third of E), 60
// rounds each with noise uniform in [−E, E] drawn to be adversarial half
// of the time (+E or −E). SafeOpt in gp mode with the same model is run
// beside it as a control: it must violate in some problems, or the
// problems test nothing.
func TestLoSBONeverViolates(t *testing.T) {
	t.Parallel()
	const (
		problems = 40
		rounds   = 60
		E        = 0.1
	)
	x := grid2(12)
	k := kernel.SE{Variance: 0.25, Lengthscale: 0.6}
	model := bandit.Model{Objective: k, Constraints: []kernel.Kernel{k}, NoiseStd: E / 3, Delta: 0.1, Beta: bandit.Beta{Value: 4}}
	grew, controlViolated := 0, 0
	for n := range problems {
		rng := rand.New(rand.NewPCG(uint64(n), 99))
		f, g := smooth(rng, x, 3), smooth(rng, x, 3)
		seed := 0 // where g is largest
		for i := range x {
			if g[i] > g[seed] {
				seed = i
			}
		}
		L := lipschitzOn(x, g)
		run := func(s *bandit.Spec) (violations, safeSize int) {
			pol, err := bandit.Build(s, model, bandit.Domain{Set: bandit.DecisionSet{X: x, Seed: []int{seed}}},
				bandit.Options{Thresholds: []float64{0}, Horizon: rounds})
			if err != nil {
				t.Fatal(err)
			}
			nrng := rand.New(rand.NewPCG(uint64(n), 7))
			var view bandit.Snapshot
			for range rounds {
				a, err := pol.Ask()
				if err != nil {
					t.Fatal(err)
				}
				if g[a.Index] < 0 {
					violations++
				}
				e := E * (2*nrng.Float64() - 1)
				if nrng.IntN(2) == 0 {
					e = math.Copysign(E, e)
				}
				if err := pol.Tell(a.ID, bandit.Observation{F: f[a.Index] + e, G: []float64{g[a.Index] + e}}); err != nil {
					t.Fatal(err)
				}
			}
			pol.Inspect(&view, bandit.SafeSet)
			return violations, view.SafeSetSize
		}
		v, size := run(&bandit.Spec{Name: bandit.LoSBO, Lipschitz: &bandit.Lipschitz{Value: L}, NoiseBound: ptr(E)})
		if v > 0 {
			t.Errorf("problem %d (L = %.3g): LoSBO violated the constraint in %d of %d rounds", n, L, v, rounds)
		}
		if size > 1 {
			grew++
		}
		if cv, _ := run(&bandit.Spec{Name: bandit.SafeOpt, SafeSet: "gp"}); cv > 0 {
			controlViolated++
		}
	}
	t.Logf("LoSBO's safe set grew in %d of %d problems; SafeOpt (gp mode) with the same model violated in %d", grew, problems, controlViolated)
	if grew < problems/2 {
		t.Errorf("LoSBO's safe set grew in only %d of %d problems: too few to test anything", grew, problems)
	}
	if controlViolated == 0 {
		t.Error("SafeOpt in gp mode never violated with the wrong model: the problems are too easy to show LoSBO's point")
	}
}

// TestLoSBOOnLines: line-bo with inner losbo on a box, a constraint
// g(x) = 1 − 2‖x − c‖ whose Lipschitz constant is 2 exactly, noise
// uniform in [−E, E] and at ±E half the time, and a model deliberately
// wrong for g (a lengthscale 5× too long): over 4 seeds × 80 rounds, every
// direction rule, no action violates, and the search leaves the seed's
// neighbourhood (some action 0.2 or more from c).
func TestLoSBOOnLines(t *testing.T) {
	t.Parallel()
	const E = 0.05
	c := []float64{0.5, 0.5}
	g := func(x []float64) float64 { return 1 - 2*dist(x, c) }
	f := func(x []float64) float64 { return x[0] + x[1] }
	k := kernel.SE{Variance: 1, Lengthscale: 2.5}
	for _, dir := range []string{"coordinate", "random", "ascent"} {
		for seed := range uint64(4) {
			pol, err := bandit.Build(&bandit.Spec{Name: bandit.LineBO, Direction: dir, Inner: bandit.LoSBO, Lipschitz: &bandit.Lipschitz{Value: 2}, NoiseBound: ptr(E), PerLine: ptr(8)},
				bandit.Model{Objective: k, Constraints: []kernel.Kernel{k}, NoiseStd: E / 3, Delta: 0.1, Beta: bandit.Beta{Value: 4}},
				bandit.Domain{Box: &bandit.Box{Bounds: [][2]float64{{0, 1}, {0, 1}}, Seeds: [][]float64{c}}},
				bandit.Options{Thresholds: []float64{0}, Horizon: 80, Rand: rand.New(rand.NewPCG(seed, 3))})
			if err != nil {
				t.Fatal(err)
			}
			nrng := rand.New(rand.NewPCG(seed, 4))
			far := 0.0
			for round := range 80 {
				a, err := pol.Ask()
				if err != nil {
					t.Fatal(err)
				}
				if v := g(a.X); v < 0 {
					t.Fatalf("%s, seed %d, round %d: %v violates, g = %.4g", dir, seed, round+1, a.X, v)
				}
				far = math.Max(far, dist(a.X, c))
				e := E * (2*nrng.Float64() - 1)
				if nrng.IntN(2) == 0 {
					e = math.Copysign(E, e)
				}
				if err := pol.Tell(a.ID, bandit.Observation{F: f(a.X) + e, G: []float64{g(a.X) + e}}); err != nil {
					t.Fatal(err)
				}
			}
			if far < 0.2 {
				t.Errorf("%s, seed %d: the farthest action is %.3g from the seed: the test checks nothing", dir, seed, far)
			}
		}
	}
}
