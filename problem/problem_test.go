package problem_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/safegp/safegp/kernel"
	"github.com/safegp/safegp/problem"
)

func TestReadCSV(t *testing.T) {
	t.Parallel()
	p, err := problem.ReadCSV(strings.NewReader("\ufeffx1,x2,f,g1,g2,seed\n0,0,1,2,3,1\n1,0,4,5,6,0\n0,1,7,8,9,1\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := &problem.Problem{
		X:    [][]float64{{0, 0}, {1, 0}, {0, 1}},
		F:    []float64{1, 4, 7},
		G:    [][]float64{{2, 5, 8}, {3, 6, 9}},
		Seed: []int{0, 2},
	}
	if d := cmp.Diff(want, p); d != "" {
		t.Error(d)
	}
	for _, c := range []struct{ csv, want string }{
		{"", "empty file"},
		{"f,g1\n1,2\n3,4\n", `first column must be x1, got "f"`},
		{"x1,x3,f,g1\n", `column 2 must be x2 or f, got "x3"`},
		{"x1,g1\n", `column 2 must be x2 or f, got "g1"`},
		{"x1,f\n", "needs at least 2 rows"},
		{"x1,f,g1,noise_std\n0,1,1,-0.5\n1,2,1,0\n", "column noise_std: -0.5 is negative"},
		{"x1,f,noise_std,seed\n", `unexpected column "seed"`},
		{"x1,f,g1,seed,extra\n", `unexpected column "extra"`},
		{"x1,f,g1,seed\n0,1,1,2\n1,1,1,0\n", "line 2, column seed: 2"},
		{"x1,f,g1\n0,abc,1\n1,1,1\n", `line 2, column f: "abc"`},
	} {
		if _, err := problem.ReadCSV(strings.NewReader(c.csv)); !errors.Is(err, problem.ErrInvalid) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v, want ErrInvalid mentioning %q", c.csv, err, c.want)
		}
	}
}

func TestLipschitzHand(t *testing.T) {
	t.Parallel()
	// g1: slopes 2/1, 1/2, 3/3 between the points 0, 1, 3 → 2.
	// g2: slopes 1, 1/3, 0, 5/3, 6/2 → 3; the coincident pair (3, 3), whose
	// values differ, would be infinite and is skipped.
	x := [][]float64{{0}, {1}, {3}, {3}}
	g := [][]float64{{0, 2, 3, 3}, {0, -1, -1, 5}}
	got := problem.LipschitzConstants(x, g)
	if d := cmp.Diff([]float64{2, 3}, got); d != "" {
		t.Error(d)
	}
}

func TestReachableHand(t *testing.T) {
	t.Parallel()
	// Points 0…3 on a line, g = 1, 0.5, 0.2, −1, h = 0, L = 1.
	// From 0: 1 − ε − |x| ≥ 0 reaches x ≤ 1 − ε; from 1: 0.5 − ε − |x−1| ≥ 0
	// reaches only |x−1| ≤ 0.5 − ε.
	x := [][]float64{{0}, {1}, {2}, {3}}
	g := [][]float64{{1, 0.5, 0.2, -1}}
	cases := []struct {
		eps  float64
		seed []int
		want []bool
	}{
		{0, []int{0}, []bool{true, true, false, false}},
		{0.6, []int{0}, []bool{true, false, false, false}},
		{0, []int{2}, []bool{false, false, true, false}},
	}
	for _, c := range cases {
		got := problem.Reachable(x, g, []float64{0}, []float64{1}, c.eps, c.seed)
		if d := cmp.Diff(c.want, got); d != "" {
			t.Errorf("eps %v seed %v: %s", c.eps, c.seed, d)
		}
	}
	// A chain: each step certifies the next, so the fixed point needs
	// several rounds of R_ε.
	x = [][]float64{{0}, {1}, {2}, {3}}
	g = [][]float64{{3, 2.5, 1.5, 0.4}}
	got := problem.Reachable(x, g, []float64{0}, []float64{1}, 0, []int{0})
	if d := cmp.Diff([]bool{true, true, true, true}, got); d != "" {
		t.Error(d)
	}
}

