package bandit_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/safegp/safegp/bandit"
	"github.com/safegp/safegp/gp"
	"github.com/safegp/safegp/kernel"
	"github.com/safegp/safegp/problem"
)

// line is a small setting: 21 actions on [0, 2], SE kernels of
// lengthscale 0.5, σ = 0.1, one constraint with h = 0, seeds {9, 10}.
func line(horizon int) *setup {
	se := kernel.SE{Variance: 1, Lengthscale: 0.5}
	x := problem.Grid([][2]float64{{0, 2}}, []int{21})
	return &setup{
		model: bandit.Model{Objective: se, Constraints: []kernel.Kernel{se}, NoiseStd: 0.1, Delta: 0.1, Beta: bandit.PaperBeta},
		set:   bandit.DecisionSet{X: x, Seed: []int{9, 10}},
		truth: &bandit.Truth{Safe: make([]bool, len(x)), Lipschitz: []float64{2}},
		opt:   bandit.Options{Thresholds: []float64{0}, Epsilon: 0.01, Horizon: horizon, Rand: rand.New(rand.NewPCG(7, 7))},
	}
}

// seamSpecs are one spec of every policy family.
var seamSpecs = []bandit.Spec{
	{Name: "sgp-ucb", Phase1: "uniform", Exploration: bandit.Exploration{Fixed: ptr(3)}},
	{Name: "gp-ucb-oracle"},
	{Name: "safeopt", SafeSet: "gp"},
	{Name: "stageopt", SafeSet: "lipschitz", Lipschitz: &bandit.Lipschitz{Value: 2}, Exploration: bandit.Exploration{Fixed: ptr(4)}},
}

// fval and gval are the functions the seam tests measure.
func fval(x []float64) float64 { return math.Sin(3 * x[0]) }
func gval(x []float64) float64 { return 1 - x[0] }

func build(t *testing.T, e *setup, s bandit.Spec) bandit.Policy {
	t.Helper()
	for i, x := range e.set.X {
		e.truth.Safe[i] = gval(x) >= 0
	}
	pol, err := e.build(&s)
	if err != nil {
		t.Fatal(err)
	}
	return pol
}

// TestAskTell checks the ask bookkeeping of every policy: IDs 1, 2, … in
// the order handed out, the same ask while it is pending (also across a
// measurement told outside the loop), and that ask's point told by ID.
func TestAskTell(t *testing.T) {
	t.Parallel()
	for _, s := range seamSpecs {
		t.Run(s.DisplayLabel(), func(t *testing.T) {
			e := line(20)
			pol := build(t, e, s)
			for id := 1; id <= 6; id++ {
				a, err := pol.Ask()
				if err != nil {
					t.Fatal(err)
				}
				if a.ID != id || a.Index < 0 || a.Index >= len(e.set.X) || &a.X[0] != &e.set.X[a.Index][0] {
					t.Fatalf("ask %d: %+v, want ID %d at a point of the set", id, a, id)
				}
				if again, err := pol.Ask(); err != nil || !cmp.Equal(again, a) {
					t.Fatalf("asked again: %+v (%v), want %+v", again, err, a)
				}
				if id%2 == 0 {
					// A measurement outside the loop leaves the ask pending.
					o := bandit.Observation{F: 0, G: []float64{1}, Index: 10}
					if err := pol.Tell(0, o); err != nil {
						t.Fatal(err)
					}
					if again, err := pol.Ask(); err != nil || !cmp.Equal(again, a) {
						t.Fatalf("after a tell outside the loop: %+v (%v), want %+v", again, err, a)
					}
				}
				if err := pol.Tell(a.ID, bandit.Observation{F: fval(a.X), G: []float64{gval(a.X)}}); err != nil {
					t.Fatal(err)
				}
				if err := pol.Tell(a.ID, bandit.Observation{F: 0, G: []float64{0}}); !errors.Is(err, bandit.ErrUnknownAsk) {
					t.Fatalf("ask %d told twice: %v, want ErrUnknownAsk", a.ID, err)
				}
			}
			if got := inspect(pol).Round; got != 6+3+1 {
				t.Errorf("round %d after 9 observations, want 10", got)
			}
		})
	}
}

