package gp_test

import (
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/safegp/safegp/gp"
	"github.com/safegp/safegp/kernel"
)

// TestAccessors: T, Points, Y and Kernel report what was observed and with
// what; a zero kernel (k ≡ 0 on D) gets the jitter floor relative to 1,
// not 0, so its noise variance stays positive.
func TestAccessors(t *testing.T) {
	t.Parallel()
	x := [][]float64{{0}, {1}, {2}}
	k := kernel.SE{Variance: 1, Lengthscale: 1}
	m := gp.New(k, x, 0.1)
	for i, a := range []int{2, 0, 2} {
		m.Observe(a, float64(i))
	}
	pts := m.Points()
	if m.T() != 3 || len(pts) != 3 || pts[0][0] != 2 || pts[1][0] != 0 || pts[2][0] != 2 || !slices.Equal(m.Y(), []float64{0, 1, 2}) || !reflect.DeepEqual(m.Kernel(), kernel.Kernel(k)) || m.N() != 3 {
		t.Errorf("T %d, points %v, y %v, kernel %v, N %d", m.T(), pts, m.Y(), m.Kernel(), m.N())
	}
	zero := gp.New(kernel.Linear{Variance: 1}, [][]float64{{0}, {0}}, 0)
	if zero.NoiseVar() != gp.JitterScale {
		t.Errorf("noise variance of a zero kernel %v, want the floor %v", zero.NoiseVar(), gp.JitterScale)
	}
}

// TestPopUndoesObserve: the benchmarks' pop restores the posterior of one
// observation fewer, with and without the kept covariance, to rounding
// (1e-12 absolute on values of order 1).
func TestPopUndoesObserve(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 5))
	x := randPoints(rng, 30, 2)
	k := kernel.SE{Variance: 1, Lengthscale: 0.5}
	for _, keep := range []bool{false, true} {
		m, ref := gp.New(k, x, 0.1), gp.New(k, x, 0.1)
		if keep {
			m.KeepCovariance()
			m.KeepCovariance() // a second call keeps what it has
			ref.KeepCovariance()
		}
		for range 6 {
			a, y := rng.IntN(30), rng.NormFloat64()
			m.Observe(a, y)
			ref.Observe(a, y)
		}
		m.Observe(7, 3)
		gp.Pop(m)
		row, want := m.CovarianceRow(4), ref.CovarianceRow(4)
		for j := range x {
			if math.Abs(m.Mean()[j]-ref.Mean()[j]) > 1e-12 || math.Abs(m.Var()[j]-ref.Var()[j]) > 1e-12 || math.Abs(row[j]-want[j]) > 1e-12 {
				t.Fatalf("keep=%v action %d: after pop (%v, %v, cov %v), without the observation (%v, %v, cov %v)",
					keep, j, m.Mean()[j], m.Var()[j], row[j], ref.Mean()[j], ref.Var()[j], want[j])
			}
		}
		if m.T() != 6 {
			t.Errorf("T = %d after pop", m.T())
		}
	}
}

// TestMisuse: a wrong destination length or an action outside D is a
// programming error inside the module, which panics at once rather than
// corrupt the posterior.
func TestMisuse(t *testing.T) {
	t.Parallel()
	m := gp.New(kernel.SE{Variance: 1, Lengthscale: 1}, [][]float64{{0}, {1}}, 0.1)
	for name, f := range map[string]func(){
		"covariance into a short slice": func() { m.Covariance(make([]float64, 1), 0) },
		"observe action 2 of 2":         func() { m.Observe(2, 0) },
		"observe action −1":             func() { m.Observe(-1, 0) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
	if m.T() != 0 {
		t.Errorf("a refused call changed the model: T = %d", m.T())
	}
}
