package gp_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/safegp/safegp/gp"
	"github.com/safegp/safegp/kernel"
)

// TestTrackIsPredict: a tracked point's posterior is Predict's, to the
// bit, whether it is tracked before, between or after the observations,
// through observations at actions and at points outside D, and after pop.
func TestTrackIsPredict(t *testing.T) {
	t.Parallel()
	const d = 4
	r := rand.New(rand.NewPCG(1, 2))
	pt := func() []float64 {
		x := make([]float64, d)
		for j := range x {
			x[j] = 2*r.Float64() - 1
		}
		return x
	}
	var set [][]float64
	for range 7 {
		set = append(set, pt())
	}
	for _, k := range []kernel.Kernel{kernel.SE{Variance: 1.3, Lengthscale: 0.8}, kernel.Matern52{Variance: 0.7, Lengthscale: 1.1}} {
		m := gp.New(k, set, 0.1)
		var pts [][]float64
		check := func(when string) {
			t.Helper()
			if len(pts) < 2 {
				return
			}
			mean, vr := make([]float64, len(pts)), make([]float64, len(pts))
			m.Predict(mean, vr, pts)
			for j := range pts {
				if gm, gv := m.Tracked(j); gm != mean[j] || gv != vr[j] {
					t.Fatalf("%T %s: point %d: tracked (%v, %v), Predict (%v, %v)", k, when, j, gm, gv, mean[j], vr[j])
				}
			}
		}
		track := func(x []float64) {
			if m.Track(x) != len(pts) {
				t.Fatal("Track numbers its points in order")
			}
			pts = append(pts, x)
		}
		track(pt())
		track(set[2])
		for s := range 40 {
			x := pt()
			if s%3 == 0 {
				m.Add(s%len(set), r.NormFloat64(), -1)
			} else {
				m.AddAt(x, r.NormFloat64(), 0.01*r.Float64())
				track(x)
			}
			check("after an observation")
		}
		track(pt())
		check("tracked late")
	}
}

// TestOnSetKeepCovarianceIsTells: a model moved with OnSet onto a set,
// with its covariance kept afterwards, is to the bit the model New builds
// on that set with its covariance kept from the start and told the same
// observations at the same points (AddAt): line-bo builds its lines'
// GPs so.
func TestOnSetKeepCovarianceIsTells(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(5, 6))
	pt := func() []float64 { return []float64{2*r.Float64() - 1, 2*r.Float64() - 1, 2*r.Float64() - 1} }
	k := kernel.SE{Variance: 1, Lengthscale: 0.6}
	seeds, set := [][]float64{pt()}, [][]float64{}
	for range 30 {
		set = append(set, pt())
	}
	global, told := gp.New(k, seeds, 0.1), gp.New(k, set, 0.1)
	told.KeepCovariance()
	for range 50 {
		x, y, nv := pt(), r.NormFloat64(), 0.02*r.Float64()
		global.AddAt(x, y, nv)
		told.AddAt(x, y, nv)
	}
	moved := global.OnSet(set)
	moved.KeepCovariance()
	for i := range set {
		if moved.Mean()[i] != told.Mean()[i] || moved.Var()[i] != told.Var()[i] {
			t.Fatalf("action %d: moved (%v, %v), told (%v, %v)", i, moved.Mean()[i], moved.Var()[i], told.Mean()[i], told.Var()[i])
		}
		a, b := moved.CovarianceRow(i), told.CovarianceRow(i)
		for j := range a {
			if a[j] != b[j] {
				t.Fatalf("covariance (%d, %d): moved %v, told %v", i, j, a[j], b[j])
			}
		}
	}
}

// TestKeepCovarianceIsCovariance: the kept covariance (its rows split
// across goroutines) is to the bit each row Covariance computes without
// it, and what the tells' rank-one updates build, on a set and a history
// large enough to be split, with observations at actions and elsewhere.
func TestKeepCovarianceIsCovariance(t *testing.T) {
	t.Parallel()
	// KeepCovariance computes the upper triangle and mirrors it: exact for
	// every kernel, since each is symmetric to the bit.
	for _, k := range []kernel.Kernel{
		kernel.SE{Variance: 1, Lengthscale: 0.7},
		kernel.SE{Variance: 1.3, ARD: []float64{0.5, 0.9, 1.7}},
		kernel.Matern32{Variance: 1, Lengthscale: 0.6},
		kernel.Matern52{Variance: 0.8, ARD: []float64{0.4, 1, 2}},
		kernel.Linear{Variance: 0.5},
		kernel.Polynomial{Variance: 0.3, Offset: 1, Degree: 3},
	} {
		t.Run(k.Name(), func(t *testing.T) { keepCovarianceIsCovariance(t, k) })
	}
}