// TestTellRejects feeds every kind of bad tell, to a pending ask and
// outside the loop, to every policy: each is an error of the right kind
// and changes nothing — the posteriors, the pending ask and every later
// ask are those of a twin policy that never saw them.
func TestTellRejects(t *testing.T) {
	t.Parallel()
	nan, inf := math.NaN(), math.Inf(1)
	good := bandit.Observation{F: 0.5, G: []float64{0.5}}
	const pending = math.MinInt
	cases := []struct {
		name string
		id   int // pending: the pending ask's
		o    bandit.Observation
		want error
	}{
		{"never handed out", 2, good, bandit.ErrUnknownAsk},
		{"negative id", -3, good, bandit.ErrUnknownAsk},
		{"too few constraint values", pending, bandit.Observation{F: 1}, bandit.ErrObservation},
		{"too many constraint values", pending, bandit.Observation{F: 1, G: []float64{1, 2}}, bandit.ErrObservation},
		{"NaN f", pending, bandit.Observation{F: nan, G: []float64{1}}, bandit.ErrObservation},
		{"Inf g", pending, bandit.Observation{F: 1, G: []float64{-inf}}, bandit.ErrObservation},
		{"negative noise variance", pending, bandit.Observation{F: 1, G: []float64{1}, NoiseVar: -1}, bandit.ErrObservation},
		{"NaN noise variance", 0, bandit.Observation{F: 1, G: []float64{1}, NoiseVar: nan, Index: 3}, bandit.ErrObservation},
		{"Inf noise variance", 0, bandit.Observation{F: 1, G: []float64{1}, NoiseVar: inf, Index: 3}, bandit.ErrObservation},
		{"index past the set", 0, bandit.Observation{F: 1, G: []float64{1}, Index: 21}, bandit.ErrObservation},
		{"index below −1", 0, bandit.Observation{F: 1, G: []float64{1}, Index: -2}, bandit.ErrObservation},
		{"point is not the index's", 0, bandit.Observation{F: 1, G: []float64{1}, Index: 3, X: []float64{0.35}}, bandit.ErrObservation},
		{"outside point missing", 0, bandit.Observation{F: 1, G: []float64{1}, Index: -1}, bandit.ErrObservation},
		{"point of the wrong dimension", 0, bandit.Observation{F: 1, G: []float64{1}, Index: -1, X: []float64{0.5, 0.5}}, bandit.ErrObservation},
		{"empty point", 0, bandit.Observation{F: 1, G: []float64{1}, Index: -1, X: []float64{}}, bandit.ErrObservation},
		{"NaN coordinate", 0, bandit.Observation{F: 1, G: []float64{1}, Index: -1, X: []float64{nan}}, bandit.ErrObservation},
		{"Inf coordinate", 0, bandit.Observation{F: 1, G: []float64{1}, Index: -1, X: []float64{inf}}, bandit.ErrObservation},
	}
	for _, s := range seamSpecs {
		t.Run(s.DisplayLabel(), func(t *testing.T) {
			pol, twin := build(t, line(20), s), build(t, line(20), s)
			play := func(p bandit.Policy, bad *bandit.Observation, badID int) (bandit.Ask, error) {
				a, err := p.Ask()
				if err != nil {
					t.Fatal(err)
				}
				var tellErr error
				if bad != nil {
					if badID == pending {
						badID = a.ID
					}
					tellErr = p.Tell(badID, *bad)
				}
				return a, tellErr
			}
			for k, c := range cases {
				a, err := play(pol, &c.o, c.id)
				if !errors.Is(err, c.want) {
					t.Fatalf("%s: %v, want %v", c.name, err, c.want)
				}
				b, _ := play(twin, nil, 0)
				if d := cmp.Diff(inspect(twin), inspect(pol), cmp.Comparer(func(x, y float64) bool { return x == y || (x != x && y != y) })); d != "" || !cmp.Equal(a, b) {
					t.Fatalf("%s: the bad tell changed the policy (ask %+v, twin %+v):\n%s", c.name, a, b, d)
				}
				for _, p := range []bandit.Policy{pol, twin} {
					x := e(p)
					if err := p.Tell(a.ID, bandit.Observation{F: fval(x.X), G: []float64{gval(x.X)}}); err != nil {
						t.Fatalf("case %d: %v", k, err)
					}
				}
			}
		})
	}
}

// e returns p's pending ask.
func e(p bandit.Policy) bandit.Ask {
	a, _ := p.Ask()
	return a
}

