package study_test

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/safegp/safegp/study"
	"github.com/safegp/safegp/study/api"
)

const boxSpecYAML = `decision_set: {box: {bounds: [[-1, 2], [-1, 2]]}}
seed_points: [[0.2, 0.3]]
thresholds: [0.0]
model:
  objective: {kernel: se, lengthscale: 0.7}
  constraints: [{kernel: se, lengthscale: 0.7}]
  noise_std: 0.05
  delta: 0.1
  beta: 4
algorithm: {name: line-bo, inner: safeopt, safe_set: gp, direction: random, points: 50, per_line: 3}
horizon: 40
seed: 5
`

func boxTruth(x []float64) (float64, []float64) {
	return -(x[0]-1)*(x[0]-1) - (x[1]-0.5)*(x[1]-0.5), []float64{1.2 - x[0]*x[0] - x[1]*x[1]}
}

// TestBoxStudyReplay: a box study's asks have index −1 and a point in the
// box; tells by ask and by x; the reopened study asks the same next point;
// show gives the best safe point.
func TestBoxStudyReplay(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "s.db")
	v, st := newService(t, path)
	if err := v.Create(ctx, "b", resolved(t, boxSpecYAML)); err != nil {
		t.Fatal(err)
	}
	f0, g0 := boxTruth([]float64{0.1, 0.1})
	if _, err := v.Tell(ctx, "b", &api.TellRequest{X: []float64{0.1, 0.1}, F: &f0, G: g0}); err != nil {
		t.Fatal(err)
	}
	for range 7 {
		a, err := v.Ask(ctx, "b")
		if err != nil {
			t.Fatal(err)
		}
		if a.Index != -1 || len(a.X) != 2 || a.X[0] < -1 || a.X[0] > 2 || a.X[1] < -1 || a.X[1] > 2 {
			t.Fatalf("ask %+v: want index −1 and a point in the box", a)
		}
		f, g := boxTruth(a.X)
		id := a.Ask
		if _, err := v.Tell(ctx, "b", &api.TellRequest{Ask: &id, F: &f, G: g}); err != nil {
			t.Fatal(err)
		}
	}
	next, err := v.Ask(ctx, "b")
	if err != nil {
		t.Fatal(err)
	}
	sum, err := v.Show(ctx, "b")
	if err != nil {
		t.Fatal(err)
	}
	if sum.Best == nil || sum.Best.Index != -1 || len(sum.Best.X) != 2 || sum.Dim != 2 || len(sum.Box) != 2 {
		t.Fatalf("show: %+v, best %+v", sum, sum.Best)
	}
	st.Close()
	v2, _ := newService(t, path)
	again, err := v2.Ask(ctx, "b")
	if err != nil {
		t.Fatal(err)
	}
	if again.Ask != next.Ask || !slices.Equal(again.X, next.X) {
		t.Fatalf("reopened: pending ask %+v, was %+v", again, next)
	}
	// Tell the pending ask, then the next ask is the same as a fresh
	// replay's: a third open.
	f, g := boxTruth(again.X)
	id := again.Ask
	if _, err := v2.Tell(ctx, "b", &api.TellRequest{Ask: &id, F: &f, G: g}); err != nil {
		t.Fatal(err)
	}
	want, err := v2.Ask(ctx, "b")
	if err != nil {
		t.Fatal(err)
	}
	v3, _ := newService(t, path)
	got, err := v3.Ask(ctx, "b")
	if err != nil || got.Ask != want.Ask || !slices.Equal(got.X, want.X) {
		t.Fatalf("third open: %+v (%v), want %+v", got, err, want)
	}
	// --index and points outside the box are refused.
	one := 0
	if _, err := v3.Tell(ctx, "b", &api.TellRequest{Index: &one, F: &f, G: g}); !errors.Is(err, api.ErrBadTell) || !strings.Contains(err.Error(), "box") {
		t.Errorf("index tell on a box: %v", err)
	}
	if _, err := v3.Tell(ctx, "b", &api.TellRequest{X: []float64{3, 0}, F: &f, G: g}); !errors.Is(err, api.ErrBadTell) || !strings.Contains(err.Error(), "outside the box") {
		t.Errorf("tell outside the box: %v", err)
	}
}

// TestBoxSpecBad: one clear error each.
func TestBoxSpecBad(t *testing.T) {
	cases := []struct{ name, old, new, want string }{
		{"lo = hi", "[[-1, 2], [-1, 2]]", "[[-1, 2], [2, 2]]", "want lo < hi"},
		{"seed outside", "seed_points: [[0.2, 0.3]]", "seed_points: [[0.2, 3]]", "outside the box"},
		{"seed dimension", "seed_points: [[0.2, 0.3]]", "seed_points: [[0.2]]", "1 coordinates"},
		{"no seed", "seed_points: [[0.2, 0.3]]\n", "", "no seed point"},
		{"seed actions", "seed_points: [[0.2, 0.3]]", "seed_actions: [0]", "seed_points"},
		{"finite algorithm", "{name: line-bo, inner: safeopt, safe_set: gp, direction: random, points: 50, per_line: 3}", "{name: safeopt, safe_set: gp}", "finite decision set"},
		{"inner needs truth", "inner: safeopt, safe_set: gp", "inner: safeopt, safe_set: lipschitz", "auto needs the true"},
		{"oracle inside", "inner: safeopt, safe_set: gp", "inner: gp-ucb-oracle", "true safe set"},
		{"line-bo on a grid", "decision_set: {box: {bounds: [[-1, 2], [-1, 2]]}}\nseed_points: [[0.2, 0.3]]", "decision_set: {grid: {bounds: [[0, 1]], points: [5]}}\nseed_actions: [0]", "box decision set"},
	}
	for _, c := range cases {
		y := strings.Replace(boxSpecYAML, c.old, c.new, 1)
		if y == boxSpecYAML {
			t.Fatalf("%s: %q not in the spec", c.name, c.old)
		}
		s, err := study.ParseSpec([]byte(y))
		if err == nil {
			_, err = s.Resolve(".")
		}
		if !errors.Is(err, api.ErrSpec) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want api.ErrSpec containing %q", c.name, err, c.want)
		}
	}
}
