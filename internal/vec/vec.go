package vec

import "math"

// Dot is xᵀy (len(y) ≥ len(x)).
func Dot(x, y []float64) float64 {
	var s float64
	for i, xi := range x {
		s += xi * y[i]
	}
	return s
}

// SqDist is ‖x − y‖².
func SqDist(x, y []float64) float64 {
	var s float64
	for i, xi := range x {
		d := xi - y[i]
		s += d * d
	}
	return s
}

// Dist is ‖x − y‖.
func Dist(x, y []float64) float64 { return math.Sqrt(SqDist(x, y)) }

// SameBits reports whether a and b hold the same float64s, bit for bit: 0
// and −0 differ, and a NaN equals itself. Contexts are compared so (a
// contextual policy keeps its inner policy for the same values), since
// kernel inputs that differ in their last bit are other points.
func SameBits(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for j := range a {
		if math.Float64bits(a[j]) != math.Float64bits(b[j]) {
			return false
		}
	}
	return true
}

// PlusZero returns v with −0 made +0: the two are one number to a user
// (JSON and CSV print both as 0), but not to SameBits, which keys
// contexts, nor to what a study records (issue 24, item 7).
func PlusZero(v float64) float64 {
	if v == 0 {
		return 0
	}
	return v
}
