package bandit_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/safegp/safegp/bandit"
	"github.com/safegp/safegp/gp"
	"github.com/safegp/safegp/kernel"
	"github.com/safegp/safegp/problem"
)

// lineProblem is a 1-D problem on 31 points of [0, 4] with two smooth
// constraints, thresholds 0, and seeds at x = 1.2 and 1.33 (both safe).
func lineProblem(t *testing.T) (*problem.Problem, *problem.Info) {
	t.Helper()
	x := problem.Grid([][2]float64{{0, 4}}, []int{31})
	p := &problem.Problem{X: x, H: []float64{0, 0}, Epsilon: 0.01, Seed: []int{9, 10}}
	p.F = make([]float64, len(x))
	p.G = [][]float64{make([]float64, len(x)), make([]float64, len(x))}
	for i, xi := range x {
		v := xi[0]
		p.F[i] = math.Sin(2 * v)
		p.G[0][i] = 0.8 * math.Cos(v-1)
		p.G[1][i] = 0.6 - 0.3*(v-1.2)*(v-1.2)
	}
	info, err := p.Analyze()
	if err != nil {
		t.Fatal(err)
	}
	return p, info
}

// handBeta is SPEC §3's β_t = 2·log((m+1)·N·t²·π²/(6δ)), written out here
// rather than taken from the package.
func handBeta(t, m, n int, delta float64) float64 {
	tt := float64(t)
	return 2 * math.Log(float64(m+1)*float64(n)*tt*tt*math.Pi*math.Pi/(6*delta))
}

// refSets recomputes SafeOpt's sets (SPEC §5) by brute force from GP
// posteriors fed the same observations: the bounds (intersected over time
// in lipschitz mode), S_t, M_t and G_t. G_t in gp mode refits a GP from
// scratch with the hypothetical observation for every candidate instead of
// the rank-one update the policy uses.
type refSets struct {
	p      *problem.Problem
	lip    bool
	l      []float64 // L_i
	models []*gp.Model
	k      []kernel.Kernel
	sigma  float64
	obsA   []int
	obsY   [][]float64 // per GP
	lo, hi [][]float64
	safe   []bool
}

func newRefSets(p *problem.Problem, k []kernel.Kernel, sigma float64, lip bool, l []float64) *refSets {
	r := &refSets{p: p, lip: lip, l: l, k: k, sigma: sigma, safe: make([]bool, p.N())}
	for j := range k {
		m := gp.New(k[j], p.X, sigma)
		if !lip && j > 0 {
			// The policy keeps the constraints' covariance in gp mode, which
			// changes the posterior's rounding; so does the reference.
			m.KeepCovariance()
		}
		r.models = append(r.models, m)
		lo, hi := make([]float64, p.N()), make([]float64, p.N())
		for i := range lo {
			lo[i], hi[i] = math.Inf(-1), math.Inf(1)
		}
		r.lo, r.hi = append(r.lo, lo), append(r.hi, hi)
		r.obsY = append(r.obsY, nil)
	}
	for _, s := range p.Seed {
		r.safe[s] = true
	}
	return r
}

func (r *refSets) observe(a int, y []float64) {
	r.obsA = append(r.obsA, a)
	for j, m := range r.models {
		m.Observe(a, y[j])
		r.obsY[j] = append(r.obsY[j], y[j])
	}
}

// update prepares round t: bounds and S_t.
func (r *refSets) update(sqb float64) {
	for j, m := range r.models {
		for i := range r.lo[j] {
			w := sqb * m.Std(i)
			l, u := m.Mean()[i]-w, m.Mean()[i]+w
			if r.lip {
				if nl, nu := math.Max(r.lo[j][i], l), math.Min(r.hi[j][i], u); nl <= nu {
					l, u = nl, nu
				}
			}
			r.lo[j][i], r.hi[j][i] = l, u
		}
	}
	x, h := r.p.X, r.p.H
	prev := append([]bool(nil), r.safe...)
	for i := range x {
		if r.lip {
			if prev[i] {
				continue
			}
			// ⋂_c ⋃_{x' ∈ S_{t−1}} {ℓ_c(x') − L_c‖x − x'‖ ≥ h_c}
			in := true
			for c := range h {
				some := false
				for q := range x {
					if prev[q] && r.lo[1+c][q]-r.l[c]*dist(x[i], x[q]) >= h[c] {
						some = true
					}
				}
				in = in && some
			}
			r.safe[i] = in
			continue
		}
		in := true
		for c := range h {
			in = in && r.lo[1+c][i] >= h[c]
		}
		r.safe[i] = in || contains(r.p.Seed, i)
	}
}

