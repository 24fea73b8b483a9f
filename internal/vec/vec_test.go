package vec_test

import (
	"math"
	"testing"

	"github.com/safegp/safegp/internal/vec"
)

func TestHand(t *testing.T) {
	t.Parallel()
	// x = (1, 2, 3), y = (4, −5, 6): xᵀy = 4 − 10 + 18 = 12;
	// x − y = (−3, 7, −3): ‖·‖² = 9 + 49 + 9 = 67.
	x, y := []float64{1, 2, 3}, []float64{4, -5, 6}
	cases := []struct {
		name      string
		got, want float64
	}{
		{"Dot", vec.Dot(x, y), 12},
		{"SqDist", vec.SqDist(x, y), 67},
		{"Dist", vec.Dist(x, y), math.Sqrt(67)},
		{"Dist to itself", vec.Dist(x, x), 0},
		{"Dot of empty", vec.Dot(nil, nil), 0},
		// Dot reads len(x) entries of a longer y (a row of a wider buffer).
		{"Dot with a longer y", vec.Dot([]float64{2}, []float64{3, 100}), 6},
		{"SqDist symmetric", vec.SqDist(y, x), 67},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
}

func TestNoAllocation(t *testing.T) {
	x, y := []float64{1, 2, 3}, []float64{4, 5, 6}
	var s float64
	if n := testing.AllocsPerRun(100, func() { s += vec.Dot(x, y) + vec.Dist(x, y) }); n != 0 {
		t.Errorf("%v allocations per call", n)
	}
}

func TestSameBits(t *testing.T) {
	t.Parallel()
	nan := math.NaN()
	for _, c := range []struct {
		a, b []float64
		want bool
	}{
		{nil, nil, true},
		{[]float64{}, nil, true},
		{[]float64{1, 2}, []float64{1, 2}, true},
		{[]float64{1, 2}, []float64{1}, false},
		{[]float64{0}, []float64{math.Copysign(0, -1)}, false}, // equal as numbers, not as bits
		{[]float64{nan}, []float64{nan}, true},                 // unequal as numbers, the same bits
		{[]float64{19}, []float64{math.Nextafter(19, 20)}, false},
	} {
		if got := vec.SameBits(c.a, c.b); got != c.want {
			t.Errorf("SameBits(%v, %v) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

func TestPlusZero(t *testing.T) {
	t.Parallel()
	for _, v := range []float64{math.Copysign(0, -1), 0, -1.5, 2, math.Inf(-1)} {
		got := vec.PlusZero(v)
		if got != v || math.Signbit(got) != (v < 0) {
			t.Errorf("PlusZero(%v) = %v (sign bit %v)", v, got, math.Signbit(got))
		}
	}
}
