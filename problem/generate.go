package problem

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"github.com/safegp/safegp/internal/quote"

	"github.com/safegp/safegp/internal/fielderr"
	"github.com/safegp/safegp/internal/memlimit"
	"github.com/safegp/safegp/internal/plural"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"

	"github.com/safegp/safegp/kernel"
)

// DecisionSetSpec describes a drawn or fixed decision set.
type DecisionSetSpec struct {
	// Kind is "unit-disk" (d = 2), "unit-ball" (any d): Size points drawn
	// uniformly in the unit ball; or "grid": Points[j] evenly spaced points
	// per dimension on the box Bounds.
	Kind   string       `yaml:"kind" json:"kind"`
	Dim    int          `yaml:"dim,omitempty" json:"dim,omitempty"`
	Size   int          `yaml:"size,omitempty" json:"size,omitempty"`
	Bounds [][2]float64 `yaml:"bounds,omitempty" json:"bounds,omitempty"`
	Points []int        `yaml:"points,omitempty" json:"points,omitempty"`
	// Basis appends the standard basis vectors e_1 … e_d after the drawn
	// points (the paper's linear-kernel experiment).
	Basis bool `yaml:"basis,omitempty" json:"basis,omitempty"`
}

// SeedSetSpec describes how the seed set D^w is chosen.
type SeedSetSpec struct {
	// Size is [lo, hi]: the seed set has a size drawn uniformly in lo…hi,
	// its actions drawn uniformly without replacement from From. [n] means
	// exactly n.
	Size []int `yaml:"size,omitempty" json:"size,omitempty"`
	// From is "safe" (the truly safe set D^s_0, the default).
	From string `yaml:"from,omitempty" json:"from,omitempty"`
	// Indices fixes the seed set instead; each must be truly safe.
	Indices []int `yaml:"indices,omitempty" json:"indices,omitempty"`
	// All makes the whole true safe set D^s_0 the seed set.
	All bool `yaml:"all,omitempty" json:"all,omitempty"`
}

// GenerateSpec describes a problem drawn from GP priors (SPEC §6).
type GenerateSpec struct {
	DecisionSet DecisionSetSpec `yaml:"decision_set" json:"decision_set"`
	Objective   kernel.Spec     `yaml:"objective" json:"objective"`
	Constraints []kernel.Spec   `yaml:"constraints" json:"constraints"`
	SeedSet     SeedSetSpec     `yaml:"seed_set" json:"seed_set"`
}

// MaxDrawnActions bounds the size of a decision set whose functions are
// drawn from GP priors: the draw factorizes an N×N matrix.
const MaxDrawnActions = 5000

// MaxDraws bounds the redraws Generate makes while D^s_ε is empty or the
// safe set is smaller than the drawn seed-set size.
const MaxDraws = 1000

// drawnWhy says why MaxDrawnActions bounds a drawn decision set.
const drawnWhy = " can be drawn from a GP prior (O(N³) time, O(N²) memory)"

// Check validates the spec; errors name the key relative to the spec.
func (s *GenerateSpec) Check() error {
	if err := s.DecisionSet.check(); err != nil {
		return fielderr.Under("decision_set", err)
	}
	if err := s.checkKernels(); err != nil {
		return err
	}
	if err := s.SeedSet.check(s.size()); err != nil {
		return fielderr.Under("seed_set", err)
	}
	return nil
}

