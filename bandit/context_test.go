package bandit_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/safegp/safegp/bandit"
	"github.com/safegp/safegp/kernel"
	"github.com/safegp/safegp/problem"
)

// contextSpecs are the algorithms of the contextual tests: every finite
// one, in each mode (lipschitz: auto and gp-ucb-oracle read the truth).
var contextSpecs = []bandit.Spec{
	{Name: "sgp-ucb", Exploration: bandit.Exploration{Fixed: ptr(8)}},
	{Name: "sgp-ucb", Phase1: "uncertainty", Exploration: bandit.Exploration{Plateau: &bandit.Plateau{Window: 5, Cap: 20}}, KeepSeed: true},
	{Name: "naive-sgp-ucb"},
	{Name: "gp-ucb-oracle"},
	{Name: "safeopt"},
	{Name: "safeopt", SafeSet: "gp"},
	{Name: "safeopt-mc", SafeSet: "gp", Exploration: bandit.Exploration{Fixed: ptr(10)}},
	{Name: "stageopt", Exploration: bandit.Exploration{Fixed: ptr(10)}},
}

// withContext returns model with every kernel k_x made k_x · kc on (x, c)
// for actions of d coordinates.
func withContext(model bandit.Model, kc kernel.Kernel, d int) bandit.Model {
	model.Objective = kernel.Product{X: model.Objective, C: kc, D: d}
	model.Constraints = slices.Clone(model.Constraints)
	for i, k := range model.Constraints {
		model.Constraints[i] = kernel.Product{X: k, C: kc, D: d}
	}
	return model
}

func at(x, c []float64) []float64 { return append(slices.Clone(x), c...) }

// TestContextualOneContextIsNonContextual is the correctness
// requirement at the seam: a contextual policy that only ever sees one
// context asks exactly what the non-contextual policy asks, every round,
// with the same safe sets and posteriors to the bit — measurements outside
// the loop included, before the first context as after it.
func TestContextualOneContextIsNonContextual(t *testing.T) {
	t.Parallel()
	p, info := instance(t, 3)
	const horizon = 40
	ctx := []float64{0.7, -2}
	for _, s := range contextSpecs {
		t.Run(s.Name+" "+s.SafeSet+s.Phase1, func(t *testing.T) {
			e := env(p, info, bandit.Beta{Value: 4}, horizon)
			plain, err := e.build(&s)
			if err != nil {
				t.Fatal(err)
			}
			ce := env(p, info, bandit.Beta{Value: 4}, horizon)
			truth := func(c []float64) *bandit.Truth {
				if !slices.Equal(c, ctx) {
					t.Fatalf("truth asked for context %v", c)
				}
				return ce.truth
			}
			model := withContext(ce.model, kernel.SE{Variance: 1, Lengthscale: 0.05}, 2)
			cp, err := buildContextual(&s, model, bandit.Domain{Set: ce.set, ContextDim: len(ctx), ContextTruth: truth}, ce.opt)
			if err != nil {
				t.Fatal(err)
			}
			x0 := p.X[p.Seed[0]]
			// Outside the loop before any context: at a seed action, and at a
			// point off the set.
			off := []float64{x0[0] + 0.01, x0[1]}
			outside := []struct {
				plain, ctx bandit.Observation
			}{
				{bandit.Observation{F: p.F[p.Seed[0]], G: []float64{p.G[0][p.Seed[0]], p.G[1][p.Seed[0]]}, Index: p.Seed[0]},
					bandit.Observation{F: p.F[p.Seed[0]], G: []float64{p.G[0][p.Seed[0]], p.G[1][p.Seed[0]]}, Index: p.Seed[0], X: at(x0, ctx)}},
				{bandit.Observation{F: 0.1, G: []float64{0.2, 0.3}, Index: -1, X: off},
					bandit.Observation{F: 0.1, G: []float64{0.2, 0.3}, Index: -1, X: at(off, ctx)}},
			}
			for _, o := range outside {
				if err := plain.Tell(0, o.plain); err != nil {
					t.Fatal(err)
				}
				if err := cp.Tell(0, o.ctx); err != nil {
					t.Fatal(err)
				}
			}
			z := make([]float64, p.M())
			for round := 1; round <= horizon; round++ {
				if err := cp.SetContext(ctx); err != nil {
					t.Fatal(err)
				}
				a, err := plain.Ask()
				if err != nil {
					t.Fatal(err)
				}
				b, err := cp.Ask()
				if err != nil {
					t.Fatal(err)
				}
				if a.Index != b.Index || a.ID != b.ID || !slices.Equal(b.X, at(a.X, ctx)) {
					t.Fatalf("round %d: ask %+v, contextual %+v", round, a, b)
				}
				sa, sb := inspect(plain), inspect(cp)
				if sa.SafeSetSize != sb.SafeSetSize || !slices.Equal(sa.Safe, sb.Safe) || sa.SqrtBeta != sb.SqrtBeta || !slices.Equal(sa.F.Mean, sb.F.Mean) || !slices.Equal(sa.F.Std, sb.F.Std) || !slices.Equal(sa.LowerF, sb.LowerF) {
					t.Fatalf("round %d: snapshots differ", round)
				}
				for k := range z {
					z[k] = p.G[k][a.Index]
				}
				o := bandit.Observation{F: p.F[a.Index] + 0.01*float64(round%3), G: z}
				if err := plain.Tell(a.ID, o); err != nil {
					t.Fatal(err)
				}
				if err := cp.Tell(b.ID, o); err != nil {
					t.Fatal(err)
				}
				if round%7 == 0 {
					// Outside the loop, by index in the current context.
					o := bandit.Observation{F: p.F[2], G: []float64{p.G[0][2], p.G[1][2]}, Index: 2}
					if err := plain.Tell(0, o); err != nil {
						t.Fatal(err)
					}
					if err := cp.Tell(0, o); err != nil {
						t.Fatal(err)
					}
				}
			}
		})
	}
}

