package space

import (
	"math"
	"slices"
	"testing"
)

// TestSnap: Snap puts a point of the cube where Decode's setting encodes
// — an int on its integer, a choice one-hot on its largest coordinate
// (the first of equals) — and leaves a float's coordinate alone.
func TestSnap(t *testing.T) {
	t.Parallel()
	s := testSpace(t) // kp (log float), filter (int 1…8), mode (pi, pid)
	cases := []struct {
		name string
		x    []float64
	}{
		{"between integers", []float64{0.3, 0.2, 0.9, 0.1}},
		{"on an integer", []float64{0.123456789, 3.0 / 7, 0, 1}},
		{"a tie of the choice", []float64{0.5, 0.99, 0.4, 0.4}},
		{"the bounds", []float64{0, 0, 1, 0}},
		{"past the bounds", []float64{1, 1.2, -0.1, 0.2}},
	}
	for _, c := range cases {
		x := slices.Clone(c.x)
		s.Snap(x)
		want, err := s.Encode(s.Decode(c.x))
		if err != nil {
			t.Fatal(err)
		}
		want[0] = c.x[0] // a float is left as it is
		if !slices.Equal(x, want) {
			t.Errorf("%s: Snap(%v) = %v, want %v", c.name, c.x, x, want)
		}
		again := slices.Clone(x)
		if s.Snap(again); !slices.Equal(again, x) {
			t.Errorf("%s: Snap is not idempotent: %v then %v", c.name, x, again)
		}
	}
}

// TestBlockAndSteps: a choice's coordinates move together; the step
// limit is the float's given step, at least an int's widest gap, and the
// whole cube for a choice.
func TestBlockAndSteps(t *testing.T) {
	t.Parallel()
	s := testSpace(t)
	for j, want := range [][]int{nil, nil, {2, 3}, {2, 3}} {
		if got := s.Block(j); !slices.Equal(got, want) {
			t.Errorf("Block(%d) = %v, want %v", j, got, want)
		}
	}
	if got, want := s.Steps(0.2), []float64{0.2, 1.0 / 7, 1, 1}; got[0] != want[0] || got[1] != 0.2 || got[2] != 1 || got[3] != 1 {
		t.Errorf("Steps(0.2) = %v, want %v with the int at the step (its gap 1/7 is smaller)", got, want)
	}
	if got := s.Steps(0.1); math.Abs(got[1]-1.0/7) > 1e-15 {
		t.Errorf("Steps(0.1)'s int: %v, want its gap 1/7", got[1])
	}
	logInt, err := New([]Param{{Name: "n", Type: Int, Low: f64(1), High: f64(100), Scale: Log}})
	if err != nil {
		t.Fatal(err)
	}
	// On a log scale the widest gap is the first: log(2)/log(100).
	if got, want := logInt.Steps(0.1)[0], math.Log(2)/math.Log(100); math.Abs(got-want) > 1e-15 {
		t.Errorf("a log int's step: %v, want log 2 / log 100 = %v", got, want)
	}
}