// check validates the decision set; errors name the key relative to it.
func (ds *DecisionSetSpec) check() error {
	bad := func(key, format string, args ...any) error { return fielderr.New(ErrInvalid, key, format, args...) }
	switch ds.Kind {
	case "unit-disk", "unit-ball":
		if ds.Kind == "unit-disk" && ds.Dim != 0 && ds.Dim != 2 {
			return bad("dim", "unit-disk has dimension 2, got %d", ds.Dim)
		}
		if ds.Kind == "unit-ball" && ds.Dim < 1 {
			return bad("dim", "must be ≥ 1, got %d", ds.Dim)
		}
		if ds.Size < 2 {
			return bad("size", "needs at least 2 actions, got %d", ds.Size)
		}
		if ds.Size > MaxDrawnActions {
			return bad("size", "at most %d actions%s, got %d; give a larger set as a file", MaxDrawnActions, drawnWhy, ds.Size)
		}
		if ds.Bounds != nil || ds.Points != nil {
			return bad("", "bounds/points are for kind grid, not %s", quote.Short(ds.Kind))
		}
	case "grid":
		if ds.Basis {
			return bad("basis", "only for unit-disk and unit-ball")
		}
		g := GridSpec{Bounds: ds.Bounds, Points: ds.Points}
		if err := g.Check(MaxDrawnActions, drawnWhy); err != nil {
			return err
		}
		if ds.Dim != 0 && ds.Dim != len(ds.Bounds) {
			return bad("dim", "%d does not match %d bounds", ds.Dim, len(ds.Bounds))
		}
	case "":
		return bad("kind", "missing (unit-disk, unit-ball or grid)")
	default:
		return bad("kind", "unknown kind %s (unit-disk, unit-ball or grid)", quote.Short(ds.Kind))
	}
	return nil
}

// checkKernels validates the drawing kernels of f and the g_i, against
// the decision set's dimension (checked first): an ARD kernel needs one
// lengthscale per dimension.
func (s *GenerateSpec) checkKernels() error {
	if err := checkDrawing(s.Objective, s.Dim()); err != nil {
		return fielderr.Under("objective", err)
	}
	for i, c := range s.Constraints {
		if err := checkDrawing(c, s.Dim()); err != nil {
			return fielderr.Under(fmt.Sprintf("constraints[%d]", i), err)
		}
	}
	return nil
}

// checkDrawing checks one drawing kernel for inputs of dimension d.
func checkDrawing(k kernel.Spec, d int) error {
	if _, err := kernel.New(k); err != nil {
		return err
	}
	if err := kernel.CheckDim(k, d); err != nil {
		return err
	}
	if k.NoiseStd != nil {
		// The functions are drawn noise-free; a drawing kernel's noise_std
		// would also become the model's by default (config.Model.Resolve),
		// which would be a second, silent meaning.
		return fielderr.New(ErrInvalid, "noise_std", "not a parameter of a drawing kernel: the simulated noise is problem.noise_std, and the noise a GP assumes is the model's noise_std or its kernel block's")
	}
	return nil
}

// check validates the seed-set rule for a decision set of n actions;
// errors name the key relative to it.
func (ss *SeedSetSpec) check(n int) error {
	bad := func(key, format string, args ...any) error { return fielderr.New(ErrInvalid, key, format, args...) }
	if ss.From != "" && ss.From != "safe" {
		return bad("from", "unknown value %s (safe)", quote.Short(ss.From))
	}
	given := 0
	for _, g := range []bool{ss.Indices != nil, ss.Size != nil, ss.All} {
		if g {
			given++
		}
	}
	switch {
	case given > 1:
		return bad("", "give one of size, indices and all")
	case ss.All:
	case ss.Indices != nil:
		if err := CheckSeed(ss.Indices, n); err != nil {
			return fielderr.Under("indices", err)
		}
	case len(ss.Size) == 1 || len(ss.Size) == 2:
		lo, hi := ss.Size[0], ss.Size[len(ss.Size)-1]
		if lo < 1 || hi < lo {
			return bad("size", "want 1 ≤ lo ≤ hi, got %v", ss.Size)
		}
	default:
		return bad("size", "want [lo, hi] or [n], got a list of %d", len(ss.Size))
	}
	return nil
}

// Size is the number of actions the decision set will have (Check first).
func (s *GenerateSpec) Size() int { return s.size() }

// Dim is the dimension of the decision set's actions.
func (s *GenerateSpec) Dim() int {
	ds := s.DecisionSet
	switch {
	case ds.Kind == "grid":
		return len(ds.Bounds)
	case ds.Dim == 0:
		return 2
	}
	return ds.Dim
}

