package problem_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/safegp/safegp/kernel"
	"github.com/safegp/safegp/problem"
)

func genSpec() *problem.GenerateSpec {
	return &problem.GenerateSpec{
		DecisionSet: problem.DecisionSetSpec{Kind: "unit-disk", Size: 20},
		Objective:   kernel.Spec{Kernel: "se", Lengthscale: kernel.Iso(1)},
		Constraints: []kernel.Spec{{Kernel: "se", Lengthscale: kernel.Iso(0.5)}},
		SeedSet:     problem.SeedSetSpec{Size: []int{2, 3}},
	}
}

// TestGenerateSpecCheck: every refused generator names its key (relative
// to the spec) and wraps ErrInvalid, or kernel.ErrInvalid for a kernel.
func TestGenerateSpecCheck(t *testing.T) {
	t.Parallel()
	if err := genSpec().Check(); err != nil {
		t.Fatal(err)
	}
	grid := problem.DecisionSetSpec{Kind: "grid", Bounds: [][2]float64{{0, 1}}, Points: []int{5}}
	cases := []struct {
		name   string
		mutate func(s *problem.GenerateSpec)
		key    string // the message starts with it
		value  string // and shows the value at fault
		is     error
	}{
		{"disk of dimension 3", func(s *problem.GenerateSpec) { s.DecisionSet.Dim = 3 }, "decision_set.dim", `3`, problem.ErrInvalid},
		{"ball of dimension 0", func(s *problem.GenerateSpec) { s.DecisionSet.Kind = "unit-ball" }, "decision_set.dim", `0`, problem.ErrInvalid},
		{"one action", func(s *problem.GenerateSpec) { s.DecisionSet.Size = 1 }, "decision_set.size", `1`, problem.ErrInvalid},
		{"too many to draw", func(s *problem.GenerateSpec) { s.DecisionSet.Size = problem.MaxDrawnActions + 1 }, "decision_set.size", `5001`, problem.ErrInvalid},
		{"bounds for a disk", func(s *problem.GenerateSpec) { s.DecisionSet.Points = []int{3} }, "decision_set", `unit-disk`, problem.ErrInvalid},
		{"basis for a grid", func(s *problem.GenerateSpec) { s.DecisionSet = grid; s.DecisionSet.Basis = true }, "decision_set.basis", ``, problem.ErrInvalid},
		{"grid without points", func(s *problem.GenerateSpec) { s.DecisionSet = grid; s.DecisionSet.Points = nil }, "decision_set", `0`, problem.ErrInvalid},
		{"grid of the wrong dim", func(s *problem.GenerateSpec) { s.DecisionSet = grid; s.DecisionSet.Dim = 2 }, "decision_set.dim", `2`, problem.ErrInvalid},
		{"grid axis too long", func(s *problem.GenerateSpec) { s.DecisionSet = grid; s.DecisionSet.Points = []int{6000} }, "decision_set.points[0]", `6000`, problem.ErrInvalid},
		{"grid bounds reversed", func(s *problem.GenerateSpec) {
			s.DecisionSet = grid
			s.DecisionSet.Bounds = [][2]float64{{1, 0}}
		}, "decision_set.bounds[0]", `[1 0]`, problem.ErrInvalid},
		{"grid bound NaN", func(s *problem.GenerateSpec) {
			s.DecisionSet = grid
			s.DecisionSet.Bounds = [][2]float64{{math.NaN(), 1}}
		}, "decision_set.bounds[0]", `NaN`, problem.ErrInvalid},
		{"grid axis empty", func(s *problem.GenerateSpec) { s.DecisionSet = grid; s.DecisionSet.Points = []int{0} }, "decision_set.points[0]", `0`, problem.ErrInvalid},
		{"grid too large", func(s *problem.GenerateSpec) {
			s.DecisionSet = problem.DecisionSetSpec{Kind: "grid", Bounds: [][2]float64{{0, 1}, {0, 1}}, Points: []int{100, 100}}
		}, "decision_set.points", `10000`, problem.ErrInvalid},
		{"grid of one point", func(s *problem.GenerateSpec) { s.DecisionSet = grid; s.DecisionSet.Points = []int{1} }, "decision_set.points", `1`, problem.ErrInvalid},
		{"no kind", func(s *problem.GenerateSpec) { s.DecisionSet.Kind = "" }, "decision_set.kind", `missing`, problem.ErrInvalid},
		{"unknown kind", func(s *problem.GenerateSpec) { s.DecisionSet.Kind = "torus" }, "decision_set.kind", `torus`, problem.ErrInvalid},
		{"objective kernel", func(s *problem.GenerateSpec) { s.Objective.Lengthscale = kernel.Iso(-2) }, "objective.lengthscale", `-2`, kernel.ErrInvalid},
		{"ARD objective for another dimension", func(s *problem.GenerateSpec) { s.Objective.Lengthscale = kernel.Lengthscale{1, 2, 3} }, "objective.lengthscale", `3 lengthscales for 2 input dimensions`, kernel.ErrInvalid},
		{"ARD constraint on a 1-D grid", func(s *problem.GenerateSpec) {
			s.DecisionSet = grid
			s.Constraints[0].Lengthscale = kernel.Lengthscale{1, 2}
		}, "constraints[0].lengthscale", `2 lengthscales for 1 input dimension`, kernel.ErrInvalid},
		{"noise_std of a drawing kernel", func(s *problem.GenerateSpec) { s.Constraints[0].NoiseStd = new(0.1) }, "constraints[0].noise_std", `problem.noise_std`, problem.ErrInvalid},
		{"constraint kernel", func(s *problem.GenerateSpec) { s.Constraints = append(s.Constraints, kernel.Spec{Kernel: "rbf"}) }, "constraints[1].kernel", `rbf`, kernel.ErrInvalid},
		{"seeds from elsewhere", func(s *problem.GenerateSpec) { s.SeedSet.From = "all" }, "seed_set.from", `all`, problem.ErrInvalid},
		{"two seed rules", func(s *problem.GenerateSpec) { s.SeedSet.All = true }, "seed_set", ``, problem.ErrInvalid},
		{"empty indices", func(s *problem.GenerateSpec) { s.SeedSet = problem.SeedSetSpec{Indices: []int{}} }, "seed_set.indices", `empty`, problem.ErrInvalid},
		{"index out of range", func(s *problem.GenerateSpec) { s.SeedSet = problem.SeedSetSpec{Indices: []int{3, 20}} }, "seed_set.indices[1]", `20`, problem.ErrInvalid},
		{"index twice", func(s *problem.GenerateSpec) { s.SeedSet = problem.SeedSetSpec{Indices: []int{3, 3}} }, "seed_set.indices[1]", `3`, problem.ErrInvalid},
		{"size reversed", func(s *problem.GenerateSpec) { s.SeedSet.Size = []int{3, 2} }, "seed_set.size", `[3 2]`, problem.ErrInvalid},
		{"size of three numbers", func(s *problem.GenerateSpec) { s.SeedSet.Size = []int{1, 2, 3} }, "seed_set.size", `got a list of 3`, problem.ErrInvalid},
	}
	for _, c := range cases {
		s := genSpec()
		c.mutate(s)
		err := s.Check()
		if !errors.Is(err, c.is) || !strings.HasPrefix(err.Error(), c.key+": ") || !strings.Contains(err.Error(), c.value) {
			t.Errorf("%s: got %v, want %v starting %q and showing %q", c.name, err, c.is, c.key, c.value)
		}
		if _, gerr := problem.Generate(s, []float64{0}, 0.01, 0, rand.New(rand.NewPCG(1, 1))); gerr == nil || gerr.Error() != err.Error() {
			t.Errorf("%s: Generate says %v, Check %v", c.name, gerr, err)
		}
	}
	if _, err := problem.Generate(genSpec(), []float64{0, 0}, 0.01, 0, rand.New(rand.NewPCG(1, 1))); !errors.Is(err, problem.ErrInvalid) || !strings.HasPrefix(err.Error(), "thresholds: ") {
		t.Errorf("two thresholds for one constraint: %v", err)
	}
	// No constraint: the spec alone is fine (an objective threshold may
	// be the safety condition), a draw without h_f is not.
	s := genSpec()
	s.Constraints = nil
	if err := s.Check(); err != nil {
		t.Errorf("no constraints: Check: %v", err)
	}
	if _, err := problem.Generate(s, nil, 0.01, 0, rand.New(rand.NewPCG(1, 1))); !errors.Is(err, problem.ErrInvalid) || !strings.HasPrefix(err.Error(), "constraints: ") {
		t.Errorf("no constraints and no h_f: %v", err)
	}
}

