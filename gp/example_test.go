package gp_test

import (
	"fmt"

	"github.com/safegp/safegp/gp"
	"github.com/safegp/safegp/kernel"
)

// A model over five points on a line: observing y = 1 at x = 0 pulls the
// mean up near 0 and shrinks the variance there.
func ExampleModel() {
	x := [][]float64{{0}, {0.5}, {1}, {1.5}, {2}}
	m := gp.New(kernel.SE{Variance: 1, Lengthscale: 0.5}, x, 0.1)
	m.Observe(0, 1)
	for i := range x {
		fmt.Printf("x=%.1f  mean=%.3f  std=%.3f\n", x[i][0], m.Mean()[i], m.Std(i))
	}
	// Output:
	// x=0.0  mean=0.990  std=0.100
	// x=0.5  mean=0.601  std=0.797
	// x=1.0  mean=0.134  std=0.991
	// x=1.5  mean=0.011  std=1.000
	// x=2.0  mean=0.000  std=1.000
}
