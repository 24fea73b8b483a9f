package chol

import (
	"sync"
	"sync/atomic"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/gonum"
	"gonum.org/v1/gonum/lapack/lapack64"
)

// Tile is the side of a tile: small enough that a factorization of a few
// hundred rows has tiles for two cores to share, large enough that each
// tile's product runs near gonum's serial rate.
const Tile = 96

// Factor overwrites the upper triangle of the n×n row-major matrix a
// (stride n) with U, A = UᵀU, as lapack64.Potrf does for blas.Upper; the
// strict lower triangle is not read. It reports false when A is not
// numerically positive definite (a is then partly overwritten). A
// right-looking blocked factorization: for each diagonal tile k, factor
// it, solve the tiles right of it (in parallel), then update every tile
// of the trailing submatrix (in parallel).
func Factor(a []float64, n, workers int) bool {
	nt := tiles(n)
	for k := range nt {
		k0, kb := span(k, n)
		if _, ok := lapack64.Potrf(blas64.Symmetric{N: kb, Stride: n, Data: a[k0*n+k0:], Uplo: blas.Upper}); !ok {
			return false
		}
		ukk := tri(a, n, k0, kb)
		// U_kj = U_kkᵀ⁻¹ A_kj, for each tile j right of the diagonal.
		Parallel(nt-k-1, workers, func(t int) {
			j0, jb := span(k+1+t, n)
			blas64.Trsm(blas.Left, blas.Trans, 1, ukk, tile(a, n, k0, j0, kb, jb))
		})
		// A_ij −= U_kiᵀ U_kj for k < i ≤ j: the trailing tiles in row
		// order, one task each.
		m := nt - k - 1
		Parallel(m*(m+1)/2, workers, func(t int) {
			i, j := upperPair(t, m)
			i0, ib := span(k+1+i, n)
			j0, jb := span(k+1+j, n)
			uki := tile(a, n, k0, i0, kb, ib)
			if i == j {
				blas64.Syrk(blas.Trans, -1, uki, 1, blas64.Symmetric{N: ib, Stride: n, Data: a[i0*n+i0:], Uplo: blas.Upper})
				return
			}
			gemm(blas.Trans, blas.NoTrans, -1, uki, tile(a, n, k0, j0, kb, jb), tile(a, n, i0, j0, ib, jb))
		})
	}
	return true
}

// Inverse overwrites the upper triangle of a, holding U from Factor (or
// lapack64.Potrf), with the upper triangle of A⁻¹ = U⁻¹U⁻ᵀ, as
// lapack64.Potri does; the strict lower triangle is not read. It reports
// false when U is singular. scratch is at least n·Tile long (nil: it is
// allocated).
func Inverse(a []float64, n, workers int, scratch []float64) bool {
	if len(scratch) < n*Tile {
		scratch = make([]float64, n*Tile)
	}
	nt := tiles(n)
	// X = U⁻¹, a block column at a time (LAPACK's dtrtri): X_{:j,j} =
	// −X_{:j,:j} U_{:j,j} U_jj⁻¹, from the columns before (inverted
	// already), then X_jj = U_jj⁻¹.
	for j := range nt {
		j0, jb := span(j, n)
		if j0 > 0 {
			// U_{:j,j}, copied: each row tile of the product reads the
			// rows below its own.
			b := blas64.General{Rows: j0, Cols: jb, Stride: jb, Data: scratch[:j0*jb]}
			for r := range j0 {
				copy(b.Data[r*jb:(r+1)*jb], a[r*n+j0:r*n+j0+jb])
			}
			ujj := tri(a, n, j0, jb)
			Parallel(tiles(j0), workers, func(t int) {
				r0, rb := span(t, j0)
				out := tile(a, n, r0, j0, rb, jb)
				for r := range rb {
					copy(out.Data[r*n:r*n+jb], b.Data[(r0+r)*jb:(r0+r+1)*jb])
				}
				blas64.Trmm(blas.Left, blas.NoTrans, 1, tri(a, n, r0, rb), out)
				if r1 := r0 + rb; r1 < j0 {
					rest := blas64.General{Rows: j0 - r1, Cols: jb, Stride: jb, Data: b.Data[r1*jb:]}
					gemm(blas.NoTrans, blas.NoTrans, 1, tile(a, n, r0, r1, rb, j0-r1), rest, out)
				}
				blas64.Trsm(blas.Right, blas.NoTrans, -1, ujj, out)
			})
		}
		if !lapack64.Trtri(tri(a, n, j0, jb)) {
			return false
		}
	}
	// A⁻¹ = X Xᵀ, a block column at a time from the left (LAPACK's
	// dlauum, in place): tile (i, j) = X_ij X_jjᵀ + Σ_{k>j} X_ik X_jkᵀ
	// reads only tiles of columns ≥ j, which are still X, and X_jj, which
	// is updated after the column's other tiles.
	var impl gonum.Implementation
	for j := range nt {
		j0, jb := span(j, n)
		j1 := j0 + jb
		xjj := tri(a, n, j0, jb)
		Parallel(j, workers, func(i int) {
			i0, ib := span(i, n)
			out := tile(a, n, i0, j0, ib, jb)
			blas64.Trmm(blas.Right, blas.Trans, 1, xjj, out)
			if j1 < n {
				gemm(blas.NoTrans, blas.Trans, 1, tile(a, n, i0, j1, ib, n-j1), tile(a, n, j0, j1, jb, n-j1), out)
			}
		})
		impl.Dlauum(blas.Upper, jb, a[j0*n+j0:], n)
		if j1 < n {
			blas64.Syrk(blas.NoTrans, 1, tile(a, n, j0, j1, jb, n-j1), 1, blas64.Symmetric{N: jb, Stride: n, Data: a[j0*n+j0:], Uplo: blas.Upper})
		}
	}
	return true
}

