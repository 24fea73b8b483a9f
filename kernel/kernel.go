package kernel

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"github.com/safegp/safegp/internal/quote"

	"github.com/safegp/safegp/internal/plural"

	"go.yaml.in/yaml/v3"

	"github.com/safegp/safegp/internal/fielderr"
	"github.com/safegp/safegp/internal/strictyaml"
	"github.com/safegp/safegp/internal/vec"
	"github.com/safegp/safegp/internal/vexp"
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

// SE is the squared-exponential kernel v·exp(−r²/2), with
// r² = ‖x−y‖²/ℓ² (isotropic) or Σ_j (x_j−y_j)²/ℓ_j² (ARD, when ARD is
// set: one lengthscale per input dimension, and Lengthscale is unused).
type SE struct {
	Variance    float64
	Lengthscale float64
	ARD         []float64
}

// Eval implements Kernel.
func (k SE) Eval(x, y []float64) float64 {
	if k.ARD != nil {
		return k.Variance * math.Exp(-0.5*ardSqDist(x, y, k.ARD))
	}
	// Row computes the same expression a row at a time (TestRow holds the
	// two equal to the bit).
	return k.Variance * math.Exp(-vec.SqDist(x, y)/(2*k.Lengthscale*k.Lengthscale))
}

// ardSqDist is the squared scaled distance Σ_j ((x_j−y_j)/ℓ_j)² with the
// per-dimension lengthscales ard (len(ard) ≥ len(x): CheckDim and
// bandit's check refuse fewer).
func ardSqDist(x, y, ard []float64) float64 {
	var s float64
	for j, lj := range ard[:len(x)] {
		d := (x[j] - y[j]) / lj
		s += d * d
	}
	return s
}

// Name implements Kernel.
func (SE) Name() string { return "se" }

// Matern32 is the Matérn kernel with ν = 3/2: v·(1+√3r)e^{−√3r}, with r
// as for SE (isotropic, or ARD when ARD is set).
type Matern32 struct {
	Variance    float64
	Lengthscale float64
	ARD         []float64
}

// Eval implements Kernel.
func (k Matern32) Eval(x, y []float64) float64 {
	var s float64
	if k.ARD == nil {
		s = math.Sqrt(3*vec.SqDist(x, y)) / k.Lengthscale
	} else {
		s = math.Sqrt(3 * ardSqDist(x, y, k.ARD))
	}
	return k.Variance * (1 + s) * math.Exp(-s)
}

// Name implements Kernel.
func (Matern32) Name() string { return "matern32" }

// Matern52 is the Matérn kernel with ν = 5/2: v·(1+√5r+5r²/3)e^{−√5r},
// with r as for SE (isotropic, or ARD when ARD is set).
type Matern52 struct {
	Variance    float64
	Lengthscale float64
	ARD         []float64
}

// Eval implements Kernel.
func (k Matern52) Eval(x, y []float64) float64 {
	var q float64
	if k.ARD == nil {
		q = vec.SqDist(x, y) / (k.Lengthscale * k.Lengthscale)
	} else {
		q = ardSqDist(x, y, k.ARD)
	}
	s := math.Sqrt(5 * q)
	return k.Variance * (1 + s + 5*q/3) * math.Exp(-s)
}

// Name implements Kernel.
func (Matern52) Name() string { return "matern52" }

