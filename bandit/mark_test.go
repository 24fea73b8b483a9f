package bandit_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/safegp/safegp/bandit"
)

// twins drives two copies of one policy: a, which now and then hands out
// asks and takes them back (MarkAsks, AskNew, Rollback, its random stream
// restored), and b, which never does. Every ask the two then hand out,
// and their views, must be identical to the bit: a rolled-back policy is
// the policy that never asked.
type twins struct {
	a, b       bandit.Policy
	srcA, srcB *rand.PCG
	r          *rand.Rand
	rollbacks  int
}

// detour has a hand out up to n asks and take them back.
func (w *twins) detour(t *testing.T, n int) {
	t.Helper()
	saved := *w.srcA
	m, err := bandit.MarkAsks(w.a)
	if err != nil {
		t.Fatal(err)
	}
	for range n {
		if _, ok, err := bandit.AskNew(w.a); err != nil || !ok {
			break
		}
	}
	if err := bandit.Rollback(w.a, m); err != nil {
		t.Fatal(err)
	}
	*w.srcA = saved
	w.rollbacks++
}

// batch hands out k asks from both (after a detour in a, half the time)
// and requires them equal.
func (w *twins) batch(t *testing.T, k int) []bandit.Ask {
	t.Helper()
	if w.r.IntN(2) == 0 {
		w.detour(t, 1+w.r.IntN(3))
	}
	var out []bandit.Ask
	for range k {
		x, okA, errA := bandit.AskNew(w.a)
		y, okB, errB := bandit.AskNew(w.b)
		if (errA == nil) != (errB == nil) || okA != okB {
			t.Fatalf("ask %d: rolled back: ok %v, %v; never: ok %v, %v", len(out)+1, okA, errA, okB, errB)
		}
		if errA != nil {
			t.Fatal(errA)
		}
		if !okA {
			break
		}
		if !cmp.Equal(x, y) {
			t.Fatalf("after %d rollbacks: rolled back asks %+v, never rolled back %+v", w.rollbacks, x, y)
		}
		out = append(out, x)
	}
	if !cmp.Equal(inspect(w.a), inspect(w.b)) {
		t.Fatalf("after %d rollbacks: the views differ", w.rollbacks)
	}
	return out
}

// tell tells both the same observation.
func (w *twins) tell(t *testing.T, id int, o bandit.Observation) {
	t.Helper()
	for _, p := range []bandit.Policy{w.a, w.b} {
		if err := p.Tell(id, o); err != nil {
			t.Fatal(err)
		}
	}
}

// TestRollbackIsNeverAsked: for every finite-set algorithm and rule (both
// phase-1 rules, the plateau rule, StageOpt's early end of stage 1, both
// safe-set modes), over random problems, a policy that hands out asks and
// takes them back — before batches of 1–3 asks, between measurements
// outside the loop — asks and views exactly as its twin that never did,
// to the bit, for 40 rounds.
func TestRollbackIsNeverAsked(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(41, 42))
	for trial := range 3 {
		p := newRandomProblem(r)
		for _, s := range rollbackSpecs(p.lip, 4) {
			t.Run(fmt.Sprintf("%d/%s", trial, s.DisplayLabel()), func(t *testing.T) {
				w := &twins{r: rand.New(rand.NewPCG(uint64(trial), 3))}
				build := func() (bandit.Policy, *rand.PCG) {
					src := rand.NewPCG(uint64(trial), 9)
					e := *p.e
					e.opt.Rand = rand.New(src)
					if s.Name == bandit.StageOpt {
						// Stage 1 ends at the first choice that finds
						// every expander within ε: one taken back must
						// not have ended it.
						e.opt.Epsilon = 2
					}
					pol, err := e.build(&s)
					if err != nil {
						t.Fatal(err)
					}
					return pol, src
				}
				w.a, w.srcA = build()
				w.b, w.srcB = build()
				noise := rand.New(rand.NewPCG(5, uint64(trial)))
				for round := range 40 {
					if round == 0 || w.r.IntN(3) == 0 {
						// Taken back, then a measurement outside the
						// loop: the next round's choice is the first.
						w.detour(t, 1)
						o := p.observe(noise, p.e.set.Seed[0])
						o.Index = p.e.set.Seed[0]
						w.tell(t, 0, o)
					}
					for _, x := range w.batch(t, 1+w.r.IntN(3)) {
						w.tell(t, x.ID, p.observe(noise, x.Index))
					}
				}
				if w.rollbacks == 0 {
					t.Fatal("no rollback made")
				}
			})
		}
	}
}

// rollbackSpecs are batchSpecs and the finite-set rows that take no
// batches beyond one ask at a time in a study but are asked and taken
// back all the same: GP-UCB, LoSBO and the EI baselines.
func rollbackSpecs(lip float64, phase int) []bandit.Spec {
	return append(batchSpecs(lip, phase),
		bandit.Spec{Name: bandit.GPUCB},
		bandit.Spec{Name: bandit.LoSBO, Lipschitz: &bandit.Lipschitz{Value: lip}, NoiseBound: ptr(0.1)},
		bandit.Spec{Name: bandit.ConstrainedEI},
		bandit.Spec{Name: bandit.PoFEI},
	)
}

