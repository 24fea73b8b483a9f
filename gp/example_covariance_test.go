package gp_test

import (
	"fmt"

	"github.com/safegp/safegp/gp"
	"github.com/safegp/safegp/kernel"
)

// CovarianceAt reads the posterior covariance of one action with a few
// others, O(t) per entry, without the whole row or the N×N matrix: the
// same floats as Covariance's entries there. One observation y = 1 at
// x = 0.5 with noise σ² = 0.01.
func ExampleModel_CovarianceAt() {
	x := [][]float64{{0}, {0.5}, {1}, {1.5}, {2}}
	m := gp.New(kernel.SE{Variance: 1, Lengthscale: 0.5}, x, 0.1)
	m.Observe(1, 1)
	at := []int{0, 2, 4}
	c := m.CovarianceAt(make([]float64, len(at)), 0, at)
	row := m.Covariance(make([]float64, len(x)), 0)
	for k, j := range at {
		fmt.Printf("Cov(x=0, x=%.1f) = %.4f (whole row: %.4f)\n", x[j][0], c[k], row[j])
	}
	fmt.Println("kept:", m.CovarianceKept())
	// Closed form: k(0, x) − k(0, 0.5)·k(0.5, x)/(1 + 0.01), e.g.
	// e⁻² − e⁻¹/1.01 = −0.2289 at x = 1.
	// Output:
	// Cov(x=0, x=0.0) = 0.6358 (whole row: 0.6358)
	// Cov(x=0, x=1.0) = -0.2289 (whole row: -0.2289)
	// Cov(x=0, x=2.0) = -0.0063 (whole row: -0.0063)
	// kept: false
}
