package gp_test

import (
	"fmt"
	"math"

	"github.com/safegp/safegp/gp"
	"github.com/safegp/safegp/kernel"
)

// A point pending measurement (x = 1, value unknown) shrinks the variance
// around it as an observation would, while the model itself is unchanged:
// the next point of a batch is chosen where the batch has not looked yet.
func ExampleHallucinated() {
	x := [][]float64{{0}, {0.5}, {1}, {1.5}, {2}}
	m := gp.New(kernel.SE{Variance: 1, Lengthscale: 0.5}, x, 0.1)
	m.Observe(0, 1)
	var h gp.Hallucinated
	h.Reset(m)
	h.Add(2) // x = 1 is pending
	for i := range x {
		fmt.Printf("x=%.1f  std=%.3f  with x=1 pending: %.3f\n", x[i][0], m.Std(i), math.Sqrt(h.Var()[i]))
	}
	// Output:
	// x=0.0  std=0.100  with x=1 pending: 0.099
	// x=0.5  std=0.797  with x=1 pending: 0.598
	// x=1.0  std=0.991  with x=1 pending: 0.099
	// x=1.5  std=1.000  with x=1 pending: 0.794
	// x=2.0  std=1.000  with x=1 pending: 0.991
}