func keepCovarianceIsCovariance(t *testing.T, k kernel.Kernel) {
	r := rand.New(rand.NewPCG(7, 8))
	pt := func() []float64 { return []float64{2*r.Float64() - 1, 2*r.Float64() - 1, 2*r.Float64() - 1} }
	var set [][]float64
	for range 203 {
		set = append(set, pt())
	}
	plain, told := gp.New(k, set, 0.1), gp.New(k, set, 0.1)
	told.KeepCovariance()
	for s := range 150 {
		y, nv := r.NormFloat64(), 0.02*r.Float64()+0.001
		if s%3 == 0 {
			i := r.IntN(len(set))
			plain.Add(i, y, nv)
			told.Add(i, y, nv)
		} else {
			x := pt()
			plain.AddAt(x, y, nv)
			told.AddAt(x, y, nv)
		}
	}
	kept := plain.OnSet(set)
	kept.KeepCovariance()
	row := make([]float64, len(set))
	for i := range set {
		want := plain.Covariance(row, i)
		got, tells := kept.CovarianceRow(i), told.CovarianceRow(i)
		for j := range want {
			if math.Float64bits(got[j]) != math.Float64bits(want[j]) || math.Float64bits(tells[j]) != math.Float64bits(want[j]) {
				t.Fatalf("covariance (%d, %d): kept %v, tells %v, Covariance %v", i, j, got[j], tells[j], want[j])
			}
		}
	}
}

// TestOnSetFromIsOnSet: a model moved with OnSetFrom from another with the
// same kernel, points and noise is to the bit what OnSet builds, and one
// with another kernel is refused.
func TestOnSetFromIsOnSet(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(9, 10))
	pt := func() []float64 { return []float64{2*r.Float64() - 1, 2*r.Float64() - 1} }
	k := kernel.SE{Variance: 1, Lengthscale: 0.5}
	seeds, set := [][]float64{pt()}, [][]float64{}
	for range 40 {
		set = append(set, pt())
	}
	f, g, h := gp.New(k, seeds, 0.1), gp.New(k, seeds, 0.1), gp.New(kernel.SE{Variance: 1, Lengthscale: 0.4}, seeds, 0.1)
	for range 60 {
		x := pt()
		f.AddAt(x, r.NormFloat64(), -1)
		g.AddAt(x, r.NormFloat64(), -1)
		h.AddAt(x, r.NormFloat64(), -1)
	}
	mf := f.OnSet(set)
	if h.OnSetFrom(f, mf, set) != nil {
		t.Fatal("OnSetFrom across kernels")
	}
	got, want := g.OnSetFrom(f, mf, set), g.OnSet(set)
	got.KeepCovariance()
	want.KeepCovariance()
	for i := range set {
		if math.Float64bits(got.Mean()[i]) != math.Float64bits(want.Mean()[i]) || math.Float64bits(got.Var()[i]) != math.Float64bits(want.Var()[i]) {
			t.Fatalf("action %d: OnSetFrom (%v, %v), OnSet (%v, %v)", i, got.Mean()[i], got.Var()[i], want.Mean()[i], want.Var()[i])
		}
		a, b := got.CovarianceRow(i), want.CovarianceRow(i)
		for j := range a {
			if math.Float64bits(a[j]) != math.Float64bits(b[j]) {
				t.Fatalf("covariance (%d, %d)", i, j)
			}
		}
	}
	x, y := pt(), r.NormFloat64()
	got.AddAt(x, y, -1)
	want.AddAt(x, y, -1)
	if got.Mean()[0] != want.Mean()[0] || got.Var()[3] != want.Var()[3] {
		t.Fatal("after an observation")
	}
}
