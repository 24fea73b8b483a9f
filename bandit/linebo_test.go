package bandit_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"

	"github.com/safegp/safegp/bandit"
	"github.com/safegp/safegp/internal/strictyaml"
	"github.com/safegp/safegp/kernel"
)

// boxFuncs are the test's f and g on [−1, 2]²: g ≥ 0 is safe around the
// seed (0.2, 0.3).
func boxF(x []float64) float64 { return -(x[0]-1)*(x[0]-1) - (x[1]-0.5)*(x[1]-0.5) }
func boxG(x []float64) float64 { return 1.2 - x[0]*x[0] - x[1]*x[1] }

func boxModel() bandit.Model {
	se := kernel.SE{Variance: 1, Lengthscale: 0.7}
	return bandit.Model{Objective: se, Constraints: []kernel.Kernel{se}, NoiseStd: 0.05, Delta: 0.1, Beta: bandit.Beta{Value: 4}}
}

func testBox() bandit.Box {
	return bandit.Box{Bounds: [][2]float64{{-1, 2}, {-1, 2}}, Seeds: [][]float64{{0.2, 0.3}}}
}

func boxOpt(seed uint64) bandit.Options {
	return bandit.Options{Thresholds: []float64{0}, Horizon: 60, Rand: rand.New(rand.NewPCG(seed, 7))}
}

// TestLineStepIsInner is the correctness requirement: one line
// step of line-bo equals the inner algorithm run by hand with New on the
// same grid, told the same observations — so line-bo's safety on a line
// is exactly the inner algorithm's.
func TestLineStepIsInner(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		inner bandit.Spec
	}{
		{"safeopt gp", bandit.Spec{Name: "safeopt", SafeSet: "gp"}},
		{"safeopt lipschitz", bandit.Spec{Name: "safeopt", Lipschitz: &bandit.Lipschitz{Value: 3}}},
		{"sgp-ucb", bandit.Spec{Name: "sgp-ucb", Exploration: bandit.Exploration{Fixed: ptr(3)}}},
		{"stageopt", bandit.Spec{Name: "stageopt", SafeSet: "gp", Exploration: bandit.Exploration{Fixed: ptr(5)}}},
		{"safeopt-mc", bandit.Spec{Name: "safeopt-mc", SafeSet: "gp", Exploration: bandit.Exploration{Fixed: ptr(5)}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			spec := c.inner
			spec.Name, spec.Inner, spec.Direction, spec.Points, spec.PerLine = "line-bo", c.inner.Name, "coordinate", ptr(41), ptr(4)
			box := testBox()
			pol, err := bandit.Build(&spec, boxModel(), bandit.Domain{Box: new(box)}, boxOpt(3))
			if err != nil {
				t.Fatal(err)
			}
			// Measurements outside the loop, at random points near the seed.
			r := rand.New(rand.NewPCG(9, 9))
			var told []bandit.Observation
			tell := func(id int, x []float64) {
				o := bandit.Observation{F: boxF(x), G: []float64{boxG(x)}, X: slices.Clone(x), Index: -1}
				if id == 0 {
					if err := pol.Tell(0, o); err != nil {
						t.Fatal(err)
					}
				} else if err := pol.Tell(id, bandit.Observation{F: o.F, G: o.G}); err != nil {
					t.Fatal(err)
				}
				told = append(told, o)
			}
			for range 6 {
				tell(0, []float64{0.2 + 0.4*r.Float64() - 0.2, 0.3 + 0.4*r.Float64() - 0.2})
			}
			xb, _, _ := bandit.Best(pol)
			a, err := pol.Ask()
			if err != nil {
				t.Fatal(err)
			}
			// The first line: through x̂ along e_1, clipped to [−1, 2].
			const n = 41
			lo, hi := box.Bounds[0][0], box.Bounds[0][1]
			sLo, sHi := lo-xb[0], hi-xb[0]
			type pt struct {
				s    float64
				x    []float64
				seed bool
			}
			var pts []pt
			for i := range n {
				s := sLo + (sHi-sLo)*float64(i)/float64(n-1)
				pts = append(pts, pt{s, []float64{min(max(xb[0]+s, lo), hi), min(max(xb[1]+0*s, lo), hi)}, false})
			}
			pts = append(pts, pt{0, slices.Clone(xb), true}) // x̂, the only point on the line
			sort.SliceStable(pts, func(i, j int) bool { return pts[i].s < pts[j].s })
			var set bandit.DecisionSet
			for i, p := range pts {
				if p.seed {
					set.Seed = append(set.Seed, i)
				}
				set.X = append(set.X, p.x)
			}
			if d := cmp.Diff(set.X, bandit.LinePoints(pol)); d != "" {
				t.Fatalf("line points (-by hand +line-bo):\n%s", d)
			}
			opt := boxOpt(3)
			opt.Horizon, opt.Grow, opt.Expect = 60, true, len(told)
			// The hand-run inner policy draws from its own stream, seeded
			// as line-bo's: coordinate directions draw nothing.
			inner, err := bandit.Build(&c.inner, boxModel(), bandit.Domain{Set: set}, opt)
			if err != nil {
				t.Fatal(err)
			}
			for _, o := range told {
				if err := inner.Tell(0, o); err != nil {
					t.Fatal(err)
				}
			}
			// Every step of the line, inspected and asked.
			for step := range 4 {
				var want, got bandit.Snapshot
				inner.Inspect(&want, bandit.Full)
				pol.Inspect(&got, bandit.Full)
				if d := cmp.Diff(want, got); d != "" {
					t.Fatalf("step %d: snapshot (-inner +line-bo):\n%s", step, d)
				}
				b, err := inner.Ask()
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(a.X, b.X) || a.Index != -1 {
					t.Fatalf("step %d: line-bo asks %v (index %d), the inner algorithm %v", step, a.X, a.Index, b.X)
				}
				x := a.X
				if err := inner.Tell(b.ID, bandit.Observation{F: boxF(x), G: []float64{boxG(x)}}); err != nil {
					t.Fatal(err)
				}
				tell(a.ID, x)
				if step < 3 {
					if a, err = pol.Ask(); err != nil {
						t.Fatal(err)
					}
				}
			}
			// per_line = 4: the line has ended.
			if bandit.LinePoints(pol) != nil {
				t.Error("the line goes on after per_line evaluations")
			}
		})
	}
}

