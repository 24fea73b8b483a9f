package problem

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/safegp/safegp/internal/plural"

	"github.com/safegp/safegp/internal/argmax"
	"github.com/safegp/safegp/internal/fielderr"
	"github.com/safegp/safegp/internal/memlimit"
	"github.com/safegp/safegp/internal/spatial"
)

// Sentinel errors, wrapped with context by the functions that return them.
var (
	// ErrInvalid marks a problem that breaks one of SPEC §8's input checks.
	ErrInvalid = errors.New("invalid problem")
	// ErrNoSafeOptimum marks a problem whose ε-safe set D^s_ε is empty.
	ErrNoSafeOptimum = errors.New("empty ε-safe set")
)

// Problem is one instance of the safe bandit problem (SPEC §1).
type Problem struct {
	X        [][]float64 // decision set, N×d
	F        []float64   // objective f over D
	G        [][]float64 // constraints: G[i][x] = g_i(x)
	H        []float64   // thresholds h_i
	Epsilon  float64     // ε of the ε-safe set
	NoiseStd float64     // observation noise; 0 = exact values
	// NoiseStds, if not nil, is each action's own noise standard deviation
	// (a problem file's noise_std column), in place of NoiseStd.
	NoiseStds []float64
	Seed      []int // seed set D^w, ascending action indices
	// HF is the objective threshold h_f, nil without one: f ≥ h_f is then
	// one more safety condition, counted exactly as a constraint g = f
	// with threshold h_f (SPEC §5, "Safe objective"), and G may be empty.
	HF *float64
	// Lipschitz holds L_i of each safety condition, in the order of
	// Safety (the g_i, then f with HF); filled by Analyze.
	Lipschitz []float64
}

// Bytes estimates the memory of a problem over n actions in d dimensions
// with m constraints, with its Info: X, f, the g_i, the seed set and three
// indicator vectors, and at its peak the analysis's k-d tree (Analyze):
// the reachable set's live points, or L_i's per-node ranges of f and the
// g_i, whichever is larger.
func Bytes(n, d, m int) int64 {
	analysis := memlimit.Add(spatial.Bytes(n, d), max(spatial.LiveBytes(n)+8*int64(n), memlimit.Mul(16*int64(m+1), spatial.MaxNodes(n))))
	return memlimit.Add(memlimit.Mul(int64(n), 8*int64(d)+24+8*int64(m+1)+8+3), analysis)
}

// N is the number of actions.
func (p *Problem) N() int { return len(p.X) }

// Dim is the dimension d of an action.
func (p *Problem) Dim() int {
	if len(p.X) == 0 {
		return 0
	}
	return len(p.X[0])
}

// M is the number of constraints g_i (an objective threshold not counted).
func (p *Problem) M() int { return len(p.G) }

// Safety returns the safety conditions as functions over D with their
// thresholds: g_1 … g_m with h_1 … h_m, then f with h_f when the problem
// has an objective threshold (SPEC §5, "Safe objective": f ≥ h_f counts as
// one more constraint in every definition of SPEC §1). The outer slices
// are new; the values are the problem's own.
func (p *Problem) Safety() (g [][]float64, h []float64) {
	g = append(make([][]float64, 0, len(p.G)+1), p.G...)
	h = append(make([]float64, 0, len(p.G)+1), p.H...)
	if p.HF != nil {
		g, h = append(g, p.F), append(h, *p.HF)
	}
	return g, h
}

