package theory_test

import (
	"errors"
	"math"
	"testing"

	"github.com/safegp/safegp/theory"
)

// tstarRatio is t/(β_t·γ_{|I|t}) written out from Berkenkamp et al. 2016,
// Theorem 1, independently of the package: β_t = 2·log((m+1)·N·t²·π²/(6δ))
// (or a constant) and γ_{|I|t} ≤ |I|N·log(1 + σ⁻²·|I|t·|I|N·k_max).
func tstarRatio(t float64, gps, n int, sigma, kmax, delta, beta float64) float64 {
	b := beta
	if b == 0 {
		b = 2 * math.Log(float64(gps)*float64(n)*t*t*math.Pi*math.Pi/(6*delta))
	}
	nI := float64(gps * n)
	g := nI * math.Log(1+float64(gps)*t*nI*kmax/(sigma*sigma))
	return t / (b * g)
}

// TestSafeOptTStar: t* against a from-scratch computation. For settings
// with a small t* a scan over t = 1, 2, … finds the first t whose ratio
// reaches C_1·(|R̄_0|+1)/ε² (C_1 = 8/log(1 + σ⁻²)); for every setting the
// inequality holds at t* and fails at t* − 1, with the ratio computed
// again here (the same floats in another order: compared with a margin of
// 1e-12 relative, far below the gaps between consecutive t's ratios).
func TestSafeOptTStar(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name             string
		n, gps, reach    int
		eps, sigma, kmax float64
		delta, beta      float64 // beta 0: the paper's schedule
		scan             bool    // t* small enough to find by scanning
		want             int64   // if not 0, t* by hand
	}{
		// ε so large that t = 1 already qualifies: t* = 1.
		{"t* = 1", 2, 2, 1, 100, 1, 1, 0.5, 0, true, 1},
		{"paper β, small", 5, 2, 3, 2, 1, 1, 0.1, 0, true, 0},
		{"constant β", 10, 3, 4, 1, 0.5, 1, 0.01, 2, true, 0},
		{"one GP (Sui et al. 2015)", 20, 1, 7, 1.5, 0.3, 2, 0.05, 0, true, 0},
		{"large σ, slow γ", 4, 2, 1, 3, 5, 1, 0.1, 0, true, 0},
		// The paper's setting (N = 100, m = 1, σ = 0.1, δ = ε = 0.01,
		// |R̄_0| = 21): t* ≈ 3.6·10¹¹, far beyond T = 500.
		{"paper's Fig. 2 setting", 100, 2, 21, 0.01, 0.1, 1, 0.01, 0, false, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := theory.TStarProblem{N: c.n, GPs: c.gps, Reach0: c.reach, Epsilon: c.eps, NoiseStds: []float64{c.sigma}, KMax: c.kmax, Paper: c.beta == 0}
			p.Beta = func(tt int) float64 {
				if c.beta != 0 {
					return c.beta
				}
				return theory.Beta(tt, c.gps-1, c.n, c.delta)
			}
			got, err := theory.SafeOptTStar(p)
			if err != nil {
				t.Fatal(err)
			}
			target := 8 / math.Log(1+1/(c.sigma*c.sigma)) * float64(c.reach+1) / (c.eps * c.eps)
			if math.Abs(got.Target-target) > 1e-12*target {
				t.Errorf("target %v, want %v", got.Target, target)
			}
			ratio := func(tt int64) float64 {
				return tstarRatio(float64(tt), c.gps, c.n, c.sigma, c.kmax, c.delta, c.beta)
			}
			t.Logf("t* = %d, target %.4g", got.T, got.Target)
			if got.T < 1 {
				t.Fatalf("t* = %d, want a positive t*", got.T)
			}
			if r := ratio(got.T); !(r >= target*(1-1e-12)) {
				t.Errorf("at t* = %d: ratio %v < target %v", got.T, r, target)
			}
			if got.T > 1 {
				if r := ratio(got.T - 1); !(r < target*(1+1e-12)) {
					t.Errorf("at t* − 1 = %d: ratio %v ≥ target %v", got.T-1, r, target)
				}
			}
			if c.want != 0 && got.T != c.want {
				t.Errorf("t* = %d, want %d", got.T, c.want)
			}
			limit := int64(1 << 20)
			if c.scan {
				limit = got.T
			}
			for tt := int64(1); tt < limit && tt < got.T; tt++ {
				if ratio(tt) >= target*(1+1e-12) {
					t.Fatalf("t = %d < t* = %d already reaches the target", tt, got.T)
				}
			}
			if c.name == "paper's Fig. 2 setting" && (got.Within(500) || got.T < 1e11 || got.T > 1e12) {
				t.Errorf("t* = %d, want ≈ 3.6e11 > T = 500", got.T)
			}
			if got.BetaT != p.Beta(int(got.T)) || math.Abs(got.Ratio-ratio(got.T)) > 1e-12*got.Ratio {
				t.Errorf("reported β %v, ratio %v at t*; want %v, %v", got.BetaT, got.Ratio, p.Beta(int(got.T)), ratio(got.T))
			}
		})
	}
}

