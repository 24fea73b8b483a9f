package bandit_test

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/safegp/safegp/bandit"
	"github.com/safegp/safegp/kernel"
)

// TestFrequentistBeta checks √β_t of a frequentist β against its formula
// computed from scratch (frequentist.go): Fiedler, Scherer and Trimpe's
// bound from log det((λ̄/λ)K_t + λ̄I), the determinant by gonum's
// Cholesky of the Gram matrix built anew, and Chowdhury and Gopalan's
// with the information-gain bound (N/2)·log(1 + t·k_max/(N·λ)), the
// largest over f's and g's GPs (two kernels, so the two differ), with
// noise variance λ below and above 1 (λ̄ = 1 and λ̄ = λ), at t = 0 … 12.
// Tolerance 1e-12 relative: the two sides sum the same logarithms in
// another order.
func TestFrequentistBeta(t *testing.T) {
	t.Parallel()
	var x [][]float64
	for i := range 30 {
		x = append(x, []float64{float64(i) / 29})
	}
	kf := kernel.SE{Variance: 1.5, Lengthscale: 0.2}
	kg := kernel.Matern52{Variance: 0.7, Lengthscale: 0.35}
	for _, tc := range []struct {
		name  string
		sigma float64
		bound string
	}{{"fiedler, λ < 1", 0.3, ""}, {"fiedler, λ > 1", 1.4, ""}, {"chowdhury-gopalan", 0.3, "chowdhury-gopalan"}} {
		t.Run(tc.name, func(t *testing.T) {
			const B, R, delta = 2.5, 0.2, 0.05
			beta := bandit.Beta{Freq: &bandit.Frequentist{RKHSNorm: B, NoiseBound: R, Bound: tc.bound}}
			pol, err := bandit.Build(&bandit.Spec{Name: bandit.SafeOpt, SafeSet: "gp"},
				bandit.Model{Objective: kf, Constraints: []kernel.Kernel{kg}, NoiseStd: tc.sigma, Delta: delta, Beta: beta},
				bandit.Domain{Set: bandit.DecisionSet{X: x, Seed: []int{10, 11}}}, bandit.Options{Thresholds: []float64{-5}, Horizon: 20})
			if err != nil {
				t.Fatal(err)
			}
			lam := tc.sigma * tc.sigma
			var played []int
			var view bandit.Snapshot
			for round := range 13 {
				pol.Inspect(&view, bandit.SafeSet)
				want := math.Inf(-1)
				for _, k := range []kernel.Kernel{kf, kg} {
					var v float64
					n := len(played)
					if tc.bound == "" {
						lbar := math.Max(1, lam)
						logdet := 0.0
						if n > 0 {
							a := mat.NewSymDense(n, nil)
							for i, p := range played {
								for j, q := range played {
									a.SetSym(i, j, lbar/lam*k.Eval(x[p], x[q]))
								}
								a.SetSym(i, i, a.At(i, i)+lbar)
							}
							var ch mat.Cholesky
							if !ch.Factorize(a) {
								t.Fatal("not positive definite")
							}
							logdet = ch.LogDet()
						}
						v = B + R/math.Sqrt(lam)*math.Sqrt(logdet-2*math.Log(delta/2))
					} else {
						kmax := k.Eval(x[0], x[0])
						N := float64(len(x))
						gamma := N / 2 * math.Log(1+float64(n)*kmax/(N*lam))
						v = B + R*math.Sqrt(2*(gamma+1+math.Log(2/delta)))
					}
					want = math.Max(want, v)
				}
				if got := view.SqrtBeta; !(math.Abs(got-want) <= 1e-12*want) {
					t.Fatalf("round %d: √β %.17g, from scratch %.17g", round+1, got, want)
				}
				a, err := pol.Ask()
				if err != nil {
					t.Fatal(err)
				}
				played = append(played, a.Index)
				if err := pol.Tell(a.ID, bandit.Observation{F: math.Sin(7 * x[a.Index][0]), G: []float64{math.Cos(5 * x[a.Index][0])}}); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// TestFrequentistBetaRefused: the Chowdhury–Gopalan bound counts actions,
// so a box refuses it; SafeOpt-MC's t* needs a schedule fixed in advance.
func TestFrequentistBetaRefused(t *testing.T) {
	t.Parallel()
	k := kernel.SE{Variance: 1, Lengthscale: 0.3}
	cg := bandit.Beta{Freq: &bandit.Frequentist{RKHSNorm: 1, NoiseBound: 0.1, Bound: "chowdhury-gopalan"}}
	_, err := bandit.Build(&bandit.Spec{Name: bandit.LineBO}, bandit.Model{Objective: k, Constraints: []kernel.Kernel{k}, NoiseStd: 0.1, Delta: 0.1, Beta: cg},
		bandit.Domain{Box: &bandit.Box{Bounds: [][2]float64{{0, 1}, {0, 1}}, Seeds: [][]float64{{0.5, 0.5}}}}, bandit.Options{Thresholds: []float64{0}, Horizon: 10})
	if err == nil {
		t.Error("line-bo with the chowdhury-gopalan bound: built, want a refusal")
	}
}
