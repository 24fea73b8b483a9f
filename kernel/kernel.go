package kernel

import (
	"errors"
	"github.com/safegp/safegp/internal/fielderr"
	"github.com/safegp/safegp/internal/vec"
	"math"
)

// Kernel is a positive semi-definite covariance function on R^d.
type Kernel interface {
	// Eval returns k(x, y). It must not allocate.
	Eval(x, y []float64) float64
	// Name is the configuration name of the kernel, such as "se".
	Name() string
}

// ErrInvalid is returned (wrapped) for kernel parameters out of range.
var ErrInvalid = errors.New("invalid kernel")

// SE is the squared-exponential kernel v·exp(−‖x−y‖²/(2ℓ²)).
type SE struct {
	Variance    float64
	Lengthscale float64
}

// Eval implements Kernel.
func (k SE) Eval(x, y []float64) float64 {
	return k.Variance * math.Exp(-vec.SqDist(x, y)/(2*k.Lengthscale*k.Lengthscale))
}

// Name implements Kernel.
func (SE) Name() string { return "se" }

// Matern32 is the Matérn kernel with ν = 3/2: v·(1+√3r)e^{−√3r}, r = ‖x−y‖/ℓ.
type Matern32 struct {
	Variance    float64
	Lengthscale float64
}

// Eval implements Kernel.
func (k Matern32) Eval(x, y []float64) float64 {
	s := math.Sqrt(3*vec.SqDist(x, y)) / k.Lengthscale
	return k.Variance * (1 + s) * math.Exp(-s)
}

// Name implements Kernel.
func (Matern32) Name() string { return "matern32" }

// Matern52 is the Matérn kernel with ν = 5/2: v·(1+√5r+5r²/3)e^{−√5r}.
type Matern52 struct {
	Variance    float64
	Lengthscale float64
}

// Eval implements Kernel.
func (k Matern52) Eval(x, y []float64) float64 {
	r2 := vec.SqDist(x, y) / (k.Lengthscale * k.Lengthscale)
	s := math.Sqrt(5 * r2)
	return k.Variance * (1 + s + 5*r2/3) * math.Exp(-s)
}

// Name implements Kernel.
func (Matern52) Name() string { return "matern52" }

// Linear is the dot-product kernel v·xᵀy.
type Linear struct {
	Variance float64
}

// Eval implements Kernel.
func (k Linear) Eval(x, y []float64) float64 { return k.Variance * vec.Dot(x, y) }

// Name implements Kernel.
func (Linear) Name() string { return "linear" }

// Polynomial is the kernel v·(xᵀy + c)^p.
type Polynomial struct {
	Variance float64
	Offset   float64
	Degree   int
}

// Eval implements Kernel.
func (k Polynomial) Eval(x, y []float64) float64 {
	return k.Variance * powi(vec.Dot(x, y)+k.Offset, k.Degree)
}

// Name implements Kernel.
func (Polynomial) Name() string { return "polynomial" }

// MaxDegree bounds a polynomial kernel's degree: beyond it the kernel
// overflows on any decision set of practical scale.
const MaxDegree = 64

// Names lists the kernel names a Spec accepts.
var Names = []string{"se", "matern32", "matern52", "linear", "polynomial"}

// Spec is the configuration form of a kernel (SPEC §9). Zero values mean
// "not given": Variance defaults to 1, Offset to 1 and Degree to 2.
type Spec struct {
	Kernel      string   `yaml:"kernel" json:"kernel"`
	Lengthscale float64  `yaml:"lengthscale,omitempty" json:"lengthscale,omitempty"`
	Variance    *float64 `yaml:"variance,omitempty" json:"variance,omitempty"`
	Offset      *float64 `yaml:"offset,omitempty" json:"offset,omitempty"`
	Degree      *int     `yaml:"degree,omitempty" json:"degree,omitempty"`
}

// New builds the kernel a Spec describes. Errors name the offending key
// relative to the spec, for example "lengthscale: must be > 0, got -1".
func New(s Spec) (Kernel, error) {
	switch s.Kernel {
	case "se", "matern32", "matern52", "linear", "polynomial":
	case "":
		return nil, fielderr.New(ErrInvalid, "kernel", "missing (one of %v)", Names)
	default:
		return nil, fielderr.New(ErrInvalid, "kernel", "unknown kernel %q (one of %v)", s.Kernel, Names)
	}
	v := 1.0
	if s.Variance != nil {
		v = *s.Variance
		if !(v > 0) || math.IsInf(v, 0) {
			return nil, fielderr.New(ErrInvalid, "variance", "must be a finite number > 0, got %v", v)
		}
	}
	stationary := s.Kernel == "se" || s.Kernel == "matern32" || s.Kernel == "matern52"
	if stationary {
		if !(s.Lengthscale > 0) || math.IsInf(s.Lengthscale, 0) {
			return nil, fielderr.New(ErrInvalid, "lengthscale", "must be a finite number > 0, got %v", s.Lengthscale)
		}
	} else if s.Lengthscale != 0 {
		return nil, fielderr.New(ErrInvalid, "lengthscale", "not a parameter of kernel %q", s.Kernel)
	}
	if s.Kernel != "polynomial" && (s.Offset != nil || s.Degree != nil) {
		return nil, fielderr.New(ErrInvalid, "offset/degree", "only parameters of kernel \"polynomial\", not %q", s.Kernel)
	}
	switch s.Kernel {
	case "se":
		return SE{Variance: v, Lengthscale: s.Lengthscale}, nil
	case "matern32":
		return Matern32{Variance: v, Lengthscale: s.Lengthscale}, nil
	case "matern52":
		return Matern52{Variance: v, Lengthscale: s.Lengthscale}, nil
	case "linear":
		return Linear{Variance: v}, nil
	case "polynomial":
		p := Polynomial{Variance: v, Offset: 1, Degree: 2}
		if s.Offset != nil {
			p.Offset = *s.Offset
			if math.IsNaN(p.Offset) || math.IsInf(p.Offset, 0) || p.Offset < 0 {
				return nil, fielderr.New(ErrInvalid, "offset", "must be a finite number ≥ 0, got %v", p.Offset)
			}
		}
		if s.Degree != nil {
			p.Degree = *s.Degree
			if p.Degree < 1 || p.Degree > MaxDegree {
				return nil, fielderr.New(ErrInvalid, "degree", "must be an integer in 1…%d, got %d", MaxDegree, p.Degree)
			}
		}
		return p, nil
	}
	panic("unreachable")
}

func powi(b float64, p int) float64 {
	r := 1.0
	for ; p > 0; p-- {
		r *= b
	}
	return r
}