// TestLineBOReproducible: the same calls and seed give the same asks, for
// every direction rule, and the asks stay in the box.
func TestLineBOReproducible(t *testing.T) {
	t.Parallel()
	for _, dir := range []string{"coordinate", "random", "ascent"} {
		run := func() [][]float64 {
			s := &bandit.Spec{Name: "line-bo", Direction: dir, SafeSet: "gp", Points: ptr(30), PerLine: ptr(3)}
			pol, err := bandit.Build(s, boxModel(), bandit.Domain{Box: new(testBox())}, boxOpt(5))
			if err != nil {
				t.Fatal(err)
			}
			var xs [][]float64
			for range 12 {
				a, err := pol.Ask()
				if err != nil {
					t.Fatal(err)
				}
				for j, v := range a.X {
					if v < -1 || v > 2 {
						t.Fatalf("%s: ask %v outside the box in dimension %d", dir, a.X, j+1)
					}
				}
				xs = append(xs, a.X)
				if err := pol.Tell(a.ID, bandit.Observation{F: boxF(a.X), G: []float64{boxG(a.X)}}); err != nil {
					t.Fatal(err)
				}
			}
			return xs
		}
		if d := cmp.Diff(run(), run()); d != "" {
			t.Errorf("%s: two runs differ:\n%s", dir, d)
		}
	}
}

// TestLineBOCoordinate: coordinate lines cycle through e_1 … e_d and pass
// through the best safe point.
func TestLineBOCoordinate(t *testing.T) {
	t.Parallel()
	s := &bandit.Spec{Name: "line-bo", Direction: "coordinate", SafeSet: "gp", Points: ptr(11), PerLine: ptr(2), Tolerance: ptr(0.0)}
	pol, err := bandit.Build(s, boxModel(), bandit.Domain{Box: new(testBox())}, boxOpt(1))
	if err != nil {
		t.Fatal(err)
	}
	for line := range 4 {
		xb, _, _ := bandit.Best(pol)
		a, err := pol.Ask()
		if err != nil {
			t.Fatal(err)
		}
		pts := bandit.LinePoints(pol)
		fixed := 1 - line%2 // the coordinate the line does not move
		for _, p := range pts {
			if p[fixed] != xb[fixed] {
				t.Fatalf("line %d: point %v leaves x̂ = %v in coordinate %d", line+1, p, xb, fixed+1)
			}
		}
		if !slices.ContainsFunc(pts, func(p []float64) bool { return slices.Equal(p, xb) }) {
			t.Errorf("line %d does not contain x̂ = %v", line+1, xb)
		}
		for k := range 2 {
			if k > 0 {
				if a, err = pol.Ask(); err != nil {
					t.Fatal(err)
				}
			}
			if err := pol.Tell(a.ID, bandit.Observation{F: boxF(a.X), G: []float64{boxG(a.X)}}); err != nil {
				t.Fatal(err)
			}
		}
		if bandit.LinePoints(pol) != nil {
			t.Fatalf("line %d goes on after per_line = 2 evaluations", line+1)
		}
	}
}