// Row writes k(x, y_j) into dst[j] for each y_j of ys and returns
// dst[:len(ys)]: a kernel row, which the GPs evaluate once per observation
// (N entries, gp.Model). For the stationary kernels it makes one dynamic
// call instead of N — through the interface, each Eval copies the kernel
// (five words since ARD) — and decides isotropic or ARD once; the values
// are Eval's to the bit.
func Row(k Kernel, dst, x []float64, ys [][]float64) []float64 {
	dst = dst[:len(ys)]
	switch k := k.(type) {
	case SE:
		// Eval's expressions, the exponentials through vexp (math.Exp's
		// bits, about 6× faster).
		if k.ARD == nil {
			c := 2 * k.Lengthscale * k.Lengthscale
			for j, y := range ys {
				dst[j] = -vec.SqDist(x, y) / c
			}
		} else {
			for j, y := range ys {
				dst[j] = -0.5 * ardSqDist(x, y, k.ARD)
			}
		}
		vexp.Exp(dst)
		for j := range dst {
			dst[j] = k.Variance * dst[j]
		}
		return dst
	case Matern32:
		// s = √3·r is needed twice, so the row goes a chunk at a time
		// with s on the stack.
		var s [rowChunk]float64
		for lo := 0; lo < len(ys); lo += rowChunk {
			hi := min(lo+rowChunk, len(ys))
			d := dst[lo:hi]
			for j, y := range ys[lo:hi] {
				if k.ARD == nil {
					s[j] = math.Sqrt(3*vec.SqDist(x, y)) / k.Lengthscale
				} else {
					s[j] = math.Sqrt(3 * ardSqDist(x, y, k.ARD))
				}
				d[j] = -s[j]
			}
			vexp.Exp(d)
			for j := range d {
				d[j] = k.Variance * (1 + s[j]) * d[j]
			}
		}
		return dst
	case Matern52:
		var q [rowChunk]float64
		for lo := 0; lo < len(ys); lo += rowChunk {
			hi := min(lo+rowChunk, len(ys))
			d := dst[lo:hi]
			for j, y := range ys[lo:hi] {
				if k.ARD == nil {
					q[j] = vec.SqDist(x, y) / (k.Lengthscale * k.Lengthscale)
				} else {
					q[j] = ardSqDist(x, y, k.ARD)
				}
				d[j] = -math.Sqrt(5 * q[j])
			}
			vexp.Exp(d)
			for j := range d {
				s := math.Sqrt(5 * q[j])
				d[j] = k.Variance * (1 + s + 5*q[j]/3) * d[j]
			}
		}
		return dst
	case Product:
		// Eval on the concrete type: one dynamic call fewer per entry.
		for j, y := range ys {
			dst[j] = k.Eval(x, y)
		}
		return dst
	}
	for j, y := range ys {
		dst[j] = k.Eval(x, y)
	}
	return dst
}

// RowFlat is Row for points stored back to back: ys holds len(dst)
// points of dimension len(x), point j at ys[j·d : (j+1)·d]. The values
// are Row's to the bit; a model that keeps its decision set so reads
// N·d floats per row instead of N slice headers and N separately
// allocated points (gp.Model's update, where the rows compete with V for
// the caches).
func RowFlat(k Kernel, dst, x, ys []float64) []float64 {
	d := len(x)
	n := len(dst)
	if d == 0 {
		return Row(k, dst, x, make([][]float64, n))
	}
	ys = ys[:n*d]
	at := func(j int) []float64 { return ys[j*d : (j+1)*d : (j+1)*d] }
	switch k := k.(type) {
	case SE:
		if c := 2 * k.Lengthscale * k.Lengthscale; k.ARD == nil && d == 2 {
			// The plane in one vector pass: vec.SqDist's operations in
			// its order, then Eval's.
			vexp.SERow2(dst, x[0], x[1], ys, c, k.Variance)
			return dst
		} else if k.ARD == nil {
			for j := range dst {
				dst[j] = -vec.SqDist(x, at(j)) / c
			}
		} else {
			for j := range dst {
				dst[j] = -0.5 * ardSqDist(x, at(j), k.ARD)
			}
		}
		vexp.Exp(dst)
		for j := range dst {
			dst[j] = k.Variance * dst[j]
		}
		return dst
	case Matern32:
		// Row's chunks and expressions, on views of the points.
		var s [rowChunk]float64
		for lo := 0; lo < n; lo += rowChunk {
			d := dst[lo:min(lo+rowChunk, n)]
			for j := range d {
				y := at(lo + j)
				if k.ARD == nil {
					s[j] = math.Sqrt(3*vec.SqDist(x, y)) / k.Lengthscale
				} else {
					s[j] = math.Sqrt(3 * ardSqDist(x, y, k.ARD))
				}
				d[j] = -s[j]
			}
			vexp.Exp(d)
			for j := range d {
				d[j] = k.Variance * (1 + s[j]) * d[j]
			}
		}
		return dst
	case Matern52:
		var q [rowChunk]float64
		for lo := 0; lo < n; lo += rowChunk {
			d := dst[lo:min(lo+rowChunk, n)]
			for j := range d {
				y := at(lo + j)
				if k.ARD == nil {
					q[j] = vec.SqDist(x, y) / (k.Lengthscale * k.Lengthscale)
				} else {
					q[j] = ardSqDist(x, y, k.ARD)
				}
				d[j] = -math.Sqrt(5 * q[j])
			}
			vexp.Exp(d)
			for j := range d {
				s := math.Sqrt(5 * q[j])
				d[j] = k.Variance * (1 + s + 5*q[j]/3) * d[j]
			}
		}
		return dst
	case Product:
		for j := range dst {
			dst[j] = k.Eval(x, at(j))
		}
		return dst
	}
	for j := range dst {
		dst[j] = k.Eval(x, at(j))
	}
	return dst
}