// boxRollbackSpecs are the box algorithms' specs TestLineBORollback runs.
func boxRollbackSpecs() map[string]bandit.Spec {
	iters := 5
	specs := map[string]bandit.Spec{
		// SafeOptSwarm's undo had no test (issue 41, item 2): its swarm
		// draws, its safe set's growth and its pending asks.
		"safeopt-swarm": {Name: bandit.SafeOptSwarm, Iterations: &iters},
	}
	for _, dir := range []string{"coordinate", "random", "ascent"} {
		specs[dir] = bandit.Spec{Name: "line-bo", Inner: "sgp-ucb", Phase1: "uniform", Exploration: bandit.Exploration{Fixed: ptr(2)}, Direction: dir, Points: ptr(31), PerLine: ptr(5)}
	}
	// A seed's ask outside any line (seeds_first), taken back too.
	s := specs["coordinate"]
	s.SeedsFirst = true
	specs["seeds-first"] = s
	return specs
}

// TestRollbackCoversTheTable: every row of the algorithm table is run by a
// twin rollback test (a study asks before it writes and takes the asks
// back when the write fails, bandit/mark.go), or refuses MarkAsks with
// ErrUnsupported, which the study reports: a new row must join one.
func TestRollbackCoversTheTable(t *testing.T) {
	t.Parallel()
	run := map[string]bool{}
	for _, s := range rollbackSpecs(1, 2) {
		run[s.Name] = true
	}
	for _, s := range boxRollbackSpecs() {
		run[s.Name] = true
	}
	for _, a := range bandit.Algorithms() {
		if !run[a.Name] && !a.NeedsSafeSet {
			t.Errorf("%s: no twin rollback test runs it", a.Name)
		}
	}
}

// TestLineBORollback is TestRollbackIsNeverAsked for the box algorithms:
// line-bo, where a detour may start a new line (its direction drawn from
// the stream) that the rollback drops, and safeopt-swarm.
func TestLineBORollback(t *testing.T) {
	t.Parallel()
	for name, spec := range boxRollbackSpecs() {
		t.Run(name, func(t *testing.T) {
			build := func() (bandit.Policy, *rand.PCG) {
				opt := boxOpt(4)
				src := rand.NewPCG(4, 7)
				opt.Rand = rand.New(src)
				pol, err := bandit.Build(&spec, boxModel(), bandit.Domain{Box: new(testBox())}, opt)
				if err != nil {
					t.Fatal(err)
				}
				return pol, src
			}
			w := &twins{r: rand.New(rand.NewPCG(8, 8))}
			w.a, w.srcA = build()
			w.b, w.srcB = build()
			for range 30 {
				for _, x := range w.batch(t, 1+w.r.IntN(2)) {
					w.tell(t, x.ID, bandit.Observation{F: boxF(x.X), G: []float64{boxG(x.X)}})
				}
			}
		})
	}
}

// TestContextualRollback is TestRollbackIsNeverAsked with contexts: the
// context is set before the mark, as a study sets it before it asks.
func TestContextualRollback(t *testing.T) {
	t.Parallel()
	cp := newCtxProblem(t, 4, 0.6)
	for _, s := range []bandit.Spec{
		{Name: "safeopt", Lipschitz: &bandit.Lipschitz{Value: 2}},
		{Name: "sgp-ucb", Phase1: "uniform", Exploration: bandit.Exploration{Plateau: &bandit.Plateau{Window: 3, Cap: 12}}},
	} {
		t.Run(s.Name, func(t *testing.T) {
			build := func() (bandit.Policy, *rand.PCG) {
				src := rand.NewPCG(2, 2)
				pol, err := bandit.Build(&s, cp.model(0.6), bandit.Domain{Set: bandit.DecisionSet{X: cp.x, Seed: cp.seed}, ContextDim: 1}, bandit.Options{Thresholds: []float64{0}, Horizon: 80, Rand: rand.New(src)})
				if err != nil {
					t.Fatal(err)
				}
				return pol, src
			}
			w := &twins{r: rand.New(rand.NewPCG(6, 6))}
			w.a, w.srcA = build()
			w.b, w.srcB = build()
			for round := range 30 {
				k := (round*round + round/3) % 3
				for _, pol := range []bandit.Policy{w.a, w.b} {
					if err := bandit.SetContext(pol, cp.c[k]); err != nil {
						t.Fatal(err)
					}
				}
				for _, x := range w.batch(t, 1+w.r.IntN(2)) {
					w.tell(t, x.ID, bandit.Observation{F: cp.f[k][x.Index], G: []float64{cp.g[k][x.Index]}})
				}
			}
		})
	}
}

// TestRollbackRefused: a mark of another policy, or one the policy was
// told an observation since, is refused with ErrMark and changes nothing.
func TestRollbackRefused(t *testing.T) {
	t.Parallel()
	p := newRandomProblem(rand.New(rand.NewPCG(1, 1)))
	s := bandit.Spec{Name: "safeopt", SafeSet: "gp"}
	a, err := p.e.build(&s)
	if err != nil {
		t.Fatal(err)
	}
	b, err := p.e.build(&s)
	if err != nil {
		t.Fatal(err)
	}
	m, err := bandit.MarkAsks(a)
	if err != nil {
		t.Fatal(err)
	}
	if err := bandit.Rollback(b, m); !errors.Is(err, bandit.ErrMark) {
		t.Errorf("another policy's mark: %v, want ErrMark", err)
	}
	x, err := a.Ask()
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Tell(x.ID, p.observe(rand.New(rand.NewPCG(2, 2)), x.Index)); err != nil {
		t.Fatal(err)
	}
	if err := bandit.Rollback(a, m); !errors.Is(err, bandit.ErrMark) {
		t.Errorf("a mark from before a tell: %v, want ErrMark", err)
	}
	if n := len(bandit.Pending(a)); n != 0 {
		t.Errorf("%d asks pending after a refused rollback", n)
	}
}