// TestLineBOEndsEarly: a tolerance that every gap is below ends each line
// after its first evaluation.
func TestLineBOEndsEarly(t *testing.T) {
	t.Parallel()
	s := &bandit.Spec{Name: "line-bo", Direction: "coordinate", SafeSet: "gp", Points: ptr(11), Tolerance: ptr(1e9)}
	pol, err := bandit.Build(s, boxModel(), bandit.Domain{Box: new(testBox())}, boxOpt(1))
	if err != nil {
		t.Fatal(err)
	}
	a, _ := pol.Ask()
	if err := pol.Tell(a.ID, bandit.Observation{F: 0.5, G: []float64{1}}); err != nil {
		t.Fatal(err)
	}
	if bandit.LinePoints(pol) != nil {
		t.Error("the line goes on with a gap below the tolerance")
	}
}

// TestBoxBadInput: one clear error each, and no panic.
func TestBoxBadInput(t *testing.T) {
	t.Parallel()
	good := bandit.Spec{Name: "line-bo", SafeSet: "gp"}
	cases := []struct {
		name string
		spec bandit.Spec
		box  bandit.Box
		opt  func(*bandit.Options)
		want string
	}{
		{"lo = hi", good, bandit.Box{Bounds: [][2]float64{{0, 0}}, Seeds: [][]float64{{0}}}, nil, "want lo < hi"},
		{"lo > hi", good, bandit.Box{Bounds: [][2]float64{{0, 1}, {2, 1}}, Seeds: [][]float64{{0, 1}}}, nil, "bounds of dimension 2"},
		{"no bounds", good, bandit.Box{Seeds: [][]float64{{0}}}, nil, "no bounds"},
		{"nan bound", good, bandit.Box{Bounds: [][2]float64{{math.NaN(), 1}}, Seeds: [][]float64{{0}}}, nil, "finite"},
		{"no seed", good, bandit.Box{Bounds: [][2]float64{{0, 1}}}, nil, "no seed point"},
		{"seed outside", good, bandit.Box{Bounds: [][2]float64{{0, 1}, {0, 1}}, Seeds: [][]float64{{0.5, 1.5}}}, nil, "outside the box in dimension 2"},
		{"seed wrong dimension", good, bandit.Box{Bounds: [][2]float64{{0, 1}, {0, 1}}, Seeds: [][]float64{{0.5}}}, nil, "seed point 1 has 1 coordinates"},
		{"finite algorithm on a box", bandit.Spec{Name: "safeopt", SafeSet: "gp"}, testBox(), nil, "needs a finite decision set"},
		{"oracle inside", bandit.Spec{Name: "line-bo", Inner: "gp-ucb-oracle"}, testBox(), nil, "needs the true safe set"},
		{"lipschitz auto inside", bandit.Spec{Name: "line-bo", SafeSet: "lipschitz"}, testBox(), nil, "auto needs the true functions"},
		{"lipschitz auto given", bandit.Spec{Name: "line-bo", Inner: "stageopt", Exploration: bandit.Exploration{Fixed: ptr(1)}, Lipschitz: &bandit.Lipschitz{Auto: true}}, testBox(), nil, "auto needs the true functions"},
		{"random without stream", bandit.Spec{Name: "line-bo", SafeSet: "gp", Direction: "random"}, testBox(), func(o *bandit.Options) { o.Rand = nil }, "needs a random stream"},
		{"sgp-ucb without stream", bandit.Spec{Name: "line-bo", Inner: "sgp-ucb", Exploration: bandit.Exploration{Fixed: ptr(2)}}, testBox(), func(o *bandit.Options) { o.Rand = nil }, "needs a random stream"},
		{"inner option checked", bandit.Spec{Name: "line-bo", Inner: "sgp-ucb"}, testBox(), nil, "inner sgp-ucb"},
		{"points", bandit.Spec{Name: "line-bo", SafeSet: "gp", Points: ptr(1)}, testBox(), nil, "points"},
		{"per_line", bandit.Spec{Name: "line-bo", SafeSet: "gp", PerLine: ptr(0)}, testBox(), nil, "per_line"},
		{"tolerance", bandit.Spec{Name: "line-bo", SafeSet: "gp", Tolerance: ptr(-1.0)}, testBox(), nil, "tolerance"},
		{"direction", bandit.Spec{Name: "line-bo", SafeSet: "gp", Direction: "diagonal"}, testBox(), nil, "direction"},
		{"ard lengthscales", good, bandit.Box{Bounds: [][2]float64{{0, 1}, {0, 1}, {0, 1}}, Seeds: [][]float64{{0, 0, 0}}}, nil, "lengthscales"},
	}
	for _, c := range cases {
		opt := boxOpt(1)
		if c.opt != nil {
			c.opt(&opt)
		}
		model := boxModel()
		if c.name == "ard lengthscales" {
			model.Objective = kernel.SE{Variance: 1, ARD: []float64{1, 1}}
		}
		_, err := bandit.Build(&c.spec, model, bandit.Domain{Box: new(c.box)}, opt)
		if !errors.Is(err, bandit.ErrConfig) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want ErrConfig containing %q", c.name, err, c.want)
		}
	}
	// line-bo on a finite decision set.
	_, err := bandit.Build(&good, boxModel(), bandit.Domain{Set: bandit.DecisionSet{X: [][]float64{{0}, {1}}, Seed: []int{0}}}, boxOpt(1))
	if !errors.Is(err, bandit.ErrConfig) || !strings.Contains(err.Error(), "box domain") {
		t.Errorf("line-bo on a finite set: %v", err)
	}
	// The line-bo keys on another algorithm.
	for _, s := range []bandit.Spec{{Name: "safeopt", Inner: "safeopt"}, {Name: "safeopt", Points: ptr(3)}, {Name: "gp-ucb-oracle", Direction: "random"}} {
		if err := s.Check(10); !errors.Is(err, bandit.ErrConfig) || !strings.Contains(err.Error(), "not an option of") {
			t.Errorf("%+v: %v", s, err)
		}
	}
}

