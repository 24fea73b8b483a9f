package bandit_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/safegp/safegp/bandit"
)

// TestBoxSpecCheck: the options of the box algorithms (safeopt-swarm,
// line-bo and its inner algorithm) and of losbo are refused one by one
// by Check, with ErrConfig, the key at fault first and the reason in the
// message (spec.go checkMaxStep, checkSwarm, checkLine; losbo.go
// checkLoSBO).
func TestBoxSpecCheck(t *testing.T) {
	t.Parallel()
	gp := func(s bandit.Spec) bandit.Spec { s.SafeSet = "gp"; return s }
	for _, c := range []struct {
		name string
		spec bandit.Spec
		key  string
		want string
	}{
		{"swarm max_step empty", bandit.Spec{Name: "safeopt-swarm", MaxStep: []float64{}}, "max_step", "empty"},
		{"swarm max_step zero", bandit.Spec{Name: "safeopt-swarm", MaxStep: []float64{1, 0}}, "max_step", "coordinate 2: want a number > 0, got 0"},
		{"swarm max_step nan", bandit.Spec{Name: "safeopt-swarm", MaxStep: []float64{math.NaN()}}, "max_step", "coordinate 1"},
		{"swarm max_step huge", bandit.Spec{Name: "safeopt-swarm", MaxStep: []float64{1e101}}, "max_step", "coordinate 1"},
		{"swarm size small", bandit.Spec{Name: "safeopt-swarm", SwarmSize: ptr(3)}, "swarm_size", "4…1000, got 3"},
		{"swarm size large", bandit.Spec{Name: "safeopt-swarm", SwarmSize: ptr(1001)}, "swarm_size", "got 1001"},
		{"swarm iterations zero", bandit.Spec{Name: "safeopt-swarm", Iterations: ptr(0)}, "iterations", "1…10000, got 0"},
		{"swarm iterations large", bandit.Spec{Name: "safeopt-swarm", Iterations: ptr(10001)}, "iterations", "got 10001"},
		{"line max_step", gp(bandit.Spec{Name: "line-bo", MaxStep: []float64{-1}}), "max_step", "coordinate 1"},
		{"line unknown inner", gp(bandit.Spec{Name: "line-bo", Inner: "bogus"}), "inner", `"bogus" is not an algorithm line-bo runs on a line`},
		{"line ascent rule", gp(bandit.Spec{Name: "line-bo", Direction: "ascent", AscentRule: "steepest"}), "ascent_rule", `unknown rule "steepest"`},
		{"line ascent rule off ascent", gp(bandit.Spec{Name: "line-bo", Direction: "random", AscentRule: "mean"}), "ascent_rule", "only with direction: ascent"},
		{"line inner losbo auto", bandit.Spec{Name: "line-bo", Inner: "losbo", Lipschitz: &bandit.Lipschitz{Auto: true}, NoiseBound: ptr(0.1)}, "lipschitz", "inner losbo needs lipschitz: <number>"},
		{"losbo without lipschitz", bandit.Spec{Name: "losbo", NoiseBound: ptr(0.1)}, "lipschitz", "missing"},
		{"losbo without noise bound", bandit.Spec{Name: "losbo", Lipschitz: &bandit.Lipschitz{Value: 1}}, "noise_bound", "missing"},
		{"losbo negative noise bound", bandit.Spec{Name: "losbo", Lipschitz: &bandit.Lipschitz{Value: 1}, NoiseBound: ptr(-0.1)}, "noise_bound", "got -0.1"},
		{"losbo infinite noise bound", bandit.Spec{Name: "losbo", Lipschitz: &bandit.Lipschitz{Value: 1}, NoiseBound: ptr(math.Inf(1))}, "noise_bound", "got +Inf"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			err := c.spec.Check(10)
			if !errors.Is(err, bandit.ErrConfig) || !strings.HasPrefix(err.Error(), c.key+": ") || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want ErrConfig starting %q and containing %q", err, c.key+": ", c.want)
			}
		})
	}
	// The same keys at their limits pass.
	for _, s := range []bandit.Spec{
		{Name: "safeopt-swarm", MaxStep: []float64{1e100, 1e-300}, SwarmSize: ptr(4), Iterations: ptr(10000)},
		{Name: "safeopt-swarm", SwarmSize: ptr(1000), Iterations: ptr(1)},
		gp(bandit.Spec{Name: "line-bo", Direction: "ascent", AscentRule: "mean", MaxStep: []float64{0.5}}),
		{Name: "losbo", Lipschitz: &bandit.Lipschitz{Value: 1}, NoiseBound: ptr(0.0)},
	} {
		if err := s.Check(10); err != nil {
			t.Errorf("%+v: %v", s, err)
		}
	}
}