// TestTellPoints checks that a tell reaches the GPs as the measurement it
// names: at an action with the model's noise (gp's Observe) or its own
// (Add), and at a point outside the decision set (AddAt), compared bit
// for bit with reference models fed the same calls.
func TestTellPoints(t *testing.T) {
	t.Parallel()
	se := kernel.SE{Variance: 1, Lengthscale: 0.5}
	tells := []struct {
		o   bandit.Observation
		ref func(m *gp.Model, y float64)
	}{
		{bandit.Observation{F: 0.3, G: []float64{0.7}, Index: 4}, func(m *gp.Model, y float64) { m.Observe(4, y) }},
		{bandit.Observation{F: -0.2, G: []float64{0.1}, Index: 15, NoiseVar: 0.25}, func(m *gp.Model, y float64) { m.Add(15, y, 0.25) }},
		{bandit.Observation{F: 0.9, G: []float64{0.4}, Index: -1, X: []float64{1.234}}, func(m *gp.Model, y float64) { m.AddAt([]float64{1.234}, y, -1) }},
		{bandit.Observation{F: 0.1, G: []float64{-0.3}, Index: -1, X: []float64{2.5}, NoiseVar: 1e-4}, func(m *gp.Model, y float64) { m.AddAt([]float64{2.5}, y, 1e-4) }},
		{bandit.Observation{F: 0.4, G: []float64{0.2}, Index: 7, X: []float64{0.7}}, func(m *gp.Model, y float64) { m.Observe(7, y) }},
	}
	e := line(10)
	pol := build(t, e, bandit.Spec{Name: "safeopt", SafeSet: "gp"})
	f, g := gp.New(se, e.set.X, 0.1), gp.New(se, e.set.X, 0.1)
	for k, c := range tells {
		if err := pol.Tell(0, c.o); err != nil {
			t.Fatalf("tell %d: %v", k, err)
		}
		c.ref(f, c.o.F)
		c.ref(g, c.o.G[0])
		snap := inspect(pol)
		if !cmp.Equal(snap.F.Mean, f.Mean()) || !cmp.Equal(snap.G[0].Mean, g.Mean()) {
			t.Fatalf("tell %d: posterior means differ from the reference models", k)
		}
		for i := range snap.F.Std {
			if snap.F.Std[i] != f.Std(i) || snap.G[0].Std[i] != g.Std(i) {
				t.Fatalf("tell %d: posterior std at %d differs from the reference models", k, i)
			}
		}
	}
	if got := inspect(pol).Round; got != len(tells)+1 {
		t.Errorf("round %d after %d tells", got, len(tells))
	}
}

// TestInspectChangesNothing: a policy inspected before every ask, in both
// details, asks exactly what its twin asks; and Inspect reuses dst's
// slices.
func TestInspectChangesNothing(t *testing.T) {
	t.Parallel()
	for _, s := range seamSpecs {
		t.Run(s.DisplayLabel(), func(t *testing.T) {
			pol, twin := build(t, line(30), s), build(t, line(30), s)
			var view bandit.Snapshot
			for round := 1; round <= 30; round++ {
				pol.Inspect(&view, bandit.SafeSet)
				safe := &view.Safe[0]
				pol.Inspect(&view, bandit.Full)
				if &view.Safe[0] != safe {
					t.Fatal("Inspect did not reuse dst.Safe")
				}
				if view.Round != round || len(view.F.Mean) != 21 || len(view.LowerF) != 21 {
					t.Fatalf("round %d: snapshot of round %d with %d means", round, view.Round, len(view.F.Mean))
				}
				a, b := e(pol), e(twin)
				if !cmp.Equal(a, b) {
					t.Fatalf("round %d: inspected policy asks %+v, twin %+v", round, a, b)
				}
				for _, p := range []bandit.Policy{pol, twin} {
					if err := p.Tell(a.ID, bandit.Observation{F: fval(a.X), G: []float64{gval(a.X)}}); err != nil {
						t.Fatal(err)
					}
				}
			}
		})
	}
}

