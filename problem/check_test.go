package problem_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/safegp/safegp/problem"
)

// TestGridSpecCheck: the grid check a generated problem's grid and a
// study's decision_set.grid share. Each bad grid is refused naming the key
// relative to the grid (the callers put it under theirs); SPEC §8 asks for
// at least 2 actions; the coordinate bound is problem.MaxValues.
func TestGridSpecCheck(t *testing.T) {
	t.Parallel()
	const limit = 1000
	for _, c := range []struct {
		name string
		g    problem.GridSpec
		want string // the whole error; "" for a good grid
	}{
		{"good", problem.GridSpec{Bounds: [][2]float64{{0, 1}, {-1, 1}}, Points: []int{2, 3}}, ""},
		{"one point in a dimension", problem.GridSpec{Bounds: [][2]float64{{0, 1}, {-1, 1}}, Points: []int{1, 3}}, ""},
		{"empty", problem.GridSpec{}, "bounds and points must have the same length ≥ 1, got 0 and 0"},
		{"lengths differ", problem.GridSpec{Bounds: [][2]float64{{0, 1}, {0, 1}}, Points: []int{3}}, "bounds and points must have the same length ≥ 1, got 2 and 1"},
		{"lo = hi", problem.GridSpec{Bounds: [][2]float64{{0, 1}, {2, 2}}, Points: []int{3, 3}}, "bounds[1]: want finite lo < hi within ±1e100, got [2 2]"},
		{"beyond 1e100", problem.GridSpec{Bounds: [][2]float64{{0, 1e101}}, Points: []int{3}}, "bounds[0]: want finite lo < hi within ±1e100, got [0 1e+101]"},
		{"zero points", problem.GridSpec{Bounds: [][2]float64{{0, 1}, {0, 1}}, Points: []int{3, 0}}, "points[1]: must be ≥ 1, got 0"},
		{"one dimension too many points", problem.GridSpec{Bounds: [][2]float64{{0, 1}}, Points: []int{1001}}, "points[0]: at most 1000 actions (why), got 1001"},
		{"too many in all", problem.GridSpec{Bounds: [][2]float64{{0, 1}, {0, 1}}, Points: []int{40, 30}}, "points: at most 1000 actions in all (why), the grid has 1200"},
		{"one action", problem.GridSpec{Bounds: [][2]float64{{0, 1}}, Points: []int{1}}, "points: needs at least 2 actions, got 1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := c.g.Check(limit, " (why)")
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case c.want != "" && (err == nil || err.Error() != c.want || !errors.Is(err, problem.ErrInvalid)):
				t.Fatalf("got %v\nwant %s (problem.ErrInvalid)", err, c.want)
			}
			if c.want == "" && len(c.g.Actions()) != c.g.Size() {
				t.Errorf("Actions has %d points, Size says %d", len(c.g.Actions()), c.g.Size())
			}
		})
	}
	// 10⁶ actions in 51 dimensions: each count within the limit, the
	// coordinates beyond MaxValues.
	wide := problem.GridSpec{Bounds: make([][2]float64, 51), Points: make([]int, 51)}
	for j := range wide.Bounds {
		wide.Bounds[j], wide.Points[j] = [2]float64{0, 1}, 1
	}
	wide.Points[0] = 1_000_000
	if err := wide.Check(1_000_000, ""); err == nil || !strings.Contains(err.Error(), "51000000 coordinates, more than 50000000") {
		t.Errorf("got %v, want a refusal naming the coordinates", err)
	}
}

// TestCheckSeed: the seed-set check a problem file, seed_actions, a
// generated seed_set.indices and a study's seed_actions share (SPEC §8:
// non-empty, in range, distinct). Entries are named by their position in
// the list as given, even when it is not sorted.
func TestCheckSeed(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		seed []int
		want string
	}{
		{"sorted", []int{0, 3, 9}, ""},
		{"any order", []int{9, 0, 3}, ""},
		{"empty", nil, "empty: mark at least one known-safe action"},
		{"negative", []int{1, -1}, "[1]: -1 is outside the decision set's 0…9"},
		{"past the end", []int{10}, "[0]: 10 is outside the decision set's 0…9"},
		{"twice, sorted", []int{1, 4, 4}, "[2]: 4 is given twice (also at [1])"},
		{"twice, unsorted", []int{7, 2, 5, 2}, "[3]: 2 is given twice (also at [1])"},
		{"first repeat in the list wins", []int{8, 5, 8, 5}, "[2]: 8 is given twice (also at [0])"},
		{"three times", []int{6, 6, 6}, "[1]: 6 is given twice (also at [0])"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := problem.CheckSeed(c.seed, 10)
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case c.want != "" && (err == nil || err.Error() != c.want || !errors.Is(err, problem.ErrInvalid)):
				t.Fatalf("got %v\nwant %s (problem.ErrInvalid)", err, c.want)
			}
			if c.want != "" {
				return
			}
			s, err := problem.SortedSeed(c.seed, 10)
			if err != nil || len(s) != len(c.seed) || s[0] != 0 || s[len(s)-1] != 9 {
				t.Errorf("SortedSeed(%v) = %v, %v", c.seed, s, err)
			}
		})
	}
}
