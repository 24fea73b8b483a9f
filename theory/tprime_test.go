package theory_test

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/safegp/safegp/kernel"
	"github.com/safegp/safegp/theory"
)

// TestExplorationLengthErrors: when the theorem merely does not apply
// (ErrSeedTooSmall, ErrNoGuarantee) the quantities computed so far come
// with the error, for `safegp bound` to show; a map the kernel cannot
// have comes alone.
func TestExplorationLengthErrors(t *testing.T) {
	t.Parallel()
	x := [][]float64{{0}, {1}, {2}, {3}}
	base := theory.Problem{X: x, Seed: []int{0, 1}, NoiseStd: 0.1, Delta: 0.01, Epsilon: 0.01, Horizon: 100, M: 1}
	for _, c := range []struct {
		name    string
		k       kernel.Kernel
		feat    theory.Features
		want    error // nil: an error that is neither sentinel
		theorem int   // of the partial report; 0: none expected
	}{
		{"linear, seeds span", kernel.Linear{Variance: 1}, theory.Features{}, nil, 2},
		{"polynomial, too few seeds", kernel.Polynomial{Variance: 1, Offset: 1, Degree: 3}, theory.Features{}, theory.ErrSeedTooSmall, 2},
		{"qff larger than the seed set", kernel.SE{Variance: 1, Lengthscale: 1}, theory.Features{Kind: "qff", Nodes: 3}, theory.ErrSeedTooSmall, 4},
		{"rff without a size", kernel.Matern52{Variance: 1, Lengthscale: 1}, theory.Features{}, theory.ErrNoGuarantee, 4},
		{"rff of one feature", kernel.Matern52{Variance: 1, Lengthscale: 1}, theory.Features{Kind: "rff", Size: 1}, theory.ErrSeedTooSmall, 4},
		{"qff for a Matérn kernel", kernel.Matern32{Variance: 1, Lengthscale: 1}, theory.Features{Kind: "qff", Nodes: 2}, nil, 0},
		{"unknown map", kernel.SE{Variance: 1, Lengthscale: 1}, theory.Features{Kind: "xff"}, nil, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := base
			p.Kernel = c.k
			e, err := theory.ExplorationLength(p, c.feat)
			switch {
			case c.name == "linear, seeds span":
				if err != nil || e == nil || e.TPrime < 1 {
					t.Fatalf("got %+v, %v; want a T'", e, err)
				}
				return
			case err == nil:
				t.Fatalf("got %+v, want an error", e)
			case c.want != nil && !errors.Is(err, c.want):
				t.Fatalf("got %v, want %v", err, c.want)
			case c.want == nil && (errors.Is(err, theory.ErrSeedTooSmall) || errors.Is(err, theory.ErrNoGuarantee)):
				t.Fatalf("got %v, want a misuse error", err)
			}
			switch {
			case c.theorem == 0 && e != nil:
				t.Errorf("got a report %+v with %v", e, err)
			case c.theorem != 0 && (e == nil || e.Theorem != c.theorem || e.BetaT <= 0):
				t.Errorf("got report %+v, want one of Theorem %d with β_T", e, c.theorem)
			case c.theorem == 4 && !(e.Eps0Target > 0):
				t.Errorf("Theorem 4 report without its ε_0 target: %+v", e)
			}
		})
	}
}

// TestNewRFFRefuses: a random Fourier feature map needs an even size ≥ 2
// and a stationary kernel (SE or Matérn); the linear kernel has no
// spectral density to draw from.
func TestNewRFFRefuses(t *testing.T) {
	t.Parallel()
	se := kernel.SE{Variance: 1, Lengthscale: 1}
	for _, c := range []struct {
		name string
		k    kernel.Kernel
		size int
		want string
	}{
		{"size 0", se, 0, "rff: size must be even and ≥ 2, got 0"},
		{"odd size", se, 7, "rff: size must be even and ≥ 2, got 7"},
		{"linear", kernel.Linear{}, 8, `rff: kernel "linear" is not stationary`},
	} {
		f, err := theory.NewRFF(c.k, 2, c.size, rand.New(rand.NewPCG(1, 2)))
		if err == nil || err.Error() != c.want || f != nil {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
	if f, err := theory.NewRFF(kernel.Matern52{Variance: 1, Lengthscale: 0.5}, 2, 2, rand.New(rand.NewPCG(1, 2))); err != nil || f == nil {
		t.Errorf("size 2, Matérn 5/2: %v", err)
	}
}
