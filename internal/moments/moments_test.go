package moments_test

import (
	"math"
	"testing"

	"github.com/safegp/safegp/internal/moments"
)

// TestMoments checks the running mean and standard error against the
// closed forms for {1, 2, 4, 8} (mean 3.75, Σ(x − x̄)² = 28.75, SE =
// √(28.75/3)/2), alone and offset by 10⁹, where Σx² − (Σx)²/n cancels to
// no digit at all in float64. The tolerance: 1e-12 relative without the
// offset; with it 1e-7 on the SE, the 10⁹ offset times the float64
// epsilon's 2.2e-16 over the spread of 1–8, squared through the update.
func TestMoments(t *testing.T) {
	se := math.Sqrt(28.75/3) / 2
	for _, c := range []struct {
		name           string
		xs             []float64
		mean, se       float64
		tolMean, tolSE float64
	}{
		{"none", nil, 0, 0, 0, 0},
		{"one", []float64{3}, 3, 0, 0, 0},
		{"small", []float64{1, 2, 4, 8}, 3.75, se, 1e-12, 1e-12},
		{"offset", []float64{1e9 + 1, 1e9 + 2, 1e9 + 4, 1e9 + 8}, 1e9 + 3.75, se, 1e-15, 1e-7},
	} {
		var m moments.Moments
		for _, x := range c.xs {
			m.Add(x)
		}
		if m.N != float64(len(c.xs)) || math.Abs(m.Mean-c.mean) > c.tolMean*math.Abs(c.mean) || math.Abs(m.SE()-c.se) > c.tolSE*c.se {
			t.Errorf("%s: n %v mean %v se %v, want %d, %v, %v", c.name, m.N, m.Mean, m.SE(), len(c.xs), c.mean, c.se)
		}
	}
}