// TestGenerateObjectiveThreshold: with h_f the seed set and the ε-safe set
// respect f ≥ h_f, with or without constraints.
func TestGenerateObjectiveThreshold(t *testing.T) {
	t.Parallel()
	hf := 0.0
	for _, c := range []struct {
		name string
		cons int
		seed problem.SeedSetSpec
	}{
		{"drawn seeds, one constraint", 1, problem.SeedSetSpec{Size: []int{2, 3}}},
		{"drawn seeds, no constraint", 0, problem.SeedSetSpec{Size: []int{2, 3}}},
		{"all safe", 1, problem.SeedSetSpec{All: true}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := genSpec()
			s.Constraints = s.Constraints[:c.cons]
			s.SeedSet = c.seed
			h := make([]float64, c.cons)
			for r := range uint64(20) {
				p, err := problem.GenerateHF(s, h, &hf, 0.01, 0, rand.New(rand.NewPCG(5, r)))
				if err != nil {
					t.Fatal(err)
				}
				if p.HF == nil || *p.HF != hf {
					t.Fatalf("HF = %v", p.HF)
				}
				for _, i := range p.Seed {
					if p.F[i] < hf || !p.Safe(i, 0) {
						t.Errorf("draw %d: seed action %d has f = %v < h_f", r, i, p.F[i])
					}
				}
				info, err := p.Analyze()
				if err != nil {
					t.Fatal(err)
				}
				if p.F[info.XStar] < hf+0.01 {
					t.Errorf("draw %d: x* = %d has f = %v < h_f + ε", r, info.XStar, p.F[info.XStar])
				}
				if c.seed.All {
					for i, safe := range info.SafeTrue {
						if safe != slices.Contains(p.Seed, i) {
							t.Errorf("draw %d: all: action %d safe %v, in the seed set %v", r, i, safe, !safe)
						}
					}
				}
			}
		})
	}
}

