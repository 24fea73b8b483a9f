package fit

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
)

// BenchmarkFit is the performance case: t = 300 points in d = 6
// (testdata/gp_d6.csv), ARD se, 5 restarts on 2 workers, as `safegp fit
// --ard --restarts 5` runs it (default prior), and with PriorNone.
// Reported per fit besides the wall time: the process's CPU time (on a
// shared machine, wall time grows with the other jobs' load, CPU time much
// less), and the objective's evaluations on all the data and on the subset.
func BenchmarkFit(b *testing.B) {
	x, y := readProblemFile(b, "gp_d6.csv")
	for _, prior := range []Prior{PriorDefault, PriorNone} {
		b.Run(prior.String(), func(b *testing.B) {
			var full, climb int
			cpu := cpuTime()
			for b.Loop() {
				res, err := Fit(context.Background(), x, y, nil, Options{Kernel: "se", ARD: true, Restarts: 5, Workers: 2, Prior: prior})
				if err != nil {
					b.Fatal(err)
				}
				full, climb = 0, 0
				for _, r := range res.Runs {
					full += r.Evaluations
					climb += r.ClimbEvaluations
				}
			}
			b.ReportMetric((cpuTime()-cpu).Seconds()/float64(b.N), "cpu-s/op")
			b.ReportMetric(float64(full), "evals")
			b.ReportMetric(float64(climb), "climb-evals")
		})
	}
}

// BenchmarkEvaluation times one evaluation of the objective at t = 300,
// d = 6, ARD se: the value alone (K, its Cholesky factor, α) and with the
// gradient (K⁻¹ and the traces besides), and reports the rate of the
// t³/3 + 2t³/3 flops of the factorization and the inverse.
func BenchmarkEvaluation(b *testing.B) {
	x, y := readProblemFile(b, "gp_d6.csv")
	dt := newData(x, y, nil, famSE, true)
	w := newWork(dt, 1)
	th := []float64{0, -1, -1, -1, -1, -1, -1, -4}
	g := make([]float64, len(th))
	t := float64(dt.t)
	b.Run("value", func(b *testing.B) {
		for b.Loop() {
			th[0] += 1e-12 // a new point each time
			w.logML(th)
		}
		b.ReportMetric(t*t*t/3/(float64(b.Elapsed().Nanoseconds())/float64(b.N)), "GFLOP/s")
	})
	b.Run("value+gradient", func(b *testing.B) {
		for b.Loop() {
			th[0] += 1e-12
			w.grad(g, th)
		}
		b.ReportMetric(t*t*t/(float64(b.Elapsed().Nanoseconds())/float64(b.N)), "GFLOP/s")
	})
}

// BenchmarkFloor measures what gonum's pure-Go Level-3 routines reach on
// this machine at n = 300: the matrix product (2n³ flops), the Cholesky
// factorization (n³/3) and the inverse from it (2n³/3).
func BenchmarkFloor(b *testing.B) {
	const n = 300
	x, y := readProblemFile(b, "gp_d6.csv")
	dt := newData(x, y, nil, famSE, true)
	w := newWork(dt, 1)
	w.logML([]float64{0, -1, -1, -1, -1, -1, -1, -4})
	chol := append([]float64(nil), w.a...)
	a := make([]float64, n*n)
	c := make([]float64, n*n)
	rate := func(b *testing.B, flops float64) {
		b.ReportMetric(flops/(float64(b.Elapsed().Nanoseconds())/float64(b.N)), "GFLOP/s")
	}
	b.Run("dgemm", func(b *testing.B) {
		A := blas64.General{Rows: n, Cols: n, Stride: n, Data: chol}
		C := blas64.General{Rows: n, Cols: n, Stride: n, Data: c}
		for b.Loop() {
			blas64.Gemm(blas.Trans, blas.NoTrans, 1, A, A, 0, C)
		}
		rate(b, 2*n*n*n)
	})
	k := append([]float64(nil), w.a...)
	w.buildPairs(1)
	for i := range n {
		k[i*n+i] = 1.02
		copy(k[i*n+i+1:(i+1)*n], w.kv[i*n-i*(i+1)/2:])
	}
	b.Run("potrf", func(b *testing.B) {
		for b.Loop() {
			copy(a, k)
			if _, ok := lapack64.Potrf(blas64.Symmetric{N: n, Stride: n, Data: a, Uplo: blas.Upper}); !ok {
				b.Fatal("not positive definite")
			}
		}
		rate(b, n*n*n/3)
	})
	b.Run("potri", func(b *testing.B) {
		for b.Loop() {
			copy(a, chol)
			lapack64.Potri(blas64.Triangular{N: n, Stride: n, Data: a, Uplo: blas.Upper, Diag: blas.NonUnit})
		}
		rate(b, 2*n*n*n/3)
	})
}

// BenchmarkFit1000 is issue 45's case: t = 1 000 points in d = 3 (a
// smooth f, noise σ = 0.1, fixed seed), ARD se, 5 restarts, on 1 and on 2
// workers: the climbs on half the points share the workers, and the
// finish on all of them factors and inverts its 1 000 × 1 000 Gram matrix
// on every worker the restarts leave idle (chol).
func BenchmarkFit1000(b *testing.B) {
	rng := rand.New(rand.NewPCG(45, 1))
	x := make([][]float64, 1000)
	y := make([]float64, len(x))
	for i := range x {
		x[i] = []float64{rng.Float64(), rng.Float64(), rng.Float64()}
		y[i] = math.Sin(3*x[i][0]) + math.Cos(2*x[i][1])*x[i][2] + 0.1*rng.NormFloat64()
	}
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			var lml float64
			for b.Loop() {
				res, err := Fit(context.Background(), x, y, nil, Options{Kernel: "se", ARD: true, Restarts: 5, Workers: workers})
				if err != nil {
					b.Fatal(err)
				}
				lml = res.LogMarginalLikelihood
			}
			b.ReportMetric(lml, "lml")
		})
	}
}