// TestSafeOptTStarNone: ε = 0 puts the target at +∞ (no t*: never
// switch); σ = 0 has no C_1 (ErrNoTStar); malformed inputs are errors,
// never panics.
func TestSafeOptTStarNone(t *testing.T) {
	t.Parallel()
	base := theory.TStarProblem{N: 10, GPs: 2, Reach0: 3, Epsilon: 0.1, NoiseStds: []float64{0.1}, KMax: 1,
		Beta: func(t int) float64 { return theory.Beta(t, 1, 10, 0.01) }, Paper: true}
	p := base
	p.Epsilon = 0
	if got, err := theory.SafeOptTStar(p); err != nil || got.T != 0 || !math.IsInf(got.Target, 1) || got.Within(1<<30) {
		t.Errorf("ε = 0: got %+v, %v; want no t*", got, err)
	}
	p = base
	p.NoiseStds = []float64{0.1, 0}
	if _, err := theory.SafeOptTStar(p); !errors.Is(err, theory.ErrNoTStar) {
		t.Errorf("σ = 0: got %v, want ErrNoTStar", err)
	}
	for name, mod := range map[string]func(*theory.TStarProblem){
		"N = 0":      func(p *theory.TStarProblem) { p.N = 0 },
		"no GP":      func(p *theory.TStarProblem) { p.GPs = 0 },
		"no σ":       func(p *theory.TStarProblem) { p.NoiseStds = nil },
		"no β":       func(p *theory.TStarProblem) { p.Beta = nil },
		"ε NaN":      func(p *theory.TStarProblem) { p.Epsilon = math.NaN() },
		"k_max −1":   func(p *theory.TStarProblem) { p.KMax = -1 },
		"σ +Inf":     func(p *theory.TStarProblem) { p.NoiseStds = []float64{math.Inf(1)} },
		"reach −1":   func(p *theory.TStarProblem) { p.Reach0 = -1 },
		"ε +Inf":     func(p *theory.TStarProblem) { p.Epsilon = math.Inf(1) },
		"k_max +Inf": func(p *theory.TStarProblem) { p.KMax = math.Inf(1) },
	} {
		p := base
		mod(&p)
		if got, err := theory.SafeOptTStar(p); err == nil {
			t.Errorf("%s: got %+v, want an error", name, got)
		}
	}
	// Several σ: C_1 takes the largest, γ the smallest, so t* is at least
	// that of either σ alone.
	p = base
	one, _ := theory.SafeOptTStar(p)
	p.NoiseStds = []float64{0.1, 0.3}
	both, err := theory.SafeOptTStar(p)
	if err != nil || both.T < one.T || both.C1 != theory.C1(0.3) {
		t.Errorf("σ = 0.1 and 0.3: t* = %d (C_1 %v), %v; σ = 0.1 alone: %d", both.T, both.C1, err, one.T)
	}
}
