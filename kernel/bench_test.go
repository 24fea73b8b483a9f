package kernel_test

import (
	"math/rand/v2"
	"testing"

	"github.com/safegp/safegp/kernel"
)

// sinkEval keeps the benchmarked evaluations from being optimized away.
var sinkEval float64

// BenchmarkEval times one isotropic evaluation through the Kernel
// interface, as gp.Model.explained makes N of per observation, over 1024
// random pairs in 2-D (the paper's experiments).
func BenchmarkEval(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	x := make([][]float64, 1024)
	for i := range x {
		x[i] = []float64{rng.Float64(), rng.Float64()}
	}
	for _, k := range []kernel.Kernel{
		kernel.SE{Variance: 1, Lengthscale: 0.3},
		kernel.Matern32{Variance: 1, Lengthscale: 0.3},
		kernel.Matern52{Variance: 1, Lengthscale: 0.3},
	} {
		b.Run(k.Name(), func(b *testing.B) {
			s := 0.0
			for i := 0; b.Loop(); i++ {
				s += k.Eval(x[i&1023], x[(i+1)&1023])
			}
			sinkEval = s
		})
	}
}

// BenchmarkRow times a kernel row of 1024 points (per entry: divide by
// 1024), the GPs' per-observation use (gp.Model.explained).
func BenchmarkRow(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	x := make([][]float64, 1024)
	for i := range x {
		x[i] = []float64{rng.Float64(), rng.Float64()}
	}
	dst := make([]float64, len(x))
	var flat []float64
	for _, p := range x {
		flat = append(flat, p...)
	}
	for _, k := range []kernel.Kernel{
		kernel.SE{Variance: 1, Lengthscale: 0.3},
		kernel.Matern32{Variance: 1, Lengthscale: 0.3},
		kernel.Matern52{Variance: 1, Lengthscale: 0.3},
	} {
		b.Run(k.Name(), func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				kernel.Row(k, dst, x[i&1023], x)
			}
		})
		// The same points back to back (gp.Model's flat copy).
		b.Run(k.Name()+"/flat", func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				kernel.RowFlat(k, dst, x[i&1023], flat)
			}
		})
	}
}