func TestAnalyze(t *testing.T) {
	t.Parallel()
	p := &problem.Problem{
		X:    [][]float64{{0}, {1}, {2}, {3}},
		F:    []float64{0, 1, 5, 9},
		G:    [][]float64{{1, 0.5, 0.2, -1}},
		H:    []float64{0},
		Seed: []int{0},
	}
	p.Epsilon = 0.3
	info, err := p.Analyze()
	if err != nil {
		t.Fatal(err)
	}
	// D^s_ε = {0, 1}; x* = 1. L = 1.2 (0.2 → −1 over distance 1).
	// Reachable from 0: 1 − 0.3 − 1.2|x| ≥ 0 → only x = 0; f*_ε = 0.
	if info.XStar != 1 || info.FStar != 1 || info.FReach != 0 || math.Abs(info.Lipschitz[0]-1.2) > 1e-12 {
		t.Errorf("got x*=%d f*=%v freach=%v L=%v", info.XStar, info.FStar, info.FReach, info.Lipschitz)
	}
	if d := cmp.Diff([]bool{true, true, true, false}, info.SafeTrue); d != "" {
		t.Error(d)
	}
	p.Epsilon = 2
	p.Lipschitz = nil
	if _, err := p.Analyze(); !errors.Is(err, problem.ErrNoSafeOptimum) {
		t.Errorf("empty ε-safe set: got %v, want ErrNoSafeOptimum", err)
	}
}

func TestArgmaxTiesLowestIndex(t *testing.T) {
	t.Parallel()
	i, ok := problem.Argmax([]float64{1, 3, 3, 2}, []bool{true, true, true, true})
	if !ok || i != 1 {
		t.Errorf("got %d", i)
	}
	i, ok = problem.Argmax([]float64{1, 3, 3, 2}, []bool{true, false, true, true})
	if !ok || i != 2 {
		t.Errorf("got %d", i)
	}
	if _, ok := problem.Argmax([]float64{1}, []bool{false}); ok {
		t.Error("empty set: ok")
	}
}

func TestGenerate(t *testing.T) {
	t.Parallel()
	spec := &problem.GenerateSpec{
		DecisionSet: problem.DecisionSetSpec{Kind: "unit-disk", Size: 100},
		Objective:   kernel.Spec{Kernel: "se", Lengthscale: kernel.Iso(1)},
		Constraints: []kernel.Spec{{Kernel: "se", Lengthscale: kernel.Iso(0.1)}},
		SeedSet:     problem.SeedSetSpec{Size: []int{11, 20}},
	}
	for r := uint64(0); r < 20; r++ {
		p, err := problem.Generate(spec, []float64{0}, 0.01, 0.1, rand.New(rand.NewPCG(7, r)))
		if err != nil {
			t.Fatal(err)
		}
		if len(p.X) != 100 || len(p.Seed) < 11 || len(p.Seed) > 20 {
			t.Fatalf("N=%d |seed|=%d", len(p.X), len(p.Seed))
		}
		for _, x := range p.X {
			if x[0]*x[0]+x[1]*x[1] > 1 {
				t.Fatalf("point %v outside the unit disk", x)
			}
		}
		for _, s := range p.Seed {
			if p.G[0][s] < 0 {
				t.Fatalf("seed %d unsafe", s)
			}
		}
		again, _ := problem.Generate(spec, []float64{0}, 0.01, 0.1, rand.New(rand.NewPCG(7, r)))
		if d := cmp.Diff(p, again); d != "" {
			t.Fatal("same stream, different problem")
		}
		if _, err := p.Analyze(); err != nil {
			t.Fatal(err)
		}
	}
}

func TestGrid(t *testing.T) {
	t.Parallel()
	got := problem.Grid([][2]float64{{0, 1}, {-1, 1}}, []int{2, 3})
	want := [][]float64{{0, -1}, {0, 0}, {0, 1}, {1, -1}, {1, 0}, {1, 1}}
	if d := cmp.Diff(want, got); d != "" {
		t.Error(d)
	}
}

