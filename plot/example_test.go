package plot_test

import (
	"fmt"
	"os"

	"github.com/safegp/safegp/plot"
)

// An ablation is its algorithm's colour, dashed; the same label has the
// same style in every figure.
func ExampleStyleOf() {
	base, ablation := plot.StyleOf("safeopt-mc"), plot.StyleOf("safeopt-mc (plateau)")
	fmt.Println(base.Color == ablation.Color, base.Dashes == nil, ablation.Dashes != nil)
	fmt.Println(plot.SplitVariant("safeopt-mc (plateau)"))
	// Output:
	// true true true
	// safeopt-mc plateau
}

// Two panels on one y axis from 0 to 5 % above the highest line, one
// legend, a title across them.
func ExampleFigure() {
	x := []float64{1, 2, 3, 4}
	a, _ := plot.Bands("(a) small seed sets", "round t", "R_t/t", []plot.Series{
		{Label: "sgp-ucb", X: x, Mean: []float64{1, 0.6, 0.4, 0.3}},
		{Label: "stageopt", X: x, Mean: []float64{1, 0.5, 0.3, 0.2}}})
	b, _ := plot.Bands("(b) large seed sets", "round t", "R_t/t", []plot.Series{
		{Label: "sgp-ucb", X: x, Mean: []float64{0.8, 0.4, 0.2, 0.1}},
		{Label: "stageopt", X: x, Mean: []float64{0.9, 0.5, 0.4, 0.3}}})
	plot.ShareY(true, a, b)
	fig := plot.Figure{Title: "regret, means over 30 realizations", Panels: []*plot.Panel{a, b}, SharedLegend: true}
	if _, err := fig.Check(); err != nil {
		fmt.Println(err)
	}
	dir, _ := os.MkdirTemp("", "fig")
	defer os.RemoveAll(dir)
	fmt.Println(fig.Save(dir, "regret"), a.Y.Min, b.Y.Max)
	// Output: <nil> 0 1.05
}