func dist(a, b []float64) float64 {
	s := 0.0
	for k := range a {
		s += (a[k] - b[k]) * (a[k] - b[k])
	}
	return math.Sqrt(s)
}

func contains(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

func (r *refSets) size() int {
	n := 0
	for _, in := range r.safe {
		if in {
			n++
		}
	}
	return n
}

// maximizers is M_t = {x ∈ S_t : u_f(x) ≥ max_{S_t} ℓ_f}.
func (r *refSets) maximizers() []bool {
	best := math.Inf(-1)
	for i, in := range r.safe {
		if in {
			best = math.Max(best, r.lo[0][i])
		}
	}
	m := make([]bool, len(r.safe))
	for i, in := range r.safe {
		m[i] = in && r.hi[0][i] >= best
	}
	return m
}

// expanders is G_t with a margin: an action is in it when some x' ∉ S_t
// would be certified with every constraint's bound ≥ h + margin. With
// margin +1e-9 it is a subset of the exact G_t, with −1e-9 a superset, so
// that rounding (a refit against a rank-one update) cannot make the test
// flaky.
func (r *refSets) expanders(sqb, margin float64) []bool {
	x, h := r.p.X, r.p.H
	g := make([]bool, len(x))
	for i, in := range r.safe {
		if !in {
			continue
		}
		// Hypothetical posteriors after z_c = u_{g_c}(x_i), gp mode only.
		var hyp []*gp.Model
		if !r.lip {
			for c := range h {
				m := gp.New(r.k[1+c], x, r.sigma)
				for s, a := range r.obsA {
					m.Observe(a, r.obsY[1+c][s])
				}
				m.Observe(i, r.hi[1+c][i])
				hyp = append(hyp, m)
			}
		}
		for q, out := range r.safe {
			if out {
				continue
			}
			ok := true
			for c := range h {
				var v float64
				if r.lip {
					v = r.hi[1+c][i] - r.l[c]*dist(x[i], x[q])
				} else {
					v = hyp[c].Mean()[q] - sqb*hyp[c].Std(q)
				}
				ok = ok && v >= h[c]+margin
			}
			if ok {
				g[i] = true
				break
			}
		}
	}
	return g
}

// width is max_j (u_j − ℓ_j)/√k_j(x,x) over the GPs from first on.
func (r *refSets) width(i, first int) float64 {
	w := math.Inf(-1)
	for j := first; j < len(r.models); j++ {
		w = math.Max(w, (r.hi[j][i]-r.lo[j][i])/math.Sqrt(r.k[j].Eval(r.p.X[i], r.p.X[i])))
	}
	return w
}

// best returns max score over the actions in set (−Inf if none).
func best(set []bool, score func(i int) float64) float64 {
	b := math.Inf(-1)
	for i, in := range set {
		if in {
			b = math.Max(b, score(i))
		}
	}
	return b
}

func union(a, b []bool) []bool {
	u := make([]bool, len(a))
	for i := range a {
		u[i] = a[i] || b[i]
	}
	return u
}

// TestSafeOptSetsBruteForce drives SafeOpt, SafeOpt-MC and StageOpt in both
// safe-set modes and checks each round against the sets recomputed above:
// |S_t| equals the policy's safe-set size, and the action is a maximizer
// of the rule's score over the rule's set — w_t over G_t ∪ M_t (SafeOpt,
// SafeOpt-MC before t*), ℓ_f over S_t (SafeOpt-MC after t*), the
// constraint width over G_t (StageOpt stage 1, which ends when G_t is empty
// or its best width ≤ ε), u_f over S_t (stage 2). Scores are compared to
// 1e-9, the refit's rounding against the rank-one update.
func TestSafeOptSetsBruteForce(t *testing.T) {
	t.Parallel()
	p, info := lineProblem(t)
	// Kernels of different variances and lengthscales, so that the widths
	// of the three GPs differ and the scaling by √k_j(x,x) matters.
	kf := kernel.Polynomial{Variance: 0.5, Offset: 1, Degree: 2}
	kg := []kernel.Kernel{kernel.SE{Variance: 1, Lengthscale: 0.8}, kernel.Matern52{Variance: 0.7, Lengthscale: 1}}
	const T, tStar, sigma, delta = 40, 15, 0.01, 0.01
	ks := []kernel.Kernel{kf, kg[0], kg[1]}
	for _, name := range []string{"safeopt", "safeopt-mc", "stageopt"} {
		for _, mode := range []string{"lipschitz", "gp"} {
			t.Run(name+"/"+mode, func(t *testing.T) {
				s := &bandit.Spec{Name: name, SafeSet: mode}
				if name != "safeopt" {
					s.Exploration = bandit.Exploration{Fixed: ptr(tStar)}
				}
				pol, err := bandit.Build(s, bandit.Model{Objective: kf, Constraints: kg, NoiseStd: sigma, Delta: delta, Beta: bandit.PaperBeta}, bandit.Domain{Set: bandit.DecisionSet{X: p.X, Seed: p.Seed}, Truth: &bandit.Truth{Lipschitz: info.Lipschitz}}, bandit.Options{Thresholds: p.H, Epsilon: p.Epsilon, Horizon: T, Rand: rand.New(rand.NewPCG(1, 1))})
				if err != nil {
					t.Fatal(err)
				}
				ref := newRefSets(p, ks, sigma, mode == "lipschitz", info.Lipschitz)
				stage1 := name == "stageopt"
				expanding := 0 // rounds whose action had to be an expander or maximizer
				for round := 1; round <= T; round++ {
					sqb := math.Sqrt(handBeta(round, 2, p.N(), delta))
					ref.update(sqb)
					a := next(pol)
					if got, want := inspect(pol).SafeSetSize, ref.size(); got != want {
						t.Fatalf("round %d: |S_t| = %d, recomputed %d", round, got, want)
					}
					if !ref.safe[a] {
						t.Fatalf("round %d: action %d outside S_t", round, a)
					}
					// argmax checks that a maximizes score over set, to 1e-9,
					// with ties broken by the lowest index (SPEC preamble).
					// The scores are computed from the same posteriors with
					// the same operations as the policy's, so a tie is
					// checked exactly: an action of lower index must score
					// strictly less.
					argmax := func(rule string, set []bool, score func(i int) float64) {
						t.Helper()
						b := best(set, score)
						if score(a) < b-1e-9 {
							t.Fatalf("round %d: %s: action %d scores %v, the best is %v", round, rule, a, score(a), b)
						}
						for i := 0; i < a; i++ {
							if set[i] && score(i) >= score(a) {
								t.Fatalf("round %d: %s: action %d scores %v ≥ %v and has a lower index than %d", round, rule, i, score(i), score(a), a)
							}
						}
					}
					switch {
					case name == "safeopt" || (name == "safeopt-mc" && round <= tStar):
						m := ref.maximizers()
						loose, strict := union(m, ref.expanders(sqb, -1e-9)), union(m, ref.expanders(sqb, 1e-9))
						w := func(i int) float64 { return ref.width(i, 0) }
						if !loose[a] {
							t.Fatalf("round %d: action %d in neither G_t nor M_t", round, a)
						}
						argmax("argmax w_t over G_t ∪ M_t", strict, w)
						expanding++
					case name == "safeopt-mc":
						l := func(i int) float64 { return ref.lo[0][i] }
						argmax("argmax ℓ_f over S_t", ref.safe, l)
					case stage1 && round <= tStar:
						cw := func(i int) float64 { return ref.width(i, 1) }
						loose, strict := ref.expanders(sqb, -1e-9), ref.expanders(sqb, 1e-9)
						if b := best(strict, cw); b > p.Epsilon+1e-9 {
							if !loose[a] {
								t.Fatalf("round %d: stage 1 played %d outside G_t", round, a)
							}
							argmax("stage 1: argmax of the constraint width over G_t", strict, cw)
							expanding++
							break
						}
						stage1 = false // G_t empty or its widths ≤ ε: stage 2 from now on
						fallthrough
					default:
						stage1 = false
						u := func(i int) float64 { return ref.hi[0][i] }
						argmax("argmax u_f over S_t", ref.safe, u)
					}
					y := []float64{p.F[a], p.G[0][a], p.G[1][a]}
					observe(pol, a, y[0], y[1:])
					ref.observe(a, y)
				}
				if expanding < 5 {
					t.Errorf("test premise: only %d rounds exercised G_t", expanding)
				}
				if ref.size() <= len(p.Seed) {
					t.Errorf("test premise: S_t never grew beyond the seeds (%d)", ref.size())
				}
			})
		}
	}
}
