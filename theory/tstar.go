package theory

import (
	"errors"
	"fmt"
	"math"
)

// ErrNoTStar marks a setting in which Theorem 1 of Berkenkamp et al. 2016
// (Sui et al. 2015, Theorem 1) defines no t*: a noise-free GP (σ = 0), for
// which C_1 = 8/log(1 + σ⁻²) and the information gain are not finite.
var ErrNoTStar = errors.New("no t* for this setting")

// MaxTStar is the largest t* SafeOptTStar searches for: integers up to
// 2⁵³ are exact in a float64, and no run is that long.
const MaxTStar = 1 << 53

// scanCap bounds the rounds SafeOptTStar tests one by one in a block where
// t/(β_t·γ_t) is not yet known to increase; beyond it, the search gives up
// with an error rather than spend minutes.
const scanCap = 1 << 22

// TStarProblem is what SafeOpt-MC's t* depends on (Berkenkamp et al.
// 2016, Theorem 1; Sui et al. 2015, Theorem 1 for one GP).
type TStarProblem struct {
	N   int // |D|, the actions
	GPs int // |I| = m + 1: f and the g_i, each measured every round
	// Reach0 is |R̄_0(S_0)|, the 0-reachable safe set from the seed set
	// (paper §5's R̄_ε for ε = 0), known only from the true constraints.
	Reach0  int
	Epsilon float64 // ε, the accuracy the theorem reaches
	// NoiseStds is every GP's σ (one value: one σ for all). C_1 takes the
	// largest (the largest C_1), the γ bound the smallest (the largest
	// γ): with one σ both are the theorem's; with several, t* is the
	// conservative (later) one.
	NoiseStds []float64
	// KMax is max_j max_{x∈D} k_j(x,x) over the GPs, the prior variance
	// the γ bound of the joint kernel on D × I takes.
	KMax float64
	// Beta is β_t as configured (paper Theorem 1's schedule, or a
	// constant); it must be positive and non-decreasing in t.
	Beta func(t int) float64
	// Paper says Beta is the paper's 2·log(c·t²) schedule (its
	// derivative 4/t enters the monotonicity test); false for a constant.
	Paper bool
}

// TStar is SafeOpt-MC's t* with the quantities it comes from.
type TStar struct {
	Reach0  int     `json:"reach0"` // |R̄_0(S_0)|
	GPs     int     `json:"gps"`    // |I|
	C1      float64 `json:"C1"`     // 8/log(1 + σ⁻²), σ the largest
	Epsilon float64 `json:"epsilon"`
	// Target is C_1·(|R̄_0(S_0)| + 1)/ε², the right-hand side of the
	// theorem's inequality (+Inf for ε = 0).
	Target float64 `json:"target"`
	// T is t*, the smallest positive integer with
	// t/(β_t·γ_{|I|t}) ≥ Target; 0 when there is none up to MaxTStar
	// (ε = 0, for example): the algorithm then never switches.
	T int64 `json:"t_star"`
	// BetaT, GammaT and Ratio are β, the γ bound and t/(β·γ) at t*.
	BetaT  float64 `json:"beta_t_star,omitempty"`
	GammaT float64 `json:"gamma_t_star,omitempty"`
	Ratio  float64 `json:"ratio,omitempty"`
}

// Within reports whether t* falls within a horizon of the given rounds,
// so that SafeOpt-MC switches to x_t = argmax_{S_t} ℓ_{f,t} after it.
func (s *TStar) Within(horizon int) bool { return s.T > 0 && s.T <= int64(horizon) }

