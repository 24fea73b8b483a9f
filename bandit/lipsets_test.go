package bandit

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"testing"

	"github.com/safegp/safegp/kernel"
	"github.com/safegp/safegp/problem"
)

// lipCase is one lipschitz-mode run to replay with and without the
// neighbour search.
type lipCase struct {
	name  string
	p     *problem.Problem
	l     []float64 // L_i handed to the policy
	model Model
	spec  Spec
	hf    *float64
	T     int
	noise float64 // the observations' noise (the model may believe another)
	seed  uint64
}

// lipRun is what a run shows round by round: the action, S_t and G_t.
type lipRun struct {
	actions  []int
	safe     [][]bool
	inG      [][]bool
	fellOnce bool // some safe source's ℓ fell (bounds' reset): the index started over
}

// play runs c with the pair scan (brute) or the neighbour search.
func (c *lipCase) play(t *testing.T, brute bool) lipRun {
	t.Helper()
	bruteLipschitz = brute
	defer func() { bruteLipschitz = false }()
	g, h := c.p.Safety()
	opt := Options{Thresholds: c.p.H, Epsilon: c.p.Epsilon, Horizon: c.T, Rand: rand.New(rand.NewPCG(c.seed, 1)), ObjectiveThreshold: c.hf}
	pol, err := Build(&c.spec, c.model, Domain{Set: DecisionSet{X: c.p.X, Seed: c.p.Seed}, Truth: &Truth{Lipschitz: c.l}}, opt)
	if err != nil {
		t.Fatalf("%s: %v", c.name, err)
	}
	o := safeOptOf(t, pol)
	if (o.lipIdx == nil) != brute {
		t.Fatalf("%s: brute = %v but the index is %v", c.name, brute, o.lipIdx)
	}
	rng := rand.New(rand.NewPCG(c.seed, 2))
	var run lipRun
	var prevLo [][]float64
	for range c.T {
		q := ask(t, pol)
		a := q.Index
		run.actions = append(run.actions, a)
		run.safe = append(run.safe, slices.Clone(o.safe))
		run.inG = append(run.inG, slices.Clone(o.inG))
		for k, sc := range o.safety {
			if prevLo != nil {
				for i, in := range o.safe {
					if in && o.lo[sc.j][i] < prevLo[k][i] {
						run.fellOnce = true
					}
				}
			}
		}
		prevLo = prevLo[:0]
		for _, sc := range o.safety {
			prevLo = append(prevLo, slices.Clone(o.lo[sc.j]))
		}
		obs := make([]float64, len(c.p.G))
		for k := range obs {
			obs[k] = c.p.G[k][a] + c.noise*rng.NormFloat64()
		}
		tell(t, pol, q, c.p.F[a]+c.noise*rng.NormFloat64(), obs...)
	}
	_, _ = g, h
	return run
}

// randomLipCase draws a problem of n actions uniform in [0, 1]^d with m
// constraints, smooth f and g_i (random sinusoids), seeded by the safe
// actions nearest a random safe action, and a lipschitz-mode policy on it.
func randomLipCase(rng *rand.Rand, k int) *lipCase {
	d := 1 + k%6
	m := 1 + (k/6)%2
	name := []string{"safeopt", "safeopt-mc", "stageopt"}[(k/12)%3]
	n := 20 + rng.IntN(130)
	x := make([][]float64, n)
	for i := range x {
		x[i] = make([]float64, d)
		for j := range x[i] {
			x[i][j] = rng.Float64()
		}
	}
	if k%7 == 0 { // a grid in the first two coordinates: equal distances
		for i := range x {
			for j := range min(d, 2) {
				x[i][j] = float64(rng.IntN(6)) / 5
			}
			x[i][d-1] = float64(i) / float64(n) // keeps the points distinct
		}
	}
	smooth := func() []float64 {
		w := make([]float64, d)
		for j := range w {
			w[j] = 2.5 * rng.NormFloat64()
		}
		ph, a, b := 6*rng.Float64(), 0.2+rng.Float64(), 0.3+0.3*rng.NormFloat64()
		v := make([]float64, n)
		for i, xi := range x {
			v[i] = b + a*math.Sin(ph+dot(w, xi))
		}
		return v
	}
	p := &problem.Problem{X: x, F: smooth(), Epsilon: 0.02}
	for range m {
		p.G = append(p.G, smooth())
		p.H = append(p.H, 0)
	}
	c := &lipCase{name: fmt.Sprintf("#%d %s d=%d m=%d n=%d", k, name, d, m, n), p: p, T: 30, seed: uint64(k)}
	if k%5 == 0 {
		c.hf = new(-0.3)
		p.HF = c.hf
	}
	// Seeds: the safe actions within 0.3 of the first safe one.
	first := -1
	for i := range x {
		if p.Safe(i, 0.05) {
			first = i
			break
		}
	}
	if first < 0 {
		return nil
	}
	for i := range x {
		if p.Safe(i, 0.05) && dist(x[i], x[first]) < 0.3 {
			p.Seed = append(p.Seed, i)
		}
	}
	g, _ := p.Safety()
	c.l = problem.LipschitzConstants(x, g)
	switch k % 4 {
	case 1: // an underestimated L: larger radii
		for i := range c.l {
			c.l[i] *= 0.3
		}
	case 2: // overestimated: smaller radii
		for i := range c.l {
			c.l[i] *= 3
		}
	}
	se := kernel.SE{Variance: 1, Lengthscale: 0.2 + 0.5*rng.Float64()}
	var ks []kernel.Kernel
	for range m {
		ks = append(ks, se)
	}
	c.model = Model{Objective: se, Constraints: ks, NoiseStd: 0.05, Delta: 0.05, Beta: PaperBeta}
	c.noise = 0.05
	if k%3 == 0 {
		// A model that believes less noise than there is: intervals
		// disjoint from the kept ones, whose reset makes some ℓ fall.
		c.model.NoiseStd, c.noise = 0.001, 0.3
		c.model.Beta = Beta{Value: 0.01}
	}
	c.spec = Spec{Name: name, SafeSet: "lipschitz"}
	if name != "safeopt" {
		c.spec.Exploration = Exploration{Fixed: new(5 + rng.IntN(15))}
	}
	return c
}

