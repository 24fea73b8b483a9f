package bandit_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/safegp/safegp/bandit"
)

// failSpecs are the finite-set policies a failed trial reaches: each
// family's safe set (D^s_t, S_t) and acquisitions (UCB, widths, EI);
// lipschitz mode, whose S_t stays at the seeds on this line, is in
// TestNoSafeAction.
var failSpecs = []bandit.Spec{
	{Name: "sgp-ucb", Phase1: "uniform", Exploration: bandit.Exploration{Fixed: ptr(2)}},
	{Name: "safeopt", SafeSet: "gp"},
	{Name: "stageopt", SafeSet: "gp", Exploration: bandit.Exploration{Fixed: ptr(4)}},
	{Name: "safeopt-mc", SafeSet: "gp", Exploration: bandit.Exploration{Fixed: ptr(3)}},
	{Name: bandit.ConstrainedEI},
	{Name: bandit.PoFEI},
}

// TestFailedNeverChosen: an ask told as failed (no values) or a point
// told with Exclude is never chosen again by any policy — on a finite
// set, on a box (line-bo's lines and clouds) — and the failure is a round.
func TestFailedNeverChosen(t *testing.T) {
	t.Parallel()
	for _, s := range failSpecs {
		t.Run(s.DisplayLabel(), func(t *testing.T) {
			e := line(40)
			e.model.Beta = bandit.Beta{Value: 2} // a safe set that grows within the rounds
			pol := build(t, e, s)
			var out []int
			for round := range 30 {
				a, err := pol.Ask()
				if err != nil {
					t.Fatalf("round %d: %v", round, err)
				}
				if slices.Contains(out, a.Index) {
					t.Fatalf("round %d: action %d, excluded before, chosen again", round, a.Index)
				}
				o := bandit.Observation{F: fval(a.X), G: []float64{gval(a.X)}}
				switch {
				case round == 11 || round == 19:
					o = bandit.Observation{Failed: true}
					out = append(out, a.Index)
				case round == 15:
					o.Exclude = true
					out = append(out, a.Index)
				}
				if err := pol.Tell(a.ID, o); err != nil {
					t.Fatalf("round %d: %v", round, err)
				}
			}
			if got := inspect(pol).Round; got != 31 {
				t.Errorf("round %d after 30 tells, failures among them, want 31", got)
			}
			// A seed failed outside the loop leaves the safe set too.
			if err := pol.Tell(0, bandit.Observation{Failed: true, Index: 9}); err != nil {
				t.Fatal(err)
			}
			if snap := inspect(pol); snap.Safe[9] {
				t.Errorf("seed 9 failed, still in the safe set")
			}
		})
	}
	for _, dir := range []string{"cloud", "coordinate"} {
		t.Run("line-bo "+dir, func(t *testing.T) {
			pol, err := bandit.Build(&bandit.Spec{Name: bandit.LineBO, Direction: dir}, boxModel(), bandit.Domain{Box: new(testBox())}, boxOpt(3))
			if err != nil {
				t.Fatal(err)
			}
			var out [][]float64
			for round := range 30 {
				a, err := pol.Ask()
				if err != nil {
					t.Fatalf("round %d: %v", round, err)
				}
				if slices.ContainsFunc(out, func(x []float64) bool { return slices.Equal(x, a.X) }) {
					t.Fatalf("round %d: %v, failed before, asked again", round, a.X)
				}
				o := bandit.Observation{F: -a.X[0]*a.X[0] - a.X[1]*a.X[1], G: []float64{1 - a.X[0]}}
				if round > 4 && round%3 == 1 {
					o = bandit.Observation{Failed: true}
					out = append(out, slices.Clone(a.X))
				}
				if err := pol.Tell(a.ID, o); err != nil {
					t.Fatalf("round %d: %v", round, err)
				}
			}
		})
	}
}

// TestNoSafeAction: with every seed excluded and nothing certified, a
// policy asks nothing (ErrNoSafeAction) rather than a seed again.
func TestNoSafeAction(t *testing.T) {
	t.Parallel()
	for _, s := range append(failSpecs[:1:1], bandit.Spec{Name: "safeopt", SafeSet: "lipschitz", Lipschitz: &bandit.Lipschitz{Value: 2}}) {
		t.Run(s.DisplayLabel(), func(t *testing.T) {
			e := line(20)
			pol := build(t, e, s)
			for _, i := range e.set.Seed {
				// Far past the limit: nothing is certified from them.
				if err := pol.Tell(0, bandit.Observation{F: 0, G: []float64{-5}, Index: i, Exclude: true}); err != nil {
					t.Fatal(err)
				}
			}
			if a, err := pol.Ask(); !errors.Is(err, bandit.ErrNoSafeAction) {
				t.Fatalf("ask with every seed excluded: %+v, %v; want ErrNoSafeAction", a, err)
			}
		})
	}
	t.Run("line-bo", func(t *testing.T) {
		pol, err := bandit.Build(&bandit.Spec{Name: bandit.LineBO}, boxModel(), bandit.Domain{Box: new(testBox())}, boxOpt(3))
		if err != nil {
			t.Fatal(err)
		}
		if err := pol.Tell(0, bandit.Observation{Failed: true, X: testBox().Seeds[0], Index: -1}); err != nil {
			t.Fatal(err)
		}
		if a, err := pol.Ask(); !errors.Is(err, bandit.ErrNoSafeAction) {
			t.Fatalf("ask with the only seed failed: %+v, %v; want ErrNoSafeAction", a, err)
		}
	})
}
