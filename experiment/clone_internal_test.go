package experiment

import (
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRunClone: a clone equals the run and shares none of its arrays (a
// field added to Run that Clone does not copy fails here), since the
// run's decoder writes the next run over them (WriteOptions.Runs).
func TestRunClone(t *testing.T) {
	t.Parallel()
	r := &Run{Algorithm: "a", Label: "b", Realization: 3, Actions: []int{1, 2}, Regret: []float64{0.5}, ReachableRegret: []float64{0.25},
		Violations: 1, SafeSetSize: []int{4}, ExplorationRounds: 2, Points: [][]float64{{0.1, 0.2}}, Values: []float64{1}, BestSafe: []float64{2},
		SimpleRegret: []float64{3}, ModelRegret: []float64{4}, Fits: []RunFit{{Round: 1}}, Contexts: []int{0}, violationRounds: []int{1}}
	c := r.Clone()
	if d := cmp.Diff(*r, c, cmp.AllowUnexported(Run{})); d != "" {
		t.Fatalf("clone differs (-run +clone):\n%s", d)
	}
	rv, cv := reflect.ValueOf(r).Elem(), reflect.ValueOf(&c).Elem()
	for i := range rv.NumField() {
		f := rv.Type().Field(i)
		if f.Type.Kind() != reflect.Slice {
			continue
		}
		if rv.Field(i).Len() == 0 {
			t.Errorf("Run.%s is empty in the test's run: give it an element", f.Name)
			continue
		}
		if rv.Field(i).Pointer() == cv.Field(i).Pointer() {
			t.Errorf("Run.%s: the clone shares the run's array", f.Name)
		}
	}
	if &c.Points[0][0] == &r.Points[0][0] {
		t.Error("Run.Points: the clone shares a point's array")
	}
}
