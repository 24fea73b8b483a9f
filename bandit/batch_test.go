package bandit_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/safegp/safegp/bandit"
	"github.com/safegp/safegp/gp"
	"github.com/safegp/safegp/kernel"
	"github.com/safegp/safegp/problem"
)

// batchSpecs are the finite-set algorithms with every rule that chooses
// differently: both phase-1 rules, keep_seed, the plateau rule, both
// safe-set modes of the SafeOpt family. lip is the Lipschitz constant of
// the lipschitz-mode ones.
func batchSpecs(lip float64, phase int) []bandit.Spec {
	l := &bandit.Lipschitz{Value: lip}
	return []bandit.Spec{
		{Name: "sgp-ucb", Phase1: "uniform", Exploration: bandit.Exploration{Fixed: ptr(phase)}},
		{Name: "sgp-ucb", Phase1: "uncertainty", Exploration: bandit.Exploration{Fixed: ptr(phase)}},
		{Name: "sgp-ucb", Phase1: "uniform", KeepSeed: true, Exploration: bandit.Exploration{Plateau: &bandit.Plateau{Window: 3, Cap: 2 * phase}}},
		{Name: "naive-sgp-ucb"},
		{Name: "gp-ucb-oracle"},
		{Name: "safeopt", SafeSet: "gp"},
		{Name: "safeopt", Lipschitz: l},
		{Name: "safeopt-mc", SafeSet: "gp", Exploration: bandit.Exploration{Fixed: ptr(phase)}},
		{Name: "safeopt-mc", Lipschitz: l, Exploration: bandit.Exploration{Fixed: ptr(phase)}},
		{Name: "stageopt", SafeSet: "gp", Exploration: bandit.Exploration{Fixed: ptr(phase)}},
		{Name: "stageopt", Lipschitz: l, Exploration: bandit.Exploration{Plateau: &bandit.Plateau{Window: 2, Cap: phase + 1}}},
	}
}

// randomProblem is a random small problem: a 1-D or 2-D grid on [0, 1]^d,
// a random SE or Matérn kernel, f a random sum of sinusoids and one
// constraint g(x) = c − s‖x − x₀‖² with a random threshold, safe at the
// seeds (x₀ and the grid point after it).
type randomProblem struct {
	e    *setup
	f, g func(x []float64) float64
	lip  float64 // a Lipschitz constant of g on the grid
}

func newRandomProblem(r *rand.Rand) *randomProblem {
	d := 1 + r.IntN(2)
	pts := []int{15 + r.IntN(30)}
	if d == 2 {
		pts = []int{5 + r.IntN(5), 5 + r.IntN(5)}
	}
	x := problem.Grid(slices.Repeat([][2]float64{{0, 1}}, d), pts)
	ls := 0.1 + 0.4*r.Float64()
	var k kernel.Kernel = kernel.SE{Variance: 0.5 + r.Float64(), Lengthscale: ls}
	if r.IntN(2) == 0 {
		k = kernel.Matern52{Variance: 0.5 + r.Float64(), Lengthscale: ls}
	}
	x0 := x[r.IntN(len(x))]
	amp, freq, phase := r.Float64()+0.5, 2+6*r.Float64(), 2*math.Pi*r.Float64()
	h := r.Float64() - 0.5
	// Seeds: x₀ and the grid point after it, both safe: c leaves a
	// margin of at least 0.2 at the second.
	i0 := slices.IndexFunc(x, func(y []float64) bool { return slices.Equal(y, x0) })
	i1 := i0 + 1
	if i1 == len(x) {
		i1 = i0 - 1
	}
	seed := []int{min(i0, i1), max(i0, i1)}
	s := 1 + 4*r.Float64()
	c := h + 0.2 + 0.5*r.Float64()
	for j := range x0 {
		c += s * (x[i1][j] - x0[j]) * (x[i1][j] - x0[j])
	}
	p := &randomProblem{
		f: func(y []float64) float64 {
			v := 0.0
			for _, yj := range y {
				v += amp * math.Sin(freq*yj+phase)
			}
			return v
		},
		g: func(y []float64) float64 {
			q := 0.0
			for j := range y {
				q += (y[j] - x0[j]) * (y[j] - x0[j])
			}
			return c - s*q
		},
		lip: 2 * s * math.Sqrt(float64(d)),
	}
	truth := &bandit.Truth{Safe: make([]bool, len(x)), Lipschitz: []float64{p.lip}}
	for i, y := range x {
		truth.Safe[i] = p.g(y) >= h
	}
	for _, i := range seed {
		if !truth.Safe[i] {
			panic("seed not safe") // c − s‖x − x₀‖² ≥ h + 0.2 at both
		}
	}
	p.e = &setup{
		model: bandit.Model{Objective: k, Constraints: []kernel.Kernel{k}, NoiseStd: 0.05 + 0.1*r.Float64(), Delta: 0.1, Beta: bandit.Beta{Value: 1 + 3*r.Float64()}},
		set:   bandit.DecisionSet{X: x, Seed: seed},
		truth: truth,
		opt:   bandit.Options{Thresholds: []float64{h}, Epsilon: 0.05 * r.Float64(), Horizon: 200, Rand: rand.New(rand.NewPCG(r.Uint64(), 1))},
	}
	return p
}

