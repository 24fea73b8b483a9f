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
// Matérn (RFF) kernels. When the theorem does not apply — ErrSeedTooSmall
// (λ_− ≤ 0) or ErrNoGuarantee (no map meets the ε_0 condition) — it returns
// the quantities computed so far with the error, for a report to show;
// other errors (a map the kernel has not, a failed factorization) come
// alone.
func ExplorationLength(p Problem, feat Features) (*Exploration, error) {
	if l := kernel.ARD(p.Kernel); l != nil && len(l) != len(p.X[0]) {
		return nil, fmt.Errorf("theory: %w: %d lengthscales for %d input dimensions", kernel.ErrInvalid, len(l), len(p.X[0]))
	}
	betaT := Beta(p.Horizon, p.M, len(p.X), p.Delta)
	e := &Exploration{BetaT: betaT, Guarantee: true}
	e.KMax, e.RMax = kernelMaxima(p)
	fm, err := e.featureMap(p, feat)
	if err != nil {
		return partial(e, err)
	}
	e.Dim = fm.Dim()
	if e.Lambda, err = MinEigenvalue(fm, p.X, p.Seed); err != nil {
		return nil, err
	}
	if !(e.Lambda > 1e-12) {
		return e, fmt.Errorf("%w: λ_− = %.3g for the %s feature map of dimension %d over %d seed actions (they must span the feature space)", ErrSeedTooSmall, e.Lambda, e.Features, e.Dim, len(p.Seed))
	}
	e.lengths(p)
	return e, nil
}

// partial returns e with err when the theorem merely does not apply.
func partial(e *Exploration, err error) (*Exploration, error) {
	if errors.Is(err, ErrSeedTooSmall) || errors.Is(err, ErrNoGuarantee) {
		return e, err
	}
	return nil, err
}

// kernelMaxima returns max_D k_g(x,x) and max_{D^w} k_g(x,x), by which t_ε
// and t_δ scale when the kernel exceeds the paper's k ≤ 1 (Exploration.KMax).
func kernelMaxima(p Problem) (kMax, rMax float64) {
	for _, x := range p.X {
		kMax = math.Max(kMax, p.Kernel.Eval(x, x))
	}
	for _, i := range p.Seed {
		rMax = math.Max(rMax, p.Kernel.Eval(p.X[i], p.X[i]))
	}
	return kMax, rMax
}

// featureMap picks the constraint kernel's feature map and records which
// theorem and map apply: the explicit map of Theorem 2, or Theorem 4's
// approximate map with the ε_0 it needs.
func (e *Exploration) featureMap(p Problem, feat Features) (FeatureMap, error) {
	d := len(p.X[0])
	switch k := p.Kernel.(type) {
	case kernel.Linear:
		e.Theorem, e.Features = 2, "linear"
		return Linear{Variance: k.Variance, D: d}, nil
	case kernel.Polynomial:
		e.Theorem, e.Features = 2, "polynomial"
		return NewPolynomial(k, d), nil
	case kernel.SE, kernel.Matern32, kernel.Matern52:
		e.Theorem = 4
		e.Eps0Target = Eps0Target(p.Epsilon, p.NoiseStd, p.Horizon, e.BetaT)
		e.Features = feat.Kind
		if e.Features == "" {
			e.Features = "rff"
			if _, ok := k.(kernel.SE); ok {
				e.Features = "qff"
			}
		}
		var fm FeatureMap
		var err error
		switch e.Features {
		case "qff":
			se, ok := k.(kernel.SE)
			if !ok {
				return nil, fmt.Errorf("theory: features qff: only for the se kernel, not %q", k.Name())
			}
			fm, err = e.qff(se, p, feat.Nodes)
		case "rff":
			fm, err = e.rff(k, p, feat)
		default:
			return nil, fmt.Errorf("theory: features: unknown map %q (qff, rff)", e.Features)
		}
		if err == nil && p.MeasureEps0 {
			e.Eps0Measured = MaxError(fm, k, p.X)
		}
		return fm, err
	}
	return nil, fmt.Errorf("theory: %w for kernel %q", ErrNoFeatures, p.Kernel.Name())
}

