package kernel_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/safegp/safegp/kernel"
)

func ptr[T any](v T) *T { return &v }

func TestEvalClosedForm(t *testing.T) {
	t.Parallel()
	// Hand values at x = (0,0), y = (3,4), ‖x−y‖ = 5, xᵀy = 0; and at
	// x = (1,2), y = (3,4), xᵀy = 11.
	o, a, b := []float64{0, 0}, []float64{1, 2}, []float64{3, 4}
	cases := []struct {
		name string
		k    kernel.Kernel
		x, y []float64
		want float64
	}{
		{"se", kernel.SE{Variance: 2, Lengthscale: 5}, o, b, 2 * math.Exp(-0.5)},
		{"se-self", kernel.SE{Variance: 0.3, Lengthscale: 1}, b, b, 0.3},
		{"matern32", kernel.Matern32{Variance: 1, Lengthscale: 5}, o, b, (1 + math.Sqrt(3)) * math.Exp(-math.Sqrt(3))},
		{"matern52", kernel.Matern52{Variance: 1, Lengthscale: 2.5}, o, b, (1 + 2*math.Sqrt(5) + 20.0/3) * math.Exp(-2*math.Sqrt(5))},
		{"linear", kernel.Linear{Variance: 0.5}, a, b, 5.5},
		{"polynomial", kernel.Polynomial{Variance: 1, Offset: 1, Degree: 2}, a, b, 144},
		{"polynomial-3", kernel.Polynomial{Variance: 2, Offset: 0, Degree: 3}, a, b, 2 * 1331},
	}
	for _, c := range cases {
		if got := c.k.Eval(c.x, c.y); math.Abs(got-c.want) > 1e-12*math.Max(1, math.Abs(c.want)) {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
		}
	}
}

func TestGramPositiveSemiDefinite(t *testing.T) {
	t.Parallel()
	// Every kernel's Gram matrix on random points, plus 1e-9 on the
	// diagonal, must factorize.
	rng := rand.New(rand.NewPCG(1, 2))
	x := make([][]float64, 40)
	for i := range x {
		x[i] = []float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
	}
	for _, s := range []kernel.Spec{
		{Kernel: "se", Lengthscale: kernel.Iso(0.7)}, {Kernel: "matern32", Lengthscale: kernel.Iso(0.7)}, {Kernel: "matern52", Lengthscale: kernel.Iso(2)},
		{Kernel: "linear"}, {Kernel: "polynomial", Degree: ptr(3)},
		// ARD: one lengthscale per dimension of the 3-D points.
		{Kernel: "se", Lengthscale: kernel.Lengthscale{0.3, 1, 2}}, {Kernel: "matern32", Lengthscale: kernel.Lengthscale{2, 0.4, 1}},
		{Kernel: "matern52", Lengthscale: kernel.Lengthscale{1, 1, 0.2}},
	} {
		k, err := kernel.New(s)
		if err != nil {
			t.Fatal(err)
		}
		g := mat.NewSymDense(len(x), nil)
		for i := range x {
			for j := i; j < len(x); j++ {
				g.SetSym(i, j, k.Eval(x[i], x[j]))
			}
			g.SetSym(i, i, g.At(i, i)+1e-9*(1+g.At(i, i)))
		}
		var ch mat.Cholesky
		if !ch.Factorize(g) {
			t.Errorf("%s: Gram matrix not positive semi-definite", s.Kernel)
		}
	}
}

