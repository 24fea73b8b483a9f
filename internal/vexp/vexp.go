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

// SERow2 sets dst[j] = v·e^{−s/c}, s = (x0−p0)² + (x1−p1)², for the
// points (p0, p1) = (pts[2j], pts[2j+1]): the isotropic SE kernel's row
// in the plane (c = 2ℓ², v the variance), in one pass instead of three,
// with exactly the operations of
//
//	a, b := x0-pts[2*j], x1-pts[2*j+1]
//	var s float64
//	s += a * a
//	s += b * b
//	dst[j] = v * math.Exp(-s/c)
//
// so the same bits (TestSERow2).
func SERow2(dst []float64, x0, x1 float64, pts []float64, c, v float64) {
	pts = pts[:2*len(dst)]
	p := [4]float64{x0, x1, c, v}
	for len(dst) > 0 {
		if haveVector {
			n := seRow2Vector(dst, pts, &p)
			dst, pts = dst[n:], pts[2*n:]
		}
		m := min(len(dst), 4)
		for j := range dst[:m] {
			a, b := x0-pts[2*j], x1-pts[2*j+1]
			var s float64
			s += a * a
			s += b * b
			dst[j] = v * math.Exp(-s/c)
		}
		dst, pts = dst[m:], pts[2*m:]
	}
}
