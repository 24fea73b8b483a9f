package losbo

import (
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"math"
)

// ErrUnknown marks a set name or function index that does not exist.
var ErrUnknown = errors.New("unknown losbo function")

// Sets names the two function sets, in the paper's order.
var Sets = []string{"onb-se", "matern32"}

//go:embed functions.json
var data []byte

// Function is one of the suite's functions on [0, 1], to be kept at or
// above Threshold (the objective is its own safety condition).
type Function struct {
	Set   string
	Index int
	// Gamma is the kernel's γ: the SE kernel exp(−(x−x')²/γ²), whose
	// lengthscale in the usual exp(−(x−x')²/(2ℓ²)) is ℓ = γ/√2; for the
	// Matérn kernel ℓ = γ/√2 too (scikit-learn's length_scale).
	Gamma     float64
	Nu        float64 // Matérn's ν (1.5); 0 for the SE set
	Threshold float64 // the safety threshold h: f(x) ≥ h is safe
	// Lipschitz is the authors' Lipschitz constant of f on [0, 1]; LoSBO
	// runs with 1.1 times it.
	Lipschitz float64
	// Optimum is the authors' max of f over [0, 1]; Reach the interval
	// [a, b] their reachable safe set spans.
	Optimum  float64
	Reach    [2]float64
	Noise    float64 // the bound of the uniform noise, |ε| ≤ Noise
	RKHSNorm float64
	// Degrees and Coeffs (SE set): f(x) = Σ_k Coeffs[k]·e_{Degrees[k]}(x)
	// with e_n the SE kernel's orthonormal basis function of degree n
	// (onbBasis). BasePoints and Coeffs (Matérn set):
	// f(x) = Σ_k Coeffs[k]·k(x, BasePoints[k]).
	Degrees    []int
	BasePoints []float64
	Coeffs     []float64
	norm       []float64 // per degree, √(2ⁿ/(γ²ⁿ·n!))
}

type file struct {
	Source string `json:"source"`
	Sets   map[string][]struct {
		Index      int        `json:"index"`
		Gamma      float64    `json:"gamma"`
		Nu         float64    `json:"nu"`
		Threshold  float64    `json:"threshold"`
		Lipschitz  float64    `json:"lipschitz"`
		Optimum    float64    `json:"optimum"`
		Reach      [2]float64 `json:"reach"`
		Noise      float64    `json:"noise"`
		RKHSNorm   float64    `json:"rkhs_norm"`
		Degrees    []int      `json:"degrees"`
		BasePoints []float64  `json:"base_points"`
		Coeffs     []float64  `json:"coeffs"`
	} `json:"sets"`
}

// Source is where functions.json came from (repository, commit, licence).
var Source string

var all = map[string][]*Function{}

func init() {
	var f file
	if err := json.Unmarshal(data, &f); err != nil {
		panic("losbo: functions.json: " + err.Error())
	}
	Source = f.Source
	for name, fs := range f.Sets {
		for _, v := range fs {
			fn := &Function{Set: name, Index: v.Index, Gamma: v.Gamma, Nu: v.Nu, Threshold: v.Threshold,
				Lipschitz: v.Lipschitz, Optimum: v.Optimum, Reach: v.Reach, Noise: v.Noise, RKHSNorm: v.RKHSNorm,
				Degrees: v.Degrees, BasePoints: v.BasePoints, Coeffs: v.Coeffs}
			for _, n := range fn.Degrees {
				fn.norm = append(fn.norm, onbNorm(n, fn.Gamma))
			}
			all[name] = append(all[name], fn)
		}
	}
}

// Count is the number of functions in set.
func Count(set string) int { return len(all[set]) }

// Lookup returns function index of set.
func Lookup(set string, index int) (*Function, error) {
	fs, ok := all[set]
	if !ok {
		return nil, fmt.Errorf("%w: set %q (one of %v)", ErrUnknown, set, Sets)
	}
	if index < 0 || index >= len(fs) {
		return nil, fmt.Errorf("%w: %s has functions 0…%d, not %d", ErrUnknown, set, len(fs)-1, index)
	}
	return fs[index], nil
}

// onbNorm is the factor √(2ⁿ/(γ²ⁿ·n!)) of the SE kernel's basis function
// of degree n, e_n(x) = √(2ⁿ/(γ²ⁿ·n!))·xⁿ·exp(−x²/γ²) (Steinwart and
// Christmann, Support Vector Machines, 2008, Theorem 4.38; the authors'
// se_bfunc_1d), computed through logarithms: 25ⁿ/n! overflows nothing
// for the degrees here (≤ 20), but the product form would round more.
func onbNorm(n int, gamma float64) float64 {
	lg, _ := math.Lgamma(float64(n) + 1)
	return math.Exp(0.5 * (float64(n)*math.Ln2 - 2*float64(n)*math.Log(gamma) - lg))
}

// Eval returns f(x).
func (f *Function) Eval(x float64) float64 {
	var s float64
	if f.Degrees != nil {
		e := math.Exp(-x * x / (f.Gamma * f.Gamma))
		for k, n := range f.Degrees {
			s += f.Coeffs[k] * f.norm[k] * math.Pow(x, float64(n)) * e
		}
		return s
	}
	// Matérn ν = 3/2 with scikit-learn's length scale ℓ = γ/√2:
	// k(r) = (1 + √3·r/ℓ)·exp(−√3·r/ℓ).
	l := f.Gamma / math.Sqrt2
	for k, b := range f.BasePoints {
		r := math.Sqrt(3) * math.Abs(x-b) / l
		s += f.Coeffs[k] * (1 + r) * math.Exp(-r)
	}
	return s
}
