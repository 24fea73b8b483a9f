package bandit

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/safegp/safegp/kernel"
)

// TestSwarmPenalty: SafeOptSwarm._compute_penalty's bands, the values
// the Python library gives (its band edges, and −1 at exactly −1).
func TestSwarmPenalty(t *testing.T) {
	t.Parallel()
	for _, c := range [][2]float64{
		{0.3, 0}, {0, 0}, {-0.0005, -0.001}, {-0.001, -0.005}, {-0.05, -0.25}, {-0.1, -1},
		{-0.5, -5}, {-0.999, -9.99}, {-1, -1}, {-1.0001, -300.060003}, {-2, -1200},
	} {
		if got := swarmPenalty(c[0]); math.Abs(got-c[1]) > 1e-9*math.Max(1, math.Abs(c[1])) {
			t.Errorf("penalty(%v) = %v, want %v", c[0], got, c[1])
		}
	}
}

// TestSwarmVelocity: optimize_particle_velocity's bisection, the values
// the Python library's loop gives for an RBF kernel (exp(−r²/2ℓ²)) in one
// dimension, and the √d division.
func TestSwarmVelocity(t *testing.T) {
	t.Parallel()
	for _, c := range [][2]float64{{1, 0.335693359375}, {0.5, 0.1678466796875}, {2, 0.67138671875}, {0.1, 0.034332275390625}} {
		w := newTestSwarm(t, kernel.SE{Variance: 1.7, Lengthscale: c[0]}, 1)
		if w.vel[0] != c[1] {
			t.Errorf("ℓ = %v: velocity %v, want %v", c[0], w.vel[0], c[1])
		}
	}
	w := newTestSwarm(t, kernel.SE{Variance: 1, Lengthscale: 1}, 2)
	if want := 0.335693359375 / math.Sqrt(2); w.vel[0] != want || w.vel[1] != want {
		t.Errorf("d = 2: velocity %v, want %v each", w.vel, want)
	}
}

// newTestSwarm is safeopt-swarm on [0, 1]^d with kernel k for f and g,
// the seed at the centre, threshold 0 on g and f ≥ −0.5.
func newTestSwarm(t *testing.T, k kernel.Kernel, d int) *safeOptSwarm {
	t.Helper()
	box := Box{Bounds: make([][2]float64, d), Seeds: [][]float64{make([]float64, d)}}
	for j := range box.Bounds {
		box.Bounds[j] = [2]float64{0, 1}
		box.Seeds[0][j] = 0.5
	}
	hf := -0.5
	model := Model{Objective: k, Constraints: []kernel.Kernel{k}, NoiseStd: 0.05, Delta: 0.1, Beta: Beta{Value: 4}}
	p, err := Build(&Spec{Name: SafeOptSwarm}, model, Domain{Box: &box},
		Options{Thresholds: []float64{0}, ObjectiveThreshold: &hf, Horizon: 50, Rand: rand.New(rand.NewPCG(1, 2))})
	if err != nil {
		t.Fatal(err)
	}
	return p.(*safeOptSwarm)
}

