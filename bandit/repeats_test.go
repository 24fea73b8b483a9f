package bandit_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/safegp/safegp/bandit"
	"github.com/safegp/safegp/kernel"
)

// TestRepeatsExplore: sgp-ucb's repeats rule "explore" (issue 42) takes
// over only where f's upper bound would measure a setting known within
// its noise again. The data measure f's best setting (x = 0.45) eight
// times, so that with a nearly greedy √β_f = 0.1 the paper's rule asks
// it a ninth time; with "explore" the ask is the setting of the safe set
// of largest constraint σ, recomputed from the snapshot, and the safe
// set is the same flag for flag. A batch of two asks (batch.go's
// chooseNew, on hallucinated variances) takes the rule too: neither ask
// is the known setting. Where the bound's choice is new (the data
// without the repeats), or every safe setting is as known as it, the two
// rules ask the same.
func TestRepeatsExplore(t *testing.T) {
	t.Parallel()
	xs, se, set, f, g := ucbLine()
	build := func(repeats string, told []int) bandit.Policy {
		small := bandit.Beta{Value: 0.01}
		model := bandit.Model{Objective: se, Constraints: []kernel.Kernel{se}, NoiseStd: 0.05, Delta: 0.1, Beta: bandit.Beta{Value: 9}, ObjectiveBeta: &small}
		pol, err := bandit.Build(&bandit.Spec{Name: bandit.SGPUCB, Exploration: bandit.Exploration{Fixed: ptr(0)}, Repeats: repeats}, model, bandit.Domain{Set: set},
			bandit.Options{Thresholds: []float64{0}, Horizon: 30, Rand: rand.New(rand.NewPCG(1, 2))})
		if err != nil {
			t.Fatal(err)
		}
		for _, i := range told {
			if err := pol.Tell(0, bandit.Observation{Index: i, F: f(xs[i][0]), G: []float64{g(xs[i][0])}}); err != nil {
				t.Fatal(err)
			}
		}
		return pol
	}
	ask := func(pol bandit.Policy) int {
		a, err := pol.Ask()
		if err != nil {
			t.Fatal(err)
		}
		return a.Index
	}
	known := []int{16, 20, 22, 18, 18, 18, 18, 18, 18, 18, 18}
	if i := ask(build("", known)); i != 18 {
		t.Fatalf("the paper's rule asked %d, not the known best setting 18: the test proves nothing", i)
	}
	pol := build(bandit.RepeatsExplore, known)
	var snap bandit.Snapshot
	pol.Inspect(&snap, bandit.Full)
	var paper bandit.Snapshot
	build("", known).Inspect(&paper, bandit.Full)
	for k := range snap.Safe {
		if snap.Safe[k] != paper.Safe[k] {
			t.Fatalf("action %d: safe %v with explore, %v without: the rule changed D^s_t", k, snap.Safe[k], paper.Safe[k])
		}
	}
	best, bs := -1, math.Inf(-1)
	for k, in := range snap.Safe {
		if s := snap.G[0].Std[k]; in && s > bs {
			best, bs = k, s
		}
	}
	if i := ask(pol); i != best || i == 18 {
		t.Errorf("explore asked %d; the safe setting of largest constraint σ is %d", i, best)
	}
	batch := build(bandit.RepeatsExplore, known).(bandit.Batcher)
	askNew := func() int {
		a, ok, err := batch.AskNew()
		if err != nil || !ok {
			t.Fatalf("AskNew: %v, %v", ok, err)
		}
		return a.Index
	}
	a, b := askNew(), askNew()
	if a != best || b == 18 || a == b {
		t.Errorf("a batch of two with explore asked %d and %d: want %d first (Ask's choice), then another, neither the known 18", a, b, best)
	}
	// Every setting measured as often as the best: exploring would
	// teach nothing either, and the rule keeps the paper's choice.
	var all []int
	for range 8 {
		for i := range xs {
			all = append(all, i)
		}
	}
	if i, j := ask(build("", all)), ask(build(bandit.RepeatsExplore, all)); i != j {
		t.Errorf("with every safe setting known the rules ask %d (paper) and %d (explore)", i, j)
	}
	fresh := []int{16, 20, 22}
	if i, j := ask(build("", fresh)), ask(build(bandit.RepeatsExplore, fresh)); i != j {
		t.Errorf("with nothing known the rules ask %d (paper) and %d (explore)", i, j)
	}
}