// TestGenerateARD: the generator draws with ARD kernels as with isotropic
// ones. k with lengthscales ℓ_j on D is the isotropic kernel of ℓ = 1 on
// D' = {x_j/ℓ_j}; with ℓ_j powers of two the rescaled grid and every
// scaled difference are exact in floating point, so the two problems drawn
// from the same stream are equal to the bit.
func TestGenerateARD(t *testing.T) {
	t.Parallel()
	ard := kernel.Lengthscale{0.5, 2}
	spec := func(bounds [][2]float64, l kernel.Lengthscale) *problem.GenerateSpec {
		return &problem.GenerateSpec{
			DecisionSet: problem.DecisionSetSpec{Kind: "grid", Bounds: bounds, Points: []int{6, 5}},
			Objective:   kernel.Spec{Kernel: "se", Lengthscale: l},
			Constraints: []kernel.Spec{{Kernel: "matern52", Lengthscale: l}, {Kernel: "matern32", Lengthscale: l}},
			SeedSet:     problem.SeedSetSpec{All: true},
		}
	}
	bounds := [][2]float64{{-1, 1}, {0, 3}}
	scaled := [][2]float64{{-1 / ard[0], 1 / ard[0]}, {0, 3 / ard[1]}}
	for r := range uint64(5) {
		a, err := problem.Generate(spec(bounds, ard), []float64{-0.5, -0.5}, 0.01, 0, rand.New(rand.NewPCG(8, r)))
		if err != nil {
			t.Fatal(err)
		}
		b, err := problem.Generate(spec(scaled, kernel.Iso(1)), []float64{-0.5, -0.5}, 0.01, 0, rand.New(rand.NewPCG(8, r)))
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(a.F, b.F) || !slices.Equal(a.G[0], b.G[0]) || !slices.Equal(a.G[1], b.G[1]) || !slices.Equal(a.Seed, b.Seed) {
			t.Errorf("draw %d: ARD on D and isotropic on the rescaled D differ:\nf %v\n  %v", r, a.F, b.F)
		}
	}
}