// TestBoxBadTell: tells a box cannot take are errors that change nothing.
func TestBoxBadTell(t *testing.T) {
	t.Parallel()
	pol, err := bandit.Build(&bandit.Spec{Name: "line-bo", SafeSet: "gp", Points: ptr(11)}, boxModel(), bandit.Domain{Box: new(testBox())}, boxOpt(1))
	if err != nil {
		t.Fatal(err)
	}
	a0, _ := pol.Ask()
	for _, c := range []struct {
		id   int
		o    bandit.Observation
		want string
	}{
		{0, bandit.Observation{F: 1, G: []float64{1}, X: []float64{3, 0}, Index: -1}, "outside the box"},
		{0, bandit.Observation{F: 1, G: []float64{1}, X: []float64{0}, Index: -1}, "1 coordinates"},
		{0, bandit.Observation{F: 1, G: []float64{1}, Index: 2}, "no action indices"},
		{0, bandit.Observation{F: 1, G: []float64{1}, Index: -1}, "needs its point"},
		{0, bandit.Observation{F: math.NaN(), G: []float64{1}, X: []float64{0, 0}, Index: -1}, "not a finite"},
		{a0.ID, bandit.Observation{F: 1}, "constraint values"},
		{7, bandit.Observation{F: 1, G: []float64{1}}, "never handed out"},
	} {
		if err := pol.Tell(c.id, c.o); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("tell %d %+v: %v, want %q", c.id, c.o, err, c.want)
		}
	}
	if a, _ := pol.Ask(); a.ID != a0.ID || !slices.Equal(a.X, a0.X) {
		t.Errorf("after bad tells the pending ask is %+v, was %+v", a, a0)
	}
}

// TestLineBOSpecYAML decodes the line-bo keys and refuses them elsewhere.
func TestLineBOSpecYAML(t *testing.T) {
	t.Parallel()
	var s bandit.Spec
	in := "{name: line-bo, inner: stageopt, safe_set: gp, exploration: {fixed: 3}, direction: ascent, points: 100, per_line: 5, tolerance: 0}"
	if err := strictyaml.Decode([]byte(in), &s); err != nil {
		t.Fatal(err)
	}
	if err := s.Check(10); err != nil {
		t.Fatal(err)
	}
	l := s.LineOptions()
	want := bandit.Line{Inner: bandit.Spec{Name: "stageopt", SafeSet: "gp", Exploration: bandit.Exploration{Fixed: ptr(3)}}, Direction: "ascent", Points: 100, PerLine: 5, Tolerance: 0, AscentRule: "sampled"}
	if d := cmp.Diff(want, l); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	var def bandit.Spec
	if err := yaml.Unmarshal([]byte("{name: line-bo}"), &def); err != nil {
		t.Fatal(err)
	}
	if l := def.LineOptions(); l.Inner.Name != "sgp-ucb" || l.Direction != "cloud" || l.Points != 300 || l.PerLine != 5 || l.Tolerance != 0.01 ||
		l.Inner.Exploration.Fixed == nil || *l.Inner.Exploration.Fixed != 0 {
		t.Errorf("defaults %+v", l)
	}
}