// TestRepeatsRefused: repeats is sgp-ucb's (and line-bo's, passed to an
// inner sgp-ucb); an unknown rule and another algorithm's repeats are
// refused with ErrConfig, naming the key.
func TestRepeatsRefused(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		spec bandit.Spec
		ok   bool
	}{
		{bandit.Spec{Name: bandit.SGPUCB, Exploration: bandit.Exploration{Fixed: ptr(1)}, Repeats: bandit.RepeatsExplore}, true},
		{bandit.Spec{Name: bandit.SGPUCB, Exploration: bandit.Exploration{Fixed: ptr(1)}, Repeats: "again"}, false},
		{bandit.Spec{Name: bandit.SafeOpt, Repeats: bandit.RepeatsExplore}, false},
		{bandit.Spec{Name: bandit.LineBO, Inner: bandit.SGPUCB, Exploration: bandit.Exploration{Fixed: ptr(0)}, Repeats: bandit.RepeatsExplore}, true},
	} {
		err := c.spec.Check(10)
		if c.ok != (err == nil) || err != nil && !errors.Is(err, bandit.ErrConfig) {
			t.Errorf("%s repeats %q: Check gave %v", c.spec.Name, c.spec.Repeats, err)
		}
	}
}

// TestRepeatsSeedFallback: with D^s_t empty (g barely above its limit
// where measured, with noise) sgp-ucb falls back to argmax u_f over the
// seeds, and the repeats rule leaves that fallback alone: the first ask
// (choose) is 17, next to the seed 18 measured eight times, and the
// batch's second (batch.go's chooseNew, 17 pending) is 18, where the
// rule would have asked the unmeasured seed 4, of larger constraint σ.
func TestRepeatsSeedFallback(t *testing.T) {
	t.Parallel()
	_, se, set, _, _ := ucbLine()
	set.Seed = []int{4, 17, 18}
	small := bandit.Beta{Value: 0.01}
	model := bandit.Model{Objective: se, Constraints: []kernel.Kernel{se}, NoiseStd: 0.05, Delta: 0.1, Beta: bandit.Beta{Value: 9}, ObjectiveBeta: &small}
	pol, err := bandit.Build(&bandit.Spec{Name: bandit.SGPUCB, Exploration: bandit.Exploration{Fixed: ptr(0)}, Repeats: bandit.RepeatsExplore}, model, bandit.Domain{Set: set},
		bandit.Options{Thresholds: []float64{0}, Horizon: 30, Rand: rand.New(rand.NewPCG(1, 2))})
	if err != nil {
		t.Fatal(err)
	}
	for range 8 {
		if err := pol.Tell(0, bandit.Observation{Index: 18, F: 1, G: []float64{0.01}}); err != nil {
			t.Fatal(err)
		}
	}
	var snap bandit.Snapshot
	pol.Inspect(&snap, bandit.Full)
	if snap.SafeSetSize != 0 || !(snap.G[0].Std[4] > snap.G[0].Std[17]) {
		t.Fatalf("D^s_t holds %d actions, σ_g %v at seed 4 and %v at 17: the test needs it empty and 4 less known", snap.SafeSetSize, snap.G[0].Std[4], snap.G[0].Std[17])
	}
	b := pol.(bandit.Batcher)
	for k, want := range []int{17, 18} {
		a, ok, err := b.AskNew()
		if err != nil || !ok || a.Index != want {
			t.Errorf("ask %d of the batch: %d (%v, %v), want the fallback's seed %d", k+1, a.Index, ok, err, want)
		}
	}
}
