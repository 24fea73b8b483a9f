package theory

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/safegp/safegp/kernel"
)

// ErrSeedTooSmall marks a seed set whose feature covariance is singular
// (λ_− ≤ 0): Theorems 2 and 4 then give no T'.
var ErrSeedTooSmall = errors.New("seed set too small for the guarantee")

// ErrNoGuarantee marks a stationary kernel for which no feature map this
// package builds meets Theorem 4's condition on the approximation error ε_0.
var ErrNoGuarantee = errors.New("no feature map meets Theorem 4's ε_0 condition")

// MaxQFFNodes bounds the automatic choice of QFF nodes per dimension.
const MaxQFFNodes = 64

// Features chooses the approximate feature map of a stationary constraint
// kernel (Theorem 4). The zero value means: QFF for SE kernels with the
// fewest nodes meeting Theorem 4's ε_0 condition, RFF for Matérn kernels
// with as many features as the seed set can support.
type Features struct {
	Kind  string `yaml:"features,omitempty" json:"features,omitempty"` // "qff" or "rff"
	Nodes int    `yaml:"nodes,omitempty" json:"nodes,omitempty"`       // QFF nodes per dimension
	Size  int    `yaml:"size,omitempty" json:"size,omitempty"`         // RFF dimension (even)
	Seed  uint64 `yaml:"seed,omitempty" json:"seed,omitempty"`         // RFF draw
}

// Exploration is Theorem 2's or 4's exploration length for one constraint,
// with the quantities it comes from.
type Exploration struct {
	Theorem  int     `json:"theorem"`  // 2 (finite d_g) or 4 (stationary, approximate map)
	Features string  `json:"features"` // linear, polynomial, qff, rff
	Nodes    int     `json:"nodes,omitempty"`
	Dim      int     `json:"dim"`    // d_g or D_g
	Lambda   float64 `json:"lambda"` // λ_− or λ̃_−
	BetaT    float64 `json:"beta_T"`
	// Theorem 4: the ε_0 it needs, the QFF lemma's bound for the map (0 for
	// RFF) and the error measured on the decision set.
	Eps0Target   float64 `json:"eps0_target,omitempty"`
	Eps0Bound    float64 `json:"eps0_bound,omitempty"`
	Eps0Measured float64 `json:"eps0_measured,omitempty"`
	// Guarantee is false when a map was fixed by hand and misses the ε_0
	// condition: the T' is then the theorem's formula without its promise.
	Guarantee bool `json:"guarantee"`
	// KMax = max_D k_g(x,x) and RMax = max_{D^w} k_g(x,x). The paper assumes
	// k ≤ 1; above it the bounds scale: t_ε by KMax (σ²_{t−1}(x*) carries
	// ‖φ(x*)‖² = k(x*,x*)) and t_δ by RMax (the matrix Chernoff bound's
	// λ_max(φφᵀ) ≤ R, the L² of the paper's proof).
	KMax   float64 `json:"k_max"`
	RMax   float64 `json:"r_max"`
	TEps   float64 `json:"t_eps"`
	TDelta float64 `json:"t_delta"`
	TPrime int     `json:"t_prime"` // ⌈max(t_ε, t_δ)⌉, at most the horizon
}

// Problem is what the exploration length depends on.
type Problem struct {
	X        [][]float64
	Seed     []int
	Kernel   kernel.Kernel // k_g
	NoiseStd float64       // model σ
	Delta    float64
	Epsilon  float64
	Horizon  int
	M        int // number of constraints (for β_T)
	// MeasureEps0 also measures the map's uniform error over all pairs of
	// actions, O(N²): for reports, not for every policy.
	MeasureEps0 bool
}

