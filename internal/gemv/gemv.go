package gemv

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// AddNegT adds −Σ_s l[s]·V[s, j] to y[j] for j < len(y), summed over
// s = 0 … len(l)−1 in order, where V[s, j] = v[s·stride + j]: what
// blas64.Gemv(blas.Trans, −1, V, l, 1, y) computes, to the bit. It
// allocates nothing and may run on disjoint y (column bands) at once.
func AddNegT(y, v []float64, stride int, l []float64) {
	t, n := len(l), len(y)
	if t == 0 || n == 0 {
		return
	}
	if stride < n {
		panic("gemv: AddNegT: stride shorter than a row")
	}
	_ = v[(t-1)*stride+n-1] // bounds: the kernel reads no further
	if haveAVX2 {
		addNegTAVX2(y, v, stride, l)
		return
	}
	vm := blas64.General{Rows: t, Cols: n, Stride: stride, Data: v[:(t-1)*stride+n]}
	blas64.Gemv(blas.Trans, -1, vm, blas64.Vector{N: t, Inc: 1, Data: l}, 1, blas64.Vector{N: n, Inc: 1, Data: y})
}
