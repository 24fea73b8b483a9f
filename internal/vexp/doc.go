// Package vexp evaluates math.Exp over a slice, four lanes at a time,
// to the same bits as math.Exp on the same machine: a kernel row's N
// exponentials were a third of a large GP update (gp.Model.Observe at
// N = 10⁵ spent 0.62 s of 2.6 s in math.Exp's scalar assembly).
//
// math.Exp on amd64 is assembly (math/exp_amd64.s, after Shibata's SLEEF)
// with two paths chosen once per process: one with fused multiply-adds
// where the CPU has AVX and FMA, one without. Exp runs exactly the FMA
// path's operations in exactly its order, four float64 lanes an
// instruction (AVX2), where the CPU has AVX2 and FMA (and so math.Exp
// takes that path too): the argument reduction by ln 2 in two parts, the
// degree-8 Taylor polynomial of e^{r/16}, four squarings and the scaling
// by 2^k. Lanes whose result is a normal number (|x| ≤ 700) and lanes
// far enough below that math.Exp returns 0 (x < −746) are done in the
// vector unit; any block of four holding anything else (NaN, ±Inf, a
// subnormal result, overflow) is handed to math.Exp itself. Elsewhere
// (no AVX2 or no FMA, or another architecture) Exp calls math.Exp. So
// Exp(x)[i] == math.Exp(x[i]) bit for bit everywhere, which
// TestSameAsMath checks on every class of input.
//
// SERow2 fuses the isotropic SE kernel's row in the plane into the same
// pass (the differences, the squared distance, the division by 2ℓ², the
// exponential and the variance, each the operation kernel.Row's Go
// performs): 3.6 ns an entry against 5.5 for the three passes. Both are
// bound by latency (the Taylor polynomial is a chain of eight fused
// multiply-adds), not by the vector units: two blocks at a time would be
// faster still.
package vexp
