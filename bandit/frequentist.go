package bandit

import (
	"fmt"
	"math"
	"slices"

	"go.yaml.in/yaml/v3"

	"github.com/safegp/safegp/gp"
	"github.com/safegp/safegp/internal/strictyaml"
)

// Frequentist is a β that holds in the frequentist sense: whenever each
// of f and the g_i has RKHS norm at most B in the kernel the model gives
// it, and the noise is R-sub-Gaussian (a noise bounded by R is), then with
// probability at least 1 − δ every confidence interval μ ± √β_t·σ of
// every round holds (δ split evenly over the m + 1 GPs, as the paper's
// schedule's union bound does).
//
// Bound "fiedler" (the default) is the data-dependent bound of C.
// Fiedler, C. W. Scherer, S. Trimpe, "Practical and Rigorous Uncertainty
// Bounds for Gaussian Process Regression", AAAI 2021, Theorem 1, for a GP
// whose nominal noise variance λ is any λ > 0, λ̄ = max(1, λ):
//
//	√β_t = B + (R/√λ)·√(log det((λ̄/λ)·K_t + λ̄·I) − 2·log(δ/(m+1)))
//
// with K_t the Gram matrix of the t observations so far; log det((λ̄/λ)K_t
// + λ̄I) = log det(K_t + λI) + t·log(λ̄/λ), the first term from the GP's
// Cholesky factor (gp.Model.LogDet). The largest over the GPs is used, so
// that one β serves every interval. (The authors' code,
// osisbo/on-safety-in-safe-bayesian-optimization, style "fiedler", uses
// λ = 1, where the two forms agree.)
//
// Bound "chowdhury-gopalan" is S. R. Chowdhury, A. Gopalan, "On Kernelized
// Multi-armed Bandits", ICML 2017, Theorem 2:
//
//	√β_t = B + R·√(2·(γ_{t−1} + 1 + log((m+1)/δ)))
//
// with the maximum information gain γ_{t−1} bounded on a finite set of N
// actions by (N/2)·log(1 + (t−1)·k_max/(N·λ)) (log det(I + λ⁻¹K_A) ≤
// N·log(1 + tr(λ⁻¹K_A)/N) over the N × N matrix of the actions, k_max the
// largest prior variance): rigorous, and loose. The theorem takes the
// GP's noise variance λ = 1 + 2/T; safegp's GPs keep the model's σ², which
// the bound's λ is here — docs/algorithms.md says what that costs.
type Frequentist struct {
	RKHSNorm   float64 `json:"rkhs_norm"`
	NoiseBound float64 `json:"noise_bound"`
	Bound      string  `json:"bound,omitempty"` // "" (fiedler) or chowdhury-gopalan
}

// decodeFrequentist reads {rkhs_norm: B, noise_bound: R[, bound: …]}.
func decodeFrequentist(n *yaml.Node) (*Frequentist, error) {
	f := &Frequentist{RKHSNorm: math.NaN(), NoiseBound: math.NaN()}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		switch k.Value {
		case "rkhs_norm", "noise_bound":
			var x float64
			if v.Decode(&x) != nil || !(x >= 0) || math.IsInf(x, 0) {
				return nil, strictyaml.Errorf(n, "", "%s: want a finite number ≥ 0, got %s", k.Value, strictyaml.Describe(v))
			}
			if k.Value == "rkhs_norm" {
				f.RKHSNorm = x
			} else {
				f.NoiseBound = x
			}
		case "bound":
			if v.Decode(&f.Bound) != nil || (f.Bound != "fiedler" && f.Bound != "chowdhury-gopalan") {
				return nil, strictyaml.Errorf(n, "", "bound: want fiedler or chowdhury-gopalan, got %s", strictyaml.Describe(v))
			}
			if f.Bound == "fiedler" {
				f.Bound = ""
			}
		default:
			return nil, strictyaml.Errorf(n, "", "unknown key %s in a frequentist beta (rkhs_norm, noise_bound, bound)", strictyaml.Describe(k))
		}
	}
	if math.IsNaN(f.RKHSNorm) || math.IsNaN(f.NoiseBound) {
		return nil, strictyaml.Errorf(n, "", "a frequentist beta needs rkhs_norm (B) and noise_bound (R)")
	}
	if f.RKHSNorm == 0 && f.NoiseBound == 0 {
		return nil, strictyaml.Errorf(n, "", "rkhs_norm 0 and noise_bound 0 make β = 0: no confidence interval at all; give the bounds you believe")
	}
	return f, nil
}

