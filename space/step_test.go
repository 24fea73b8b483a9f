package space

import (
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"
)

// TestStep: a float or an int with a step takes low + k·step only — its
// candidates, decoded points and snapped points are those values, a value
// off the grid is refused — and a bad step is refused at New.
func TestStep(t *testing.T) {
	t.Parallel()
	s, err := New([]Param{
		{Name: "gain", Low: f64(0), High: f64(1), Step: f64(0.1)},
		{Name: "taps", Type: Int, Low: f64(1), High: f64(9), Step: f64(2)},
	})
	if err != nil {
		t.Fatal(err)
	}
	_, sets, err := s.Candidates()
	if err != nil {
		t.Fatal(err)
	}
	gains, taps := map[float64]bool{}, map[float64]bool{}
	for _, set := range sets {
		gains[set["gain"].Num], taps[set["taps"].Num] = true, true
	}
	want := []float64{0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1}
	if got := slices.Sorted(maps.Keys(gains)); !slices.Equal(got, want) {
		t.Errorf("gain's candidate values %v, want %v (the decimals, not 0.30000000000000004)", got, want)
	}
	if got := slices.Sorted(maps.Keys(taps)); !slices.Equal(got, []float64{1, 3, 5, 7, 9}) {
		t.Errorf("taps's candidate values %v, want 1 3 5 7 9", got)
	}
	if s.Continuous() {
		t.Error("a space with a stepped float is searched as continuous")
	}
	x := []float64{0.349, 0.6, 0, 0}[:2]
	if got := s.Decode(x); got["gain"].Num != 0.3 || got["taps"].Num != 5 {
		t.Errorf("Decode(%v) = %v, want gain 0.3, taps 5", x, got)
	}
	s.Snap(x)
	if back, err := s.Encode(Setting{"gain": Number(0.3), "taps": Number(5)}); err != nil || !slices.Equal(back, x) {
		t.Errorf("Snap gives %v; the setting encodes as %v (%v)", x, back, err)
	}
	for _, bad := range []Setting{{"gain": Number(0.35), "taps": Number(5)}, {"gain": Number(0.3), "taps": Number(4)}} {
		if _, err := s.Encode(bad); !errors.Is(err, ErrInvalid) {
			t.Errorf("Encode(%v): %v, want ErrInvalid", bad, err)
		}
	}
	if steps := s.Steps(0.05); steps[0] != 0.1 || steps[1] != 0.25 {
		t.Errorf("Steps(0.05) = %v, want at least one step each: 0.1 and 0.25", steps)
	}
	for _, c := range []struct {
		p    Param
		want string
	}{
		{Param{Name: "a", Low: f64(0), High: f64(1), Step: f64(0)}, "want a number > 0"},
		{Param{Name: "a", Low: f64(0.1), High: f64(1), Step: f64(0.1), Scale: Log}, "not with scale: log"},
		{Param{Name: "a", Low: f64(0), High: f64(1), Step: f64(0.3)}, "make high 0.9"},
		{Param{Name: "a", Type: Int, Low: f64(0), High: f64(4), Step: f64(1.5)}, "an int's step is an integer"},
		{Param{Name: "a", Low: f64(0), High: f64(1), Step: f64(2)}, "larger than high − low"},
		{Param{Name: "a", Type: Choice, Values: []string{"x", "y"}, Step: f64(1)}, "not low, high, scale or step"},
	} {
		if _, err := New([]Param{c.p}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want an error with %q", c.p, err, c.want)
		}
	}
}
