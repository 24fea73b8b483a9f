package gp_test

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/safegp/safegp/gp"
	"github.com/safegp/safegp/kernel"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// BenchmarkGemvFloor measures this machine's Gemv throughput on the GP
// update's own shape — y ← y − Vᵀl for a t×N row-major V, as
// Model.Add computes k(x, D) − Vᵀ l — which is the floor every update
// case in BENCHMARKS.md is compared with. It reports GFLOP/s (2·N·t flops
// per product) for one product on one core ("one"), two products of two
// GPs at once on two goroutines ("two-gps", what bandit's observe does
// for f and one g), and one product split in two column bands
// ("two-bands", what Add does for a large N·t).
func BenchmarkGemvFloor(b *testing.B) {
	for _, n := range []int{10000, 100000} {
		const t = 500
		mats := [2][]float64{make([]float64, t*n), make([]float64, t*n)}
		for _, v := range mats {
			for i := range v {
				v[i] = float64(i%97) * 1e-3
			}
		}
		l := make([]float64, t)
		for i := range l {
			l[i] = 1 / float64(i+1)
		}
		ys := [2][]float64{make([]float64, n), make([]float64, n)}
		gemv := func(v, y []float64, lo, hi int) {
			vm := blas64.General{Rows: t, Cols: hi - lo, Stride: n, Data: v[lo : (t-1)*n+hi]}
			blas64.Gemv(blas.Trans, -1, vm, blas64.Vector{N: t, Inc: 1, Data: l}, 1, blas64.Vector{N: hi - lo, Inc: 1, Data: y[lo:hi]})
		}
		flops := 2 * float64(n) * t
		b.Run(fmt.Sprintf("one/N=%d/t=%d", n, t), func(b *testing.B) {
			for b.Loop() {
				gemv(mats[0], ys[0], 0, n)
			}
			b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
		b.Run(fmt.Sprintf("two-gps/N=%d/t=%d", n, t), func(b *testing.B) {
			for b.Loop() {
				var wg sync.WaitGroup
				wg.Go(func() { gemv(mats[1], ys[1], 0, n) })
				gemv(mats[0], ys[0], 0, n)
				wg.Wait()
			}
			b.ReportMetric(2*flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
		b.Run(fmt.Sprintf("two-bands/N=%d/t=%d", n, t), func(b *testing.B) {
			for b.Loop() {
				var wg sync.WaitGroup
				wg.Go(func() { gemv(mats[0], ys[0], n/2, n) })
				gemv(mats[0], ys[0], 0, n/2)
				wg.Wait()
			}
			b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}

// BenchmarkUpdateFloor times what issue 45's item 3 measures: the whole
// update — kernel row, product with V, and the pass over D — of one GP on
// N = 10⁵ points in the plane (SE kernel, ℓ = 0.3), 200 observations at
// distinct actions from the prior, against the memory floor. The
// product reads V once per update, 8·N·t bytes at observation t: "GB/s"
// is those bytes over the time, and "floor%" their share of this
// machine's 30 GB/s on one core (run it with -cpu 1 for that figure; on
// two cores the bands run at once).
func BenchmarkUpdateFloor(b *testing.B) {
	const n, T = 100000, 200
	rng := rand.New(rand.NewPCG(1, 2))
	x := make([][]float64, n)
	for i := range x {
		x[i] = []float64{2*rng.Float64() - 1, 2*rng.Float64() - 1}
	}
	idx, y := rng.Perm(n)[:T], make([]float64, T)
	for s := range y {
		y[s] = rng.NormFloat64()
	}
	k := kernel.SE{Variance: 1, Lengthscale: 0.3}
	var bytes float64
	for s := range T {
		bytes += 8 * float64(n) * float64(s)
	}
	for b.Loop() {
		m := gp.New(k, x, 0.1)
		m.Reserve(T)
		for s, i := range idx {
			m.Observe(i, y[s])
		}
		m.Release()
	}
	gbs := bytes * float64(b.N) / b.Elapsed().Seconds() / 1e9
	b.ReportMetric(gbs, "GB/s")
	b.ReportMetric(100*gbs/30, "floor%")
}