func TestSampleGPCovariance(t *testing.T) {
	t.Parallel()
	// Two points at distance 1 under SE(ℓ=1): Var = 1, Cov = e^{-1/2}.
	// With n = 20000 draws the standard error of a sample (co)variance is
	// about √(2/n) ≈ 0.01; we allow 0.05 (5 standard errors).
	x := [][]float64{{0}, {1}}
	k := kernel.SE{Variance: 1, Lengthscale: 1}
	rng := rand.New(rand.NewPCG(5, 6))
	const n = 20000
	var s00, s01, s11 float64
	for i := 0; i < n; i++ {
		f, err := problem.SampleGP(k, x, rng)
		if err != nil {
			t.Fatal(err)
		}
		s00 += f[0] * f[0]
		s01 += f[0] * f[1]
		s11 += f[1] * f[1]
	}
	for _, c := range []struct{ got, want float64 }{{s00 / n, 1}, {s01 / n, math.Exp(-0.5)}, {s11 / n, 1}} {
		if math.Abs(c.got-c.want) > 0.05 {
			t.Errorf("sample moment %v, want %v", c.got, c.want)
		}
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	good := func() *problem.Problem {
		return &problem.Problem{X: [][]float64{{0}, {1}}, F: []float64{0, 1}, G: [][]float64{{1, -1}}, H: []float64{0}, Seed: []int{0}}
	}
	if err := good().Validate(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		mutate func(p *problem.Problem)
		want   string // the field and the value at fault
	}{
		{"one action", func(p *problem.Problem) { p.X, p.F, p.G = p.X[:1], p.F[:1], [][]float64{{1}} }, "at least 2 actions, got 1"},
		{"dim mismatch", func(p *problem.Problem) { p.X[1] = []float64{1, 2} }, "action 1: dimension 2"},
		{"duplicate point", func(p *problem.Problem) { p.X[1] = []float64{0} }, "actions 0 and 1 are the same point"},
		{"nan", func(p *problem.Problem) { p.F[1] = math.NaN() }, "action 1: f = NaN"},
		{"empty seed", func(p *problem.Problem) { p.Seed = nil }, "seed set: empty"},
		{"unsafe seed", func(p *problem.Problem) { p.Seed = []int{1} }, "seed action 1: g1 = -1"},
		{"seed range", func(p *problem.Problem) { p.Seed = []int{5} }, "5 is outside"},
		{"threshold count", func(p *problem.Problem) { p.H = []float64{0, 0} }, "thresholds: 2 given"},
		{"negative noise", func(p *problem.Problem) { p.NoiseStd = -1 }, "noise_std: must be a finite number ≥ 0, got -1"},
		{"no safety condition", func(p *problem.Problem) { p.G, p.H = nil, nil }, "needs at least one constraint or an objective threshold"},
		{"seed below h_f", func(p *problem.Problem) { p.HF = ptr(0.5) }, "seed action 0: f = 0 is below the objective threshold 0.5"},
		{"h_f infinite", func(p *problem.Problem) { p.HF = ptr(math.Inf(-1)) }, "objective_threshold = -Inf"},
		{"dimension 0", func(p *problem.Problem) { p.X = [][]float64{{}, {}} }, "actions have dimension 0"},
		{"f count", func(p *problem.Problem) { p.F = p.F[:1] }, "f has 1 values for 2 actions"},
		{"g count", func(p *problem.Problem) { p.G[0] = append(p.G[0], 3) }, "g1 has 3 values for 2 actions"},
		{"g beyond 1e100", func(p *problem.Problem) { p.G[0][1] = -1e101 }, "action 1: g1 = -1e+101 is not finite"},
		{"threshold infinite", func(p *problem.Problem) { p.H[0] = math.Inf(1) }, "thresholds[0] = +Inf is not finite"},
		{"negative epsilon", func(p *problem.Problem) { p.Epsilon = -0.1 }, "epsilon: must be a finite number ≥ 0, got -0.1"},
		{"epsilon NaN", func(p *problem.Problem) { p.Epsilon = math.NaN() }, "epsilon: must be a finite number ≥ 0, got NaN"},
		{"seed descending", func(p *problem.Problem) { p.G[0][1] = 1; p.Seed = []int{1, 0} }, "seed set: indices must be ascending"},
	} {
		p := good()
		c.mutate(p)
		if err := p.Validate(); !errors.Is(err, problem.ErrInvalid) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want ErrInvalid mentioning %q", c.name, err, c.want)
		}
	}
}