// observe is the noisy measurement of action i.
func (p *randomProblem) observe(r *rand.Rand, i int) bandit.Observation {
	x := p.e.set.X[i]
	return bandit.Observation{F: p.f(x) + 0.05*r.NormFloat64(), G: []float64{p.g(x) + 0.05*r.NormFloat64()}}
}

// TestAskNewIsAsk is k = 1: with no ask pending, AskNew makes exactly the
// choice Ask makes, with the same random draws, for every algorithm and
// rule — so a study that always tells before asking again behaves as
// before. Two twin policies, one asked with Ask and one with AskNew, are
// told the same measurements (and a few outside the loop) for 60 rounds:
// every ask and the final snapshots must be identical, to the bit.
func TestAskNewIsAsk(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(21, 22))
	for trial := range 4 {
		p := newRandomProblem(r)
		for _, s := range batchSpecs(p.lip, 5) {
			t.Run(fmt.Sprintf("%d/%s", trial, s.DisplayLabel()), func(t *testing.T) {
				twin := func() bandit.Policy {
					e := *p.e
					e.opt.Rand = rand.New(rand.NewPCG(uint64(trial), 9))
					pol, err := e.build(&s)
					if err != nil {
						t.Fatal(err)
					}
					return pol
				}
				a, b := twin(), twin()
				noise := rand.New(rand.NewPCG(5, uint64(trial)))
				for round := range 60 {
					x, err := a.Ask()
					if err != nil {
						t.Fatal(err)
					}
					y, ok, err := b.(bandit.Batcher).AskNew()
					if err != nil || !ok {
						t.Fatalf("round %d: AskNew: ok %v, %v", round, ok, err)
					}
					if !cmp.Equal(x, y) {
						t.Fatalf("round %d: Ask %+v, AskNew %+v", round, x, y)
					}
					o := p.observe(noise, x.Index)
					if err := a.Tell(x.ID, o); err != nil {
						t.Fatal(err)
					}
					if err := b.Tell(y.ID, o); err != nil {
						t.Fatal(err)
					}
					if round%7 == 3 {
						// A measurement outside the loop, at a seed.
						o := p.observe(noise, p.e.set.Seed[0])
						o.Index = p.e.set.Seed[0]
						if err := a.Tell(0, o); err != nil {
							t.Fatal(err)
						}
						if err := b.Tell(0, o); err != nil {
							t.Fatal(err)
						}
					}
				}
				var sa, sb bandit.Snapshot
				a.Inspect(&sa, bandit.Full)
				b.Inspect(&sb, bandit.Full)
				if !cmp.Equal(sa, sb) {
					t.Error("snapshots differ after 60 rounds")
				}
			})
		}
	}
}