// CheckActions checks a decision set: at least two actions, all of one
// dimension d ≥ 1, finite coordinates, no point given twice (coincident
// actions would make L_i infinite or, skipped, let an unsafe twin of a safe
// action be "reachable" at distance 0).
func CheckActions(x [][]float64) error {
	if len(x) < 2 {
		return fmt.Errorf("%w: decision set: needs at least 2 actions, got %d", ErrInvalid, len(x))
	}
	d := len(x[0])
	if d == 0 {
		return fmt.Errorf("%w: decision set: actions have dimension 0", ErrInvalid)
	}
	seen := make(map[string]int, len(x))
	key := make([]byte, 0, 8*d)
	for i, xi := range x {
		if len(xi) != d {
			return fmt.Errorf("%w: action %d: dimension %d, want %d", ErrInvalid, i, len(xi), d)
		}
		for j, v := range xi {
			if !finite(v) {
				return fmt.Errorf("%w: action %d: x%d = %v is not finite or beyond ±1e100", ErrInvalid, i, j+1, v)
			}
		}
		// The bits of each coordinate, −0 made +0 (v + 0): the same point
		// however it was written.
		key = key[:0]
		for _, v := range xi {
			key = binary.LittleEndian.AppendUint64(key, math.Float64bits(v+0))
		}
		if j, dup := seen[string(key)]; dup {
			return fmt.Errorf("%w: actions %d and %d are the same point %v; merge them", ErrInvalid, j, i, xi)
		}
		seen[string(key)] = i
	}
	return nil
}

// Validate checks the problem against SPEC §8: shapes agree, all values are
// finite, at least two actions, at least one safety condition (a
// constraint or an objective threshold), a non-empty seed set of distinct
// in-range indices whose constraint values meet their thresholds, and
// whose f meets h_f.
func (p *Problem) Validate() error {
	n := len(p.X)
	if err := CheckActions(p.X); err != nil {
		return err
	}
	if err := p.checkObjective(n); err != nil {
		return err
	}
	if err := p.checkConstraints(n); err != nil {
		return err
	}
	if !finite(p.Epsilon) || p.Epsilon < 0 {
		return fmt.Errorf("%w: epsilon: must be a finite number ≥ 0, got %v", ErrInvalid, p.Epsilon)
	}
	if !finite(p.NoiseStd) || p.NoiseStd < 0 {
		return fmt.Errorf("%w: noise_std: must be a finite number ≥ 0, got %v", ErrInvalid, p.NoiseStd)
	}
	return p.checkSeed(n)
}

// checkObjective checks f's n values, and that there is a safety
// condition: a constraint, or a finite objective threshold.
func (p *Problem) checkObjective(n int) error {
	if len(p.F) != n {
		return fmt.Errorf("%w: f has %d values for %d actions", ErrInvalid, len(p.F), n)
	}
	for i, v := range p.F {
		if !finite(v) {
			return fmt.Errorf("%w: action %d: f = %v is not finite or beyond ±1e100", ErrInvalid, i, v)
		}
	}
	if len(p.G) == 0 && p.HF == nil {
		// A safe bandit needs a safety condition.
		return fmt.Errorf("%w: needs at least one constraint or an objective threshold h_f", ErrInvalid)
	}
	if p.HF != nil && !finite(*p.HF) {
		return fmt.Errorf("%w: objective_threshold = %v is not finite or beyond ±1e100", ErrInvalid, *p.HF)
	}
	return nil
}

// checkConstraints checks each g_i's n values and its threshold.
func (p *Problem) checkConstraints(n int) error {
	if len(p.H) != len(p.G) {
		return fmt.Errorf("%w: thresholds: %d given for %s", ErrInvalid, len(p.H), plural.Count(len(p.G), "constraint"))
	}
	for c, g := range p.G {
		if len(g) != n {
			return fmt.Errorf("%w: g%d has %d values for %d actions", ErrInvalid, c+1, len(g), n)
		}
		for i, v := range g {
			if !finite(v) {
				return fmt.Errorf("%w: action %d: g%d = %v is not finite or beyond ±1e100", ErrInvalid, i, c+1, v)
			}
		}
		if !finite(p.H[c]) {
			return fmt.Errorf("%w: thresholds[%d] = %v is not finite or beyond ±1e100", ErrInvalid, c, p.H[c])
		}
	}
	return nil
}

// checkSeed checks the seed set: ascending indices of actions that
// satisfy every safety condition.
func (p *Problem) checkSeed(n int) error {
	if err := CheckSeed(p.Seed, n); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalid, fielderr.Under("seed set", err))
	}
	if !sort.IntsAreSorted(p.Seed) {
		return fmt.Errorf("%w: seed set: indices must be ascending", ErrInvalid)
	}
	for _, s := range p.Seed {
		for c, g := range p.G {
			if g[s] < p.H[c] {
				return fmt.Errorf("%w: seed action %d: g%d = %v is below its threshold %v", ErrInvalid, s, c+1, g[s], p.H[c])
			}
		}
		if p.HF != nil && p.F[s] < *p.HF {
			return fmt.Errorf("%w: seed action %d: f = %v is below the objective threshold %v", ErrInvalid, s, p.F[s], *p.HF)
		}
	}
	return nil
}