// TestReadActions: a decision set file is a header x1…xd[,seed] and one
// row per action; the seed column marks the seed set, and every way the
// file can be wrong is ErrInvalid naming the line or column.
func TestReadActions(t *testing.T) {
	t.Parallel()
	x, seed, err := problem.ReadActions(strings.NewReader("\ufeffx1, x2 ,seed\n# a comment\n0,1,1\n0.5, 2, 0\n1,3,1\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(x) != 3 || x[1][0] != 0.5 || x[2][1] != 3 || len(seed) != 2 || seed[0] != 0 || seed[1] != 2 {
		t.Errorf("got %v, seed %v; want 3 actions, seed [0 2]", x, seed)
	}
	if x, seed, err := problem.ReadActions(strings.NewReader("x1\n4\n")); err != nil || len(x) != 1 || seed != nil {
		t.Errorf("without a seed column: %v, %v, %v; want one action and a nil seed set", x, seed, err)
	}
	for _, c := range []struct{ in, want string }{
		{"", "empty file, want a header row"},
		{"# only a comment\n", "empty file"},
		{"y1,y2\n0,1\n", `header: first column must be x1, got "y1"`},
		{"x1,x3\n0,1\n", `header: unexpected column "x3"`},
		{"x1,seed,f\n0,1,2\n", `header: unexpected column "f"`},
		{"x1,seed\n0,2\n", "line 2, column seed: 2 is neither 0 nor 1"},
		{"x1\n0\nabc\n", "line 3, column x1"},
		{"x1,x2\n0,1\n2\n", "wrong number of fields"},
		{"x1\n\"0\n", "extraneous or missing"},
		{"\"x1\n", "extraneous or missing"},
	} {
		_, _, err := problem.ReadActions(strings.NewReader(c.in))
		if !errors.Is(err, problem.ErrInvalid) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want ErrInvalid saying %q", c.in, err, c.want)
		}
	}
	if d := (&problem.Data{}).Dim(); d != 0 {
		t.Errorf("an empty data set's dimension: %d, want 0", d)
	}
	if d := (&problem.Data{X: [][]float64{{1, 2, 3}}}).Dim(); d != 3 {
		t.Errorf("dimension %d, want 3", d)
	}
}

// TestValidateObjectiveThreshold: with h_f a problem needs no constraint,
// and a seed action meeting h_f exactly is safe (f ≥ h_f, SPEC §1's ≥).
func TestValidateObjectiveThreshold(t *testing.T) {
	t.Parallel()
	p := &problem.Problem{X: [][]float64{{0}, {1}}, F: []float64{0, 1}, HF: ptr(0.0), Seed: []int{0}}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	p.G, p.H = [][]float64{{1, -1}}, []float64{0}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
}

func ptr(v float64) *float64 { return &v }

// safeObjectiveProblem is a hand-made problem for the objective threshold:
// six actions on a line, one constraint g and h_f = 0.9, ε = 0.05, seed
// {0}. Action 2 is safe for g and not for f (f = 0.8); action 4 is unsafe
// for g; action 5 meets h_f but not h_f + ε.
//
//	x: 0    1    2    3    6    10
//	f: 3    2    0.8  1.4  2    0.92
//	g: 2    2    2    2   −1    2
//
// L_f = 1.2 (actions 1 → 2: |2 − 0.8|/1; every other pair is flatter,
// e.g. 0 → 2: 2.2/2 = 1.1); L_g = 1 (actions 3 → 4: 3/3).
func safeObjectiveProblem() *problem.Problem {
	return &problem.Problem{
		X:       [][]float64{{0}, {1}, {2}, {3}, {6}, {10}},
		F:       []float64{3, 2, 0.8, 1.4, 2, 0.92},
		G:       [][]float64{{2, 2, 2, 2, -1, 2}},
		H:       []float64{0},
		HF:      ptr(0.9),
		Epsilon: 0.05,
		Seed:    []int{0},
	}
}