// DrawBytes estimates the memory one draw holds at its peak: the decision
// set, and for each function the N×N kernel matrix, its Cholesky factor and
// the lower triangle SampleGP builds (three N² blocks), plus the values.
func (s *GenerateSpec) DrawBytes() int64 {
	n, d := int64(s.size()), int64(s.Dim())
	return memlimit.Add(memlimit.Mul(n, 8*d+24), memlimit.Mul(24, n, n), memlimit.Mul(8*n, int64(len(s.Constraints)+1)))
}

// size is the number of actions the decision set will have (Check first).
func (s *GenerateSpec) size() int {
	ds := s.DecisionSet
	if ds.Kind == "grid" {
		return (&GridSpec{Bounds: ds.Bounds, Points: ds.Points}).Size()
	}
	n := ds.Size
	if ds.Basis {
		d := ds.Dim
		if d == 0 {
			d = 2
		}
		n += d
	}
	return n
}

// Generate draws a problem: the decision set (unless a grid), f and each
// g_i from their GP priors on D, and the seed set; it redraws (up to
// MaxDraws times) while D^s_ε is empty or D^s_0 is smaller than the seed
// set. All randomness comes from rng, in that order. It is GenerateHF
// without an objective threshold.
func Generate(s *GenerateSpec, h []float64, eps, noiseStd float64, rng *rand.Rand) (*Problem, error) {
	return GenerateHF(s, h, nil, eps, noiseStd, rng)
}

// GenerateHF is Generate for a problem with the objective threshold hf
// (nil: none), which makes f ≥ h_f a safety condition (SPEC §5, "Safe
// objective"). The true safe set D^s_0 the seed set is chosen from, the
// ε-safe set and a fixed seed set's check all count it, so the seed
// actions are safe for f too; with it the spec may have no constraints.
// The draws are those of Generate: only their acceptance changes.
func GenerateHF(s *GenerateSpec, h []float64, hf *float64, eps, noiseStd float64, rng *rand.Rand) (*Problem, error) {
	ps, err := generate(s, h, hf, eps, noiseStd, nil, nil, rng)
	if err != nil {
		return nil, err
	}
	return ps[0], nil
}

// generate is GenerateHF, and GenerateContext for contexts cs (nil: none)
// with the context kernel kc: f and each g_i are drawn jointly on the
// points (x, c) for c in cs, context by context, with the product kernels
// k·kc, and one problem per context is returned, all with the decision
// set and the seed set — drawn from the actions safe in every context. For
// one context the draws are those without contexts to the bit: the
// product kernel is k on equal contexts (kernel.Product), and the random
// numbers are drawn in the same order.
func generate(s *GenerateSpec, h []float64, hf *float64, eps, noiseStd float64, cs [][]float64, kc kernel.Kernel, rng *rand.Rand) ([]*Problem, error) {
	if err := checkGenerate(s, h, hf); err != nil {
		return nil, err
	}
	kf, kg := s.kernels(cs, kc)
	var x [][]float64
	if s.DecisionSet.Kind == "grid" {
		x = (&GridSpec{Bounds: s.DecisionSet.Bounds, Points: s.DecisionSet.Points}).Actions()
	}
	for draw := 0; draw < MaxDraws; draw++ {
		if s.DecisionSet.Kind != "grid" {
			x = s.DecisionSet.drawBall(rng)
		}
		pts := x
		if cs != nil {
			pts = atContexts(x, cs)
		}
		fv, err := SampleGP(kf, pts, rng)
		if err != nil {
			return nil, fmt.Errorf("objective: %w", err)
		}
		gv := make([][]float64, len(kg))
		for i, k := range kg {
			if gv[i], err = SampleGP(k, pts, rng); err != nil {
				return nil, fmt.Errorf("constraints[%d]: %w", i, err)
			}
		}
		ps, safe := perContext(x, fv, gv, max(len(cs), 1), h, hf, eps, noiseStd)
		seed, ok := chooseSeed(safe, &s.SeedSet, rng)
		if !ok || !withSeed(ps, seed, eps) {
			continue
		}
		for _, p := range ps {
			if err := p.Validate(); err != nil {
				return nil, err
			}
		}
		return ps, nil
	}
	return nil, fmt.Errorf("%w: no draw in %d had a non-empty ε-safe set and enough safe actions for the seed set", ErrNoSafeOptimum, MaxDraws)
}