// Safe reports whether action x satisfies every safety condition with
// margin eps: g_i(x) ≥ h_i + eps for all i, and f(x) ≥ h_f + eps with an
// objective threshold. It does not allocate: Play calls it every round.
func (p *Problem) Safe(x int, eps float64) bool {
	for c, g := range p.G {
		if g[x] < p.H[c]+eps {
			return false
		}
	}
	return p.HF == nil || p.F[x] >= *p.HF+eps
}

// SafeSet returns the indicator of {x : g_i(x) ≥ h_i + eps ∀i} (and
// f(x) ≥ h_f + eps with an objective threshold): D^s_0 for eps = 0 and
// D^s_ε for eps = ε.
func (p *Problem) SafeSet(eps float64) []bool {
	s := make([]bool, len(p.X))
	for i := range s {
		s[i] = p.Safe(i, eps)
	}
	return s
}

// Argmax returns the index of the largest v over the actions where in[x]
// holds, the lowest index on ties (argmax.Mask, SPEC's rule), and false
// when no action is in.
func Argmax(v []float64, in []bool) (int, bool) {
	i := argmax.Mask(v, in)
	return i, i >= 0
}

// Info holds the quantities SPEC §1 derives from a problem, with f ≥ h_f
// counted as one more constraint when the problem has an objective
// threshold.
type Info struct {
	SafeTrue  []bool    // D^s_0
	SafeEps   []bool    // D^s_ε
	XStar     int       // x* = argmax_{D^s_ε} f
	FStar     float64   // f(x*)
	Lipschitz []float64 // L_i of each safety condition (Problem.Safety's order)
	Reachable []bool    // R̄_ε(D^w)
	FReach    float64   // f*_ε(D^w) = max_{R̄_ε(D^w)} f
}

// Analyze computes Info. It fails with ErrNoSafeOptimum when D^s_ε is
// empty.
func (p *Problem) Analyze() (*Info, error) {
	in := &Info{SafeTrue: p.SafeSet(0), SafeEps: p.SafeSet(p.Epsilon)}
	var ok bool
	in.XStar, ok = Argmax(p.F, in.SafeEps)
	if !ok {
		if p.HF != nil {
			return nil, fmt.Errorf("%w: no action has g_i ≥ h_i + ε for every constraint and f ≥ h_f + ε (ε = %v, h_f = %v)", ErrNoSafeOptimum, p.Epsilon, *p.HF)
		}
		return nil, fmt.Errorf("%w: no action has g_i ≥ h_i + ε (ε = %v) for every constraint", ErrNoSafeOptimum, p.Epsilon)
	}
	in.FStar = p.F[in.XStar]
	g, h := p.Safety()
	if p.Lipschitz == nil {
		p.Lipschitz = LipschitzConstants(p.X, g)
	}
	in.Lipschitz = p.Lipschitz
	in.Reachable = Reachable(p.X, g, h, p.Lipschitz, p.Epsilon, p.Seed)
	r, _ := Argmax(p.F, in.Reachable)
	in.FReach = p.F[r]
	return in, nil
}

// MaxMagnitude bounds every value and coordinate a problem, a study or a
// tell may hold. Regrets are summed over up to 10⁶ rounds and squared for
// standard deviations, and coordinates are squared in distances: with
// |v| ≤ 1e100 none of these can overflow a float64 (1e308), so a value that
// passed the checks never turns into Inf halfway through a run.
const MaxMagnitude = 1e100

// InRange reports whether v is a number the arithmetic can hold: not NaN,
// |v| ≤ MaxMagnitude.
func InRange(v float64) bool { return math.Abs(v) <= MaxMagnitude }

func finite(v float64) bool { return InRange(v) }
