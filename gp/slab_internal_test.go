package gp

import (
	"math"
	"runtime"
	"runtime/debug"
	"slices"
	"testing"

	"github.com/safegp/safegp/kernel"
)

// TestReleasedArraysChangeNoFloat checks Release's promise: a model built
// on the arrays another model released computes, bit for bit, what a
// model on new arrays computes. The released arrays are filled with NaN
// first, so that any entry read before it is written shows in the
// posterior. The cases cover V (every model), the kept prior rows and the
// kept covariance, with observations at actions, repeated, and outside D.
func TestReleasedArraysChangeNoFloat(t *testing.T) {
	x := make([][]float64, 40)
	for i := range x {
		x[i] = []float64{math.Cos(float64(i)), math.Sin(float64(3 * i))}
	}
	k := kernel.SE{Variance: 1, Lengthscale: 0.7}
	const T = 12
	type setup struct{ rows, cov bool }
	build := func(s setup) *Model {
		m := New(k, x, 0.1)
		if s.rows {
			m.KeepPriorRows()
		}
		m.Reserve(T)
		for r, i := range []int{3, 17, 3, 39, 0, 17} {
			m.Observe(i, math.Sin(float64(r)))
		}
		if s.cov {
			m.KeepCovariance()
		}
		m.AddAt([]float64{0.25, -0.5}, 0.3, -1)
		for r, i := range []int{5, 3, 22, 5, 8} {
			m.Observe(i, math.Cos(float64(r)))
		}
		return m
	}
	state := func(m *Model) [][]float64 {
		s := [][]float64{slices.Clone(m.Mean()), slices.Clone(m.Var())}
		for _, i := range []int{0, 3, 21} {
			s = append(s, m.Covariance(make([]float64, m.N()), i))
		}
		return s
	}
	// No collection while the test runs: it would empty the pools
	// between Release and the next model's take.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	for _, s := range []setup{{}, {rows: true}, {cov: true}, {rows: true, cov: true}} {
		// Two collections empty every pool: the reference takes new arrays.
		runtime.GC()
		runtime.GC()
		want := state(build(s))
		reused := false
		// The race detector makes sync.Pool drop a quarter of what it is
		// given: try until a model takes the poisoned arrays.
		for try := 0; try < 20 && !reused; try++ {
			old := build(s)
			stale := [][]float64{old.v[:cap(old.v)], old.krows[:cap(old.krows)], old.sigma}
			for _, a := range stale {
				for j := range a {
					a[j] = math.NaN()
				}
			}
			old.Release()
			if old.v != nil || old.x != nil {
				t.Fatalf("%+v: Release left the model's arrays", s)
			}
			m := build(s)
			reused = len(m.v) > 0 && &m.v[:1][0] == &stale[0][0]
			if got := state(m); reused && !slices.EqualFunc(got, want, slices.Equal) {
				t.Errorf("%+v: the model on released arrays differs from one on new arrays", s)
			}
			m.Release()
		}
		if !reused {
			t.Errorf("%+v: no model took the released arrays in 20 tries", s)
		}
	}
}