// gemm is blas64.Gemm(tA, tB, alpha, a, b, 1, c) computed on the calling
// goroutine, to the bit. gonum's Dgemm runs a product whose C spans four
// or more of its 64 × 64 blocks (a Tile × Tile one does) as one goroutine
// per block of C, each summing over k a block at a time; under Parallel,
// which already runs a tile per worker, that is a goroutine started and
// joined per block and more goroutines than cores. gemm takes the same
// blocks in the same order, so each entry of C is the same sum.
func gemm(tA, tB blas.Transpose, alpha float64, a, b, c blas64.General) {
	m, n, k := c.Rows, c.Cols, a.Cols
	if tA == blas.Trans {
		k = a.Rows
	}
	if blocks(m)*blocks(n) < gonumParBlocks {
		blas64.Gemm(tA, tB, alpha, a, b, 1, c) // gonum's serial path
		return
	}
	for i := 0; i < m; i += gonumBlock {
		mi := min(gonumBlock, m-i)
		for j := 0; j < n; j += gonumBlock {
			nj := min(gonumBlock, n-j)
			cij := sub(c, i, j, mi, nj)
			for l := 0; l < k; l += gonumBlock {
				kl := min(gonumBlock, k-l)
				var ail, blj blas64.General
				if tA == blas.Trans {
					ail = sub(a, l, i, kl, mi)
				} else {
					ail = sub(a, i, l, mi, kl)
				}
				if tB == blas.Trans {
					blj = sub(b, j, l, nj, kl)
				} else {
					blj = sub(b, l, j, kl, nj)
				}
				blas64.Gemm(tA, tB, alpha, ail, blj, 1, cij)
			}
		}
	}
}

// gonumBlock and gonumParBlocks are gonum v0.17.0's Dgemm block side and
// the number of blocks of C from which it runs them on goroutines
// (blas/gonum's blockSize and minParBlock); TestGemmSameBits checks that
// gemm still gives gonum's bits.
const (
	gonumBlock     = 64
	gonumParBlocks = 4
)

// blocks is the number of gonumBlock blocks along n.
func blocks(n int) int { return (n + gonumBlock - 1) / gonumBlock }

// sub is the r×c block of g at (i, j).
func sub(g blas64.General, i, j, r, c int) blas64.General {
	return blas64.General{Rows: r, Cols: c, Stride: g.Stride, Data: g.Data[i*g.Stride+j : (i+r-1)*g.Stride+j+c]}
}

// tiles is the number of tiles along n rows.
func tiles(n int) int { return (n + Tile - 1) / Tile }

// span is tile k's first row and its size.
func span(k, n int) (int, int) { return k * Tile, min(Tile, n-k*Tile) }

// tile is the r×c block of a at (i0, j0).
func tile(a []float64, n, i0, j0, r, c int) blas64.General {
	return blas64.General{Rows: r, Cols: c, Stride: n, Data: a[i0*n+j0 : (i0+r-1)*n+j0+c]}
}

// tri is the upper triangular diagonal block of a at (k0, k0), kb rows.
func tri(a []float64, n, k0, kb int) blas64.Triangular {
	return blas64.Triangular{N: kb, Stride: n, Data: a[k0*n+k0 : (k0+kb-1)*n+k0+kb], Uplo: blas.Upper, Diag: blas.NonUnit}
}

// upperPair is the t-th pair (i, j), i ≤ j < m, in row order.
func upperPair(t, m int) (int, int) {
	for i := range m {
		if t < m-i {
			return i, i + t
		}
		t -= m - i
	}
	panic("chol: pair out of range") // not reached: t < m(m+1)/2
}

// Parallel runs job(0) … job(n−1) on up to workers goroutines (the
// calling one among them) and returns when all are done: for jobs that
// each write their own part of the result, so that their order does not
// matter.
func Parallel(n, workers int, job func(int)) {
	if n <= 0 {
		return
	}
	if workers <= 1 || n == 1 {
		for t := range n {
			job(t)
		}
		return
	}
	var next atomic.Int64
	run := func() {
		for t := int(next.Add(1) - 1); t < n; t = int(next.Add(1) - 1) {
			job(t)
		}
	}
	var wg sync.WaitGroup
	for range min(workers, n) - 1 {
		wg.Add(1)
		go func() { defer wg.Done(); run() }()
	}
	run()
	wg.Wait()
}
