package bandit_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/safegp/safegp/bandit"
)

// TestContextualPendingAcrossContexts: asks left pending in one context
// while others are asked in other contexts (a study's parallel workers,
// whose measured conditions differ) lose nothing and change nothing. Each
// round a batch of two is asked in the round's context and the previous
// round's batch — another context's — is told only then. Before every
// batch the view of the context (safe set, posterior of f) equals that of
// a reference policy told the same observations in the same order outside
// the loop, rebuilt on every change of context: to the bit for the
// policies told everything again, within 1e-9 relative for those moved
// with OnSet (another order of the same sums). Every ask is told once as
// an ask, and none stays pending in the inner policy that handed it out:
// the batches in a context come back to the actions told there.
func TestContextualPendingAcrossContexts(t *testing.T) {
	t.Parallel()
	cp := newCtxProblem(t, 4, 0.6)
	for _, s := range []bandit.Spec{
		{Name: "sgp-ucb", Phase1: "uniform", Exploration: bandit.Exploration{Fixed: ptr(4)}},
		{Name: "safeopt", SafeSet: "gp"},
		{Name: "safeopt", Lipschitz: &bandit.Lipschitz{Value: 2}},
		{Name: "stageopt", SafeSet: "gp", Exploration: bandit.Exploration{Fixed: ptr(6)}},
	} {
		t.Run(fmt.Sprint(s.Name, " ", s.SafeSet), func(t *testing.T) {
			set := bandit.DecisionSet{X: cp.x, Seed: cp.seed}
			opt := func(keep int) bandit.Options {
				return bandit.Options{Thresholds: []float64{0}, Horizon: 60, KeepContexts: keep, Rand: rand.New(rand.NewPCG(9, 1))}
			}
			pol, err := buildContextual(&s, cp.model(0.6), bandit.Domain{Set: set, ContextDim: 1}, opt(1))
			if err != nil {
				t.Fatal(err)
			}
			ref, err := buildContextual(&s, cp.model(0.6), bandit.Domain{Set: set, ContextDim: 1}, opt(1))
			if err != nil {
				t.Fatal(err)
			}
			type pend struct {
				a bandit.Ask
				k int // its context
			}
			var last []pend
			tell := func(ps []pend) {
				for _, p := range ps {
					o := bandit.Observation{F: cp.f[p.k][p.a.Index], G: []float64{cp.g[p.k][p.a.Index]}}
					if err := pol.Tell(p.a.ID, o); err != nil {
						t.Fatal(err)
					}
					o.Index, o.X = p.a.Index, at(cp.x[p.a.Index], cp.c[p.k])
					if err := ref.Tell(0, o); err != nil {
						t.Fatal(err)
					}
				}
			}
			for round := range 24 {
				k := (round + round/4) % 3
				for _, p := range []bandit.Contextual{pol, ref} {
					if err := p.SetContext(cp.c[k]); err != nil {
						t.Fatal(err)
					}
				}
				if got, want := inspect(pol), inspect(ref); !slices.Equal(got.Safe, want.Safe) || !closeAll(got.F.Mean, want.F.Mean, 1e-9) || !closeAll(got.F.Std, want.F.Std, 1e-9) {
					t.Fatalf("round %d, context %v, %d asks pending elsewhere: the view differs from the rebuilt policy's", round+1, cp.c[k], len(last))
				}
				var batch []pend
				for range 2 {
					a, ok, err := pol.(bandit.Batcher).AskNew()
					if err != nil {
						t.Fatal(err)
					}
					if ok {
						batch = append(batch, pend{a, k})
					}
				}
				tell(last) // the previous round's, in its own context
				last = batch
				if n := len(pol.(bandit.Batcher).Pending()); n != len(batch) {
					t.Fatalf("round %d: %d asks pending, want this round's %d", round+1, n, len(batch))
				}
			}
			tell(last)
			if n := len(pol.(bandit.Batcher).Pending()); n != 0 {
				t.Fatalf("%d asks pending after every one was told", n)
			}
			// No inner policy holds a told ask pending: in each context
			// a batch is as large as the reference's.
			for k := range cp.c {
				for _, p := range []bandit.Contextual{pol, ref} {
					if err := p.SetContext(cp.c[k]); err != nil {
						t.Fatal(err)
					}
				}
				a, _, err := pol.(bandit.Batcher).AskNew()
				if err != nil {
					t.Fatal(err)
				}
				b, _, err := ref.(bandit.Batcher).AskNew()
				if err != nil {
					t.Fatal(err)
				}
				if s.Phase1 == "" && a.Index != b.Index {
					t.Errorf("context %v: the next ask is action %d, the rebuilt policy's %d", cp.c[k], a.Index, b.Index)
				}
				if err := pol.Tell(a.ID, bandit.Observation{F: 0, G: []float64{1}}); err != nil {
					t.Fatal(err)
				}
				if err := ref.Tell(b.ID, bandit.Observation{F: 0, G: []float64{1}}); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// TestContextualPendingContextsCap: asks may be pending in at most
// MaxPendingContexts contexts besides the current one; the next context
// is refused with ErrPending until one of them is told.
func TestContextualPendingContextsCap(t *testing.T) {
	t.Parallel()
	cp := newCtxProblem(t, 4, 0.6)
	s := bandit.Spec{Name: "safeopt", SafeSet: "gp"}
	pol, err := buildContextual(&s, cp.model(0.6), bandit.Domain{Set: bandit.DecisionSet{X: cp.x, Seed: cp.seed}, ContextDim: 1}, bandit.Options{Thresholds: []float64{0}, Horizon: 30})
	if err != nil {
		t.Fatal(err)
	}
	var asks []bandit.Ask
	for k := range bandit.MaxPendingContexts + 1 {
		if err := pol.SetContext([]float64{float64(k) / 10}); err != nil {
			t.Fatalf("context %d with asks pending in %d others: %v", k, k, err)
		}
		a, err := pol.Ask()
		if err != nil {
			t.Fatal(err)
		}
		asks = append(asks, a)
	}
	next := []float64{0.9}
	if err := pol.SetContext(next); !errors.Is(err, bandit.ErrPending) || !strings.Contains(err.Error(), fmt.Sprint("ask ", asks[0].ID)) {
		t.Fatalf("a context beyond %d others holding asks: %v, want ErrPending naming ask %d", bandit.MaxPendingContexts, err, asks[0].ID)
	}
	if err := pol.SetContext([]float64{0}); err != nil {
		t.Errorf("back to a context holding an ask: %v", err)
	}
	if err := pol.Tell(asks[1].ID, bandit.Observation{F: 0, G: []float64{1}}); err != nil {
		t.Fatal(err)
	}
	if err := pol.SetContext(next); err != nil {
		t.Errorf("a new context once one of the others' asks is told: %v", err)
	}
}

func closeAll(a, b []float64, rel float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Abs(a[i]-b[i]) > rel*math.Max(1, math.Max(math.Abs(a[i]), math.Abs(b[i]))) {
			return false
		}
	}
	return true
}