// TestBoxBuildErrors: what Build refuses beyond Check on a box domain,
// for safeopt-swarm and line-bo, and for losbo on a finite set: each one
// ErrConfig with its reason, and no policy.
func TestBoxBuildErrors(t *testing.T) {
	t.Parallel()
	set := bandit.Domain{Set: bandit.DecisionSet{X: [][]float64{{0}, {0.5}, {1}}, Seed: []int{0}}}
	losbo := bandit.Spec{Name: "losbo", Lipschitz: &bandit.Lipschitz{Value: 1}, NoiseBound: ptr(0.1)}
	for _, c := range []struct {
		name string
		spec bandit.Spec
		d    bandit.Domain
		opt  func(*bandit.Options)
		want string
	}{
		{"swarm without stream", bandit.Spec{Name: "safeopt-swarm"}, bandit.Domain{Box: new(testBox())}, func(o *bandit.Options) { o.Rand = nil }, "needs a random stream"},
		{"swarm max_step per coordinate", bandit.Spec{Name: "safeopt-swarm", MaxStep: []float64{0.1}}, bandit.Domain{Box: new(testBox())}, nil, "max_step: 1 bounds for a 2-D box"},
		{"swarm bad box", bandit.Spec{Name: "safeopt-swarm"}, bandit.Domain{Box: &bandit.Box{Seeds: [][]float64{{0}}}}, nil, "no bounds"},
		{"swarm thresholds", bandit.Spec{Name: "safeopt-swarm"}, bandit.Domain{Box: new(testBox())}, func(o *bandit.Options) { o.Thresholds = nil }, "threshold"},
		{"line max_step per coordinate", bandit.Spec{Name: "line-bo", SafeSet: "gp", MaxStep: []float64{0.1, 0.1, 0.1}}, bandit.Domain{Box: new(testBox())}, nil, "max_step: 3 bounds for a 2-D box"},
		{"box with contexts", bandit.Spec{Name: "line-bo", SafeSet: "gp"}, bandit.Domain{Box: new(testBox()), ContextDim: 1}, nil, "no contextual form"},
		{"box and set", bandit.Spec{Name: "line-bo", SafeSet: "gp"}, bandit.Domain{Box: new(testBox()), Set: set.Set}, nil, "not both"},
		{"box and truth", bandit.Spec{Name: "line-bo", SafeSet: "gp"}, bandit.Domain{Box: new(testBox()), Truth: &bandit.Truth{}}, nil, "not both"},
		{"context truth alone", bandit.Spec{Name: "safeopt", SafeSet: "gp"}, bandit.Domain{Set: set.Set, ContextTruth: func([]float64) *bandit.Truth { return nil }}, nil, "context truth without contexts"},
		{"losbo", losbo, set, func(o *bandit.Options) { o.Thresholds = []float64{0, 0} }, "threshold"},
		{"losbo auto without truth", bandit.Spec{Name: "losbo", Lipschitz: &bandit.Lipschitz{Auto: true}, NoiseBound: ptr(0.1)}, set, nil, "auto needs the true constraints"},
		{"losbo constants per condition", bandit.Spec{Name: "losbo", Lipschitz: &bandit.Lipschitz{Values: []float64{1, 2}}, NoiseBound: ptr(0.1)}, set, nil, "2 constants for 1 safety condition"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			opt := boxOpt(1)
			model := boxModel()
			if c.opt != nil {
				c.opt(&opt)
			}
			pol, err := bandit.Build(&c.spec, model, c.d, opt)
			if !errors.Is(err, bandit.ErrConfig) || !strings.Contains(err.Error(), c.want) || pol != nil {
				t.Errorf("got %T, %v; want no policy and ErrConfig containing %q", pol, err, c.want)
			}
		})
	}
}