// TestAnalyzeObjectiveThreshold checks each of SPEC §1's quantities by hand
// with f ≥ h_f counted as one more constraint, against the same problem
// without h_f, and with no constraint at all.
func TestAnalyzeObjectiveThreshold(t *testing.T) {
	t.Parallel()
	type want struct {
		safe, safeEps, reach []bool
		lip                  []float64
		xStar                int
		fStar, fReach        float64
	}
	for _, c := range []struct {
		name   string
		mutate func(p *problem.Problem)
		want   want
	}{
		{
			// D^s_0: g ≥ 0 and f ≥ 0.9 → {0, 1, 3, 5}; D^s_ε: g ≥ 0.05 and
			// f ≥ 0.95 → {0, 1, 3}; x* = 0 (f = 3). R̄_ε from 0: g allows
			// 2 − 0.05 − 1·d ≥ 0, d ≤ 1.95; f allows 3 − 0.05 − 1.2·d ≥ 0.9,
			// d ≤ 1.708 → action 1; from 1, f allows 2 − 0.05 − 1.2·d ≥ 0.9,
			// d ≤ 0.875 → nothing: R̄ = {0, 1}, f*_ε = 3.
			"h_f and g", func(*problem.Problem) {},
			want{
				safe:    []bool{true, true, false, true, false, true},
				safeEps: []bool{true, true, false, true, false, false},
				reach:   []bool{true, true, false, false, false, false},
				lip:     []float64{1, 1.2}, xStar: 0, fStar: 3, fReach: 3,
			},
		},
		{
			// Without h_f: D^s_0 = D^s_ε = {0, 1, 2, 3, 5}; R̄ steps by
			// d ≤ 1.95 through 1, 2, 3 and stops at 4 (unsafe) and 5 (7 away).
			"g only", func(p *problem.Problem) { p.HF = nil },
			want{
				safe:    []bool{true, true, true, true, false, true},
				safeEps: []bool{true, true, true, true, false, true},
				reach:   []bool{true, true, true, true, false, false},
				lip:     []float64{1}, xStar: 0, fStar: 3, fReach: 3,
			},
		},
		{
			// h_f alone: action 4 (f = 2) joins the safe sets; R̄ is as with g.
			"h_f only", func(p *problem.Problem) { p.G, p.H = nil, nil },
			want{
				safe:    []bool{true, true, false, true, true, true},
				safeEps: []bool{true, true, false, true, true, false},
				reach:   []bool{true, true, false, false, false, false},
				lip:     []float64{1.2}, xStar: 0, fStar: 3, fReach: 3,
			},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := safeObjectiveProblem()
			c.mutate(p)
			if err := p.Validate(); err != nil {
				t.Fatal(err)
			}
			info, err := p.Analyze()
			if err != nil {
				t.Fatal(err)
			}
			got := want{safe: info.SafeTrue, safeEps: info.SafeEps, reach: info.Reachable, lip: info.Lipschitz,
				xStar: info.XStar, fStar: info.FStar, fReach: info.FReach}
			// The Lipschitz quotients are differences of the table's
			// decimals: exact to a few ulps.
			if d := cmp.Diff(c.want, got, cmp.AllowUnexported(want{}), cmpopts.EquateApprox(0, 1e-12)); d != "" {
				t.Error(d)
			}
			// Violations are counted with Safe(a, 0): action 2 violates
			// f ≥ h_f exactly when there is an h_f.
			for a := range p.X {
				if p.Safe(a, 0) != c.want.safe[a] {
					t.Errorf("Safe(%d, 0) = %v, want %v", a, p.Safe(a, 0), c.want.safe[a])
				}
			}
		})
	}
	// x* never moves with h_f (every action of D^s_ε has f ≤ f(x*)): a
	// threshold above f(x*) − ε empties D^s_ε instead.
	p := safeObjectiveProblem()
	p.HF = ptr(2.96)
	p.Seed = []int{0} // f = 3 ≥ 2.96: still a valid seed
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Analyze(); !errors.Is(err, problem.ErrNoSafeOptimum) || !strings.Contains(err.Error(), "f ≥ h_f + ε") {
		t.Errorf("h_f above f(x*) − ε: got %v, want ErrNoSafeOptimum naming f ≥ h_f + ε", err)
	}
}

// TestMagnitudes checks that values the arithmetic cannot carry through a
// run (regrets summed and squared, coordinates squared) are refused where
// they are read, naming the line and column.
func TestMagnitudes(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, csv, want string
	}{
		{"f = 1e308", "x1,f,g1,seed\n0,1e308,1,1\n1,0,1,0\n", "line 2, column f"},
		{"g below -1e100", "x1,f,g1,seed\n0,0,1,1\n1,0,-2e100,0\n", "line 3, column g1"},
		{"x = 1e200", "x1,f,g1,seed\n1e200,0,1,1\n1,0,1,0\n", "line 2, column x1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := problem.ReadCSV(strings.NewReader(c.csv))
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "1e100") {
				t.Errorf("got %v, want an error naming %q and the bound", err, c.want)
			}
		})
	}
	if _, err := problem.ReadCSV(strings.NewReader("x1,f,g1,seed\n0,1e100,-1e100,1\n1,0,1,0\n")); err != nil {
		t.Errorf("values at the bound: %v", err)
	}
	if _, _, err := problem.ReadActions(strings.NewReader("x1\n0\n1e101\n")); err == nil || !strings.Contains(err.Error(), "line 3") {
		t.Errorf("ReadActions 1e101: %v", err)
	}
}

// TestCheckActionsSignedZero: 0 and −0 are one point.
func TestCheckActionsSignedZero(t *testing.T) {
	t.Parallel()
	err := problem.CheckActions([][]float64{{0, 1}, {math.Copysign(0, -1), 1}})
	if err == nil || !strings.Contains(err.Error(), "same point") {
		t.Errorf("got %v, want a duplicate", err)
	}
	if err := problem.CheckActions([][]float64{{0, 1}, {0, -1}}); err != nil {
		t.Errorf("distinct points: %v", err)
	}
}
