package kernel_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/safegp/safegp/kernel"
)

// TestProductClosedForm checks the product kernel on (x, c) against hand
// values: x = (0, 0), x' = (3, 4) (‖x − x'‖ = 5) and contexts 1-D or 2-D.
func TestProductClosedForm(t *testing.T) {
	t.Parallel()
	se := kernel.SE{Variance: 2, Lengthscale: 5}
	cases := []struct {
		name string
		k    kernel.Product
		x, y []float64
		want float64
	}{
		// k_x = 2·e^{−1/2}; k_c(0, 1) with ℓ = 1: e^{−1/2}.
		{"se×se", kernel.Product{X: se, C: kernel.SE{Variance: 1, Lengthscale: 1}, D: 2}, []float64{0, 0, 0}, []float64{3, 4, 1}, 2 * math.Exp(-1)},
		// Equal contexts: exactly k_x.
		{"same context", kernel.Product{X: se, C: kernel.SE{Variance: 1, Lengthscale: 0.1}, D: 2}, []float64{0, 0, 7}, []float64{3, 4, 7}, 2 * math.Exp(-0.5)},
		// k_c Matérn 3/2 on c − c' = (3, 4), ℓ = 5: (1 + √3)e^{−√3}.
		{"se×matern32", kernel.Product{X: se, C: kernel.Matern32{Variance: 1, Lengthscale: 5}, D: 2}, []float64{0, 0, 0, 0}, []float64{3, 4, 3, 4}, 2 * math.Exp(-0.5) * (1 + math.Sqrt(3)) * math.Exp(-math.Sqrt(3))},
		// ARD context kernel: ((1−0)/2)² + ((0−0)/7)² = 1/4, so e^{−1/8}.
		{"linear×ard", kernel.Product{X: kernel.Linear{Variance: 0.5}, C: kernel.SE{Variance: 1, ARD: []float64{2, 7}}, D: 1}, []float64{2, 0, 0}, []float64{3, 1, 0}, 3 * math.Exp(-0.125)},
	}
	for _, c := range cases {
		if got := c.k.Eval(c.x, c.y); math.Abs(got-c.want) > 1e-12*math.Abs(c.want) {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
		}
	}
}

// TestProductSameContextIsBitwise: with equal contexts the product is
// k_x to the bit, for every kernel k_x and every context kernel — what
// makes a single-context run the non-contextual one.
func TestProductSameContextIsBitwise(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 6))
	xs := []kernel.Kernel{
		kernel.SE{Variance: 2, Lengthscale: 0.7}, kernel.Matern32{Variance: 1.3, Lengthscale: 0.4}, kernel.Matern52{Variance: 0.5, ARD: []float64{1.3, 0.6}},
		kernel.Linear{Variance: 3}, kernel.Polynomial{Variance: 1, Offset: 1, Degree: 3},
	}
	cs := []kernel.Kernel{kernel.SE{Variance: 1, Lengthscale: 1e-3}, kernel.Matern32{Variance: 1, ARD: []float64{0.2, 9}}, kernel.Matern52{Variance: 1, Lengthscale: 1e6}}
	for _, kx := range xs {
		for _, kc := range cs {
			p := kernel.Product{X: kx, C: kc, D: 2}
			for range 50 {
				x, y := []float64{rng.NormFloat64(), rng.NormFloat64()}, []float64{rng.NormFloat64(), rng.NormFloat64()}
				c := []float64{rng.NormFloat64() * 100, rng.NormFloat64()}
				xc, yc := append(append([]float64(nil), x...), c...), append(append([]float64(nil), y...), c...)
				if got, want := p.Eval(xc, yc), kx.Eval(x, y); math.Float64bits(got) != math.Float64bits(want) {
					t.Fatalf("%s × %s: %v at one context, k_x = %v", kx.Name(), kc.Name(), got, want)
				}
			}
		}
	}
}

// TestProductRow: Row of a product is its Eval at each point, to the bit.
func TestProductRow(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 8))
	ys := make([][]float64, 30)
	for i := range ys {
		ys[i] = []float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
	}
	x := []float64{0.3, -0.2, 1}
	k := kernel.Product{X: kernel.SE{Variance: 2, Lengthscale: 0.7}, C: kernel.Matern52{Variance: 1, Lengthscale: 0.5}, D: 2}
	got := kernel.Row(k, make([]float64, 30), x, ys)
	for j, y := range ys {
		if want := k.Eval(x, y); got[j] != want {
			t.Errorf("Row gives %v at %d, Eval %v", got[j], j, want)
		}
	}
}

