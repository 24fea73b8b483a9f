package vexp

import "golang.org/x/sys/cpu"

// haveVector: the vector kernel needs AVX2 (integer lanes for 2^k) and
// FMA, and where the CPU has FMA (and AVX), math.Exp takes its FMA path,
// the one the kernel copies.
var haveVector = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// consts are math/exp_amd64.s's constants, in the order expVector reads
// them, with its two range limits.
var consts = [...]float64{
	1.4426950408889634073599246810018920,                  // 0: log₂e
	0.69314718055966295651160180568695068359375,           // 8: ln 2, upper part
	0.28235290563031577122588448175013436025525412068e-12, // 16: ln 2, lower part
	0.0625,                   // 24
	2.4801587301587301587e-5, // 32: 1/8!
	1.9841269841269841270e-4, // 40: 1/7!
	1.3888888888888888889e-3, // 48: 1/6!
	8.3333333333333333333e-3, // 56: 1/5!
	4.1666666666666666667e-2, // 64: 1/4!
	1.6666666666666666667e-1, // 72: 1/3!
	0.5,                      // 80
	1.0,                      // 88
	2.0,                      // 96
	-700,                     // 104: below, no longer a normal result for sure
	700,                      // 112
	-746,                     // 120: below, math.Exp returns 0
}

// expVector replaces x[i] with e^{x[i]} for the leading blocks of four it
// can take and returns how many it did (a multiple of four).
//
//go:noescape
func expVectorAsm(x []float64, c *float64) int

func expVector(x []float64) int { return expVectorAsm(x, &consts[0]) }

// seRow2Asm is SERow2's vector kernel (vexp_amd64.s): it returns the
// points done, a multiple of four.
//
//go:noescape
func seRow2Asm(dst, pts []float64, c *float64, p *[4]float64) int

func seRow2Vector(dst, pts []float64, p *[4]float64) int {
	return seRow2Asm(dst, pts, &consts[0], p)
}
