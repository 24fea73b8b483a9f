package moments

import "math"

// Moments is the count, mean and sum of squared deviations of the values
// added so far; the zero value holds none.
type Moments struct{ N, Mean, M2 float64 }

// Add counts x.
func (m *Moments) Add(x float64) {
	m.N++
	d := x - m.Mean
	m.Mean += d / m.N
	m.M2 += d * (x - m.Mean)
}

// SE is the standard error of the mean: the sample standard deviation
// (n − 1 denominator) over √n, 0 for fewer than two values.
func (m *Moments) SE() float64 {
	if m.N < 2 {
		return 0
	}
	return math.Sqrt(math.Max(m.M2, 0)/(m.N-1)) / math.Sqrt(m.N)
}
