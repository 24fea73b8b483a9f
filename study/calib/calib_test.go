package calib

import (
	"math"
	"testing"
)

// TestTailAtLeast checks the Poisson-binomial tail against the binomial
// closed form Σ_{j≥k} C(n,j) p^j (1−p)^{n−j} when every p is the same, and
// against hand sums for mixed ones; tolerance 1e-14.
func TestTailAtLeast(t *testing.T) {
	binom := func(n, k int, p float64) float64 {
		var s float64
		for j := k; j <= n; j++ {
			c := 1.0
			for i := range j {
				c = c * float64(n-i) / float64(i+1)
			}
			s += c * math.Pow(p, float64(j)) * math.Pow(1-p, float64(n-j))
		}
		return s
	}
	for _, c := range []struct {
		n, k int
		p    float64
	}{{20, 5, 0.1}, {20, 0, 0.3}, {5, 5, 0.5}, {12, 1, 1e-6}, {20, 21, 0.2}} {
		ps := make([]float64, c.n)
		for i := range ps {
			ps[i] = c.p
		}
		want := 1.0
		if c.k > 0 {
			want = binom(c.n, c.k, c.p)
		}
		if got := tailAtLeast(ps, c.k); math.Abs(got-want) > 1e-14 {
			t.Errorf("n %d, k %d, p %g: %.17g, want %.17g", c.n, c.k, c.p, got, want)
		}
	}
	// Mixed: P(X ≥ 1) = 1 − Π(1 − p); P(X ≥ 2) for {p, q} = p·q.
	if got, want := tailAtLeast([]float64{0.1, 0.2, 0.5}, 1), 1-0.9*0.8*0.5; math.Abs(got-want) > 1e-14 {
		t.Errorf("P(X ≥ 1) = %v, want %v", got, want)
	}
	if got, want := tailAtLeast([]float64{0.3, 0.6}, 2), 0.3*0.6; math.Abs(got-want) > 1e-14 {
		t.Errorf("P(X ≥ 2) = %v, want %v", got, want)
	}
}