// SafeOptTStar computes t* as Theorem 1 of Berkenkamp et al. 2016 states
// it for SafeOpt-MC: the smallest positive integer t* with
//
//	t*/(β_{t*}·γ_{|I|t*}) ≥ C_1·(|R̄_0(S_0)| + 1)/ε²,  C_1 = 8/log(1 + σ⁻²),
//
// where γ_{|I|t} is the information capacity of |I|·t measurements of the
// one GP over D × I that models f and the g_i (|I| = m + 1 functions, all
// measured every round). Sui et al. 2015's Theorem 1 is the case |I| = 1.
// For γ this uses the project's bound for a finite domain (paper §3,
// after Srinivas et al.), on the |I|·N points of D × I:
// γ_{|I|t} ≤ |I|N·log(1 + σ⁻²·|I|t·|I|N·k_max) (GammaBound).
//
// β_t is the one the project configures (SPEC §3: the safegp paper's
// Bayesian schedule, or a constant), not the RKHS scaling the two
// theorems assume (Srinivas et al.'s 2B + 300γ_t·log³(t/δ) in Sui et al.
// 2015; Chowdhury and Gopalan's in the journal version of Berkenkamp et
// al.): the functions here are GP samples, as in the safegp paper.
//
// t/(β_t·γ_t) need not increase for small t, so the search runs over
// dyadic blocks [L, 2L): a block is skipped when even (2L−1)/(β_L·γ_L),
// an upper bound on the ratio over it (β and γ do not decrease), misses
// the target; bisected when the ratio is known to increase from L on;
// tested round by round otherwise (at most scanCap rounds, else an
// error). The ratio increases from L on when
// 1 − 4/β_L − 1/log(1 + aL) > 0, a = σ⁻²|I|²N·k_max (the 4/β term only
// for the paper's β): d/dt log(t/(βγ)) = 1/t − β'/β − γ'/γ with
// β' = 4/t and γ'/γ ≤ 1/(t·log(1 + at)), and both terms decrease in t.
func SafeOptTStar(p TStarProblem) (*TStar, error) {
	sMin, sMax, err := checkTStar(p)
	if err != nil {
		return nil, err
	}
	r := &TStar{Reach0: p.Reach0, GPs: p.GPs, C1: C1(sMax), Epsilon: p.Epsilon}
	r.Target = r.C1 * float64(p.Reach0+1) / (p.Epsilon * p.Epsilon)
	nI := float64(p.GPs) * float64(p.N)
	q := tstarSearch{p: &p, r: r, sMin: sMin, nI: nI, a: float64(p.GPs) * nI * p.KMax / (sMin * sMin)}
	if math.IsInf(r.Target, 1) && !(p.KMax == 0) {
		return r, nil // ε = 0: no finite t reaches it
	}
	for lo := 1; lo <= MaxTStar; lo *= 2 {
		hi := min(2*lo-1, MaxTStar)
		switch {
		case q.increasing(lo):
			if !q.ok(hi) {
				continue
			}
			return q.found(q.first(lo, hi))
		case float64(hi)/(p.Beta(lo)*q.gamma(lo)) < r.Target:
			continue
		case hi-lo >= scanCap:
			return nil, fmt.Errorf("theory: t*: rounds %d…%d would have to be tested one by one (t/(β_t·γ_t) is not yet increasing there): σ = %g and max k(x,x) = %g make γ_t grow too slowly", lo, hi, sMin, p.KMax)
		}
		for t := lo; t <= hi; t++ {
			if q.ok(t) {
				return q.found(t)
			}
		}
	}
	return r, nil
}

// checkTStar checks SafeOptTStar's problem and returns the smallest and
// the largest noise σ.
func checkTStar(p TStarProblem) (sMin, sMax float64, err error) {
	if p.N < 1 || p.GPs < 1 || p.Reach0 < 0 || len(p.NoiseStds) == 0 || p.Beta == nil {
		return 0, 0, fmt.Errorf("theory: t*: want N ≥ 1, |I| ≥ 1, |R̄_0(S_0)| ≥ 0, a σ and β_t; got N = %d, |I| = %d, |R̄_0| = %d, %d σ", p.N, p.GPs, p.Reach0, len(p.NoiseStds))
	}
	if !(p.Epsilon >= 0) || math.IsInf(p.Epsilon, 0) {
		return 0, 0, fmt.Errorf("theory: t*: ε = %v: want a finite number ≥ 0", p.Epsilon)
	}
	if !(p.KMax >= 0) || math.IsInf(p.KMax, 0) {
		return 0, 0, fmt.Errorf("theory: t*: max k(x,x) = %v: want a finite number ≥ 0", p.KMax)
	}
	sMin, sMax = math.Inf(1), 0.0
	for _, s := range p.NoiseStds {
		if !(s > 0) || math.IsInf(s, 0) {
			return 0, 0, fmt.Errorf("%w: noise σ = %v: C_1 = 8/log(1 + σ⁻²) and γ_t need a finite σ > 0 (Berkenkamp et al. 2016, Theorem 1)", ErrNoTStar, s)
		}
		sMin, sMax = math.Min(sMin, s), math.Max(sMax, s)
	}
	return sMin, sMax, nil
}

// tstarSearch is SafeOptTStar's search for the first t with
// t/(β_t·γ_t) ≥ r.Target: nI = |I|·N and a = |I|²N·k_max/σ²_min.
type tstarSearch struct {
	p        *TStarProblem
	r        *TStar
	sMin, nI float64
	a        float64
}

// gamma is GammaBound(|I|t, |I|N, σ, k_max), in floating point: |I|·t
// may exceed an int for large t.
func (q *tstarSearch) gamma(t int) float64 {
	return q.nI * math.Log1p(float64(q.p.GPs)*float64(t)*q.nI*q.p.KMax/(q.sMin*q.sMin))
}

func (q *tstarSearch) ratio(t int) float64 { return float64(t) / (q.p.Beta(t) * q.gamma(t)) }

// ok reports whether round t reaches the target.
func (q *tstarSearch) ok(t int) bool { return q.ratio(t) >= q.r.Target }

// increasing reports whether the ratio increases from t on.
func (q *tstarSearch) increasing(t int) bool {
	c := 1 - 1/math.Log1p(q.a*float64(t))
	if q.p.Paper {
		c -= 4 / q.p.Beta(t)
	}
	return c > 0
}

// first bisects [lo, hi], where the ratio increases and ok(hi), for the
// first t with ok(t).
func (q *tstarSearch) first(lo, hi int) int {
	for lo < hi {
		mid := lo + (hi-lo)/2
		if q.ok(mid) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}

// found completes the result at t*.
func (q *tstarSearch) found(t int) (*TStar, error) {
	r := q.r
	r.T, r.BetaT, r.GammaT, r.Ratio = int64(t), q.p.Beta(t), q.gamma(t), q.ratio(t)
	return r, nil
}