func TestNewDefaultsAndErrors(t *testing.T) {
	t.Parallel()
	k, err := kernel.New(kernel.Spec{Kernel: "polynomial"})
	if err != nil {
		t.Fatal(err)
	}
	if p := k.(kernel.Polynomial); p.Variance != 1 || p.Offset != 1 || p.Degree != 2 {
		t.Errorf("polynomial defaults: %+v", p)
	}
	for _, c := range []struct {
		spec kernel.Spec
		key  string // the message starts with the key at fault
	}{
		{kernel.Spec{}, "kernel: missing"},
		{kernel.Spec{Kernel: "rbf", Lengthscale: kernel.Iso(1)}, `kernel: unknown kernel "rbf"`},
		{kernel.Spec{Kernel: "se"}, "lengthscale: "},
		{kernel.Spec{Kernel: "se", Lengthscale: kernel.Iso(-1)}, "lengthscale: "},
		{kernel.Spec{Kernel: "se", Lengthscale: kernel.Iso(math.Inf(1))}, "lengthscale: "},
		{kernel.Spec{Kernel: "matern32", Lengthscale: kernel.Iso(1), Variance: ptr(0.0)}, "variance: "},
		{kernel.Spec{Kernel: "linear", Lengthscale: kernel.Iso(1)}, "lengthscale: "},
		{kernel.Spec{Kernel: "linear", Degree: ptr(2)}, "offset/degree: "},
		{kernel.Spec{Kernel: "polynomial", Degree: ptr(0)}, "degree: "},
		{kernel.Spec{Kernel: "polynomial", Offset: ptr(-1.0)}, "offset: "},
	} {
		if _, err := kernel.New(c.spec); !errors.Is(err, kernel.ErrInvalid) || !strings.HasPrefix(err.Error(), c.key) {
			t.Errorf("%+v: got %v, want ErrInvalid starting %q", c.spec, err, c.key)
		}
	}
}

// TestRow: a kernel row is Eval at each point, to the bit (Row shares
// Eval's expressions and only hoists the dispatch), for every kernel,
// isotropic and ARD, in 1, 2 and 3 dimensions; it fills and returns
// dst[:len(ys)]. RowFlat, on the same points stored back to back, gives
// the same bits.
func TestRow(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	for d := 1; d <= 3; d++ {
		// 600 points: Row's chunks of 256 and a tail; a tenth far away,
		// where the exponentials underflow to subnormals and zero.
		ys := make([][]float64, 600)
		flat := make([]float64, 0, 600*d)
		for i := range ys {
			ys[i] = make([]float64, d)
			for j := range ys[i] {
				ys[i][j] = rng.NormFloat64()
			}
			if i%10 == 0 {
				ys[i][0] *= 40
			}
			flat = append(flat, ys[i]...)
		}
		x := []float64{0.3, -0.2, 0.9}[:d]
		for _, k := range []kernel.Kernel{
			kernel.SE{Variance: 2, Lengthscale: 0.7}, kernel.Matern32{Variance: 1.7, Lengthscale: 0.4}, kernel.Matern52{Variance: 0.5, Lengthscale: 1.3},
			kernel.SE{Variance: 2, ARD: []float64{0.7, 2, 0.3}}, kernel.Matern32{Variance: 1.3, ARD: []float64{0.4, 0.1, 1}}, kernel.Matern52{Variance: 0.5, ARD: []float64{1.3, 0.6, 0.2}},
			kernel.Linear{Variance: 3}, kernel.Polynomial{Variance: 1, Offset: 1, Degree: 3},
			kernel.Product{X: kernel.SE{Variance: 2, Lengthscale: 0.5}, C: kernel.Matern52{Variance: 1, Lengthscale: 0.4}, D: d - 1},
		} {
			dst, dflat := make([]float64, 610), make([]float64, 600)
			got := kernel.Row(k, dst, x, ys)
			if len(got) != len(ys) || &got[0] != &dst[0] {
				t.Fatalf("%s: Row returned %d values, not dst[:%d]", k.Name(), len(got), len(ys))
			}
			gotFlat := kernel.RowFlat(k, dflat, x, flat)
			for j, y := range ys {
				want := k.Eval(x, y)
				if got[j] != want {
					t.Errorf("%s %v, d = %d: Row gives %v at %d, Eval %v", k.Name(), kernel.ARD(k), d, got[j], j, want)
				}
				if gotFlat[j] != want {
					t.Errorf("%s %v, d = %d: RowFlat gives %v at %d, Eval %v", k.Name(), kernel.ARD(k), d, gotFlat[j], j, want)
				}
			}
		}
	}
}
