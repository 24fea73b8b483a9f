// Package chol factors a symmetric positive definite matrix (A = UᵀU) and
// inverts it from the factor, in tiles whose updates run on several
// goroutines: the Cholesky factorization and inverse of a GP's Gram matrix
// that a kernel fit computes at every evaluation (fit, issue 45).
//
// The tiles are Tile × Tile whatever the number of workers, and each tile
// is computed by the same serial gonum routines in the same order, so the
// result does not depend on the workers: one worker gives the bits that
// eight do. A tile's product runs on its worker's goroutine (gemm), not
// on the goroutines gonum's Dgemm starts for a product of its size, so
// that one worker is one core. It differs from gonum's unblocked-panel Dpotrf and Dpotri in
// the last bits only (the sums run in another order).
//
// Layer 0 (docs/layout.md): it imports gonum only.
package chol
