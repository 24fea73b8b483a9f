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
