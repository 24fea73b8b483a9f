package bandit_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/safegp/safegp/bandit"
	"github.com/safegp/safegp/kernel"
)

// ucbLine is the problem of TestObjectiveBeta and TestRepeatsExplore:
// 41 actions on [0, 1], the seed at 0.5, f peaked at 0.45 and g ≥ 0
// within 0.6 of 0.5, both on an SE kernel of lengthscale 0.15.
func ucbLine() (xs [][]float64, se kernel.SE, set bandit.DecisionSet, f, g func(x float64) float64) {
	for i := range 41 {
		xs = append(xs, []float64{float64(i) / 40})
	}
	se = kernel.SE{Variance: 1, Lengthscale: 0.15}
	set = bandit.DecisionSet{X: xs, Seed: []int{20}}
	f = func(x float64) float64 { return -4 * (x - 0.45) * (x - 0.45) }
	g = func(x float64) float64 { return 0.6 - math.Abs(x-0.5) }
	return xs, se, set, f, g
}

// TestObjectiveBeta: model.objective_beta (issue 42) changes only the
// upper bound of f that GP-UCB maximizes (paper eq. 9): with the same
// data the safe set D^s_t is the same, flag for flag, as with Beta
// alone, and the ask is argmax over it of μ_f + √β_f·σ_f, recomputed
// here from the snapshot. The data are chosen so that the two β ask
// different actions, or the test would prove nothing.
func TestObjectiveBeta(t *testing.T) {
	t.Parallel()
	xs, se, set, f, g := ucbLine()
	ask := func(ob *bandit.Beta) (int, bandit.Snapshot) {
		model := bandit.Model{Objective: se, Constraints: []kernel.Kernel{se}, NoiseStd: 0.05, Delta: 0.1, Beta: bandit.Beta{Value: 9}, ObjectiveBeta: ob}
		pol, err := bandit.Build(&bandit.Spec{Name: bandit.SGPUCB, Exploration: bandit.Exploration{Fixed: ptr(0)}}, model, bandit.Domain{Set: set},
			bandit.Options{Thresholds: []float64{0}, Horizon: 30, Rand: rand.New(rand.NewPCG(1, 2))})
		if err != nil {
			t.Fatal(err)
		}
		for _, i := range []int{16, 18, 20, 22, 24} {
			if err := pol.Tell(0, bandit.Observation{Index: i, F: f(xs[i][0]), G: []float64{g(xs[i][0])}}); err != nil {
				t.Fatal(err)
			}
		}
		var snap bandit.Snapshot
		pol.Inspect(&snap, bandit.Full)
		a, err := pol.Ask()
		if err != nil {
			t.Fatal(err)
		}
		return a.Index, snap
	}
	iPaper, sPaper := ask(nil)
	small := bandit.Beta{Value: 0.01}
	iSmall, sSmall := ask(&small)
	if d := cmp.Diff(sPaper.Safe, sSmall.Safe); d != "" {
		t.Errorf("objective_beta changed the safe set (-beta alone +objective_beta):\n%s", d)
	}
	for _, c := range []struct {
		i   int
		sqb float64
	}{{iPaper, 3}, {iSmall, 0.1}} {
		best, bu := -1, math.Inf(-1)
		for k, in := range sSmall.Safe {
			if u := sSmall.F.Mean[k] + c.sqb*sSmall.F.Std[k]; in && u > bu {
				best, bu = k, u
			}
		}
		if c.i != best {
			t.Errorf("√β_f = %v: asked action %d, argmax over D^s_t of μ + √β_f·σ is %d", c.sqb, c.i, best)
		}
	}
	if iPaper == iSmall {
		t.Fatalf("both β ask action %d: the test proves nothing", iPaper)
	}
}

// TestObjectiveBetaRefused: an algorithm that does not choose by f's
// upper bound would ignore objective_beta, so Build refuses it there,
// and takes it where the acting algorithm is of the GP-UCB family.
func TestObjectiveBetaRefused(t *testing.T) {
	t.Parallel()
	se := kernel.SE{Variance: 1, Lengthscale: 0.3}
	ob := bandit.Beta{Value: 1}
	model := bandit.Model{Objective: se, Constraints: []kernel.Kernel{se}, NoiseStd: 0.05, Delta: 0.1, Beta: bandit.Beta{Value: 4}, ObjectiveBeta: &ob}
	set := bandit.DecisionSet{X: [][]float64{{0}, {0.5}, {1}}, Seed: []int{0}}
	box := testBox()
	for _, c := range []struct {
		spec    bandit.Spec
		refused bool
	}{
		{bandit.Spec{Name: bandit.SafeOpt, SafeSet: "gp"}, true},
		{bandit.Spec{Name: bandit.ConstrainedEI}, true},
		{bandit.Spec{Name: bandit.LineBO, Inner: bandit.SafeOpt, SafeSet: "gp"}, true},
		{bandit.Spec{Name: bandit.SGPUCB, Exploration: bandit.Exploration{Fixed: ptr(1)}}, false},
		{bandit.Spec{Name: bandit.GPUCB}, false},
		{bandit.Spec{Name: bandit.LineBO}, false},
	} {
		d := bandit.Domain{Set: set}
		if c.spec.Name == bandit.LineBO {
			d = bandit.Domain{Box: &box}
		}
		_, err := bandit.Build(&c.spec, model, d, bandit.Options{Thresholds: []float64{0}, Horizon: 10, Rand: rand.New(rand.NewPCG(1, 2))})
		if refused := errors.Is(err, bandit.ErrConfig) && strings.Contains(err.Error(), "objective_beta"); refused != c.refused || (!c.refused && err != nil) {
			t.Errorf("%s (inner %q): %v; want refused %v", c.spec.Name, c.spec.Inner, err, c.refused)
		}
	}
}