// TestLineBOAskNewIsAsk is TestAskNewIsAsk for line-bo, across line starts
// (random directions draw from the stream).
func TestLineBOAskNewIsAsk(t *testing.T) {
	t.Parallel()
	for _, dir := range []string{"coordinate", "random", "ascent"} {
		t.Run(dir, func(t *testing.T) {
			spec := bandit.Spec{Name: "line-bo", Inner: "sgp-ucb", Phase1: "uniform", Exploration: bandit.Exploration{Fixed: ptr(2)}, Direction: dir, Points: ptr(31), PerLine: ptr(5)}
			twin := func() bandit.Policy {
				pol, err := bandit.Build(&spec, boxModel(), bandit.Domain{Box: new(testBox())}, boxOpt(4))
				if err != nil {
					t.Fatal(err)
				}
				return pol
			}
			a, b := twin(), twin()
			for round := range 40 {
				x, err := a.Ask()
				if err != nil {
					t.Fatal(err)
				}
				y, ok, err := b.(bandit.Batcher).AskNew()
				if err != nil || !ok {
					t.Fatalf("round %d: AskNew: ok %v, %v", round, ok, err)
				}
				if !cmp.Equal(x, y) {
					t.Fatalf("round %d: Ask %+v, AskNew %+v", round, x, y)
				}
				o := bandit.Observation{F: boxF(x.X), G: []float64{boxG(x.X)}}
				if err := a.Tell(x.ID, o); err != nil {
					t.Fatal(err)
				}
				if err := b.Tell(y.ID, o); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// TestBatchInSafeSet is the property: over random problems (1-D
// and 2-D grids, SE and Matérn kernels, random thresholds, noise, β and
// seeds) and every algorithm, a batch of random size k never holds an
// action outside the policy's safe set of the real data — Inspect's Safe
// just before the batch, which the pending asks do not change — or the
// seed set, which every rule may fall back to (SGP-UCB's phase 1 and its
// empty-D^s_t rule; S_t contains it), and the pending asks are distinct.
// The asks pending are told in random order, some left for the next
// batch, so batches start with asks pending too.
func TestBatchInSafeSet(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(31, 32))
	batches := 0
	for trial := range 25 {
		p := newRandomProblem(r)
		for _, s := range batchSpecs(p.lip, 1+r.IntN(8)) {
			pol, err := p.e.build(&s)
			if err != nil {
				t.Fatalf("trial %d, %s: %v", trial, s.DisplayLabel(), err)
			}
			b := pol.(bandit.Batcher)
			isSeed := make([]bool, len(p.e.set.X))
			for _, i := range p.e.set.Seed {
				isSeed[i] = true
			}
			noise := rand.New(rand.NewPCG(uint64(trial), 3))
			for round := range 12 {
				snap := inspect(pol)
				k := 1 + r.IntN(8)
				for range k {
					a, ok, err := b.AskNew()
					if err != nil {
						t.Fatalf("trial %d, %s, round %d: %v", trial, s.DisplayLabel(), round, err)
					}
					if !ok {
						break
					}
					if !snap.Safe[a.Index] && !isSeed[a.Index] {
						t.Fatalf("trial %d, %s, round %d: ask %d is action %d, outside the safe set of the real data (size %d) and the seeds",
							trial, s.DisplayLabel(), round, a.ID, a.Index, snap.SafeSetSize)
					}
				}
				batches++
				pend := b.Pending()
				seen := map[int]bool{}
				for _, a := range pend {
					if seen[a.Index] {
						t.Fatalf("trial %d, %s, round %d: action %d pending twice: %v", trial, s.DisplayLabel(), round, a.Index, pend)
					}
					seen[a.Index] = true
				}
				// Tell a random part of the batch, in random order.
				ids := make([]int, len(pend))
				for j, a := range pend {
					ids[j] = a.ID
				}
				r.Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
				idx := map[int]int{}
				for _, a := range pend {
					idx[a.ID] = a.Index
				}
				for _, id := range ids[:len(ids)-r.IntN(min(len(ids), 3))] {
					if err := pol.Tell(id, p.observe(noise, idx[id])); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
	}
	t.Logf("%d batches checked", batches)
}

// TestBatchHallucinationSpreads checks GP-BUCB's effect on a 1-D grid
// where everything is safe from the start (threshold far below the
// constraint's bounds, and the oracle told so): the second ask of a batch
// is the argmax of the policy's acquisition with σ conditioned on the
// first ask — computed here independently, from a GP told the first ask
// at its posterior mean, which leaves the mean as it is — over its
// candidates less the first ask, and it is not the runner-up of the real
// acquisition (the first ask's neighbour, whose σ the hallucination takes
// away). The acquisitions: u_f over D^s_t (naive-sgp-ucb, StageOpt's
// stage 2), over D^s_0 (the oracle), and SafeOpt's width over M_t, which
// with every action safe has no expander and, the prior variance being
// constant, orders the actions as σ does.
func TestBatchHallucinationSpreads(t *testing.T) {
	t.Parallel()
	se := kernel.SE{Variance: 1, Lengthscale: 1}
	x := problem.Grid([][2]float64{{0, 10}}, []int{101})
	allSafe := make([]bool, len(x))
	for i := range allSafe {
		allSafe[i] = true
	}
	ucb := func(sqb float64, mean, vr []float64, i int) float64 {
		return mean[i] + sqb*math.Sqrt(math.Max(vr[i], 0))
	}
	std := func(_ float64, _, vr []float64, i int) float64 { return vr[i] }
	cases := []struct {
		spec  bandit.Spec
		score func(sqb float64, mean, vr []float64, i int) float64
		// maximizers restricts the candidates to M_t.
		maximizers bool
	}{
		{bandit.Spec{Name: "naive-sgp-ucb"}, ucb, false},
		{bandit.Spec{Name: "gp-ucb-oracle"}, ucb, false},
		{bandit.Spec{Name: "stageopt", SafeSet: "gp", Exploration: bandit.Exploration{Fixed: ptr(0)}}, ucb, false},
		{bandit.Spec{Name: "safeopt", SafeSet: "gp"}, std, true},
	}
	for _, c := range cases {
		t.Run(c.spec.DisplayLabel(), func(t *testing.T) {
			e := &setup{
				model: bandit.Model{Objective: se, Constraints: []kernel.Kernel{se}, NoiseStd: 0.1, Delta: 0.1, Beta: bandit.Beta{Value: 4}},
				set:   bandit.DecisionSet{X: x, Seed: []int{50}},
				truth: &bandit.Truth{Safe: allSafe},
				opt:   bandit.Options{Thresholds: []float64{-100}, Horizon: 50},
			}
			pol, err := e.build(&c.spec)
			if err != nil {
				t.Fatal(err)
			}
			f := func(y []float64) float64 { return math.Sin(y[0]) }
			ref := gp.New(se, x, 0.1) // f's GP, by hand
			for _, i := range []int{5, 20, 45, 100} {
				if err := pol.Tell(0, bandit.Observation{F: f(x[i]), G: []float64{0}, Index: i}); err != nil {
					t.Fatal(err)
				}
				ref.Observe(i, f(x[i]))
			}
			var snap bandit.Snapshot
			pol.Inspect(&snap, bandit.Full)
			if snap.SafeSetSize != len(x) {
				t.Fatalf("safe set of %d actions, want all %d", snap.SafeSetSize, len(x))
			}
			in := slices.Clone(snap.Safe)
			if c.maximizers {
				// M_t = {x ∈ S_t : u_f(x) ≥ max ℓ_f}.
				best := math.Inf(-1)
				for i := range x {
					best = math.Max(best, snap.LowerF[i])
				}
				for i := range x {
					in[i] = snap.F.Mean[i]+snap.SqrtBeta*snap.F.Std[i] >= best
				}
			}
			b := pol.(bandit.Batcher)
			first, _, err := b.AskNew()
			if err != nil {
				t.Fatal(err)
			}
			second, ok, err := b.AskNew()
			if err != nil || !ok {
				t.Fatalf("second ask: ok %v, %v", ok, err)
			}
			argmax := func(vr []float64) int {
				a := -1
				for i := range x {
					if in[i] && i != first.Index && (a < 0 || c.score(snap.SqrtBeta, ref.Mean(), vr, i) > c.score(snap.SqrtBeta, ref.Mean(), vr, a)) {
						a = i
					}
				}
				return a
			}
			runnerUp := argmax(ref.Var())
			mean := slices.Clone(ref.Mean())
			ref.Observe(first.Index, ref.Mean()[first.Index]) // hallucinated: y = μ(x)
			for i := range x {
				if math.Abs(ref.Mean()[i]-mean[i]) > 1e-12 {
					t.Fatalf("the hallucinated observation moved the mean at %d", i)
				}
			}
			if want := argmax(ref.Var()); second.Index != want {
				t.Errorf("second ask at action %d, the hallucinated acquisition's argmax is %d", second.Index, want)
			}
			if second.Index == runnerUp || absInt(second.Index-first.Index) < 5 {
				t.Errorf("second ask at action %d, next to the first (%d) or the real acquisition's runner-up (%d): the batch did not spread", second.Index, first.Index, runnerUp)
			}
			t.Logf("first %d, second %d (real runner-up %d)", first.Index, second.Index, runnerUp)
		})
	}
}

func absInt(v int) int { return max(v, -v) }

// TestBatchBookkeeping checks the ask/tell side of batches: AskNew hands
// out new IDs while Ask keeps returning the oldest pending ask, tells in
// any order are accepted once each, AskNew stops at MaxBatch pending asks
// or when every candidate is pending (with ok false and no error), and
// after the tells a new batch starts from the real data.
func TestBatchBookkeeping(t *testing.T) {
	t.Parallel()
	se := kernel.SE{Variance: 1, Lengthscale: 0.3}
	x := problem.Grid([][2]float64{{0, 1}}, []int{80})
	e := &setup{
		model: bandit.Model{Objective: se, Constraints: []kernel.Kernel{se}, NoiseStd: 0.1, Delta: 0.1, Beta: bandit.Beta{Value: 4}},
		set:   bandit.DecisionSet{X: x, Seed: []int{39, 40}},
		opt:   bandit.Options{Thresholds: []float64{-100}, Horizon: 500},
	}
	pol, err := e.build(&bandit.Spec{Name: "naive-sgp-ucb"})
	if err != nil {
		t.Fatal(err)
	}
	b := pol.(bandit.Batcher)
	var asks []bandit.Ask
	for {
		a, ok, err := b.AskNew()
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		if a.ID != len(asks)+1 {
			t.Fatalf("ask ID %d, want %d", a.ID, len(asks)+1)
		}
		asks = append(asks, a)
		if got, err := pol.Ask(); err != nil || got.ID != 1 {
			t.Fatalf("Ask with %d pending: ID %d (%v), want the oldest, 1", len(asks), got.ID, err)
		}
	}
	if len(asks) != bandit.MaxBatch || len(b.Pending()) != bandit.MaxBatch {
		t.Fatalf("batch stopped at %d asks (%d pending), want MaxBatch = %d", len(asks), len(b.Pending()), bandit.MaxBatch)
	}
	// Tell every other ask, last first.
	for k := len(asks) - 1; k >= 0; k -= 2 {
		a := asks[k]
		if err := pol.Tell(a.ID, bandit.Observation{F: 0, G: []float64{0}}); err != nil {
			t.Fatal(err)
		}
		if err := pol.Tell(a.ID, bandit.Observation{F: 0, G: []float64{0}}); err == nil {
			t.Fatalf("ask %d told twice without error", a.ID)
		}
	}
	if got := len(b.Pending()); got != bandit.MaxBatch/2 {
		t.Fatalf("%d pending after half the tells, want %d", got, bandit.MaxBatch/2)
	}
	// Fill up to every action: 80 candidates, 32 pending, 32 told (which
	// may be chosen again).
	n := len(b.Pending())
	for {
		a, ok, err := b.AskNew()
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		if slices.ContainsFunc(b.Pending()[:len(b.Pending())-1], func(p bandit.Ask) bool { return p.Index == a.Index }) {
			t.Fatalf("action %d handed out while pending", a.Index)
		}
		n++
	}
	if n != bandit.MaxBatch {
		t.Fatalf("%d pending after refilling, want %d", n, bandit.MaxBatch)
	}

	// Every candidate pending: a 3-action set with one safe action.
	small := &setup{
		model: e.model,
		set:   bandit.DecisionSet{X: [][]float64{{0}, {0.5}, {1}}, Seed: []int{1}},
		opt:   bandit.Options{Thresholds: []float64{100}, Horizon: 10},
	}
	pol, err = small.build(&bandit.Spec{Name: "safeopt", SafeSet: "gp"})
	if err != nil {
		t.Fatal(err)
	}
	if a, ok, err := pol.(bandit.Batcher).AskNew(); err != nil || !ok || a.Index != 1 {
		t.Fatalf("first ask: %+v, ok %v, %v", a, ok, err)
	}
	if a, ok, err := pol.(bandit.Batcher).AskNew(); err != nil || ok {
		t.Fatalf("second ask with the only safe action pending: %+v, ok %v, %v; want ok false, no error", a, ok, err)
	}
}

// TestLineBOBatch checks line-bo's batches: within one line (the points
// are on its set, distinct), no more than per_line of them, none while
// the line is over; tells in any order; the next line starts once
// nothing is pending.
func TestLineBOBatch(t *testing.T) {
	t.Parallel()
	spec := bandit.Spec{Name: "line-bo", Direction: "coordinate", Inner: "safeopt", SafeSet: "gp", Points: ptr(41), PerLine: ptr(4)}
	pol, err := bandit.Build(&spec, boxModel(), bandit.Domain{Box: new(testBox())}, boxOpt(3))
	if err != nil {
		t.Fatal(err)
	}
	// Measurements outside the loop around the seed widen the safe set.
	for _, x := range [][]float64{{0, 0}, {0.4, 0.3}, {0.2, 0.6}, {0.2, 0}, {0.5, 0.5}} {
		if err := pol.Tell(0, bandit.Observation{F: boxF(x), G: []float64{boxG(x)}, X: x, Index: -1}); err != nil {
			t.Fatal(err)
		}
	}
	b := pol.(bandit.Batcher)
	var batch []bandit.Ask
	for {
		a, ok, err := b.AskNew()
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		batch = append(batch, a)
	}
	line := bandit.LinePoints(pol)
	if len(batch) != 4 {
		t.Fatalf("a batch of %d asks on a line of per_line 4", len(batch))
	}
	for k, a := range batch {
		if !slices.ContainsFunc(line, func(p []float64) bool { return slices.Equal(p, a.X) }) {
			t.Errorf("ask %d at %v, not on the line", a.ID, a.X)
		}
		for _, o := range batch[:k] {
			if slices.Equal(o.X, a.X) {
				t.Errorf("asks %d and %d at the same point %v", o.ID, a.ID, a.X)
			}
		}
	}
	// Tell the last one first; the others stay pending, and Ask returns
	// the oldest.
	tell := func(a bandit.Ask) {
		t.Helper()
		if err := pol.Tell(a.ID, bandit.Observation{F: boxF(a.X), G: []float64{boxG(a.X)}}); err != nil {
			t.Fatal(err)
		}
	}
	tell(batch[len(batch)-1])
	if a, err := pol.Ask(); err != nil || a.ID != batch[0].ID {
		t.Fatalf("Ask with asks pending: %+v (%v), want ask %d", a, err, batch[0].ID)
	}
	for _, a := range batch[:len(batch)-1] {
		tell(a)
	}
	// The line had per_line evaluations: the next ask starts a new line.
	a, err := pol.Ask()
	if err != nil {
		t.Fatal(err)
	}
	if next := bandit.LinePoints(pol); slices.EqualFunc(next, line, slices.Equal) {
		t.Errorf("ask %d after a full line is on the same line", a.ID)
	}
}

// TestLineBOBatchLineEnds checks a line that ends early (its tolerance
// rule) while asks of its batch are pending: AskNew then hands out
// nothing, Ask returns the oldest pending ask, the pending asks are still
// told, and a new line starts once none is pending.
func TestLineBOBatchLineEnds(t *testing.T) {
	t.Parallel()
	spec := bandit.Spec{Name: "line-bo", Direction: "coordinate", Inner: "safeopt", SafeSet: "gp", Points: ptr(41), PerLine: ptr(10), Tolerance: ptr(1e9)}
	pol, err := bandit.Build(&spec, boxModel(), bandit.Domain{Box: new(testBox())}, boxOpt(3))
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range [][]float64{{0, 0}, {0.4, 0.3}, {0.2, 0.6}, {0.2, 0}, {0.5, 0.5}} {
		if err := pol.Tell(0, bandit.Observation{F: boxF(x), G: []float64{boxG(x)}, X: x, Index: -1}); err != nil {
			t.Fatal(err)
		}
	}
	b := pol.(bandit.Batcher)
	var batch []bandit.Ask
	for range 3 {
		a, ok, err := b.AskNew()
		if err != nil || !ok {
			t.Fatalf("ask %d: ok %v, %v", len(batch)+1, ok, err)
		}
		batch = append(batch, a)
	}
	tell := func(a bandit.Ask) {
		t.Helper()
		if err := pol.Tell(a.ID, bandit.Observation{F: boxF(a.X), G: []float64{boxG(a.X)}}); err != nil {
			t.Fatal(err)
		}
	}
	tell(batch[1]) // the tolerance of 1e9 ends the line at once
	if bandit.LinePoints(pol) != nil {
		t.Fatal("the line did not end")
	}
	if a, ok, err := b.AskNew(); ok || err != nil {
		t.Fatalf("AskNew after the line ended with asks pending: %+v, ok %v, %v; want ok false", a, ok, err)
	}
	if a, err := pol.Ask(); err != nil || a.ID != batch[0].ID {
		t.Fatalf("Ask: %+v (%v), want the oldest pending, %d", a, err, batch[0].ID)
	}
	tell(batch[2])
	tell(batch[0])
	a, ok, err := b.AskNew()
	if err != nil || !ok || bandit.LinePoints(pol) == nil || a.ID != 4 {
		t.Fatalf("AskNew with nothing pending: %+v, ok %v, %v, line %v; want ask 4 on a new line", a, ok, err, bandit.LinePoints(pol) != nil)
	}
}