// TestProductNoAlloc: Eval slices its arguments and allocates nothing,
// as Kernel requires.
func TestProductNoAlloc(t *testing.T) {
	var k kernel.Kernel = kernel.Product{X: kernel.SE{Variance: 1, Lengthscale: 1}, C: kernel.SE{Variance: 1, ARD: []float64{1, 2}}, D: 1}
	x, y := []float64{1, 2, 3}, []float64{0, 1, 1}
	if n := testing.AllocsPerRun(100, func() { k.Eval(x, y) }); n != 0 {
		t.Errorf("Eval allocates %v times", n)
	}
}

func TestNewContext(t *testing.T) {
	t.Parallel()
	two := 2.0
	one := 1.0
	ok := []struct {
		s    kernel.Spec
		dc   int
		want kernel.Kernel
	}{
		{kernel.Spec{Kernel: "se", Lengthscale: kernel.Iso(0.5)}, 2, kernel.SE{Variance: 1, Lengthscale: 0.5}},
		{kernel.Spec{Kernel: "matern32", Lengthscale: kernel.Lengthscale{0.5, 3}, Variance: &one}, 2, kernel.Matern32{Variance: 1, ARD: []float64{0.5, 3}}},
	}
	for _, c := range ok {
		k, err := kernel.NewContext(c.s, c.dc)
		if err != nil {
			t.Fatalf("%+v: %v", c.s, err)
		}
		if k.Name() != c.want.Name() || k.Eval([]float64{0, 0}, []float64{1, 1}) != c.want.Eval([]float64{0, 0}, []float64{1, 1}) {
			t.Errorf("%+v: got %#v, want %#v", c.s, k, c.want)
		}
	}
	bad := []struct {
		s   kernel.Spec
		dc  int
		msg string
	}{
		{kernel.Spec{Kernel: "linear"}, 1, `kernel: a context kernel must be stationary`},
		{kernel.Spec{}, 1, "kernel: missing"},
		{kernel.Spec{Kernel: "se", Lengthscale: kernel.Iso(1), Variance: &two}, 1, "variance: fixed to 1"},
		{kernel.Spec{Kernel: "se", Lengthscale: kernel.Lengthscale{1, 2, 3}}, 2, "lengthscale: 3 lengthscales for 2 context dimensions"},
		{kernel.Spec{Kernel: "se", Lengthscale: kernel.Iso(-1)}, 1, "lengthscale: must be a finite number > 0"},
		{kernel.Spec{Kernel: "se", Lengthscale: kernel.Iso(1), NoiseStd: &one}, 1, "noise_std: not a parameter of a context kernel"},
	}
	for _, c := range bad {
		_, err := kernel.NewContext(c.s, c.dc)
		if !errors.Is(err, kernel.ErrInvalid) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%+v: %v, want ErrInvalid with %q", c.s, err, c.msg)
		}
	}
}

func TestProductCheckDim(t *testing.T) {
	t.Parallel()
	p := kernel.Product{X: kernel.SE{Variance: 1, ARD: []float64{1, 2}}, C: kernel.SE{Variance: 1, ARD: []float64{1}}, D: 2}
	if err := p.CheckDim(3); err != nil {
		t.Fatal(err)
	}
	for _, d := range []int{2, 4} {
		if err := p.CheckDim(d); !errors.Is(err, kernel.ErrInvalid) {
			t.Errorf("d = %d: %v, want ErrInvalid", d, err)
		}
	}
	// The action kernel's lengthscales count the action's coordinates, D.
	q := kernel.Product{X: kernel.SE{Variance: 1, ARD: []float64{1, 2, 3}}, C: kernel.SE{Variance: 1, Lengthscale: 1}, D: 2}
	if err := q.CheckDim(3); !errors.Is(err, kernel.ErrInvalid) || !strings.Contains(err.Error(), "the action kernel has 3 lengthscales for 2 input dimensions") {
		t.Errorf("3 action lengthscales for D = 2: %v", err)
	}
	if q.Name() != "product" {
		t.Errorf("name %q, want product", q.Name())
	}
}