// TestRoundsDoNotAllocate: once warmed up, a round of a simulation — Ask,
// Inspect(SafeSet) into the same snapshot, Tell — allocates nothing: the
// GPs are reserved for the horizon and every scratch is reused.
//
// With an objective threshold (f ≥ h_f read from f's GP) it does not
// either.
func TestRoundsDoNotAllocate(t *testing.T) {
	for _, c := range []struct {
		s  bandit.Spec
		hf *float64
	}{
		{seamSpecs[0], nil}, {seamSpecs[1], nil}, {seamSpecs[2], nil}, {seamSpecs[3], nil},
		{seamSpecs[0], ptr(-0.5)}, {seamSpecs[2], ptr(-0.5)}, {seamSpecs[3], ptr(-0.5)},
	} {
		s := c.s
		name := s.DisplayLabel()
		if c.hf != nil {
			name += "/h_f"
		}
		t.Run(name, func(t *testing.T) {
			e := line(200)
			e.opt.ObjectiveThreshold = c.hf
			pol := build(t, e, s)
			var view bandit.Snapshot
			obs := bandit.Observation{G: make([]float64, 1)}
			round := func() {
				a, err := pol.Ask()
				if err != nil {
					t.Fatal(err)
				}
				pol.Inspect(&view, bandit.SafeSet)
				obs.F, obs.G[0] = fval(a.X), gval(a.X)
				if err := pol.Tell(a.ID, obs); err != nil {
					t.Fatal(err)
				}
			}
			for range 10 {
				round()
			}
			if n := testing.AllocsPerRun(100, round); n != 0 {
				t.Errorf("%v allocations a round", n)
			}
		})
	}
}

// TestNewRejects: New refuses, with ErrConfig and without panicking, every
// setting a policy could not run on.
func TestNewRejects(t *testing.T) {
	t.Parallel()
	uniform := bandit.Spec{Name: "sgp-ucb", Phase1: "uniform", Exploration: bandit.Exploration{Fixed: ptr(3)}}
	cases := []struct {
		name   string
		spec   bandit.Spec
		change func(e *setup)
	}{
		{"empty decision set", uniform, func(e *setup) { e.set.X = nil }},
		{"point without coordinates", uniform, func(e *setup) { e.set.X = [][]float64{{}, {}} }},
		{"ragged points", uniform, func(e *setup) { e.set.X = append(e.set.X[:20:20], []float64{1, 2}) }},
		{"empty seed set", uniform, func(e *setup) { e.set.Seed = nil }},
		{"seed out of range", uniform, func(e *setup) { e.set.Seed = []int{3, 21} }},
		{"negative seed", uniform, func(e *setup) { e.set.Seed = []int{-1} }},
		{"seeds not ascending", uniform, func(e *setup) { e.set.Seed = []int{10, 9} }},
		{"seed twice", uniform, func(e *setup) { e.set.Seed = []int{9, 9} }},
		{"no objective kernel", uniform, func(e *setup) { e.model.Objective = nil }},
		{"no constraint kernel", uniform, func(e *setup) { e.model.Constraints = []kernel.Kernel{nil} }},
		{"kernels and thresholds differ", uniform, func(e *setup) { e.opt.Thresholds = []float64{0, 1} }},
		{"negative noise", uniform, func(e *setup) { e.model.NoiseStd = -0.1 }},
		{"NaN noise", uniform, func(e *setup) { e.model.NoiseStd = math.NaN() }},
		{"a noise σ per GP, one short", uniform, func(e *setup) { e.model.NoiseStds = []float64{0.1} }},
		{"negative noise σ of g1", uniform, func(e *setup) { e.model.NoiseStds = []float64{0.1, -0.1} }},
		{"infinite noise σ of f", uniform, func(e *setup) { e.model.NoiseStds = []float64{math.Inf(1), 0.1} }},
		{"ARD lengthscales for another dimension", uniform, func(e *setup) {
			e.model.Constraints = []kernel.Kernel{kernel.SE{Variance: 1, ARD: []float64{0.5, 0.5}}}
		}},
		{"ARD with no lengthscale", uniform, func(e *setup) { e.model.Objective = kernel.Matern52{Variance: 1, ARD: []float64{}} }},
		{"δ = 1", uniform, func(e *setup) { e.model.Delta = 1 }},
		{"δ = 0", uniform, func(e *setup) { e.model.Delta = 0 }},
		{"horizon 0", uniform, func(e *setup) { e.opt.Horizon = 0 }},
		{"kernel overflows", uniform, func(e *setup) {
			e.model.Objective = kernel.Polynomial{Variance: 1, Offset: 1, Degree: 400}
			e.set.X[20] = []float64{1e3}
		}},
		{"uniform phase 1 without a random stream", uniform, func(e *setup) { e.opt.Rand = nil }},
		{"oracle without truth", bandit.Spec{Name: "gp-ucb-oracle"}, func(e *setup) { e.truth = nil }},
		{"oracle with a short truth", bandit.Spec{Name: "gp-ucb-oracle"}, func(e *setup) { e.truth.Safe = e.truth.Safe[:5] }},
		{"oracle with an empty true safe set", bandit.Spec{Name: "gp-ucb-oracle"}, func(e *setup) { clear(e.truth.Safe) }},
		{"lipschitz auto without truth", bandit.Spec{Name: "safeopt"}, func(e *setup) { e.truth = nil }},
		{"lipschitz auto with constants missing", bandit.Spec{Name: "safeopt"}, func(e *setup) { e.truth.Lipschitz = nil }},
		{"lipschitz auto without L_f", bandit.Spec{Name: "safeopt"}, func(e *setup) { e.opt.ObjectiveThreshold = ptr(0.0) }},
		{"no safety condition", uniform, func(e *setup) { e.model.Constraints, e.opt.Thresholds = nil, nil }},
		{"objective threshold NaN", uniform, func(e *setup) { e.opt.ObjectiveThreshold = ptr(math.NaN()) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := line(20)
			for i, x := range e.set.X {
				e.truth.Safe[i] = gval(x) >= 0
			}
			c.change(e)
			if _, err := e.build(&c.spec); !errors.Is(err, bandit.ErrConfig) {
				t.Errorf("got %v, want ErrConfig", err)
			}
		})
	}
	// The unchanged setting builds, so that each case above fails for
	// its own change.
	for _, s := range append(seamSpecs, uniform, bandit.Spec{Name: "naive-sgp-ucb"}) {
		e := line(20)
		build(t, e, s)
	}
	e := line(20)
	e.opt.Rand = nil
	build(t, e, bandit.Spec{Name: "naive-sgp-ucb"}) // never draws
	// An objective threshold alone is a safety condition.
	for _, s := range append(seamSpecs, uniform) {
		e := line(20)
		e.model.Constraints, e.opt.Thresholds, e.opt.ObjectiveThreshold = nil, nil, ptr(-0.5)
		e.truth.Lipschitz = []float64{3}
		build(t, e, s)
	}
}