// rowChunk is how many entries Row's Matérn cases keep on the stack.
const rowChunk = 256

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
// NoiseStd, if given, is the noise standard deviation σ of the measurements
// of the function this kernel models, in place of the model's noise_std
// (a constraint's sensor is often not the objective's): New checks it,
// config.Model.NoiseStds hands it to the GP of that function.
type Spec struct {
	Kernel      string      `yaml:"kernel" json:"kernel"`
	Lengthscale Lengthscale `yaml:"lengthscale,omitempty" json:"lengthscale,omitempty"`
	Variance    *float64    `yaml:"variance,omitempty" json:"variance,omitempty"`
	Offset      *float64    `yaml:"offset,omitempty" json:"offset,omitempty"`
	Degree      *int        `yaml:"degree,omitempty" json:"degree,omitempty"`
	NoiseStd    *float64    `yaml:"noise_std,omitempty" json:"noise_std,omitempty"`
}

// Lengthscale is a stationary kernel's lengthscale: one number ℓ
// (isotropic), or one ℓ_j per input dimension (ARD). It reads and writes a
// single number as a scalar, so that isotropic specs look as they always
// did.
type Lengthscale []float64

// Iso is the isotropic lengthscale l.
func Iso(l float64) Lengthscale { return Lengthscale{l} }

// UnmarshalYAML accepts a number or a non-empty list of numbers.
func (l *Lengthscale) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.SequenceNode {
		var v []float64
		if err := strictyaml.DecodeNode(n, &v); err != nil {
			return err
		}
		if len(v) == 0 {
			return strictyaml.Errorf(n, "", "an empty list: give one lengthscale, or one per input dimension")
		}
		*l = v
		return nil
	}
	var v float64
	if err := strictyaml.DecodeNode(n, &v); err != nil {
		return err
	}
	*l = Lengthscale{v}
	return nil
}

// UnmarshalJSON accepts a number or a non-empty list of numbers, as
// UnmarshalYAML does (configurations are read through strictyaml; this is
// for Go callers decoding an echoed configuration with encoding/json).
func (l *Lengthscale) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil // encoding/json's convention: null leaves the value
	}
	var v float64
	if err := json.Unmarshal(b, &v); err == nil {
		*l = Lengthscale{v}
		return nil
	}
	var list []float64
	if err := json.Unmarshal(b, &list); err != nil || len(list) == 0 {
		return fmt.Errorf("lengthscale: want a number or a non-empty list of numbers, got %.40s", b)
	}
	*l = list
	return nil
}

// MarshalJSON writes one lengthscale as a number, several as a list.
func (l Lengthscale) MarshalJSON() ([]byte, error) {
	if len(l) == 1 {
		return json.Marshal(l[0])
	}
	return json.Marshal([]float64(l))
}

// MarshalYAML writes one lengthscale as a number, several as a list.
func (l Lengthscale) MarshalYAML() (any, error) {
	if len(l) == 1 {
		return l[0], nil
	}
	return []float64(l), nil
}

// ErrAnisotropic is returned (wrapped) by what assumes an isotropic
// kernel (one lengthscale for every dimension) when given an ARD one.
var ErrAnisotropic = errors.New("kernel has one lengthscale per dimension (ARD)")

