// Package gemv computes the GP update's one product, y ← y − Vᵀl for a
// row-major t × n matrix V (gp.Model's explained), faster than gonum's
// Gemv and to the same bits.
//
// gonum's transposed Gemv (internal/asm/f64.GemvT, SSE2) passes the rows
// of V in blocks of four and accumulates every y_j over them in order,
// y_j ← y_j + (−l_s)·V[s, j], one rounding per multiply and per add, two
// columns per instruction. AddNegT does exactly those operations in
// exactly that order with AVX2's four-column instructions (VMULPD,
// VADDPD: no fused multiply-add, which would round once instead of
// twice), so each y_j is the same float; TestSameAsGonum checks it bit
// for bit. BenchmarkAddNegT measures 13–18 GFLOP/s against gonum's
// 8–10.5 where V is in cache (N = 100 … 400, t ≤ 500) and 7.4–9.9
// against 5.8–8.0 at N = 10⁴, where both are bound by memory. Where the
// CPU has no AVX2 it calls gonum.
package gemv