// qff builds Theorem 4's QFF map for an SE kernel with nodes per dimension
// (0: the fewest whose error bound meets ε_0, at most MaxQFFNodes).
func (e *Exploration) qff(se kernel.SE, p Problem, nodes int) (FeatureMap, error) {
	d := len(p.X[0])
	// The QFF lemma holds on [0,1]^d: rescale the box around D to it. An
	// ARD kernel is the isotropic kernel of ℓ = 1 on D rescaled by 1/ℓ_j
	// per coordinate (NewQFF's map and λ̃_− are that set's too), so its
	// box is measured in lengthscales.
	l, side := se.Lengthscale, boxSide(p.X, se.ARD)
	if se.ARD != nil {
		l = 1
	}
	lEff := l / side
	if nodes == 0 {
		var ok bool
		// The lemma's bound is for unit variance; it scales with v.
		nodes, ok = QFFNodesFor(d, lEff, e.Eps0Target/se.Variance, MaxQFFNodes)
		if !ok {
			scale := fmt.Sprintf("lengthscale %g on a decision set of side %.3g", se.Lengthscale, side)
			if se.ARD != nil {
				scale = fmt.Sprintf("lengthscales %v on a decision set %.3g lengthscales across", se.ARD, side)
			}
			return nil, fmt.Errorf("%w: no QFF with up to %d nodes per dimension reaches ε_0 ≤ %.3g (%s); set the number of nodes to proceed without the guarantee", ErrNoGuarantee, MaxQFFNodes, e.Eps0Target, scale)
		}
	}
	e.Nodes = nodes
	e.Eps0Bound = QFFErrorBound(d, nodes, lEff) * se.Variance
	e.Guarantee = e.Eps0Bound <= e.Eps0Target
	if dim := intPow(nodes, d); dim > len(p.Seed) {
		e.Dim = dim
		return nil, fmt.Errorf("%w: the QFF map with %d nodes per dimension has dimension %d, the seed set only %d actions, so λ̃_− = 0", ErrSeedTooSmall, nodes, dim, len(p.Seed))
	}
	return NewQFF(se, d, nodes), nil
}

// rff builds an RFF map of feat.Size features. Rahimi and Recht's bound
// needs D_g ≳ 8(d+2)/ε_0² features for ε_0 — for the ε_0 Theorem 4 asks,
// far more than any seed set can span — so an RFF map never carries the
// guarantee here.
func (e *Exploration) rff(k kernel.Kernel, p Problem, feat Features) (FeatureMap, error) {
	d := len(p.X[0])
	if feat.Size == 0 {
		return nil, fmt.Errorf("%w: an RFF map would need about 8(d+2)/ε_0² = %.3g features for ε_0 ≤ %.3g; set the number of features (size) to proceed without the guarantee", ErrNoGuarantee, 8*float64(d+2)/(e.Eps0Target*e.Eps0Target), e.Eps0Target)
	}
	e.Guarantee = false
	if feat.Size < 2 {
		return nil, fmt.Errorf("%w: an RFF map needs at least 2 features and as many seed actions", ErrSeedTooSmall)
	}
	seed := feat.Seed
	if seed == 0 {
		seed = 1
	}
	return NewRFF(k, d, feat.Size, rand.New(rand.NewPCG(seed, 0x5ff)))
}

// lengths computes t_ε and t_δ from λ_− (Theorem 2's or 4's formula),
// scaled by KMax and RMax above k ≤ 1, and T' = ⌈max(t_ε, t_δ)⌉ capped at
// the horizon.
func (e *Exploration) lengths(p Problem) {
	if e.Theorem == 2 {
		e.TEps = TEpsFinite(p.NoiseStd, e.BetaT, e.Lambda, p.Epsilon)
	} else {
		e.TEps = TEpsStationary(p.NoiseStd, e.BetaT, e.Lambda, p.Epsilon)
	}
	e.TEps *= math.Max(1, e.KMax)
	e.TDelta = TDelta(e.Lambda, e.Dim, p.Delta) * math.Max(1, e.RMax)
	e.TPrime = int(min(math.Ceil(math.Max(e.TEps, e.TDelta)), float64(p.Horizon)))
}

// boxSide is the longest side of the bounding box of x (1 if x is a
// point); with ard, of x rescaled by 1/ℓ_j in coordinate j.
func boxSide(x [][]float64, ard []float64) float64 {
	side := 0.0
	for j := range x[0] {
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, xi := range x {
			lo, hi = math.Min(lo, xi[j]), math.Max(hi, xi[j])
		}
		if ard != nil {
			lo, hi = lo/ard[j], hi/ard[j]
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
