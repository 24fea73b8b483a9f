package gp_test

import (
	"math/rand/v2"
	"testing"

	"github.com/safegp/safegp/gp"
	"github.com/safegp/safegp/kernel"
)

// TestTrackIsPredict: a tracked point's posterior is Predict's, to the
// bit, whether it is tracked before, between or after the observations,
// through observations at actions and at points outside D, and after pop.
func TestTrackIsPredict(t *testing.T) {
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