// TestLineBODefaults: {name: line-bo} alone runs, on a cloud with inner
// sgp-ucb (T′ = 0) and 5 evaluations a cloud; on a line, or with the
// SafeOpt family's safe_set, its inner safeopt's safe set defaults to the
// GP's on a box, where lipschitz: auto (the finite default) has no true
// functions to read.
func TestLineBODefaults(t *testing.T) {
	t.Parallel()
	s := bandit.Spec{Name: "line-bo"}
	if err := s.Check(50); err != nil {
		t.Fatal(err)
	}
	if l := s.LineOptions(); l.Inner.Name != "sgp-ucb" || l.Direction != "cloud" || l.PerLine != 5 || l.Inner.Exploration.Fixed == nil || *l.Inner.Exploration.Fixed != 0 {
		t.Errorf("defaults %+v", l)
	}
	for _, s := range []bandit.Spec{{Name: "line-bo", Direction: "coordinate"}, {Name: "line-bo", SafeSet: "gp"}} {
		if err := s.Check(50); err != nil {
			t.Fatal(err)
		}
		l := s.LineOptions()
		if l.Inner.Name != "safeopt" || l.Inner.SafeSet != "gp" || l.Points != 300 || l.Tolerance != 0.01 {
			t.Errorf("%+v: defaults %+v", s, l)
		}
		if s.Direction == "coordinate" && l.PerLine != 20 {
			t.Errorf("coordinate lines: per_line %d, want 20", l.PerLine)
		}
	}
	withL := bandit.Spec{Name: "line-bo", Lipschitz: &bandit.Lipschitz{Value: 2}}
	if given := withL.LineOptions(); given.Inner.SafeSet != "" {
		t.Errorf("a Lipschitz constant given: safe_set %q, want lipschitz mode", given.Inner.SafeSet)
	}
}

// TestLineDirections: each direction rule draws the line it says, so
// that disabling a rule or swapping two is noticed (issue 25, item 6:
// ascent made unreachable passed every test). The first line after six
// measurements near the seed runs through the best safe point x̂ along:
// e_1 (coordinate); z/‖z‖ with z_j ~ N(0, 1)·(hi_j − lo_j) drawn from the
// policy's random stream (random), recomputed here from the same seed;
// and the gradient of f's posterior mean at x̂ by central differences
// (ascent), recomputed here from the policy's Predict. Lines are compared
// by the cosine of their directions, up to sign.
func TestLineDirections(t *testing.T) {
	t.Parallel()
	const seed = 11
	for _, dir := range []string{"coordinate", "random", "ascent"} {
		t.Run(dir, func(t *testing.T) {
			// ascent here is ascent_rule: mean, the mean's gradient (the
			// sampled step, a posterior draw: TestAscentDirection).
			s := &bandit.Spec{Name: "line-bo", Direction: dir, SafeSet: "gp", Points: ptr(41), PerLine: ptr(3)}
			if dir == "ascent" {
				s.AscentRule = "mean"
			}
			box := testBox()
			pol, err := bandit.Build(s, boxModel(), bandit.Domain{Box: new(box)}, boxOpt(seed))
			if err != nil {
				t.Fatal(err)
			}
			r := rand.New(rand.NewPCG(9, 9))
			for range 6 {
				x := []float64{0.1 + 0.3*r.Float64(), 0.2 + 0.3*r.Float64()}
				if err := pol.Tell(0, bandit.Observation{F: boxF(x), G: []float64{boxG(x)}, X: x, Index: -1}); err != nil {
					t.Fatal(err)
				}
			}
			xb, _, _ := bandit.Best(pol)
			var want []float64
			switch dir {
			case "coordinate":
				want = []float64{1, 0}
			case "random":
				rng := boxOpt(seed).Rand // the stream the policy draws from, afresh
				want = []float64{rng.NormFloat64() * 3, rng.NormFloat64() * 3}
			case "ascent":
				want = make([]float64, 2)
				for j := range want {
					h := 1e-4 * 3
					up, down := slices.Clone(xb), slices.Clone(xb)
					up[j] += h
					down[j] -= h
					var pr bandit.Prediction
					if err := pol.(bandit.Predictor).Predict(&pr, [][]float64{up, down}); err != nil {
						t.Fatal(err)
					}
					want[j] = (pr.F.Mean[0] - pr.F.Mean[1]) / (2 * h)
				}
			}
			if _, err := pol.Ask(); err != nil {
				t.Fatal(err)
			}
			pts := bandit.LinePoints(pol)
			if len(pts) < 2 {
				t.Fatalf("no line: %v", pts)
			}
			got := []float64{pts[len(pts)-1][0] - pts[0][0], pts[len(pts)-1][1] - pts[0][1]}
			cos := math.Abs(got[0]*want[0]+got[1]*want[1]) / math.Hypot(got[0], got[1]) / math.Hypot(want[0], want[1])
			if !(cos > 1-1e-9) {
				t.Errorf("the line runs along %v, want %v (|cos| = %v)", got, want, cos)
			}
			// And through x̂: the distance from x̂ to the line.
			u := []float64{got[0] / math.Hypot(got[0], got[1]), got[1] / math.Hypot(got[0], got[1])}
			dx, dy := xb[0]-pts[0][0], xb[1]-pts[0][1]
			if off := math.Abs(dx*u[1] - dy*u[0]); off > 1e-9 {
				t.Errorf("the line misses x̂ = %v by %v", xb, off)
			}
		})
	}
}