// checkGenerate checks what generate is given besides the spec: a
// threshold per constraint, and a safety condition at all.
func checkGenerate(s *GenerateSpec, h []float64, hf *float64) error {
	if err := s.Check(); err != nil {
		return err
	}
	if len(h) != len(s.Constraints) {
		return fielderr.New(ErrInvalid, "thresholds", "%d given for %s", len(h), plural.Count(len(s.Constraints), "constraint"))
	}
	if len(s.Constraints) == 0 && hf == nil {
		return fielderr.New(ErrInvalid, "constraints", "at least one is needed without an objective threshold h_f")
	}
	if hf != nil && !finite(*hf) {
		return fielderr.New(ErrInvalid, "objective_threshold", "must be a finite number within ±1e100, got %v", *hf)
	}
	return nil
}

// kernels returns the drawing kernels of f and of each g_i (checked by
// Check), times kc on the contexts when there are contexts (cs).
func (s *GenerateSpec) kernels(cs [][]float64, kc kernel.Kernel) (kernel.Kernel, []kernel.Kernel) {
	kf, _ := kernel.New(s.Objective)
	kg := make([]kernel.Kernel, len(s.Constraints))
	for i, c := range s.Constraints {
		kg[i], _ = kernel.New(c)
	}
	if cs != nil {
		d := s.Dim()
		kf = kernel.Product{X: kf, C: kc, D: d}
		for i, k := range kg {
			kg[i] = kernel.Product{X: k, C: kc, D: d}
		}
	}
	return kf, kg
}

// drawBall draws a decision set of points in the unit ball (2-D unless
// Dim is given), followed by the unit vectors with Basis.
func (ds *DecisionSetSpec) drawBall(rng *rand.Rand) [][]float64 {
	d := ds.Dim
	if d == 0 {
		d = 2
	}
	x := UnitBall(rng, ds.Size, d)
	if ds.Basis {
		for j := 0; j < d; j++ {
			e := make([]float64, d)
			e[j] = 1
			x = append(x, e)
		}
	}
	return x
}

// perContext cuts a joint draw on nc contexts (fv, gv: nc blocks of
// len(x) values) into one problem per context, and marks the actions
// safe in every context.
func perContext(x [][]float64, fv []float64, gv [][]float64, nc int, h []float64, hf *float64, eps, noiseStd float64) ([]*Problem, []bool) {
	n := len(x)
	ps := make([]*Problem, nc)
	safe := make([]bool, n)
	for i := range safe {
		safe[i] = true
	}
	for k := range ps {
		p := &Problem{X: x, H: h, HF: hf, Epsilon: eps, NoiseStd: noiseStd, F: fv[k*n : (k+1)*n : (k+1)*n]}
		for i := range gv {
			p.G = append(p.G, gv[i][k*n:(k+1)*n:(k+1)*n])
		}
		for i, ok := range p.SafeSet(0) {
			safe[i] = safe[i] && ok
		}
		ps[k] = p
	}
	return ps, safe
}

// withSeed gives every problem the seed set and reports whether each has
// a non-empty ε-safe set to take its optimum in; false asks for a redraw.
func withSeed(ps []*Problem, seed []int, eps float64) bool {
	for _, p := range ps {
		p.Seed = seed
		if _, ok := Argmax(p.F, p.SafeSet(eps)); !ok {
			return false
		}
	}
	return true
}