// TestSwarmBadTell: tells safeopt-swarm cannot take are errors that leave
// its pending ask in place, as line-bo's (TestBoxBadTell); a measurement
// made outside the loop (id 0, its point in o.X) is taken.
func TestSwarmBadTell(t *testing.T) {
	t.Parallel()
	pol, err := bandit.Build(&bandit.Spec{Name: "safeopt-swarm", Iterations: ptr(5)}, boxModel(), bandit.Domain{Box: new(testBox())}, boxOpt(1))
	if err != nil {
		t.Fatal(err)
	}
	a0, err := pol.Ask()
	if err != nil {
		t.Fatal(err)
	}
	if a, _ := pol.Ask(); a.ID != a0.ID {
		t.Fatalf("a second ask while one is pending is %d, want the pending %d", a.ID, a0.ID)
	}
	if _, ok, err := bandit.AskNew(pol); ok || err != nil {
		t.Errorf("AskNew with an ask pending: ok %v, %v; want false, nil", ok, err)
	}
	if p := bandit.Pending(pol); len(p) != 1 || p[0].ID != a0.ID {
		t.Errorf("pending: %+v; want ask %d", p, a0.ID)
	}
	for _, c := range []struct {
		id   int
		o    bandit.Observation
		want error
		msg  string
	}{
		{-1, bandit.Observation{F: 1, G: []float64{1}}, bandit.ErrUnknownAsk, "never handed out"},
		{a0.ID + 1, bandit.Observation{F: 1, G: []float64{1}}, bandit.ErrUnknownAsk, "never handed out"},
		{0, bandit.Observation{F: 1, G: []float64{1}, Index: -1}, nil, "needs its point"},
		{0, bandit.Observation{F: 1, G: []float64{1}, X: []float64{5, 0}, Index: -1}, nil, "outside the box"},
		{0, bandit.Observation{F: 1, G: []float64{}, X: []float64{0, 0}, Index: -1}, nil, "constraint values"},
		{a0.ID, bandit.Observation{F: math.NaN(), G: []float64{1}}, nil, "ask 1: "},
	} {
		err := pol.Tell(c.id, c.o)
		if err == nil || !strings.Contains(err.Error(), c.msg) || (c.want != nil && !errors.Is(err, c.want)) {
			t.Errorf("tell %d %+v: %v, want an error containing %q", c.id, c.o, err, c.msg)
		}
	}
	if a, _ := pol.Ask(); a.ID != a0.ID {
		t.Errorf("after bad tells the pending ask is %d, was %d", a.ID, a0.ID)
	}
	if err := pol.Tell(0, bandit.Observation{F: boxF([]float64{0.1, 0.1}), G: []float64{boxG([]float64{0.1, 0.1})}, X: []float64{0.1, 0.1}, Index: -1}); err != nil {
		t.Fatalf("a measurement outside the loop: %v", err)
	}
	if err := pol.Tell(a0.ID, bandit.Observation{F: boxF(a0.X), G: []float64{boxG(a0.X)}}); err != nil {
		t.Fatal(err)
	}
	if err := pol.Tell(a0.ID, bandit.Observation{F: 1, G: []float64{1}}); !errors.Is(err, bandit.ErrUnknownAsk) || !strings.Contains(err.Error(), "told already") {
		t.Errorf("telling ask %d twice: %v", a0.ID, err)
	}
	if p := bandit.Pending(pol); len(p) != 0 {
		t.Errorf("pending after the tell: %+v", p)
	}
	var snap bandit.Snapshot
	pol.Inspect(&snap, 0)
	if snap.Round != 3 {
		t.Errorf("round after two measurements: %d, want 3", snap.Round)
	}
}