// ascentLine builds line-bo with direction ascent on [0, 1]^d, tells it
// the observations at xs of f, and returns the first line's unit
// direction and the best point x̂ it runs through.
func ascentLine(t *testing.T, d int, xs [][]float64, f func([]float64) float64) (u, xb []float64, pol bandit.Policy) {
	t.Helper()
	se := kernel.SE{Variance: 1, Lengthscale: 0.3}
	model := bandit.Model{Objective: se, Constraints: []kernel.Kernel{se}, NoiseStd: 0.01, Delta: 0.1, Beta: bandit.Beta{Value: 4}}
	box := bandit.Box{Bounds: make([][2]float64, d), Seeds: [][]float64{xs[0]}}
	for j := range box.Bounds {
		box.Bounds[j] = [2]float64{0, 1}
	}
	s := &bandit.Spec{Name: "line-bo", Direction: "ascent", SafeSet: "gp", Points: ptr(41), PerLine: ptr(3)}
	pol, err := bandit.Build(s, model, bandit.Domain{Box: &box}, boxOpt(5))
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range xs {
		if err := pol.Tell(0, bandit.Observation{F: f(x), G: []float64{1}, X: x, Index: -1}); err != nil {
			t.Fatal(err)
		}
	}
	xb, _, _ = bandit.Best(pol)
	if _, err := pol.Ask(); err != nil {
		t.Fatal(err)
	}
	pts := bandit.LinePoints(pol)
	u = make([]float64, d)
	for j := range u {
		u[j] = pts[len(pts)-1][j] - pts[0][j]
	}
	n := math.Sqrt(dot(u, u))
	for j := range u {
		u[j] /= n
	}
	return u, xb, pol
}

func dot(a, b []float64) (s float64) {
	for j := range a {
		s += a[j] * b[j]
	}
	return s
}

// TestAscentDirection is issue 27's check of the ascent rule (the LineBO
// code's trust-region gradient step, a posterior draw of ∇f at x̂):
//   - where the data pin the gradient down (a 7 × 7 grid around x̂ of a
//     linear f), the line runs along it: |cos| > 0.95 with the posterior
//     mean's gradient (0.978 measured; e1, the coordinate rule's first
//     line, has 0.854) — the random and coordinate rules fail this;
//   - where the data vary along x1 only (d = 6), the line leaves their
//     span: more than 0.3 of its unit direction lies outside x1 — the
//     posterior mean's gradient, the rule before, lies in x1 alone, and
//     the coordinate rule's first line is x1.
func TestAscentDirection(t *testing.T) {
	t.Parallel()
	lin := func(x []float64) float64 { return 0.8*x[0] - 0.5*x[1] }
	var grid [][]float64
	for i := range 7 {
		for k := range 7 {
			grid = append(grid, []float64{0.35 + 0.05*float64(i), 0.35 + 0.05*float64(k)})
		}
	}
	u, xb, pol := ascentLine(t, 2, grid, lin)
	var want [2]float64
	for j := range want {
		up, down := slices.Clone(xb), slices.Clone(xb)
		up[j] += 1e-4
		down[j] -= 1e-4
		var pr bandit.Prediction
		if err := pol.(bandit.Predictor).Predict(&pr, [][]float64{up, down}); err != nil {
			t.Fatal(err)
		}
		want[j] = (pr.F.Mean[0] - pr.F.Mean[1]) / 2e-4
	}
	if cos := math.Abs(u[0]*want[0]+u[1]*want[1]) / math.Hypot(want[0], want[1]); !(cos > 0.95) {
		t.Errorf("pinned-down gradient: the line runs along %v, the mean's gradient is %v (|cos| = %.4f)", u, want, cos)
	}

	var axis [][]float64
	for i := range 9 {
		x := []float64{0.1 + 0.1*float64(i), 0.5, 0.5, 0.5, 0.5, 0.5}
		axis = append(axis, x)
	}
	u, _, _ = ascentLine(t, 6, axis, func(x []float64) float64 { return x[0] })
	if off := math.Sqrt(1 - u[0]*u[0]); !(off > 0.3) {
		t.Errorf("data along x1 only: the line %v leaves x1 by %.3f, want > 0.3", u, off)
	}
}