// chooseSeed draws the seed set from the actions safe marks (D^s_0, or
// those safe in every context); false asks for a redraw.
func chooseSeed(safe []bool, s *SeedSetSpec, rng *rand.Rand) ([]int, bool) {
	if s.All {
		var seed []int
		for i, ok := range safe {
			if ok {
				seed = append(seed, i)
			}
		}
		return seed, true
	}
	if s.Indices != nil {
		seed := append([]int(nil), s.Indices...)
		sort.Ints(seed)
		for _, i := range seed {
			if i < 0 || i >= len(safe) || !safe[i] {
				return nil, false
			}
		}
		return seed, true
	}
	var pool []int
	for i, ok := range safe {
		if ok {
			pool = append(pool, i)
		}
	}
	lo, hi := s.Size[0], s.Size[len(s.Size)-1]
	k := lo + rng.IntN(hi-lo+1)
	if len(pool) < k {
		return nil, false
	}
	// Partial Fisher–Yates: the first k of a uniform permutation.
	for i := 0; i < k; i++ {
		j := i + rng.IntN(len(pool)-i)
		pool[i], pool[j] = pool[j], pool[i]
	}
	seed := append([]int(nil), pool[:k]...)
	sort.Ints(seed)
	return seed, true
}

// UnitBall draws n points uniformly in the unit ball of R^d: a Gaussian
// direction scaled by U^{1/d}.
func UnitBall(rng *rand.Rand, n, d int) [][]float64 {
	x := make([][]float64, n)
	for i := range x {
		p := make([]float64, d)
		var norm float64
		for norm == 0 {
			norm = 0
			for j := range p {
				p[j] = rng.NormFloat64()
				norm += p[j] * p[j]
			}
		}
		r := math.Pow(rng.Float64(), 1/float64(d)) / math.Sqrt(norm)
		for j := range p {
			p[j] *= r
		}
		x[i] = p
	}
	return x
}

// SampleGP draws (f(x))_{x∈D} from GP(0, k): f = Lz with L the Cholesky
// factor of K + τI. The jitter τ starts at 1e-10·max K_ii and grows tenfold
// until the factorization succeeds (SE Gram matrices on dense sets are
// singular to machine precision); it adds noise of standard deviation √τ at
// most 1e-2·√max K_ii before giving up.
func SampleGP(k kernel.Kernel, x [][]float64, rng *rand.Rand) ([]float64, error) {
	n := len(x)
	kd := mat.NewSymDense(n, nil)
	maxDiag := 0.0
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			kd.SetSym(i, j, k.Eval(x[i], x[j]))
		}
		maxDiag = math.Max(maxDiag, kd.At(i, i))
	}
	if maxDiag == 0 {
		maxDiag = 1
	}
	// LAPACK's Potrf on the upper triangle, as mat.Cholesky.Factorize
	// calls it, without Factorize's condition estimate (Lansy and Pocon),
	// which the draw never reads and which took a third of its time: the
	// factor, and so the draw, are bit for bit Factorize's. Every shard of
	// a sharded run draws the problems of its realizations again (issue
	// 14), so the draw's cost counts once per shard.
	ks := kd.RawSymmetric()
	u := make([]float64, n*n)
	jit := 0.0
	for e := -10; e <= -4; e++ {
		tau := math.Pow(10, float64(e)) * maxDiag
		for i := 0; i < n; i++ {
			kd.SetSym(i, i, kd.At(i, i)+tau-jit)
		}
		jit = tau
		for i := 0; i < n; i++ {
			copy(u[i*n+i:i*n+n], ks.Data[i*ks.Stride+i:i*ks.Stride+n])
		}
		if _, ok := lapack64.Potrf(blas64.Symmetric{N: n, Stride: n, Uplo: blas.Upper, Data: u}); ok {
			z := make([]float64, n)
			for i := range z {
				z[i] = rng.NormFloat64()
			}
			// L = Uᵀ, a copy (as Cholesky.LTo makes), into the lower
			// triangle of the same storage, and f = Lz by the same
			// triangular product (MulVec) as before.
			for i := 0; i < n; i++ {
				for j := 0; j < i; j++ {
					u[i*n+j] = u[j*n+i]
				}
			}
			out := mat.NewVecDense(n, z)
			out.MulVec(mat.NewTriDense(n, mat.Lower, u), out)
			return out.RawVector().Data, nil
		}
	}
	return nil, fmt.Errorf("%w: kernel matrix is not positive semi-definite even with jitter", ErrInvalid)
}