// TestSwarmFitness is issue 27's exactness check of SafeOptSwarm's safe
// set and expander logic on fixed particles: the fitness of each swarm
// kind and the safe flags against a from-scratch computation — the GP
// posterior solved with gonum's Cholesky, then the library's formulas
// (greedy ℓ_f; maximizers (σ_max + penalties)·sigmoid(10(u_f − ℓ*)/s_f);
// expanders (σ_max + penalties)·2·N(slack; 0, 0.2) over the constrained
// GPs) — to 1e-9; and S's growth by correlation under f's kernel.
func TestSwarmFitness(t *testing.T) {
	t.Parallel()
	k := kernel.SE{Variance: 1.3, Lengthscale: 0.4}
	w := newTestSwarm(t, k, 2)
	xs := [][]float64{{0.5, 0.5}, {0.6, 0.45}, {0.4, 0.6}, {0.55, 0.65}}
	fs := []float64{0.2, 0.35, -0.1, 0.3}
	gs := []float64{0.8, 0.5, 0.9, 0.2}
	for i, x := range xs {
		if err := w.Tell(0, Observation{F: fs[i], G: []float64{gs[i]}, X: x, Index: -1}); err != nil {
			t.Fatal(err)
		}
	}
	w.bestLB = 0.1
	parts := [][]float64{{0.5, 0.5}, {0.7, 0.5}, {0.9, 0.9}, {0.45, 0.55}, {0.2, 0.1}, {0.62, 0.6}}
	// From scratch: posterior mean and sd of each GP at the particles.
	post := func(ys []float64) (mu, sd []float64) {
		n := len(xs)
		K := mat.NewSymDense(n, nil)
		for a := range n {
			for b := a; b < n; b++ {
				K.SetSym(a, b, k.Eval(xs[a], xs[b]))
			}
			K.SetSym(a, a, K.At(a, a)+0.05*0.05)
		}
		var ch mat.Cholesky
		if !ch.Factorize(K) {
			t.Fatal("not positive definite")
		}
		var alpha, v mat.VecDense
		if err := ch.SolveVecTo(&alpha, mat.NewVecDense(n, ys)); err != nil {
			t.Fatal(err)
		}
		for _, p := range parts {
			kx := mat.NewVecDense(n, nil)
			for a := range n {
				kx.SetVec(a, k.Eval(p, xs[a]))
			}
			if err := ch.SolveVecTo(&v, kx); err != nil {
				t.Fatal(err)
			}
			mu = append(mu, mat.Dot(kx, &alpha))
			sd = append(sd, math.Sqrt(k.Eval(p, p)-mat.Dot(kx, &v)))
		}
		return mu, sd
	}
	muF, sdF := post(fs)
	muG, sdG := post(gs)
	b := math.Sqrt(w.model.Beta.At(len(xs)+1, 1, 3*w.size*(w.iters+1), w.model.Delta))
	sc := math.Sqrt(1.3)
	pen := func(s float64) float64 { return swarmPenalty(s) }
	for _, kind := range []swarmKind{swarmGreedy, swarmMaximizers, swarmExpanders} {
		values, safe := make([]float64, len(parts)), make([]bool, len(parts))
		w.fitness(kind, parts, values, safe, make([]Posterior, 2))
		for p := range parts {
			lf, lg := muF[p]-b*sdF[p], muG[p]-b*sdG[p]
			var want float64
			wantSafe := lf >= -0.5 && lg >= 0
			switch kind {
			case swarmGreedy:
				want, wantSafe = lf, true
			default:
				sF, sG := (lf+0.5)/sc, lg/sc
				base := math.Max(sdF[p], sdG[p])/sc + pen(sF) + pen(sG)
				if kind == swarmMaximizers {
					want = base / (1 + math.Exp(-10*(muF[p]+b*sdF[p]-w.bestLB)/sc))
				} else {
					nd := func(s float64) float64 { return math.Exp(-s*s/(2*0.04)) / (0.2 * math.Sqrt(2*math.Pi)) }
					want = base * 2 * nd(sF) * nd(sG)
				}
			}
			if math.Abs(values[p]-want) > 1e-9*math.Max(1, math.Abs(want)) || safe[p] != wantSafe {
				t.Errorf("kind %d, particle %v: fitness %v safe %v, from scratch %v safe %v", kind, parts[p], values[p], safe[p], want, wantSafe)
			}
		}
	}
	// S grows by the points at most 0.95 correlated (under f's kernel,
	// over its variance) with S and with the points added before them.
	before := len(w.s)
	cands := [][]float64{{0.5, 0.5}, {0.9, 0.1}, {0.905, 0.1}, {0.1, 0.9}}
	w.grow(cands)
	got := w.s[before:]
	if len(got) != 2 || got[0][0] != 0.9 || got[1][0] != 0.1 {
		t.Errorf("S grew by %v, want (0.9, 0.1) and (0.1, 0.9): the seed and a point 0.005 from an added one are too correlated", got)
	}
}