// TestStepLimit: with max_step every ask — single or in a batch of 3,
// for every direction rule and for the safeopt and sgp-ucb inner
// algorithms — lies within the bounds of its line's anchor x̂, the best
// safe point when the line started (|x_j − x̂_j| ≤ max_step_j, to
// rounding); without the limit the same runs step further, so the test
// can fail.
func TestStepLimit(t *testing.T) {
	t.Parallel()
	step := []float64{0.15, 0.1}
	for _, inner := range []string{"safeopt", "sgp-ucb"} {
		for _, dir := range []string{"coordinate", "random", "ascent"} {
			t.Run(inner+"/"+dir, func(t *testing.T) {
				run := func(limit []float64) (worst float64) {
					s := &bandit.Spec{Name: "line-bo", Inner: inner, Direction: dir, SafeSet: "gp", Points: ptr(61), PerLine: ptr(6), MaxStep: limit}
					if inner == "sgp-ucb" {
						s.SafeSet, s.Exploration = "", bandit.Exploration{Fixed: ptr(2)}
					}
					box := testBox()
					pol, err := bandit.Build(s, boxModel(), bandit.Domain{Box: &box}, boxOpt(3))
					if err != nil {
						t.Fatal(err)
					}
					var anchor []float64
					var line [][]float64
					for range 15 {
						xb, _, _ := bandit.Best(pol)
						var asks []bandit.Ask
						for range 3 {
							a, ok, err := bandit.AskNew(pol)
							if err != nil {
								t.Fatal(err)
							}
							if !ok {
								break
							}
							if pts := bandit.LinePoints(pol); len(line) == 0 || !slices.Equal(pts[0], line[0]) {
								line, anchor = pts, xb
								// Cut, not squashed: every point on the line through x̂.
								u := []float64{pts[len(pts)-1][0] - pts[0][0], pts[len(pts)-1][1] - pts[0][1]}
								n := math.Hypot(u[0], u[1])
								for _, p := range pts {
									if off := math.Abs((p[0]-xb[0])*u[1]-(p[1]-xb[1])*u[0]) / n; off > 1e-9 {
										t.Fatalf("line point %v is %.3g off the line through x̂ = %v", p, off, xb)
									}
								}
							}
							asks = append(asks, a)
						}
						for _, a := range asks {
							for j := range a.X {
								worst = max(worst, math.Abs(a.X[j]-anchor[j])/step[j])
							}
							if err := pol.Tell(a.ID, bandit.Observation{F: boxF(a.X), G: []float64{boxG(a.X)}}); err != nil {
								t.Fatal(err)
							}
						}
					}
					return worst
				}
				w1, w2 := run(step), run(nil)
				t.Logf("worst step ratio with the limit %.3f, without %.3f", w1, w2)
				if w := w1; w > 1+1e-12 {
					t.Errorf("an ask moved %.4g × max_step from its line's anchor", w)
				}
				if w := w2; w <= 1 {
					t.Errorf("without max_step the asks stayed within it too (%.3g): the test proves nothing", w)
				}
			})
		}
	}
}

// TestStepLimitSwarm: safeopt-swarm honours max_step too: every ask lies
// within the bounds of the best safe point when it is asked; without the
// limit the same run steps further.
func TestStepLimitSwarm(t *testing.T) {
	t.Parallel()
	step := []float64{0.15, 0.1}
	run := func(limit []float64) (worst float64) {
		iters := 20
		s := &bandit.Spec{Name: "safeopt-swarm", Iterations: &iters, MaxStep: limit}
		box := testBox()
		pol, err := bandit.Build(s, boxModel(), bandit.Domain{Box: &box}, boxOpt(3))
		if err != nil {
			t.Fatal(err)
		}
		for range 20 {
			xb, _, _ := bandit.Best(pol)
			a, err := pol.Ask()
			if err != nil {
				t.Fatal(err)
			}
			for j := range a.X {
				worst = max(worst, math.Abs(a.X[j]-xb[j])/step[j])
			}
			if err := pol.Tell(a.ID, bandit.Observation{F: boxF(a.X), G: []float64{boxG(a.X)}}); err != nil {
				t.Fatal(err)
			}
		}
		return worst
	}
	w1, w2 := run(step), run(nil)
	t.Logf("worst step ratio with the limit %.3f, without %.3f", w1, w2)
	if w1 > 1+1e-12 {
		t.Errorf("an ask moved %.4g × max_step from the best safe point", w1)
	}
	if w2 <= 1 {
		t.Errorf("without max_step the asks stayed within it too (%.3g): the test proves nothing", w2)
	}
}

// lineAxis is the coordinate a 2-D line's points change along.
func lineAxis(pts [][]float64) int {
	if pts[0][0] != pts[len(pts)-1][0] {
		return 0
	}
	return 1
}