// ExplorationLength computes T' for one constraint (SPEC §4, §7): Theorem 2
// for linear and polynomial kernels, Theorem 4 for SE (QFF or RFF) and
// Matérn (RFF) kernels. It fails with ErrSeedTooSmall when λ_− ≤ 0.
func ExplorationLength(p Problem, feat Features) (*Exploration, error) {
	d := len(p.X[0])
	betaT := Beta(p.Horizon, p.M, len(p.X), p.Delta)
	e := &Exploration{BetaT: betaT, Guarantee: true}
	for _, x := range p.X {
		e.KMax = math.Max(e.KMax, p.Kernel.Eval(x, x))
	}
	for _, i := range p.Seed {
		e.RMax = math.Max(e.RMax, p.Kernel.Eval(p.X[i], p.X[i]))
	}
	var fm FeatureMap
	switch k := p.Kernel.(type) {
	case kernel.Linear:
		e.Theorem, e.Features, fm = 2, "linear", Linear{Variance: k.Variance, D: d}
	case kernel.Polynomial:
		e.Theorem, e.Features, fm = 2, "polynomial", NewPolynomial(k, d)
	case kernel.SE, kernel.Matern32, kernel.Matern52:
		e.Theorem = 4
		e.Eps0Target = Eps0Target(p.Epsilon, p.NoiseStd, p.Horizon, betaT)
		kind := feat.Kind
		if kind == "" {
			kind = "rff"
			if _, ok := k.(kernel.SE); ok {
				kind = "qff"
			}
		}
		e.Features = kind
		switch kind {
		case "qff":
			se, ok := k.(kernel.SE)
			if !ok {
				return nil, fmt.Errorf("theory: features qff: only for the se kernel, not %q", k.Name())
			}
			// The QFF lemma holds on [0,1]^d: rescale the box around D to it.
			lEff := se.Lengthscale / boxSide(p.X)
			nodes := feat.Nodes
			if nodes == 0 {
				var ok bool
				// The lemma's bound is for unit variance; it scales with v.
				nodes, ok = QFFNodesFor(d, lEff, e.Eps0Target/se.Variance, MaxQFFNodes)
				if !ok {
					return e, fmt.Errorf("%w: no QFF with up to %d nodes per dimension reaches ε_0 ≤ %.3g (lengthscale %g on a decision set of side %.3g); set the number of nodes to proceed without the guarantee", ErrNoGuarantee, MaxQFFNodes, e.Eps0Target, se.Lengthscale, boxSide(p.X))
				}
			}
			e.Nodes = nodes
			e.Eps0Bound = QFFErrorBound(d, nodes, lEff) * se.Variance
			e.Guarantee = e.Eps0Bound <= e.Eps0Target
			if dim := intPow(nodes, d); dim > len(p.Seed) {
				e.Dim = dim
				return e, fmt.Errorf("%w: the QFF map with %d nodes per dimension has dimension %d, the seed set only %d actions, so λ̃_− = 0", ErrSeedTooSmall, nodes, dim, len(p.Seed))
			}
			fm = NewQFF(se, d, nodes)
		case "rff":
			// Rahimi and Recht's bound needs D_g ≳ 8(d+2)/ε_0² features for
			// ε_0 — for the ε_0 Theorem 4 asks, far more than any seed set
			// can span — so an RFF map never carries the guarantee here.
			size := feat.Size
			if size == 0 {
				return e, fmt.Errorf("%w: an RFF map would need about 8(d+2)/ε_0² = %.3g features for ε_0 ≤ %.3g; set the number of features (size) to proceed without the guarantee", ErrNoGuarantee, 8*float64(d+2)/(e.Eps0Target*e.Eps0Target), e.Eps0Target)
			}
			e.Guarantee = false
			if size < 2 {
				return nil, fmt.Errorf("%w: an RFF map needs at least 2 features and as many seed actions", ErrSeedTooSmall)
			}
			var err error
			seed := feat.Seed
			if seed == 0 {
				seed = 1
			}
			if fm, err = NewRFF(k, d, size, rand.New(rand.NewPCG(seed, 0x5ff))); err != nil {
				return nil, err
			}
		default:
			return nil, fmt.Errorf("theory: features: unknown map %q (qff, rff)", kind)
		}
		if p.MeasureEps0 {
			e.Eps0Measured = MaxError(fm, k, p.X)
		}
	default:
		return nil, fmt.Errorf("theory: %w for kernel %q", ErrNoFeatures, p.Kernel.Name())
	}
	e.Dim = fm.Dim()
	lambda, err := MinEigenvalue(fm, p.X, p.Seed)
	if err != nil {
		return nil, err
	}
	e.Lambda = lambda
	if !(lambda > 1e-12) {
		return e, fmt.Errorf("%w: λ_− = %.3g for the %s feature map of dimension %d over %d seed actions (they must span the feature space)", ErrSeedTooSmall, lambda, e.Features, e.Dim, len(p.Seed))
	}
	if e.Theorem == 2 {
		e.TEps = TEpsFinite(p.NoiseStd, betaT, lambda, p.Epsilon)
	} else {
		e.TEps = TEpsStationary(p.NoiseStd, betaT, lambda, p.Epsilon)
	}
	e.TEps *= math.Max(1, e.KMax)
	e.TDelta = TDelta(lambda, e.Dim, p.Delta) * math.Max(1, e.RMax)
	e.TPrime = int(min(math.Ceil(math.Max(e.TEps, e.TDelta)), float64(p.Horizon)))
	return e, nil
}

// boxSide is the longest side of the bounding box of x (1 if x is a point).
func boxSide(x [][]float64) float64 {
	side := 0.0
	for j := range x[0] {
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, xi := range x {
			lo, hi = math.Min(lo, xi[j]), math.Max(hi, xi[j])
		}
		side = math.Max(side, hi-lo)
	}
	if side == 0 {
		return 1
	}
	return side
}

func intPow(b, e int) int {
	r := 1
	for ; e > 0; e-- {
		r *= b
		if r > 1<<40 {
			return r
		}
	}
	return r
}
