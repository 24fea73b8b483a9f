package problem

import (
	"fmt"

	"github.com/safegp/safegp/internal/fielderr"
)

// GridSpec is a Cartesian grid: Points[j] evenly spaced values on
// Bounds[j]. A generated problem's grid (GenerateSpec) and a study's
// decision_set.grid are checked and built by it.
type GridSpec struct {
	Bounds [][2]float64 `yaml:"bounds" json:"bounds"`
	Points []int        `yaml:"points" json:"points"`
}

// Check checks the grid before it is built: bounds and points of one
// length d ≥ 1, finite bounds lo < hi within ±MaxMagnitude, and 2 …
// maxActions actions (SPEC §8: at least 2) whose coordinates fit in
// MaxValues. why, if not empty, says what sets maxActions, for the error.
// Errors name the key relative to the grid: bounds[j], points[j], points.
func (g *GridSpec) Check(maxActions int, why string) error {
	bad := func(key, format string, args ...any) error { return fielderr.New(ErrInvalid, key, format, args...) }
	if len(g.Bounds) == 0 || len(g.Bounds) != len(g.Points) {
		return bad("", "bounds and points must have the same length ≥ 1, got %d and %d", len(g.Bounds), len(g.Points))
	}
	total := 1.0 // a float: the product of d counts may overflow an int
	for j, b := range g.Bounds {
		if !InRange(b[0]) || !InRange(b[1]) || !(b[0] < b[1]) {
			return bad(fmt.Sprintf("bounds[%d]", j), "want finite lo < hi within ±1e100, got %v", b)
		}
		switch n := g.Points[j]; {
		case n < 1:
			return bad(fmt.Sprintf("points[%d]", j), "must be ≥ 1, got %d", n)
		case n > maxActions:
			return bad(fmt.Sprintf("points[%d]", j), "at most %d actions%s, got %d", maxActions, why, n)
		}
		total *= float64(g.Points[j])
	}
	switch d := len(g.Bounds); {
	case total > float64(maxActions):
		return bad("points", "at most %d actions in all%s, the grid has %s", maxActions, why, count(total))
	case total < 2:
		return bad("points", "needs at least 2 actions, got %.0f", total)
	case total*float64(d) > MaxValues:
		return bad("", "%.0f actions × %d dimensions = %.0f coordinates, more than %d", total, d, total*float64(d), MaxValues)
	}
	return nil
}

// count writes a number of actions whole, unless it is astronomical.
func count(n float64) string {
	if n < 1e15 {
		return fmt.Sprintf("%.0f", n)
	}
	return fmt.Sprintf("%.3g", n)
}

// Size is the number of actions (Check first).
func (g *GridSpec) Size() int {
	n := 1
	for _, p := range g.Points {
		n *= p
	}
	return n
}

// Actions builds the grid (Check first): Grid(g.Bounds, g.Points).
func (g *GridSpec) Actions() [][]float64 { return Grid(g.Bounds, g.Points) }

// Grid returns the Cartesian grid with points[j] evenly spaced values on
// bounds[j] (one point sits at the lower bound), the last dimension varying
// fastest.
func Grid(bounds [][2]float64, points []int) [][]float64 {
	total := 1
	for _, n := range points {
		total *= n
	}
	x := make([][]float64, total)
	for i := range x {
		p := make([]float64, len(points))
		rem := i
		for j := len(points) - 1; j >= 0; j-- {
			k := rem % points[j]
			rem /= points[j]
			lo, hi := bounds[j][0], bounds[j][1]
			if points[j] > 1 {
				p[j] = lo + (hi-lo)*float64(k)/float64(points[j]-1)
			} else {
				p[j] = lo
			}
		}
		x[i] = p
	}
	return x
}