// TestKeepLine: a policy rebuilt from the observations (a study's refit
// or retraction) and given the old one with Carry goes on with the old
// line in progress — the same points, its evaluations counted towards
// per_line — and then numbers its lines on; without keep_line it starts
// over on the first coordinate's line, as every policy built anew does.
func TestKeepLine(t *testing.T) {
	t.Parallel()
	for _, keep := range []bool{true, false} {
		t.Run(fmt.Sprintf("keep_line=%v", keep), func(t *testing.T) {
			spec := func() *bandit.Spec {
				return &bandit.Spec{Name: "line-bo", Direction: "coordinate", SafeSet: "gp", Points: ptr(11), PerLine: ptr(4), Tolerance: ptr(0.0), KeepLine: keep}
			}
			build := func() bandit.Policy {
				pol, err := bandit.Build(spec(), boxModel(), bandit.Domain{Box: new(testBox())}, boxOpt(1))
				if err != nil {
					t.Fatal(err)
				}
				return pol
			}
			step := func(pol bandit.Policy) []float64 {
				a, err := pol.Ask()
				if err != nil {
					t.Fatal(err)
				}
				if err := pol.Tell(a.ID, bandit.Observation{F: boxF(a.X), G: []float64{boxG(a.X)}}); err != nil {
					t.Fatal(err)
				}
				return a.X
			}
			old := build()
			var xs [][]float64
			for range 6 { // line 1 along x1 (4 asks), line 2 along x2 (2 of 4)
				xs = append(xs, step(old))
			}
			oldLine := bandit.LinePoints(old)
			if oldLine == nil || lineAxis(oldLine) != 1 {
				t.Fatalf("after 6 asks the line in progress should move along x2: %v", oldLine)
			}
			pol := build()
			for _, x := range xs {
				if err := pol.Tell(0, bandit.Observation{F: boxF(x), G: []float64{boxG(x)}, X: x, Index: -1}); err != nil {
					t.Fatal(err)
				}
			}
			bandit.Carry(pol, old)
			if keep {
				// An ask rolled back (a failed write) leaves the line carried.
				m, err := bandit.MarkAsks(pol)
				if err != nil {
					t.Fatal(err)
				}
				first, err := pol.Ask()
				if err != nil {
					t.Fatal(err)
				}
				if err := bandit.Rollback(pol, m); err != nil {
					t.Fatal(err)
				}
				again, err := pol.Ask()
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(first.X, again.X) {
					t.Fatalf("rolled back, the ask is %v; before, %v", again.X, first.X)
				}
				if err := bandit.Rollback(pol, m); err != nil {
					t.Fatal(err)
				}
			}
			step(pol)
			line := bandit.LinePoints(pol)
			if !keep {
				if lineAxis(line) != 0 {
					t.Errorf("without keep_line the rebuilt policy's first line moves along x%d, want x1", lineAxis(line)+1)
				}
				return
			}
			if diff := cmp.Diff(oldLine, line); diff != "" {
				t.Fatalf("the rebuilt policy's line differs from the one in progress (-old +new):\n%s", diff)
			}
			step(pol) // the line's 4th evaluation: it ends
			if bandit.LinePoints(pol) != nil {
				t.Fatal("the carried line goes on after per_line = 4 evaluations in all")
			}
			step(pol)
			if l := bandit.LinePoints(pol); lineAxis(l) != 0 {
				t.Errorf("the line after the carried one moves along x%d, want x1 (line 3)", lineAxis(l)+1)
			}
		})
	}
	// A carried line whose anchor is no longer a safe point — the
	// observation it went through was retracted, so the rebuilt policy
	// was not told it — is dropped: a new line starts from the best point
	// left, numbered on.
	t.Run("anchor retracted", func(t *testing.T) {
		s := &bandit.Spec{Name: "line-bo", Direction: "coordinate", SafeSet: "gp", Points: ptr(11), PerLine: ptr(4), Tolerance: ptr(0.0), KeepLine: true}
		old, err := bandit.Build(s, boxModel(), bandit.Domain{Box: new(testBox())}, boxOpt(1))
		if err != nil {
			t.Fatal(err)
		}
		var xs [][]float64
		for range 4 { // line 1 ends; line 2 starts at the next ask
			a, err := old.Ask()
			if err != nil {
				t.Fatal(err)
			}
			xs = append(xs, a.X)
			if err := old.Tell(a.ID, bandit.Observation{F: boxF(a.X), G: []float64{boxG(a.X)}}); err != nil {
				t.Fatal(err)
			}
		}
		xb, _, _ := bandit.Best(old)
		if _, err := old.Ask(); err != nil { // line 2, anchored at x̂
			t.Fatal(err)
		}
		if !slices.ContainsFunc(xs, func(x []float64) bool { return slices.Equal(x, xb) }) {
			t.Fatalf("line 2's anchor %v is not an observation: nothing to retract", xb)
		}
		pol, err := bandit.Build(s, boxModel(), bandit.Domain{Box: new(testBox())}, boxOpt(1))
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range xs {
			if slices.Equal(x, xb) {
				continue // retracted
			}
			if err := pol.Tell(0, bandit.Observation{F: boxF(x), G: []float64{boxG(x)}, X: x, Index: -1}); err != nil {
				t.Fatal(err)
			}
		}
		bandit.Carry(pol, old)
		a, err := pol.Ask()
		if err != nil {
			t.Fatalf("the ask after the anchor's retraction: %v", err)
		}
		if pts := bandit.LinePoints(pol); slices.ContainsFunc(pts, func(p []float64) bool { return slices.Equal(p, xb) }) && lineAxis(pts) == 1 {
			t.Errorf("the new line %v still goes through the retracted anchor %v along x2 (ask %v)", pts, xb, a.X)
		}
	})
}