// TestPredict checks Predictor on every policy family: at the decision
// set's own points it gives the posteriors and √β_t that Inspect shows
// (the same GPs, read by another route: agreement to 1e-12 relative,
// rounding of the two summation orders), after tells at actions and at
// points outside the set with their own noise; a point of the wrong
// dimension or not finite is an error that changes nothing.
func TestPredict(t *testing.T) {
	t.Parallel()
	for _, s := range seamSpecs {
		t.Run(s.DisplayLabel(), func(t *testing.T) {
			set := line(20) // not e: the helper e asks
			pol := build(t, set, s)
			tell := func(x []float64, idx int, std float64) {
				t.Helper()
				o := bandit.Observation{F: fval(x), G: []float64{gval(x)}, X: x, Index: idx, NoiseVar: bandit.KnownNoise(std)}
				if err := pol.Tell(0, o); err != nil {
					t.Fatal(err)
				}
			}
			tell(set.set.X[9], 9, 0.1)
			tell([]float64{0.93}, -1, 0)
			tell([]float64{1.37}, -1, 0.3)
			tell(set.set.X[3], 3, 0.05)
			for range 3 {
				a := e(pol)
				if err := pol.Tell(a.ID, bandit.Observation{F: fval(a.X), G: []float64{gval(a.X)}}); err != nil {
					t.Fatal(err)
				}
			}
			var snap bandit.Snapshot
			pol.Inspect(&snap, bandit.Full)
			var pr bandit.Prediction
			if err := pol.(bandit.Predictor).Predict(&pr, set.set.X); err != nil {
				t.Fatal(err)
			}
			if pr.SqrtBeta != snap.SqrtBeta {
				t.Errorf("√β_t = %v, Inspect's %v", pr.SqrtBeta, snap.SqrtBeta)
			}
			want := append([]bandit.Posterior{snap.F}, snap.G...)
			got := append([]bandit.Posterior{pr.F}, pr.G...)
			if len(got) != len(want) {
				t.Fatalf("%d posteriors, Inspect has %d", len(got), len(want))
			}
			for k := range want {
				for i := range set.set.X {
					if d := math.Abs(got[k].Mean[i] - want[k].Mean[i]); d > 1e-12*(1+math.Abs(want[k].Mean[i])) {
						t.Errorf("GP %d, action %d: mean %v, Inspect's %v", k, i, got[k].Mean[i], want[k].Mean[i])
					}
					if d := math.Abs(got[k].Std[i] - want[k].Std[i]); d > 1e-12 {
						t.Errorf("GP %d, action %d: sd %v, Inspect's %v", k, i, got[k].Std[i], want[k].Std[i])
					}
				}
			}
			// One point takes gp's PredictAt: the same numbers.
			var one bandit.Prediction
			if err := pol.(bandit.Predictor).Predict(&one, [][]float64{set.set.X[5]}); err != nil {
				t.Fatal(err)
			}
			if d := math.Abs(one.F.Std[0] - snap.F.Std[5]); d > 1e-12 {
				t.Errorf("one point: sd %v, Inspect's %v", one.F.Std[0], snap.F.Std[5])
			}
			for _, bad := range [][][]float64{{{0.5, 1}}, {{math.NaN()}}, {{0.2}, {math.Inf(1)}}} {
				if err := pol.(bandit.Predictor).Predict(&pr, bad); !errors.Is(err, bandit.ErrPoint) {
					t.Errorf("Predict(%v): %v, want ErrPoint", bad, err)
				}
			}
		})
	}
}