func dot(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

func dist(a, b []float64) float64 { return math.Sqrt(dot(sub(a, b), sub(a, b))) }

func sub(a, b []float64) []float64 {
	out := make([]float64, len(a))
	for i := range a {
		out[i] = a[i] - b[i]
	}
	return out
}

// compare fails the test unless both runs played the same actions with the
// same S_t and G_t every round.
func compare(t *testing.T, name string, want, got lipRun) {
	t.Helper()
	for r := range want.actions {
		if !slices.Equal(want.safe[r], got.safe[r]) {
			t.Fatalf("%s round %d: S_t differs", name, r+1)
		}
		if !slices.Equal(want.inG[r], got.inG[r]) {
			t.Fatalf("%s round %d: G_t differs", name, r+1)
		}
		if want.actions[r] != got.actions[r] {
			t.Fatalf("%s round %d: action %d, want %d", name, r+1, got.actions[r], want.actions[r])
		}
	}
}

// TestLipschitzIndexSameAsScan replays 240 random lipschitz-mode runs
// (d = 1 … 6, one and two constraints, some with an objective threshold,
// true, under- and overestimated L_i, a third with a misspecified noise
// that makes bounds reset) of safeopt, safeopt-mc and stageopt with the
// neighbour search and with the pair scan it replaces: the same action, S_t
// and G_t every round, exactly.
func TestLipschitzIndexSameAsScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 13))
	runs, fell, grew := 0, 0, 0
	for k := 0; runs < 240; k++ {
		c := randomLipCase(rng, k)
		if c == nil {
			continue
		}
		runs++
		want := c.play(t, true)
		got := c.play(t, false)
		compare(t, c.name, want, got)
		if want.fellOnce {
			fell++
		}
		if n0, n1 := count(want.safe[0]), count(want.safe[len(want.safe)-1]); n1 > n0 {
			grew++
		}
	}
	// The test must exercise what it guards: bounds that fell, and safe
	// sets that grew.
	if fell == 0 || grew < runs/3 {
		t.Errorf("%d runs: ℓ fell in %d, S_t grew in %d", runs, fell, grew)
	}
	t.Logf("%d runs: ℓ fell in %d, S_t grew in %d", runs, fell, grew)
}

func count(b []bool) int {
	n := 0
	for _, v := range b {
		if v {
			n++
		}
	}
	return n
}

// TestLipschitzIndexGolden replays the lipschitz-mode algorithms of the
// golden case public_baselines (testdata/) with both searches.
func TestLipschitzIndexGolden(t *testing.T) {
	f, err := os.Open("../testdata/public_baselines.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := problem.ReadCSV(f)
	if err != nil {
		t.Fatal(err)
	}
	p.H, p.Epsilon = []float64{-0.5, -0.5}, 0.02
	info, err := p.Analyze()
	if err != nil {
		t.Fatal(err)
	}
	model := Model{
		Objective:   kernel.Matern52{Variance: 1, Lengthscale: 1},
		Constraints: []kernel.Kernel{kernel.SE{Variance: 1, Lengthscale: 1.2}, kernel.SE{Variance: 1, Lengthscale: 0.9}},
		NoiseStd:    0.05, Delta: 0.05, Beta: Beta{Value: 4},
	}
	for _, s := range []Spec{
		{Name: "safeopt", SafeSet: "lipschitz"},
		{Name: "safeopt-mc", SafeSet: "lipschitz", Exploration: Exploration{Fixed: new(15)}},
		{Name: "stageopt", SafeSet: "lipschitz", Exploration: Exploration{Fixed: new(15)}},
	} {
		c := &lipCase{name: "public_baselines " + s.Name, p: p, l: info.Lipschitz, model: model, spec: s, T: 40, seed: 2}
		compare(t, c.name, c.play(t, true), c.play(t, false))
	}
}
