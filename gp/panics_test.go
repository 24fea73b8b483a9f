package gp_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/safegp/safegp/gp"
	"github.com/safegp/safegp/kernel"
)

// TestMisusePanics: calls whose arguments break the documented shapes
// panic with the method's own message rather than writing out of range.
func TestMisusePanics(t *testing.T) {
	t.Parallel()
	x := [][]float64{{0}, {0.5}, {1}, {1.5}}
	m := gp.New(kernel.SE{Variance: 1, Lengthscale: 0.5}, x, 0.1)
	m.Observe(0, 1)
	for _, c := range []struct {
		name, want string
		call       func()
	}{
		{"CovarianceAt lengths", "gp: CovarianceAt: dst and idx differ in length", func() { m.CovarianceAt(make([]float64, 1), 0, []int{0, 1}) }},
		{"Predict lengths", "gp: Predict: mean and vr must have one element per point", func() {
			m.Predict(make([]float64, 2), make([]float64, 1), [][]float64{{0.2}, {0.3}})
		}},
		{"Add below 0", "gp: Hallucinated.Add: action index out of range", func() { var h gp.Hallucinated; h.Reset(m); h.Add(-1) }},
		{"Add beyond N", "gp: Hallucinated.Add: action index out of range", func() { var h gp.Hallucinated; h.Reset(m); h.Add(len(x)) }},
		{"ResetRows descending", "gp: Hallucinated.ResetRows: rows not ascending actions of D", func() { var h gp.Hallucinated; h.ResetRows(m, []int{2, 1}) }},
		{"ResetRows repeated", "gp: Hallucinated.ResetRows: rows not ascending actions of D", func() { var h gp.Hallucinated; h.ResetRows(m, []int{1, 1}) }},
		{"ResetRows beyond N", "gp: Hallucinated.ResetRows: rows not ascending actions of D", func() { var h gp.Hallucinated; h.ResetRows(m, []int{0, len(x)}) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), c.want) {
					t.Errorf("panic %v, want %q", r, c.want)
				}
			}()
			c.call()
		})
	}
}
