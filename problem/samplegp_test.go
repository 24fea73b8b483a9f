package problem

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/safegp/safegp/kernel"
)

// sampleGPCholesky is SampleGP as it was written with mat.Cholesky
// (Factorize, LTo, MulVec): the reference SampleGP must match bit for bit.
func sampleGPCholesky(k kernel.Kernel, x [][]float64, rng *rand.Rand) []float64 {
	n := len(x)
	kd := mat.NewSymDense(n, nil)
	maxDiag := 0.0
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			kd.SetSym(i, j, k.Eval(x[i], x[j]))
		}
		maxDiag = math.Max(maxDiag, kd.At(i, i))
	}
	var ch mat.Cholesky
	jit := 0.0
	for e := -10; e <= -4; e++ {
		tau := math.Pow(10, float64(e)) * maxDiag
		for i := 0; i < n; i++ {
			kd.SetSym(i, i, kd.At(i, i)+tau-jit)
		}
		jit = tau
		if ch.Factorize(kd) {
			z := make([]float64, n)
			for i := range z {
				z[i] = rng.NormFloat64()
			}
			var l mat.TriDense
			ch.LTo(&l)
			out := mat.NewVecDense(n, nil)
			out.MulVec(&l, mat.NewVecDense(n, z))
			return out.RawVector().Data
		}
	}
	return nil
}

// indefinite is k(x, y) = 1 on the diagonal and 1 + 5·10⁻⁸ off it, by
// the first coordinate: its n − 1 eigenvalues −5·10⁻⁸ make the jitters
// 10⁻¹⁰ … 10⁻⁸ fail and 10⁻⁷ succeed.
type indefinite struct{}

func (indefinite) Eval(x, y []float64) float64 {
	if x[0] == y[0] {
		return 1
	}
	return 1 + 5e-8
}
func (indefinite) Name() string { return "indefinite" }

// TestSampleGPIsCholesky: SampleGP's draw equals, bit for bit, the one
// through mat.Cholesky, on sets where the first jitter suffices and on a
// matrix that needs four.
func TestSampleGPIsCholesky(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		n, d int
		k    kernel.Kernel
	}{
		{"se short", 100, 2, kernel.SE{Variance: 1, Lengthscale: 0.1}},
		{"se long", 150, 2, kernel.SE{Variance: 1, Lengthscale: 1}},
		{"jitter 1e-7", 40, 2, indefinite{}},
		{"matern52 3-D", 60, 3, kernel.Matern52{Variance: 2, Lengthscale: 0.3}},
		{"one point", 1, 1, kernel.SE{Variance: 1, Lengthscale: 1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			x := UnitBall(rand.New(rand.NewPCG(7, 1)), c.n, c.d)
			got, err := SampleGP(c.k, x, rand.New(rand.NewPCG(7, 2)))
			if err != nil {
				t.Fatal(err)
			}
			want := sampleGPCholesky(c.k, x, rand.New(rand.NewPCG(7, 2)))
			if len(got) != len(want) {
				t.Fatalf("%d values, want %d", len(got), len(want))
			}
			for i := range got {
				if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
					t.Fatalf("f[%d] = %v, Cholesky's %v", i, got[i], want[i])
				}
			}
		})
	}
}

func BenchmarkSampleGP(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	x := UnitBall(rng, 100, 2)
	k := kernel.SE{Variance: 1, Lengthscale: 0.1}
	for i := 0; i < b.N; i++ {
		if _, err := SampleGP(k, x, rng); err != nil {
			b.Fatal(err)
		}
	}
}
