package argmax

import (
	"math"
	"testing"
)

// TestArgmax checks the three forms against each other on the same cases:
// ties keep the lowest index, NaN loses to any number, an empty set is −1.
func TestArgmax(t *testing.T) {
	t.Parallel()
	nan, inf := math.NaN(), math.Inf(1)
	all := func(n int) []bool {
		in := make([]bool, n)
		for i := range in {
			in[i] = true
		}
		return in
	}
	cases := []struct {
		name string
		v    []float64
		in   []bool
		want int
	}{
		{"single", []float64{5}, all(1), 0},
		{"tie keeps lowest", []float64{1, 3, 3, 2}, all(4), 1},
		{"tie among members", []float64{1, 3, 3, 2}, []bool{true, false, true, true}, 2},
		{"all tied", []float64{7, 7, 7}, all(3), 0},
		{"empty set", []float64{1, 2}, []bool{false, false}, -1},
		{"no values", nil, nil, -1},
		{"negative values", []float64{-3, -1, -2}, all(3), 1},
		{"−Inf is a value", []float64{math.Inf(-1), math.Inf(-1)}, all(2), 0},
		{"+Inf wins, first of ties", []float64{1, inf, inf}, all(3), 1},
		{"NaN first loses", []float64{nan, 1, 2}, all(3), 2},
		{"NaN later loses", []float64{1, nan, 0.5}, all(3), 0},
		{"NaN loses to −Inf", []float64{nan, math.Inf(-1)}, all(2), 1},
		{"all NaN: lowest", []float64{nan, nan}, all(2), 0},
		{"NaN outside the set ignored", []float64{9, nan, 1}, []bool{false, true, true}, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Mask(c.v, c.in); got != c.want {
				t.Errorf("Mask = %d, want %d", got, c.want)
			}
			calls := 0
			score := func(i int) float64 { calls++; return c.v[i] }
			if got := Func(len(c.v), func(i int) bool { return c.in[i] }, score); got != c.want {
				t.Errorf("Func = %d, want %d", got, c.want)
			}
			members := 0
			var idx []int
			for i, in := range c.in {
				if in {
					members++
					idx = append(idx, i)
				}
			}
			if calls != members {
				t.Errorf("Func scored %d times for %d members", calls, members)
			}
			if got := List(idx, func(i int) float64 { return c.v[i] }); got != c.want {
				t.Errorf("List = %d, want %d", got, c.want)
			}
		})
	}
}

// TestListOrder: List prefers the earliest listed on ties, whatever its
// index; with an ascending list that is the lowest index.
func TestListOrder(t *testing.T) {
	t.Parallel()
	v := []float64{2, 2, 1}
	if got := List([]int{1, 0, 2}, func(i int) float64 { return v[i] }); got != 1 {
		t.Errorf("List over [1 0 2] = %d, want 1 (listed first)", got)
	}
}
