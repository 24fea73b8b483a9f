package fit_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/safegp/safegp/fit"
)

// Fit a Matérn-5/2 GP to 40 noisy measurements of a function of one input,
// and use the fitted kernel (Spec) where a model's kernel goes.
func Example() {
	rng := rand.New(rand.NewPCG(1, 2))
	var x [][]float64
	var y []float64
	for i := range 40 {
		xi := 3 * float64(i) / 39
		x = append(x, []float64{xi})
		y = append(y, math.Sin(2*xi)+0.1*rng.NormFloat64()) // centred around 0
	}
	res, err := fit.Fit(context.Background(), x, y, nil, fit.Options{Kernel: "matern52", Restarts: 3, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	s := res.Spec
	fmt.Printf("%s: lengthscale %.2f, variance %.2f, noise_std %.2f\n", s.Kernel, s.Lengthscale[0], *s.Variance, *s.NoiseStd)
	fmt.Printf("log marginal likelihood %.1f\n", res.LogMarginalLikelihood)
	// Output:
	// matern52: lengthscale 0.97, variance 0.58, noise_std 0.11
	// log marginal likelihood 15.2
}
