package bandit_test

import (
	"errors"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/safegp/safegp/bandit"
	"github.com/safegp/safegp/kernel"
)

// toyLattice is a float (coordinate 0), an int of 5 values on [0, 1]
// (coordinate 1) and a choice of 2 one-hot (coordinates 2 and 3).
type toyLattice struct{}

func (toyLattice) Snap(x []float64) {
	x[1] = float64(int(x[1]*4+0.5)) / 4
	if x[3] > x[2] {
		x[2], x[3] = 0, 1
	} else {
		x[2], x[3] = 1, 0
	}
}

func (toyLattice) Block(j int) []int {
	if j >= 2 {
		return []int{2, 3}
	}
	return nil
}

func onLattice(x []float64) bool {
	y := slices.Clone(x)
	toyLattice{}.Snap(y)
	return slices.Equal(x, y)
}

// latticeF is best at x0 = 0.8, the int at 0.75 and the choice's second
// value; latticeG keeps the int below 1 and x0 below 0.95.
func latticeF(x []float64) float64 {
	return -(x[0]-0.8)*(x[0]-0.8) - (x[1]-0.75)*(x[1]-0.75) + 0.3*x[3]
}
func latticeG(x []float64) float64 { return 0.9 - x[0]*x[0] - 0.2*x[1]*x[1] }

// TestLineBOOnALattice: with a lattice, line-bo's lines hold only its
// points, every ask is one, nothing asked breaks the limit, the int
// leaves its seed's value (a kernel long enough to vouch for its steps),
// both values of the choice, each with a seed, are asked, and under the
// coordinate rule a line along the choice holds both its values; a cloud
// likewise holds only the lattice's points.
func TestLineBOOnALattice(t *testing.T) {
	t.Parallel()
	se := kernel.SE{Variance: 1, Lengthscale: 1.5}
	model := bandit.Model{Objective: se, Constraints: []kernel.Kernel{se}, NoiseStd: 0.02, Delta: 0.1, Beta: bandit.Beta{Value: 4}}
	for _, dir := range []string{"coordinate", "random", "cloud"} {
		box := bandit.Box{Bounds: [][2]float64{{0, 1}, {0, 1}, {0, 1}, {0, 1}}, Seeds: [][]float64{{0.2, 0.25, 1, 0}, {0.2, 0.25, 0, 1}}, Lattice: toyLattice{}}
		s := &bandit.Spec{Name: bandit.LineBO, Direction: dir, Points: ptr(41), PerLine: ptr(3), MaxStep: []float64{0.3, 0.3, 1, 1}, SeedsFirst: true}
		pol, err := bandit.Build(s, model, bandit.Domain{Box: &box}, bandit.Options{Thresholds: []float64{0}, Horizon: 60, Rand: rand.New(rand.NewPCG(1, 2))})
		if err != nil {
			t.Fatal(err)
		}
		ints, choices := map[float64]bool{}, map[float64]bool{}
		choiceLine := false
		for round := range 60 {
			a, err := pol.Ask()
			if err != nil {
				t.Fatal(err)
			}
			values := map[float64]bool{}
			for _, p := range bandit.LinePoints(pol) {
				if !onLattice(p) {
					t.Fatalf("%s, round %d: line point %v is not on the lattice", dir, round+1, p)
				}
				values[p[3]] = true
			}
			choiceLine = choiceLine || len(values) == 2
			if !onLattice(a.X) {
				t.Fatalf("%s, round %d: ask %v is not on the lattice", dir, round+1, a.X)
			}
			if g := latticeG(a.X); g < 0 {
				t.Fatalf("%s, round %d: ask %v breaks the limit: g = %v", dir, round+1, a.X, g)
			}
			ints[a.X[1]], choices[a.X[3]] = true, true
			if err := pol.Tell(a.ID, bandit.Observation{F: latticeF(a.X), G: []float64{latticeG(a.X)}}); err != nil {
				t.Fatal(err)
			}
		}
		if len(ints) < 2 || len(choices) < 2 {
			t.Errorf("%s: the int took %v and the choice %v in 60 rounds: want the int to leave its seed's value and both choices asked", dir, slices.Sorted(maps.Keys(ints)), slices.Sorted(maps.Keys(choices)))
		}
		if dir == "coordinate" && !choiceLine {
			t.Error("coordinate: no line held both values of the choice")
		}
	}
}

// TestLatticeRefusals: a seed off the lattice is refused, and so is a
// lattice for the swarm, which would fly past it.
func TestLatticeRefusals(t *testing.T) {
	t.Parallel()
	opt := bandit.Options{Thresholds: []float64{0}, Horizon: 10, Rand: rand.New(rand.NewPCG(1, 2))}
	for _, c := range []struct {
		name string
		spec bandit.Spec
		seed []float64
	}{
		{"a seed between integers", bandit.Spec{Name: bandit.LineBO}, []float64{0.2, 0.3, 1, 0}},
		{"a seed's choice not one-hot", bandit.Spec{Name: bandit.LineBO}, []float64{0.2, 0.25, 0.5, 0.5}},
		{"the swarm", bandit.Spec{Name: bandit.SafeOptSwarm}, []float64{0.2, 0.25, 1, 0}},
	} {
		box := bandit.Box{Bounds: [][2]float64{{0, 1}, {0, 1}, {0, 1}, {0, 1}}, Seeds: [][]float64{c.seed}, Lattice: toyLattice{}}
		if _, err := bandit.Build(&c.spec, boxModel(), bandit.Domain{Box: &box}, opt); !errors.Is(err, bandit.ErrConfig) {
			t.Errorf("%s: %v, want ErrConfig", c.name, err)
		}
	}
}