// ARD returns the per-dimension lengthscales of an ARD kernel, nil for an
// isotropic or non-stationary one.
func ARD(k Kernel) []float64 {
	switch k := k.(type) {
	case SE:
		return k.ARD
	case Matern32:
		return k.ARD
	case Matern52:
		return k.ARD
	}
	return nil
}

// CheckDim checks a kernel spec against the input dimension d: an ARD
// lengthscale needs exactly d entries. The error names the key.
func CheckDim(s Spec, d int) error {
	if len(s.Lengthscale) > 1 && len(s.Lengthscale) != d {
		return fielderr.New(ErrInvalid, "lengthscale", "%s for %s: give one, or one per dimension", plural.Count(len(s.Lengthscale), "lengthscale"), plural.Count(d, "input dimension"))
	}
	return nil
}

// New builds the kernel a Spec describes. Errors name the offending key
// relative to the spec, for example "lengthscale: must be > 0, got -1".
func New(s Spec) (Kernel, error) {
	switch s.Kernel {
	case "se", "matern32", "matern52", "linear", "polynomial":
	case "":
		return nil, fielderr.New(ErrInvalid, "kernel", "missing (one of %v)", Names)
	default:
		return nil, fielderr.New(ErrInvalid, "kernel", "unknown kernel %s (one of %v)", quote.Short(s.Kernel), Names)
	}
	v := 1.0
	if s.Variance != nil {
		v = *s.Variance
		if !(v > 0) || math.IsInf(v, 0) {
			return nil, fielderr.New(ErrInvalid, "variance", "must be a finite number > 0, got %v", v)
		}
	}
	if s.NoiseStd != nil && (!(*s.NoiseStd >= 0) || *s.NoiseStd > 1e100) {
		return nil, fielderr.New(ErrInvalid, "noise_std", "must be a finite number in 0…1e100, got %v", *s.NoiseStd)
	}
	iso, ard, err := lengthscales(s)
	if err != nil {
		return nil, err
	}
	if s.Kernel != "polynomial" && (s.Offset != nil || s.Degree != nil) {
		return nil, fielderr.New(ErrInvalid, "offset/degree", "only parameters of kernel \"polynomial\", not %s", quote.Short(s.Kernel))
	}
	switch s.Kernel {
	case "se":
		return SE{Variance: v, Lengthscale: iso, ARD: ard}, nil
	case "matern32":
		return Matern32{Variance: v, Lengthscale: iso, ARD: ard}, nil
	case "matern52":
		return Matern52{Variance: v, Lengthscale: iso, ARD: ard}, nil
	case "linear":
		return Linear{Variance: v}, nil
	case "polynomial":
		return polynomial(s, v)
	}
	panic("unreachable")
}

// lengthscales checks a spec's lengthscale: required by a stationary
// kernel, as one (iso) or one per dimension (ard, a copy), and refused by
// the others.
func lengthscales(s Spec) (iso float64, ard []float64, err error) {
	stationary := s.Kernel == "se" || s.Kernel == "matern32" || s.Kernel == "matern52"
	switch {
	case stationary && len(s.Lengthscale) == 0:
		return 0, nil, fielderr.New(ErrInvalid, "lengthscale", "must be a finite number > 0, got %v", 0)
	case stationary:
		for j, l := range s.Lengthscale {
			if !(l > 0) || math.IsInf(l, 0) {
				key := "lengthscale"
				if len(s.Lengthscale) > 1 {
					key = fmt.Sprintf("lengthscale[%d]", j)
				}
				return 0, nil, fielderr.New(ErrInvalid, key, "must be a finite number > 0, got %v", l)
			}
		}
		if len(s.Lengthscale) == 1 {
			return s.Lengthscale[0], nil, nil
		}
		return 0, append([]float64(nil), s.Lengthscale...), nil
	case s.Lengthscale != nil:
		return 0, nil, fielderr.New(ErrInvalid, "lengthscale", "not a parameter of kernel %s", quote.Short(s.Kernel))
	}
	return 0, nil, nil
}

// polynomial builds a polynomial kernel of variance v, checking the
// spec's offset and degree (defaults 1 and 2).
func polynomial(s Spec, v float64) (Kernel, error) {
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

func powi(b float64, p int) float64 {
	r := 1.0
	for ; p > 0; p-- {
		r *= b
	}
	return r
}
