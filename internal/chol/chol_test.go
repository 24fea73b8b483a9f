package chol

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
)

// spd is an n×n symmetric positive definite matrix, row-major: a Gram
// matrix of an SE kernel on random points, plus a small diagonal, as a fit
// builds (condition numbers up to about 10⁶ here).
func spd(n int, seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 1))
	x := make([][3]float64, n)
	for i := range x {
		x[i] = [3]float64{rng.Float64(), rng.Float64(), rng.Float64()}
	}
	a := make([]float64, n*n)
	for i := range n {
		for j := range n {
			var r2 float64
			for k := range 3 {
				d := x[i][k] - x[j][k]
				r2 += d * d
			}
			a[i*n+j] = math.Exp(-r2 / (2 * 0.3 * 0.3))
		}
		a[i*n+i] += 1e-3
	}
	return a
}

// upper is a's upper triangle, the rest zero.
func upper(a []float64, n int) []float64 {
	out := make([]float64, n*n)
	for i := range n {
		copy(out[i*n+i:(i+1)*n], a[i*n+i:(i+1)*n])
	}
	return out
}

// TestAgainstLAPACK: Factor and Inverse give gonum's Potrf and Potri's
// upper triangles to 1e-12 relative (the factor) and 1e-8 of the
// inverse's largest entry (a condition number near 10⁶ times the sums'
// rounding, in another order), at sizes below, at and across the tile's,
// and the same bits for 1, 2, 3 and 8 workers.
func TestAgainstLAPACK(t *testing.T) {
	for _, n := range []int{1, 2, 17, Tile - 1, Tile, Tile + 1, 2*Tile + 5, 300} {
		a := spd(n, uint64(n))
		want := slices.Clone(a)
		if _, ok := lapack64.Potrf(blas64.Symmetric{N: n, Stride: n, Data: want, Uplo: blas.Upper}); !ok {
			t.Fatalf("n = %d: gonum's Potrf fails", n)
		}
		wantU := upper(want, n)
		if _, ok := lapack64.Potri(blas64.Triangular{N: n, Stride: n, Data: want, Uplo: blas.Upper, Diag: blas.NonUnit}); !ok {
			t.Fatalf("n = %d: gonum's Potri fails", n)
		}
		wantInv := upper(want, n)
		var first, firstInv []float64
		for _, workers := range []int{1, 2, 3, 8} {
			got := slices.Clone(a)
			if !Factor(got, n, workers) {
				t.Fatalf("n = %d, %d workers: Factor fails", n, workers)
			}
			gotU := upper(got, n)
			if !Inverse(got, n, workers, nil) {
				t.Fatalf("n = %d, %d workers: Inverse fails", n, workers)
			}
			gotInv := upper(got, n)
			if first == nil {
				first, firstInv = gotU, gotInv
				if d := maxRel(gotU, wantU, 1); d > 1e-12 {
					t.Errorf("n = %d: the factor differs from Potrf's by %.3g relative", n, d)
				}
				scale := 0.0
				for _, v := range wantInv {
					scale = math.Max(scale, math.Abs(v))
				}
				if d := maxRel(gotInv, wantInv, scale); d > 1e-8 {
					t.Errorf("n = %d: the inverse differs from Potri's by %.3g of its largest entry", n, d)
				}
				continue
			}
			if !slices.Equal(gotU, first) || !slices.Equal(gotInv, firstInv) {
				t.Errorf("n = %d: %d workers give other bits than 1", n, workers)
			}
		}
	}
}

// maxRel is the largest |a−b| / max(|b|, scale) over the entries.
func maxRel(a, b []float64, scale float64) float64 {
	var d float64
	for i := range a {
		d = math.Max(d, math.Abs(a[i]-b[i])/math.Max(math.Abs(b[i]), scale))
	}
	return d
}

// TestNotPositiveDefinite: a matrix with a negative pivot in its third
// tile is refused, as by Potrf.
func TestNotPositiveDefinite(t *testing.T) {
	n := 3*Tile + 10
	a := spd(n, 7)
	a[(2*Tile+3)*n+2*Tile+3] = -1
	if Factor(a, n, 2) {
		t.Error("Factor of a matrix that is not positive definite reports ok")
	}
}

// BenchmarkFactorInverse: the factorization and the inverse (n³ flops
// in all) at n = 256 … 1 000 on 1 and 2 workers, against gonum's Potrf
// and Potri: where the tiles pay (fit's tiledFrom).
func BenchmarkFactorInverse(b *testing.B) {
	for _, n := range []int{256, 384, 512, 1000} {
		a := spd(n, 1)
		w := make([]float64, n*n)
		scratch := make([]float64, n*Tile)
		flops := float64(n) * float64(n) * float64(n)
		b.Run(fmt.Sprintf("n=%d/gonum", n), func(b *testing.B) {
			for b.Loop() {
				copy(w, a)
				lapack64.Potrf(blas64.Symmetric{N: n, Stride: n, Data: w, Uplo: blas.Upper})
				lapack64.Potri(blas64.Triangular{N: n, Stride: n, Data: w, Uplo: blas.Upper, Diag: blas.NonUnit})
			}
			b.ReportMetric(flops/(float64(b.Elapsed().Nanoseconds())/float64(b.N)), "GFLOP/s")
		})
		for _, workers := range []int{1, 2} {
			b.Run(fmt.Sprintf("n=%d/tiles-workers=%d", n, workers), func(b *testing.B) {
				for b.Loop() {
					copy(w, a)
					Factor(w, n, workers)
					Inverse(w, n, workers, scratch)
				}
				b.ReportMetric(flops/(float64(b.Elapsed().Nanoseconds())/float64(b.N)), "GFLOP/s")
			})
		}
	}
}

// TestGemmSameBits: gemm gives blas64.Gemm's bits, for every transpose
// pair and for shapes on both sides of gonum's 4-block threshold (C of
// 96 × 96, a tile's, is above it; 40 × 96 below), with k within one block
// and across several (the parallel path sums over k a block at a time,
// which for A·Bᵀ is not the serial path's single dot product).
func TestGemmSameBits(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 1))
	fill := func(r, c int) blas64.General {
		g := blas64.General{Rows: r, Cols: c, Stride: c + 3, Data: make([]float64, r*(c+3))}
		for i := range g.Data {
			g.Data[i] = rng.NormFloat64()
		}
		return g
	}
	for _, tA := range []blas.Transpose{blas.NoTrans, blas.Trans} {
		for _, tB := range []blas.Transpose{blas.NoTrans, blas.Trans} {
			for _, s := range [][3]int{{96, 96, 96}, {96, 96, 300}, {40, 96, 200}, {130, 70, 65}, {64, 64, 64}, {5, 200, 7}} {
				m, n, k := s[0], s[1], s[2]
				a, b := fill(m, k), fill(k, n)
				if tA == blas.Trans {
					a = fill(k, m)
				}
				if tB == blas.Trans {
					b = fill(n, k)
				}
				c := fill(m, n)
				want := blas64.General{Rows: m, Cols: n, Stride: c.Stride, Data: slices.Clone(c.Data)}
				blas64.Gemm(tA, tB, -1, a, b, 1, want)
				gemm(tA, tB, -1, a, b, c)
				for i, v := range c.Data {
					if math.Float64bits(v) != math.Float64bits(want.Data[i]) {
						t.Fatalf("tA %c tB %c, %d×%d×%d: entry %d is %v, gonum's %v", tA, tB, m, n, k, i, v, want.Data[i])
					}
				}
			}
		}
	}
}
