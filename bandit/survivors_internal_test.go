package bandit

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/safegp/safegp/kernel"
)

// TestSwarmModelSafeByLowerBound: SafeOptSwarm's model-safe test is the
// lower confidence bound μ − √β·σ ≥ fmin (SafeOpt's, SPEC §4). A point
// whose upper bound clears the threshold and whose lower bound does not
// is unsafe; the mutant that tested the upper bound called it safe, and
// no test saw it (issue 41, item 4).
func TestSwarmModelSafeByLowerBound(t *testing.T) {
	t.Parallel()
	w := &safeOptSwarm{fmin: []float64{math.Inf(-1), 0}}
	post := []Posterior{
		{Mean: []float64{5, 5, 5}, Std: []float64{1, 1, 1}}, // f: no threshold
		{Mean: []float64{1, 1, -0.1}, Std: []float64{0.8, 0.4, 0.01}},
	}
	const b = 2                                       // √β
	for p, want := range []bool{false, true, false} { // ℓ = −0.6, 0.2, −0.12
		if got := w.modelSafe(post, p, b); got != want {
			t.Errorf("point %d: μ = %v, σ = %v, √β = %v: safe %v, want %v (ℓ = %.2f)", p, post[1].Mean[p], post[1].Std[p], b, got, want, post[1].Mean[p]-b*post[1].Std[p])
		}
	}
	nan := []Posterior{{Mean: []float64{0}, Std: []float64{0}}, {Mean: []float64{math.NaN()}, Std: []float64{0}}}
	if w.modelSafe(nan, 0, b) {
		t.Error("a NaN bound is safe")
	}
}

// TestAscentStallTakesRandomDirection: when the previous line did not
// move x̂, ascent takes a random direction instead of its gradient's, as
// LineBO's code does (issue 27); the mutant without the fallback took the
// mean's gradient again, the same line, and no test saw it (issue 41,
// item 4). With the mean rule the gradient's direction is deterministic:
// asked twice from a new x̂ it is the same, from the x̂ of the line before
// it is another.
func TestAscentStallTakesRandomDirection(t *testing.T) {
	t.Parallel()
	se := kernel.SE{Variance: 1, Lengthscale: 0.7}
	model := Model{Objective: se, Constraints: []kernel.Kernel{se}, NoiseStd: 0.05, Delta: 0.1, Beta: Beta{Value: 4}}
	box := Box{Bounds: [][2]float64{{-1, 2}, {-1, 2}}, Seeds: [][]float64{{0.2, 0.3}}}
	opt := Options{Thresholds: []float64{0}, Horizon: 60, Rand: rand.New(rand.NewPCG(3, 7))}
	pol, err := Build(&Spec{Name: LineBO, Direction: "ascent", AscentRule: "mean"}, model, Domain{Box: &box}, opt)
	if err != nil {
		t.Fatal(err)
	}
	for range 8 { // data for a gradient
		a, ok, err := AskNew(pol)
		if err != nil || !ok {
			t.Fatal(err, ok)
		}
		x := a.X
		if err := pol.Tell(a.ID, Observation{F: -(x[0]-1)*(x[0]-1) - (x[1]-0.5)*(x[1]-0.5), G: []float64{1.2 - x[0]*x[0] - x[1]*x[1]}}); err != nil {
			t.Fatal(err)
		}
	}
	b, ok := pol.(*lineBO)
	if !ok {
		t.Fatalf("line-bo builds a %T", pol)
	}
	xb, _, _ := Best(pol)
	b.prevBest = []float64{xb[0] + 0.5, xb[1]} // the line before started elsewhere
	first := b.direction(xb)
	if again := b.direction(xb); !slices.Equal(first, again) {
		t.Fatalf("the mean's gradient is not deterministic: %v, then %v", first, again)
	}
	b.prevBest = slices.Clone(xb) // the line before did not move x̂
	if stalled := b.direction(xb); slices.Equal(stalled, first) {
		t.Errorf("after a line that did not move x̂ the direction is the gradient's again, %v: want a random one", stalled)
	}
}

// TestEIIncumbentIsFeasible: constrained EI's incumbent f⁺ is the best f
// among the measurements whose every condition held (Gardner et al.); an
// infeasible measurement with a larger f does not raise it. The mutant
// that counted every measurement survived (issue 41, item 4).
func TestEIIncumbentIsFeasible(t *testing.T) {
	t.Parallel()
	x := [][]float64{{0}, {0.25}, {0.5}, {0.75}, {1}}
	se := kernel.SE{Variance: 1, Lengthscale: 0.3}
	for _, name := range []string{ConstrainedEI, PoFEI} {
		pol, err := Build(&Spec{Name: name},
			Model{Objective: se, Constraints: []kernel.Kernel{se}, NoiseStd: 0.05, Delta: 0.1, Beta: Beta{Value: 4}},
			Domain{Set: DecisionSet{X: x, Seed: []int{0}}}, Options{Thresholds: []float64{0}, Horizon: 20})
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range []Observation{
			{Index: 0, F: 1, G: []float64{0.5}},   // feasible: f⁺ = 1
			{Index: 4, F: 10, G: []float64{-1}},   // infeasible: not the incumbent
			{Index: 2, F: 0.5, G: []float64{0.2}}, // feasible, below
		} {
			if err := pol.Tell(0, o); err != nil {
				t.Fatal(err)
			}
		}
		e, ok := pol.(*loop).rule.(*ei)
		if !ok {
			t.Fatalf("%s builds a %T", name, pol.(*loop).rule)
		}
		e.prepare()
		if e.best != 1 {
			t.Errorf("%s: incumbent f⁺ = %v, want 1, the best feasible f (an infeasible 10 was told)", name, e.best)
		}
	}
}
