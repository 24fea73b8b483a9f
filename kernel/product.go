package kernel

import (
	"fmt"

	"github.com/safegp/safegp/internal/quote"

	"github.com/safegp/safegp/internal/fielderr"
)

// Product is the kernel of a contextual GP on points (x, c), whose first
// D coordinates are the action x and the rest the context c:
//
//	k((x, c), (x', c')) = k_x(x, x') · k_c(c, c')
//
// as SafeOpt builds it for contexts (befelix/SafeOpt, examples/
// context_example.ipynb: GPy kernels on disjoint active_dims, multiplied).
// The context kernel C is stationary with variance 1 (NewContext), so
// k_c(c, c) = exp(0) = 1 exactly: for equal contexts the product is
// k_x(x, x') to the bit, and a GP that only ever sees one context is the
// GP of k_x. A product of two positive semi-definite kernels is positive
// semi-definite (Schur product theorem; Rasmussen & Williams 2006, §4.2.4).
type Product struct {
	X Kernel // k_x, on the first D coordinates
	C Kernel // k_c, on the rest: stationary, variance 1
	D int    // the dimension of x
}

// Eval implements Kernel. It does not allocate: x[:D] and x[D:] share x.
// For equal contexts k_c is exactly 1 (a stationary kernel of variance 1
// at distance 0: v·exp(−0), v·(1 + 0)·exp(−0)), so k_x is returned
// without evaluating k_c: the same float, one exponential fewer, which
// is every evaluation of a run in one context.
func (k Product) Eval(x, y []float64) float64 {
	kx := k.X.Eval(x[:k.D], y[:k.D])
	for j := k.D; j < len(x); j++ {
		if x[j] != y[j] { // NaN included
			return kx * k.C.Eval(x[k.D:], y[k.D:])
		}
	}
	return kx
}

// Name implements Kernel.
func (Product) Name() string { return "product" }

// CheckDim checks the product on points of d coordinates: d > D, and an
// ARD factor has one lengthscale per coordinate of its part (D for k_x,
// d − D for k_c).
func (k Product) CheckDim(d int) error {
	if k.D < 1 || d <= k.D {
		return fmt.Errorf("%w: product kernel on %d coordinates with %d for the action: want at least one of each", ErrInvalid, d, k.D)
	}
	if l := ARD(k.X); l != nil && len(l) != k.D {
		return fmt.Errorf("%w: the action kernel has %d lengthscales for %d input dimensions", ErrInvalid, len(l), k.D)
	}
	if l := ARD(k.C); l != nil && len(l) != d-k.D {
		return fmt.Errorf("%w: the context kernel has %d lengthscales for %d context dimensions", ErrInvalid, len(l), d-k.D)
	}
	return nil
}

// NewContext builds the context kernel k_c that spec s describes for
// contexts of dc coordinates: se, matern32 or matern52, with one
// lengthscale or one per context dimension, and the variance fixed to 1
// (left out, or 1) so that k_c(c, c) = 1 and the product with k_x keeps
// k_x's prior variance. Errors name the key relative to s.
func NewContext(s Spec, dc int) (Kernel, error) {
	switch s.Kernel {
	case "se", "matern32", "matern52":
	case "":
		return nil, fielderr.New(ErrInvalid, "kernel", "missing (se, matern32 or matern52)")
	default:
		return nil, fielderr.New(ErrInvalid, "kernel", "a context kernel must be stationary (se, matern32 or matern52), got %s", quote.Short(s.Kernel))
	}
	if s.Variance != nil && *s.Variance != 1 {
		return nil, fielderr.New(ErrInvalid, "variance", "fixed to 1 for a context kernel (k_c(c, c) = 1, so that the product keeps the action kernel's variance), got %v: leave it out", *s.Variance)
	}
	if s.NoiseStd != nil {
		return nil, fielderr.New(ErrInvalid, "noise_std", "not a parameter of a context kernel: the noise belongs to the objective's and the constraints' kernels")
	}
	if len(s.Lengthscale) > 1 && len(s.Lengthscale) != dc {
		return nil, fielderr.New(ErrInvalid, "lengthscale", "%d lengthscales for %d context dimensions: give one, or one per context", len(s.Lengthscale), dc)
	}
	return New(s)
}