// ctxProblem is f and g on D × C drawn from the GP prior with product
// kernels, D 30 points of the unit disk, C three 1-D contexts, and the
// seed set: actions safe (g ≥ 0) in every context.
type ctxProblem struct {
	x    [][]float64
	c    [][]float64
	f, g [][]float64 // [context][action]
	seed []int
	kf   kernel.Kernel
	kg   kernel.Kernel
}

func newCtxProblem(t *testing.T, seed uint64, lc float64) *ctxProblem {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 77))
	kc := kernel.SE{Variance: 1, Lengthscale: lc}
	cp := &ctxProblem{c: [][]float64{{0}, {0.5}, {1.5}}, kf: kernel.SE{Variance: 1, Lengthscale: 0.8}, kg: kernel.SE{Variance: 1, Lengthscale: 0.5}}
	for range 100 {
		cp.x = problem.UnitBall(rng, 30, 2)
		var pts [][]float64
		for _, c := range cp.c {
			for _, x := range cp.x {
				pts = append(pts, at(x, c))
			}
		}
		f, err := problem.SampleGP(kernel.Product{X: cp.kf, C: kc, D: 2}, pts, rng)
		if err != nil {
			t.Fatal(err)
		}
		g, err := problem.SampleGP(kernel.Product{X: cp.kg, C: kc, D: 2}, pts, rng)
		if err != nil {
			t.Fatal(err)
		}
		n := len(cp.x)
		cp.f, cp.g, cp.seed = nil, nil, nil
		for k := range cp.c {
			cp.f = append(cp.f, f[k*n:(k+1)*n])
			cp.g = append(cp.g, g[k*n:(k+1)*n])
		}
		for i := range cp.x {
			safe := true
			for k := range cp.c {
				safe = safe && cp.g[k][i] >= 0.3
			}
			if safe && len(cp.seed) < 3 {
				cp.seed = append(cp.seed, i)
			}
		}
		if len(cp.seed) == 3 {
			return cp
		}
	}
	t.Fatal("no draw with three actions safe in every context")
	return nil
}