// BoundName is the bound's name: fiedler or chowdhury-gopalan.
func (fr *Frequentist) BoundName() string {
	if fr.Bound == "" {
		return "fiedler"
	}
	return fr.Bound
}

// SqrtAt is √β_t for the coming round of f's GP and the g_i's, over n
// actions (chowdhury-gopalan's N; 0 on a box, which it refuses) with
// confidence δ: the largest over the GPs.
func (fr *Frequentist) SqrtAt(f *gp.Model, g []*gp.Model, n int, delta float64) (float64, error) {
	logG := math.Log(float64(1+len(g)) / delta) // log((m+1)/δ)
	best, err := fr.of(f, n, logG)
	for _, gi := range g {
		if err != nil {
			break
		}
		var v float64
		v, err = fr.of(gi, n, logG)
		best = math.Max(best, v)
	}
	return best, err
}

// of is √β of GP m: its log-determinant for fiedler, its largest prior
// variance (O(N)) only for chowdhury-gopalan.
func (fr *Frequentist) of(m *gp.Model, n int, logG float64) (float64, error) {
	kmax := 0.0
	if fr.Bound != "" {
		kmax = slices.Max(m.Prior())
	}
	return fr.one(m.LogDet(), m.T(), m.NoiseVar(), kmax, n, logG)
}

// WorstCase is the largest √β the bound can reach after t observations,
// whatever they are, for GPs with noise variances lambda and largest
// prior variances kmax (one each): with t = 0, the first round's. For
// fiedler, log det(K_t + λI) ≤ t·log(k_max + λ) (Hadamard's inequality:
// at most the product of the diagonal); chowdhury-gopalan's bound
// depends on t alone.
func (fr *Frequentist) WorstCase(lambda, kmax []float64, n, t int, delta float64) (float64, error) {
	logG := math.Log(float64(len(lambda)) / delta)
	best := math.Inf(-1)
	for j, lam := range lambda {
		v, err := fr.one(float64(t)*math.Log(kmax[j]+lam), t, lam, kmax[j], n, logG)
		if err != nil {
			return 0, err
		}
		best = math.Max(best, v)
	}
	return best, nil
}

// one is √β of one GP with t observations, noise variance λ, largest
// prior variance kmax and log det(K_t + λI) = logdet, over n actions, with
// logG = log((m+1)/δ).
func (fr *Frequentist) one(logdet float64, t int, lam, kmax float64, n int, logG float64) (float64, error) {
	if fr.Bound == "" {
		lbar := math.Max(1, lam)
		ld := logdet + float64(t)*math.Log(lbar/lam)
		return fr.RKHSNorm + fr.NoiseBound/math.Sqrt(lam)*math.Sqrt(ld+2*logG), nil
	}
	if n <= 0 {
		return 0, fmt.Errorf("%w: beta: bound chowdhury-gopalan needs a finite decision set (its information-gain bound counts the actions); on a box, use the default bound (fiedler)", ErrConfig)
	}
	gamma := float64(n) / 2 * math.Log1p(float64(t)*kmax/(float64(n)*lam))
	return fr.RKHSNorm + fr.NoiseBound*math.Sqrt(2*(gamma+1+logG)), nil
}

// sqrtBeta is √β_t of the model for round t over n actions with f's GP
// and the g_i's: the frequentist bound from their data, else √At.
func sqrtBeta(model *Model, f *gp.Model, g []*gp.Model, t, n int) float64 {
	if fr := model.Beta.Freq; fr != nil {
		v, err := fr.SqrtAt(f, g, n, model.Delta)
		if err != nil {
			// Only chowdhury-gopalan on a box fails, which Build refuses.
			return math.NaN()
		}
		return v
	}
	return math.Sqrt(model.Beta.At(t, len(model.Constraints), n, model.Delta))
}
