package bandit_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/safegp/safegp/bandit"
	"github.com/safegp/safegp/kernel"
)

// BenchmarkLineBOAsk is the performance case: d = 10, t = 400
// observations, one constraint, inner safeopt (gp mode), 300 points, 20
// evaluations per line (on a cloud, its default of 5 evaluations a
// cloud: the op's 20 asks are 4 clouds). One op is a whole line — its start (the best safe
// point, New on the line's grid and 400 tells) and its 20 asks and tells
// — so ns/op ÷ 20 is the amortized time of one ask; the sub-benchmark
// start times a line's first ask alone (its start plus one choice).
func BenchmarkLineBOAsk(b *testing.B) {
	for _, c := range []struct {
		d   int
		dir string
	}{{10, "coordinate"}, {40, "coordinate"}, {40, "ascent"}, {10, "cloud"}, {40, "cloud"}} {
		b.Run(fmt.Sprintf("d=%d/%s", c.d, c.dir), func(b *testing.B) { benchLineBO(b, c.d, c.dir) })
	}
}

func benchLineBO(b *testing.B, d int, dir string) {
	const t0 = 400
	se := kernel.SE{Variance: 1, Lengthscale: 1.5}
	model := bandit.Model{Objective: se, Constraints: []kernel.Kernel{se}, NoiseStd: 0.1, Delta: 0.1, Beta: bandit.Beta{Value: 4}}
	box := bandit.Box{Seeds: [][]float64{make([]float64, d)}}
	for range d {
		box.Bounds = append(box.Bounds, [2]float64{-1, 1})
	}
	f := func(x []float64) (float64, float64) {
		var s float64
		for _, v := range x {
			s += v * v
		}
		return 1 - s, 2 - s
	}
	build := func(b *testing.B) bandit.Policy {
		b.Helper()
		s := &bandit.Spec{Name: "line-bo", SafeSet: "gp", Tolerance: ptr(0.0), Direction: dir}
		pol, err := bandit.Build(s, model, bandit.Domain{Box: new(box)}, bandit.Options{Thresholds: []float64{0}, Horizon: 1000, Rand: rand.New(rand.NewPCG(1, 2))})
		if err != nil {
			b.Fatal(err)
		}
		r := rand.New(rand.NewPCG(3, 4))
		for range t0 {
			x := make([]float64, d)
			for j := range x {
				x[j] = 0.6 * (2*r.Float64() - 1)
			}
			y, z := f(x)
			if err := pol.Tell(0, bandit.Observation{F: y, G: []float64{z}, X: x, Index: -1}); err != nil {
				b.Fatal(err)
			}
		}
		return pol
	}
	step := func(b *testing.B, pol bandit.Policy) {
		a, err := pol.Ask()
		if err != nil {
			b.Fatal(err)
		}
		y, z := f(a.X)
		if err := pol.Tell(a.ID, bandit.Observation{F: y, G: []float64{z}}); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("line", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			pol := build(b)
			b.StartTimer()
			for range 20 {
				step(b, pol)
			}
		}
	})
	b.Run("start", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			pol := build(b)
			b.StartTimer()
			if _, err := pol.Ask(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
