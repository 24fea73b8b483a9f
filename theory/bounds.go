package theory

import "math"

// Beta is β_t = 2·log((m+1)·N·t²·π²/(6δ)) for round t with m constraints
// and N actions (paper Theorem 1; m+1 GPs, SPEC §3).
func Beta(t, m, n int, delta float64) float64 {
	tt := float64(t)
	return 2 * math.Log(float64(m+1)*float64(n)*tt*tt*math.Pi*math.Pi/(6*delta))
}

// GammaBound is the information-gain bound for a finite decision set,
// γ_T ≤ N·log(1 + σ⁻²·T·N·max_x k_f(x,x)) (paper §3, after Srinivas et al.).
func GammaBound(horizon, n int, noiseStd, maxPrior float64) float64 {
	N := float64(n)
	return N * math.Log1p(float64(horizon)*N*maxPrior/(noiseStd*noiseStd))
}

// B bounds the per-round regret of phase 1 with probability 1 − δ (paper
// Lemma "B"): 2·√v·√(2·log(2N))/δ, the form the paper proves for any kernel
// with k(x,x) ≤ v (it states it for v = 1). Its RBF-specific form carries an
// unspecified universal constant and is not used.
func B(n int, variance, delta float64) float64 {
	return 2 * math.Sqrt(variance) * math.Sqrt(2*math.Log(2*float64(n))) / delta
}

// C1 is 8/log(1 + σ⁻²) (paper Theorem 2 and Lemma "thirdlemma"; Theorem 4
// prints 8·log(1 + σ⁻²), a typo: its proof uses the same lemma).
func C1(noiseStd float64) float64 { return 8 / math.Log1p(1/(noiseStd*noiseStd)) }

// RegretBound is B·T' + √(C_1·T·β_T·γ_T) (Theorems 2 and 4).
func RegretBound(b float64, tPrime, horizon int, c1, betaT, gammaT float64) float64 {
	return b*float64(tPrime) + math.Sqrt(c1*float64(horizon)*betaT*gammaT)
}

// TEpsFinite is t_ε = 8σ²β_T/(λ_−ε²) (Theorem 2).
func TEpsFinite(noiseStd, betaT, lambda, eps float64) float64 {
	return 8 * noiseStd * noiseStd * betaT / (lambda * eps * eps)
}

// TEpsStationary is t̃_ε = 16σ²β_T/(λ̃_−ε²) (Theorem 4).
func TEpsStationary(noiseStd, betaT, lambda, eps float64) float64 {
	return 16 * noiseStd * noiseStd * betaT / (lambda * eps * eps)
}

// TDelta is t_δ = (8/λ_−)·log(d_g/δ) (Lemma 3; t̃_δ with D_g and λ̃_−).
func TDelta(lambda float64, dim int, delta float64) float64 {
	return 8 / lambda * math.Log(float64(dim)/delta)
}

// Eps0Target is the largest uniform approximation error Theorem 4 allows:
// ε²σ²/(32·T³·β_T).
func Eps0Target(eps, noiseStd float64, horizon int, betaT float64) float64 {
	T := float64(horizon)
	return eps * eps * noiseStd * noiseStd / (32 * T * T * T * betaT)
}

// QFFErrorBound is the QFF lemma's bound on the uniform error of an SE
// kernel (unit variance, lengthscale ℓ, D ⊆ [0,1]^d) with n̄ nodes per
// dimension: d·2^{d−1}/(√2·n̄^{n̄})·(e/(4ℓ²))^{n̄}. Computed in logs to
// avoid overflow.
func QFFErrorBound(d, nodes int, lengthscale float64) float64 {
	n := float64(nodes)
	logv := math.Log(float64(d)) + float64(d-1)*math.Ln2 - 0.5*math.Ln2 - n*math.Log(n) +
		n*(1-math.Log(4*lengthscale*lengthscale))
	return math.Exp(logv)
}

// QFFNodesFor returns the fewest nodes per dimension whose QFFErrorBound is
// at most eps0, searching up to maxNodes; false if none is enough.
func QFFNodesFor(d int, lengthscale, eps0 float64, maxNodes int) (int, bool) {
	for n := 1; n <= maxNodes; n++ {
		if QFFErrorBound(d, n, lengthscale) <= eps0 {
			return n, true
		}
	}
	return maxNodes, false
}