func (cp *ctxProblem) model(lc float64) bandit.Model {
	kc := kernel.SE{Variance: 1, Lengthscale: lc}
	return bandit.Model{
		Objective:   kernel.Product{X: cp.kf, C: kc, D: 2},
		Constraints: []kernel.Kernel{kernel.Product{X: cp.kg, C: kc, D: 2}},
		NoiseStd:    0.05, Delta: 0.1, Beta: bandit.Beta{Value: 4},
	}
}

// denseGP is the posterior of a zero-mean GP with kernel k after
// observations y at points x with noise variances nv, solved from scratch
// with a dense Cholesky factorization (Rasmussen & Williams 2006,
// Algorithm 2.1), at the point p.
func denseGP(t *testing.T, k kernel.Kernel, x [][]float64, y, nv []float64, p []float64) (mean, variance float64) {
	n := len(x)
	K := mat.NewSymDense(n, nil)
	for i := range n {
		for j := i; j < n; j++ {
			v := k.Eval(x[i], x[j])
			if i == j {
				v += nv[i]
			}
			K.SetSym(i, j, v)
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(K) {
		t.Fatal("dense Gram matrix is not positive definite")
	}
	ks := mat.NewVecDense(n, nil)
	for i := range n {
		ks.SetVec(i, k.Eval(x[i], p))
	}
	var alpha, v mat.VecDense
	if err := ch.SolveVecTo(&alpha, mat.NewVecDense(n, y)); err != nil {
		t.Fatal(err)
	}
	if err := ch.SolveVecTo(&v, ks); err != nil {
		t.Fatal(err)
	}
	return mat.Dot(ks, &alpha), k.Eval(p, p) - mat.Dot(ks, &v)
}

// TestContextualPosteriorIsDenseGP: after observations in several
// contexts — by ask, by index and at points outside D × C — the contextual
// policy's posteriors equal a from-scratch dense GP with the product
// kernel on the (x, c) inputs, to 1e-9 relative (the incremental
// Cholesky updates and the dense solve differ by rounding, about
// κ·1e-16 with the Gram matrix's condition number κ ≤ 1e5 here): Predict
// at points anywhere, and Inspect over D × {c} of each inner policy,
// whether moved with OnSet (gp mode), told again (lipschitz mode) or kept
// and told what came since (Options.KeepContexts).
func TestContextualPosteriorIsDenseGP(t *testing.T) {
	t.Parallel()
	cp := newCtxProblem(t, 1, 0.6)
	for _, c := range []struct {
		s    bandit.Spec
		keep int
	}{
		{bandit.Spec{Name: "safeopt", SafeSet: "gp"}, 1},
		{bandit.Spec{Name: "safeopt", Lipschitz: &bandit.Lipschitz{Value: 2}}, 1},
		{bandit.Spec{Name: "safeopt", SafeSet: "gp"}, 3},
	} {
		s := c.s
		t.Run(fmt.Sprint(s.SafeSet, c.keep), func(t *testing.T) {
			model := cp.model(0.6)
			opt := bandit.Options{Thresholds: []float64{0}, Horizon: 30, KeepContexts: c.keep}
			pol, err := buildContextual(&s, model, bandit.Domain{Set: bandit.DecisionSet{X: cp.x, Seed: cp.seed}, ContextDim: 1}, opt)
			if err != nil {
				t.Fatal(err)
			}
			var xs [][]float64
			var ys, zs, nvs []float64
			noise := 0.05 * 0.05
			tell := func(id int, x []float64, f, g float64, o bandit.Observation) {
				t.Helper()
				o.F, o.G = f, []float64{g}
				if err := pol.Tell(id, o); err != nil {
					t.Fatal(err)
				}
				nv := noise
				if o.NoiseVar > 0 {
					nv = o.NoiseVar
				}
				xs, ys, zs, nvs = append(xs, x), append(ys, f), append(zs, g), append(nvs, nv)
			}
			for round := range 12 {
				k := round % 3
				if err := pol.SetContext(cp.c[k]); err != nil {
					t.Fatal(err)
				}
				a, err := pol.Ask()
				if err != nil {
					t.Fatal(err)
				}
				tell(a.ID, at(cp.x[a.Index], cp.c[k]), cp.f[k][a.Index], cp.g[k][a.Index], bandit.Observation{})
				if round%4 == 1 {
					// By index, in another context, with its own noise.
					j := (k + 1) % 3
					tell(0, at(cp.x[5], cp.c[j]), cp.f[j][5], cp.g[j][5], bandit.Observation{Index: 5, X: at(cp.x[5], cp.c[j]), NoiseVar: 0.01})
				}
				if round == 6 {
					// A point outside D × C.
					q := []float64{0.1, -0.2, 0.9}
					tell(0, q, 0.3, 0.4, bandit.Observation{Index: -1, X: q})
				}
			}
			close := func(what string, got, want float64) {
				t.Helper()
				if math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(want)) {
					t.Errorf("%s: %v, dense GP %v", what, got, want)
				}
			}
			pts := [][]float64{{0, 0, 0.25}, {0.5, 0.5, 1}, {-0.3, 0.2, 1.5}, at(cp.x[3], cp.c[1])}
			var pr bandit.Prediction
			if err := pol.Predict(&pr, pts); err != nil {
				t.Fatal(err)
			}
			for k, p := range pts {
				mf, vf := denseGP(t, model.Objective, xs, ys, nvs, p)
				mg, vg := denseGP(t, model.Constraints[0], xs, zs, nvs, p)
				close("Predict f mean", pr.F.Mean[k], mf)
				close("Predict f std", pr.F.Std[k], math.Sqrt(math.Max(vf, 0)))
				close("Predict g mean", pr.G[0].Mean[k], mg)
				close("Predict g std", pr.G[0].Std[k], math.Sqrt(math.Max(vg, 0)))
			}
			for k, c := range cp.c {
				if err := pol.SetContext(c); err != nil {
					t.Fatal(err)
				}
				snap := inspect(pol)
				for i, x := range cp.x {
					mf, vf := denseGP(t, model.Objective, xs, ys, nvs, at(x, c))
					mg, vg := denseGP(t, model.Constraints[0], xs, zs, nvs, at(x, c))
					close("Inspect f mean", snap.F.Mean[i], mf)
					close("Inspect f std", snap.F.Std[i], math.Sqrt(math.Max(vf, 0)))
					close("Inspect g mean", snap.G[0].Mean[i], mg)
					close("Inspect g std", snap.G[0].Std[i], math.Sqrt(math.Max(vg, 0)))
				}
				if t.Failed() {
					t.Fatalf("context %d", k)
				}
			}
		})
	}
}

// TestContextualTransfer: what one context learns reaches another only
// through k_c. With a tiny context lengthscale the contexts are
// independent — measurements in c₁ leave the safe set of c₂ the seed set
// alone, as a fresh policy's — and with a huge one they transfer in full:
// c₂'s safe set is c₁'s.
func TestContextualTransfer(t *testing.T) {
	t.Parallel()
	x := make([][]float64, 21)
	for i := range x {
		x[i] = []float64{float64(i) / 20}
	}
	seed := []int{10}
	g := func(x []float64) float64 { return 1 - 4*(x[0]-0.5)*(x[0]-0.5) } // safe on all of [0, 1]
	c1, c2 := []float64{0}, []float64{1}
	for _, c := range []struct {
		lc       float64
		transfer bool
	}{{1e-3, false}, {1e3, true}} {
		se := kernel.SE{Variance: 1, Lengthscale: 0.2}
		kc := kernel.SE{Variance: 1, Lengthscale: c.lc}
		model := bandit.Model{Objective: kernel.Product{X: se, C: kc, D: 1}, Constraints: []kernel.Kernel{kernel.Product{X: se, C: kc, D: 1}},
			NoiseStd: 0.01, Delta: 0.1, Beta: bandit.Beta{Value: 4}}
		s := bandit.Spec{Name: "safeopt", SafeSet: "gp"}
		pol, err := buildContextual(&s, model, bandit.Domain{Set: bandit.DecisionSet{X: x, Seed: seed}, ContextDim: 1}, bandit.Options{Thresholds: []float64{0}, Horizon: 20})
		if err != nil {
			t.Fatal(err)
		}
		if err := pol.SetContext(c1); err != nil {
			t.Fatal(err)
		}
		for _, i := range []int{10, 8, 12, 6, 14} {
			if err := pol.Tell(0, bandit.Observation{F: 0, G: []float64{g(x[i])}, Index: i}); err != nil {
				t.Fatal(err)
			}
		}
		in1 := inspect(pol)
		if err := pol.SetContext(c2); err != nil {
			t.Fatal(err)
		}
		in2 := inspect(pol)
		switch {
		case in1.SafeSetSize <= 1:
			t.Fatalf("ℓ_c = %g: the measurements in c₁ did not enlarge its safe set (%d)", c.lc, in1.SafeSetSize)
		case !c.transfer && in2.SafeSetSize != 1:
			t.Errorf("ℓ_c = %g: safe set of c₂ has %d actions, want the seed alone", c.lc, in2.SafeSetSize)
		case c.transfer && !slices.Equal(in1.Safe, in2.Safe):
			t.Errorf("ℓ_c = %g: safe set of c₂ %v, want c₁'s %v", c.lc, in2.Safe, in1.Safe)
		}
	}
}

func TestContextualErrors(t *testing.T) {
	t.Parallel()
	p, info := instance(t, 1)
	e := env(p, info, bandit.Beta{Value: 4}, 20)
	model := withContext(e.model, kernel.SE{Variance: 1, Lengthscale: 1}, 2)
	s := bandit.Spec{Name: "safeopt", SafeSet: "gp"}
	pol, err := buildContextual(&s, model, bandit.Domain{Set: e.set, ContextDim: 1}, e.opt)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pol.Ask(); !errors.Is(err, bandit.ErrContext) {
		t.Errorf("Ask before SetContext: %v, want ErrContext", err)
	}
	for _, c := range [][]float64{{}, {1, 2}, {math.NaN()}, {math.Inf(1)}} {
		if err := pol.SetContext(c); !errors.Is(err, bandit.ErrContext) {
			t.Errorf("SetContext(%v): %v, want ErrContext", c, err)
		}
	}
	if err := pol.Tell(0, bandit.Observation{F: 1, G: []float64{1, 1}, Index: 3}); !errors.Is(err, bandit.ErrObservation) {
		t.Errorf("an action without its context before SetContext: %v, want ErrObservation", err)
	}
	for _, o := range []bandit.Observation{
		{F: 1, G: []float64{1, 1}, Index: -1, X: []float64{0, 0}},                          // x without c
		{F: 1, G: []float64{1, 1}, Index: 3, X: []float64{9, 9, 0}},                        // not action 3
		{F: 1, G: []float64{1, 1}, Index: -1, X: []float64{0, 0, math.NaN()}},              // NaN context
		{F: math.NaN(), G: []float64{1, 1}, Index: -1, X: []float64{0, 0, 0}},              // NaN f
		{F: 1, G: []float64{1, 1}, Index: len(p.X), X: nil},                                // index out of range
		{F: 1, G: []float64{1}, Index: -1, X: []float64{0, 0, 0}},                          // one g short
		{F: 1, G: []float64{1, 1}, Index: -1, X: nil},                                      // no point
		{F: 1, G: []float64{1, 1}, Index: -1, X: []float64{0, 0, 0}, NoiseVar: math.NaN()}, // NaN noise
	} {
		if err := pol.Tell(0, o); !errors.Is(err, bandit.ErrObservation) {
			t.Errorf("Tell(0, %+v): %v, want ErrObservation", o, err)
		}
	}
	if err := pol.SetContext([]float64{0.5}); err != nil {
		t.Fatal(err)
	}
	a, err := pol.Ask()
	if err != nil {
		t.Fatal(err)
	}
	if err := pol.SetContext([]float64{0.5}); err != nil {
		t.Errorf("the same context with an ask pending: %v", err)
	}
	// Another context with ask 1 pending: it stays pending, told in its
	// own context (TestContextualPendingAcrossContexts).
	if err := pol.SetContext([]float64{0.6}); err != nil {
		t.Errorf("another context with ask 1 pending: %v", err)
	}
	if err := pol.Tell(a.ID, bandit.Observation{F: 0, G: []float64{0, 0}}); err != nil {
		t.Fatal(err)
	}
	if err := pol.Tell(a.ID, bandit.Observation{F: 0, G: []float64{0, 0}}); !errors.Is(err, bandit.ErrUnknownAsk) {
		t.Errorf("a second tell of ask 1: %v, want ErrUnknownAsk", err)
	}
	if err := pol.SetContext([]float64{0.6}); err != nil {
		t.Errorf("another context once ask 1 is told: %v", err)
	}
	var pr bandit.Prediction
	if err := pol.Predict(&pr, [][]float64{{0, 0}}); !errors.Is(err, bandit.ErrPoint) {
		t.Errorf("Predict at x without c: %v, want ErrPoint", err)
	}

	for _, c := range []struct {
		s     bandit.Spec
		truth bool
		msg   string
	}{
		{bandit.Spec{Name: "line-bo"}, false, "line-bo runs on a box"},
		{bandit.Spec{Name: "sgp-ucb", Exploration: bandit.Exploration{Theory: true}}, false, "exploration: theory"},
		{bandit.Spec{Name: "gp-ucb-oracle"}, false, "gp-ucb-oracle needs the true safe set"},
		{bandit.Spec{Name: "safeopt"}, false, "lipschitz: auto needs the true constraints"},
		{bandit.Spec{Name: "sgp-ucb", Exploration: bandit.Exploration{Fixed: ptr(3)}}, false, ""},
	} {
		var truth bandit.ContextTruth
		if c.truth {
			truth = func([]float64) *bandit.Truth { return e.truth }
		}
		opt := e.opt
		_, err := buildContextual(&c.s, model, bandit.Domain{Set: e.set, ContextDim: 1, ContextTruth: truth}, opt)
		if c.msg == "" {
			if err != nil {
				t.Errorf("%s: %v", c.s.Name, err)
			}
			continue
		}
		if !errors.Is(err, bandit.ErrConfig) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: %v, want ErrConfig with %q", c.s.Name, err, c.msg)
		}
	}
	// An ARD context kernel needs one lengthscale per context dimension.
	bad := withContext(e.model, kernel.SE{Variance: 1, ARD: []float64{1, 2}}, 2)
	if _, err := buildContextual(&s, bad, bandit.Domain{Set: e.set, ContextDim: 1}, e.opt); !errors.Is(err, bandit.ErrConfig) || !strings.Contains(err.Error(), "context kernel has 2 lengthscales") {
		t.Errorf("ARD context kernel of the wrong length: %v", err)
	}
}

