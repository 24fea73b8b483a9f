package bandit

import (
	"math"
	"testing"
)

// TestEIFormulas checks expected improvement and the probability of
// feasibility against closed forms: EI(μ, σ; f⁺) = (μ − f⁺)Φ(z) + σφ(z),
// so EI(0, 1; 0) = φ(0) = 1/√(2π), EI(1, 1; 0) = Φ(1) + φ(1), EI(−1, 2; 0)
// = −Φ(−½) + 2φ(½); with σ = 0 the improvement itself; P(Z ≥ h) =
// Φ((μ − h)/σ). Φ(1), Φ(−½), φ(1), φ(½) to 16 digits (Abramowitz &
// Stegun's tables; erfc here): tolerance 1e-15 absolute.
func TestEIFormulas(t *testing.T) {
	t.Parallel()
	const (
		phi0     = 0.3989422804014327 // 1/√(2π)
		phi1     = 0.24197072451914337
		phiHalf  = 0.3520653267642995
		cdf1     = 0.8413447460685429
		cdfMHalf = 0.3085375387259869
	)
	for _, c := range []struct{ mu, sd, best, want float64 }{
		{0, 1, 0, phi0}, {1, 1, 0, cdf1 + phi1}, {-1, 2, 0, -cdfMHalf + 2*phiHalf},
		{3, 0, 1, 2}, {0.5, 0, 1, 0},
	} {
		if got := expectedImprovement(c.mu, c.sd, c.best); math.Abs(got-c.want) > 1e-15 {
			t.Errorf("EI(%v, %v; %v) = %.17g, want %.17g", c.mu, c.sd, c.best, got, c.want)
		}
	}
	for _, c := range []struct{ mu, sd, h, want float64 }{
		{1, 1, 0, cdf1}, {0, 2, 1, cdfMHalf}, {2, 0, 1, 1}, {0, 0, 1, 0}, {1, 0, 1, 1},
	} {
		if got := probAbove(c.mu, c.sd, c.h); math.Abs(got-c.want) > 1e-15 {
			t.Errorf("P(N(%v, %v²) ≥ %v) = %.17g, want %.17g", c.mu, c.sd, c.h, got, c.want)
		}
	}
}