// TestKnownNoise: σ² for σ > 0, and for σ = 0 a positive value (0 would
// mean the model's σ²) that gp raises to its jitter floor.
func TestKnownNoise(t *testing.T) {
	t.Parallel()
	if v := bandit.KnownNoise(0.3); v != 0.3*0.3 {
		t.Errorf("KnownNoise(0.3) = %v", v)
	}
	for _, s := range []float64{0, 1e-200} {
		if v := bandit.KnownNoise(s); !(v > 0) || v > 1e-300 {
			t.Errorf("KnownNoise(%v) = %v, want a positive value below any jitter", s, v)
		}
	}
}

// TestNoisePerGP: with Model.NoiseStds each GP assumes its own σ — f's
// posterior is the one a GP of σ_f computes from the same observations,
// g's the one of σ_g, to the bit (the same code on the same numbers) —
// and without it every GP assumes NoiseStd. Every policy family.
func TestNoisePerGP(t *testing.T) {
	t.Parallel()
	for _, s := range seamSpecs {
		for _, sig := range [][]float64{{0.3, 0.02}, nil} {
			e := line(20)
			e.model.NoiseStds = sig
			pol := build(t, e, s)
			sf, sg := e.model.NoiseStd, e.model.NoiseStd
			if sig != nil {
				sf, sg = sig[0], sig[1]
			}
			f := gp.New(e.model.Objective, e.set.X, sf)
			g := gp.New(e.model.Constraints[0], e.set.X, sg)
			for _, i := range []int{9, 10, 9, 12, 8} {
				x := e.set.X[i]
				observe(pol, i, fval(x), []float64{gval(x)})
				f.Observe(i, fval(x))
				g.Observe(i, gval(x))
			}
			snap := inspect(pol)
			for i := range e.set.X {
				if snap.F.Std[i] != f.Std(i) || snap.F.Mean[i] != f.Mean()[i] {
					t.Fatalf("%s σ %v: f at %d: policy %v ± %v, GP of σ = %v %v ± %v", s.Name, sig, i, snap.F.Mean[i], snap.F.Std[i], sf, f.Mean()[i], f.Std(i))
				}
				if s.Name != "gp-ucb-oracle" && (snap.G[0].Std[i] != g.Std(i) || snap.G[0].Mean[i] != g.Mean()[i]) {
					t.Fatalf("%s σ %v: g at %d: policy %v ± %v, GP of σ = %v %v ± %v", s.Name, sig, i, snap.G[0].Mean[i], snap.G[0].Std[i], sg, g.Mean()[i], g.Std(i))
				}
			}
		}
	}
}