// TestContextualBytes: the estimate covers what a contextual policy holds
// live at its horizon after a change of context every round (the global
// GPs, the inner policy moved or told again, the observations), and stays
// within 5× of it: it counts two inner policies, the peak while one is
// built beside the other, which a measurement after the run cannot see,
// and rows grown to twice their number (measured: 4.4× for sgp-ucb, 3.1×
// for safeopt in gp mode, at N = 60 and T = 60).
func TestContextualBytes(t *testing.T) {
	p, info := instance(t, 2)
	const horizon = 60
	for _, c := range []struct {
		s    bandit.Spec
		keep int
	}{
		{bandit.Spec{Name: "sgp-ucb", Exploration: bandit.Exploration{Fixed: ptr(10)}}, 1},
		{bandit.Spec{Name: "safeopt", SafeSet: "gp"}, 1},
		{bandit.Spec{Name: "safeopt", Lipschitz: &bandit.Lipschitz{Value: 3}}, 1},
		{bandit.Spec{Name: "safeopt", SafeSet: "gp"}, 3},
	} {
		s := c.s
		e := env(p, info, bandit.PaperBeta, horizon)
		e.opt.KeepContexts = c.keep
		model := withContext(e.model, kernel.SE{Variance: 1, Lengthscale: 1}, 2)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		pol, err := buildContextual(&s, model, bandit.Domain{Set: e.set, ContextDim: 1}, e.opt)
		if err != nil {
			t.Fatal(err)
		}
		z := make([]float64, p.M())
		for round := range horizon {
			if err := pol.SetContext([]float64{float64(round % 3)}); err != nil {
				t.Fatal(err)
			}
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
		runtime.GC()
		runtime.ReadMemStats(&after)
		live := int64(after.HeapAlloc) - int64(before.HeapAlloc)
		runtime.KeepAlive(pol)
		est := bandit.ContextualBytes(&s, p.N(), len(p.Seed), 2, 1, 2, false, horizon, c.keep)
		if live > est || est > 5*live {
			t.Errorf("%s %s, keep %d: %d bytes live, estimate %d", s.Name, s.SafeSet, c.keep, live, est)
		}
	}
}

// TestContextualKeptIsRebuilt: an inner policy kept for its context and
// told the observations made since (Options.KeepContexts) is the policy a
// rebuild tells them all to: for a policy whose state is not its
// posterior alone (lipschitz mode, the plateau rule), which both build by
// telling, the asks and the views agree to the bit, round after round, as
// the contexts come and go.
func TestContextualKeptIsRebuilt(t *testing.T) {
	t.Parallel()
	cp := newCtxProblem(t, 4, 0.6)
	for _, s := range []bandit.Spec{
		{Name: "safeopt", Lipschitz: &bandit.Lipschitz{Value: 2}},
		{Name: "sgp-ucb", Phase1: "uncertainty", Exploration: bandit.Exploration{Plateau: &bandit.Plateau{Window: 3, Cap: 12}}},
	} {
		build := func(keep int) bandit.Contextual {
			pol, err := buildContextual(&s, cp.model(0.6), bandit.Domain{Set: bandit.DecisionSet{X: cp.x, Seed: cp.seed}, ContextDim: 1}, bandit.Options{Thresholds: []float64{0}, Horizon: 40, KeepContexts: keep})
			if err != nil {
				t.Fatal(err)
			}
			return pol
		}
		rebuilt, kept := build(1), build(3)
		for round := range 40 {
			k := (round*round + round/3) % 3
			for _, pol := range []bandit.Contextual{rebuilt, kept} {
				if err := pol.SetContext(cp.c[k]); err != nil {
					t.Fatal(err)
				}
			}
			a, err := rebuilt.Ask()
			if err != nil {
				t.Fatal(err)
			}
			b, err := kept.Ask()
			if err != nil {
				t.Fatal(err)
			}
			sa, sb := inspect(rebuilt), inspect(kept)
			if a.Index != b.Index || !slices.Equal(sa.Safe, sb.Safe) || !slices.Equal(sa.F.Mean, sb.F.Mean) || !slices.Equal(sa.LowerF, sb.LowerF) {
				t.Fatalf("%s, round %d: rebuilt asks %d, kept %d (or their views differ)", s.Name, round+1, a.Index, b.Index)
			}
			o := bandit.Observation{F: cp.f[k][a.Index], G: []float64{cp.g[k][a.Index]}}
			for _, p := range []struct {
				pol bandit.Contextual
				id  int
			}{{rebuilt, a.ID}, {kept, b.ID}} {
				if err := p.pol.Tell(p.id, o); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
}