// TestGenerateSeedRules: a grid with fixed seed indices keeps them (a draw
// where one is unsafe is redrawn), `all` makes D^s_0 the seed set, and a
// seed set larger than any draw's safe set runs out of draws with
// ErrNoSafeOptimum.
func TestGenerateSeedRules(t *testing.T) {
	t.Parallel()
	s := genSpec()
	s.DecisionSet = problem.DecisionSetSpec{Kind: "grid", Bounds: [][2]float64{{0, 2}, {0, 1}}, Points: []int{5, 3}}
	s.SeedSet = problem.SeedSetSpec{Indices: []int{7, 6}}
	p, err := problem.Generate(s, []float64{0}, 0.01, 0.1, rand.New(rand.NewPCG(2, 2)))
	if err != nil {
		t.Fatal(err)
	}
	if p.N() != 15 || p.Dim() != 2 || !slices.Equal(p.Seed, []int{6, 7}) || p.NoiseStd != 0.1 {
		t.Errorf("grid with indices: N %d, d %d, seeds %v, noise %v", p.N(), p.Dim(), p.Seed, p.NoiseStd)
	}
	if got := p.X[7]; got[0] != 1 || got[1] != 0.5 { // row-major, the last axis fastest: 7 = 2·3 + 1
		t.Errorf("x_7 = %v, want (1, 0.5)", got)
	}
	for _, i := range p.Seed {
		if !p.Safe(i, 0) {
			t.Errorf("seed %d is unsafe: g = %v", i, p.G[0][i])
		}
	}
	s.SeedSet = problem.SeedSetSpec{All: true}
	p, err = problem.Generate(s, []float64{0}, 0.01, 0, rand.New(rand.NewPCG(3, 3)))
	if err != nil {
		t.Fatal(err)
	}
	var safe []int
	for i, ok := range p.SafeSet(0) {
		if ok {
			safe = append(safe, i)
		}
	}
	if !slices.Equal(p.Seed, safe) {
		t.Errorf("all: seeds %v, D^s_0 %v", p.Seed, safe)
	}
	s.SeedSet = problem.SeedSetSpec{Size: []int{15}} // every action safe: never, with h = 3
	if _, err := problem.Generate(s, []float64{3}, 0.01, 0, rand.New(rand.NewPCG(4, 4))); !errors.Is(err, problem.ErrNoSafeOptimum) {
		t.Errorf("an impossible seed set: %v, want ErrNoSafeOptimum", err)
	}
}

// TestGenerateContextRefuses: GenerateContext refuses, before drawing, no
// contexts, a bad generator, more than MaxDrawnActions points (x, c) and
// contexts of different or zero length, naming the key; and an infinite
// objective threshold.
func TestGenerateContextRefuses(t *testing.T) {
	t.Parallel()
	kc := kernel.SE{Variance: 1, Lengthscale: 1}
	ctx := func(n int) [][]float64 {
		c := make([][]float64, n)
		for i := range c {
			c[i] = []float64{float64(i)}
		}
		return c
	}
	inf := math.Inf(1)
	for _, c := range []struct {
		name     string
		spec     func(s *problem.GenerateSpec)
		contexts [][]float64
		hf       *float64
		want     string
	}{
		{"none", nil, nil, nil, "contexts: none given"},
		{"bad spec", func(s *problem.GenerateSpec) { s.DecisionSet.Size = 1 }, ctx(2), nil, "decision_set.size"},
		{"too many points", nil, ctx(problem.MaxDrawnActions/20 + 1), nil, "contexts: 20 actions × 251 contexts = 5020 points (x, c), at most 5000"},
		{"lengths differ", nil, [][]float64{{0}, {1, 2}}, nil, "contexts[1]: 2 values, contexts[0] has 1"},
		{"empty context", nil, [][]float64{{}, {}}, nil, "contexts[0]: 0 values, contexts[0] has 0"},
		{"objective threshold", nil, ctx(2), &inf, "objective_threshold: must be a finite number within ±1e100, got +Inf"},
	} {
		s := genSpec()
		if c.spec != nil {
			c.spec(s)
		}
		cp, err := problem.GenerateContext(s, c.contexts, kc, []float64{0}, c.hf, 0.1, 0.05, rand.New(rand.NewPCG(1, 2)))
		if !errors.Is(err, problem.ErrInvalid) || !strings.Contains(err.Error(), c.want) || cp != nil {
			t.Errorf("%s: %v, want ErrInvalid saying %q", c.name, err, c.want)
		}
	}
}
