package gemv_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/safegp/safegp/internal/gemv"
)

// TestSameAsGonum: AddNegT gives gonum's transposed Gemv (alpha −1, beta
// 1) bit for bit, on every shape the kernel's bands meet (n around the
// 16-, 4- and 1-column bands, t from 1, strides wider than n, values of
// mixed sign and magnitude, so that rounding differs if the order of the
// operations does). Bit equality is the claim, so there is no tolerance.
func TestSameAsGonum(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 5))
	for _, n := range []int{1, 2, 3, 4, 5, 15, 16, 17, 20, 33, 100, 131} {
		for _, rows := range []int{1, 2, 3, 4, 5, 7, 8, 9, 11, 12, 13, 16, 20, 23, 27, 64, 301} {
			for _, extra := range []int{0, 3} {
				stride := n + extra
				v := make([]float64, rows*stride)
				for i := range v {
					v[i] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(7)-3))
				}
				l := make([]float64, rows)
				for i := range l {
					l[i] = rng.NormFloat64()
				}
				// Signed zeros, where −l must be l with its sign flipped
				// (−1·x, as gonum's alpha·x) and not 0 − x.
				l[0] = math.Copysign(0, float64(rows%2)-0.5)
				want := make([]float64, n)
				for i := range want {
					want[i] = rng.NormFloat64()
				}
				want[0] = math.Copysign(0, -1)
				got := append([]float64(nil), want...)
				vm := blas64.General{Rows: rows, Cols: n, Stride: stride, Data: v[:(rows-1)*stride+n]}
				blas64.Gemv(blas.Trans, -1, vm, blas64.Vector{N: rows, Inc: 1, Data: l}, 1, blas64.Vector{N: n, Inc: 1, Data: want})
				gemv.AddNegT(got, v, stride, l)
				for j := range want {
					if math.Float64bits(got[j]) != math.Float64bits(want[j]) {
						t.Fatalf("n=%d t=%d stride=%d: y[%d] = %v, gonum %v", n, rows, stride, j, got[j], want[j])
					}
				}
			}
		}
	}
}

// BenchmarkAddNegT against gonum's Gemv on the GP update's shapes: V in
// cache (N = 100, the paper's decision sets; N = 400) and V far larger
// than the caches (N = 10⁴, 40 MB at t = 500), where both are bound by
// memory.
func BenchmarkAddNegT(b *testing.B) {
	for _, n := range []int{100, 400, 10000} {
		for _, rows := range []int{250, 500} {
			v := make([]float64, rows*n)
			for i := range v {
				v[i] = float64(i%13) * 0.1
			}
			l := make([]float64, rows)
			for i := range l {
				l[i] = 1 / float64(i+1)
			}
			y := make([]float64, n)
			flops := 2 * float64(n*rows)
			b.Run(fmt.Sprintf("avx2/N=%d/t=%d", n, rows), func(b *testing.B) {
				for b.Loop() {
					gemv.AddNegT(y, v, n, l)
				}
				b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
			b.Run(fmt.Sprintf("gonum/N=%d/t=%d", n, rows), func(b *testing.B) {
				vm := blas64.General{Rows: rows, Cols: n, Stride: n, Data: v}
				for b.Loop() {
					blas64.Gemv(blas.Trans, -1, vm, blas64.Vector{N: rows, Inc: 1, Data: l}, 1, blas64.Vector{N: n, Inc: 1, Data: y})
				}
				b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}
