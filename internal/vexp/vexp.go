package vexp

import "math"

// Exp replaces each x[i] with math.Exp(x[i]), to the bit. It allocates
// nothing.
func Exp(x []float64) {
	for len(x) > 0 {
		n := 0
		if haveVector {
			n = expVector(x)
			x = x[n:]
		}
		// The vector kernel stops at a block it cannot take (or at the
		// tail of fewer than four): do that block with math.Exp and go on.
		m := min(len(x), 4)
		for i := range x[:m] {
			x[i] = math.Exp(x[i])
		}
		x = x[m:]
	}
}
