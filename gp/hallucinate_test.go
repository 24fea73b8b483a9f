package gp_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/safegp/safegp/gp"
	"github.com/safegp/safegp/kernel"
)

// TestHallucinatedMatchesScratch checks the hallucinated variance against
// a from-scratch solve: a GP conditioned on the real observations (each
// with its noise variance) and on the pending points with the model's
// noise variance, whose posterior variance over D does not depend on the
// values (scratchAt is given zeros for the pending ones). Pending points
// are actions of D, points outside D, or both; the model's observations
// have the model's noise or their own (heteroscedastic), the model keeps
// its covariance or not (Covariance's two paths), and the variance is
// kept over all of D (Reset) or at some actions (ResetRows).
//
// Tolerance 1e-9 relative to the prior variance, as TestAddMatchesScratch
// (SPEC §2): both sides factorize the same matrix in a different order.
// Every noise variance is at least 0.05², which keeps gonum's condition
// estimate below maxCond (checked), where κ·u ≈ 1e-10.
func TestHallucinatedMatchesScratch(t *testing.T) {
	t.Parallel()
	cases := []hallCase{
		{kernel.SE{Variance: 1, Lengthscale: 0.5}, 60, 2, 40, 8, 0, false, false, 0, 0.1, true},
		{kernel.SE{Variance: 1, Lengthscale: 0.5}, 60, 2, 40, 8, 0, false, true, 0, 0.1, true},
		{kernel.SE{Variance: 2, Lengthscale: 1}, 40, 3, 80, 12, 1, false, false, 0, 0.1, false},
		{kernel.Matern32{Variance: 1, Lengthscale: 0.7}, 80, 2, 50, 10, 0.5, true, false, 0.3, 0.05, false},
		{kernel.Matern52{Variance: 0.5, Lengthscale: 0.3}, 50, 1, 30, 16, 0.3, true, true, 0.2, 0.2, false},
		{kernel.SE{Variance: 1, Lengthscale: 0.3}, 30, 2, 0, 5, 0.4, false, false, 0, 0.1, true}, // no real observation
	}
	for _, c := range cases {
		for _, rows := range []string{"all", "scattered", "runs"} {
			c.check(t, rows)
		}
	}
}

// hallCase is one case of TestHallucinatedMatchesScratch.
type hallCase struct {
	k         kernel.Kernel
	n, d, t   int
	pending   int
	outside   float64 // share of pending points outside D
	ownNoise  bool    // observations with their own noise variances
	keepCov   bool
	realOut   float64 // share of real observations outside D
	noiseStd  float64 // the model's σ
	wantDistn bool    // pending actions distinct (as a policy's are)
}

// check runs the case, with the variance kept at every action (Reset) or
// at some only (ResetRows), which some pending actions are not among: a
// random half of them (scattered, read action by action) or runs of 6
// consecutive actions out of every 10 (read run by run).
func (c hallCase) check(t *testing.T, sub string) {
	const tol, maxCond = 1e-9, 1e6
	t.Run(fmt.Sprintf("%s/n%d/t%d/k%d/out%g/own%v/cov%v/rows-%s", c.k.Name(), c.n, c.t, c.pending, c.outside, c.ownNoise, c.keepCov, sub), func(t *testing.T) {
		rng := rand.New(rand.NewPCG(11, uint64(c.n+c.t+c.pending)))
		x := randPoints(rng, c.n, c.d)
		m := gp.New(c.k, x, c.noiseStd)
		if c.keepCov {
			m.KeepCovariance()
		}
		for range c.t {
			nv := -1.0
			if c.ownNoise && rng.Float64() < 0.5 {
				nv = 0.0025 + 0.1*rng.Float64()
			}
			if rng.Float64() < c.realOut {
				m.AddAt(randPoints(rng, 1, c.d)[0], rng.NormFloat64(), nv)
			} else {
				m.Add(rng.IntN(c.n), rng.NormFloat64(), nv)
			}
		}
		pts := slices.Clone(m.Points())
		nvs := slices.Clone(m.NoiseVars())
		ys := slices.Clone(m.Y())
		var h gp.Hallucinated
		rows := make([]int, c.n) // the actions h keeps the variance at
		for i := range rows {
			rows[i] = i
		}
		switch sub {
		case "scattered":
			rows = rows[:0]
			for i := range c.n {
				if rng.IntN(2) == 0 {
					rows = append(rows, i)
				}
			}
			h.ResetRows(m, rows)
		case "runs":
			rows = rows[:0]
			for i := range c.n {
				if i%10 < 6 {
					rows = append(rows, i)
				}
			}
			h.ResetRows(m, rows)
		default:
			h.Reset(m)
		}
		perm := rng.Perm(c.n)
		for k := range c.pending {
			if rng.Float64() < c.outside {
				p := randPoints(rng, 1, c.d)[0]
				h.AddAt(p)
				pts = append(pts, p)
			} else {
				i := rng.IntN(c.n)
				if c.wantDistn {
					i = perm[k]
				}
				h.Add(i)
				pts = append(pts, x[i])
			}
			nvs, ys = append(nvs, m.NoiseVar()), append(ys, 0)
			if h.Len() != k+1 {
				t.Fatalf("Len %d after %d points", h.Len(), k+1)
			}
			_, vr, _, cond := scratchAt(c.k, x, pts, nvs, ys)
			if cond > maxCond {
				t.Fatalf("condition number %.3g above %.3g, which the tolerance assumes", cond, maxCond)
			}
			if len(h.Var()) != len(rows) {
				t.Fatalf("Var has %d values for %d rows", len(h.Var()), len(rows))
			}
			for r, j := range rows {
				if e := relErr(h.Var()[r], vr[j], m.Prior()[j]); e > tol {
					t.Errorf("%d pending: var[%d] = %v, scratch %v (rel %g)", k+1, j, h.Var()[r], vr[j], e)
				}
			}
		}
		// The model itself is unchanged: its variance is the scratch
		// solve without the pending points.
		_, vr, _, _ := scratchAt(c.k, x, m.Points(), m.NoiseVars(), m.Y())
		for j := range x {
			if e := relErr(m.Var()[j], vr[j], m.Prior()[j]); e > tol {
				t.Errorf("model var[%d] = %v, scratch %v: hallucinating changed it", j, m.Var()[j], vr[j])
			}
		}
	})
}

// TestHallucinatedResetReuses checks that a Hallucinated reset and filled
// again with as many points allocates nothing (the steady state of a
// policy handing out batches), that Reset brings back the model's
// variance exactly, and that Current follows the model's observations.
func TestHallucinatedResetReuses(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	x := randPoints(rng, 200, 2)
	m := gp.New(kernel.SE{Variance: 1, Lengthscale: 0.4}, x, 0.1)
	m.Reserve(60)
	for range 50 {
		m.Observe(rng.IntN(len(x)), rng.NormFloat64())
	}
	var h gp.Hallucinated
	h.Reset(m)
	h.Reserve(8)
	fill := func() {
		h.Reset(m)
		for i := range 8 {
			h.Add(10 * i)
		}
	}
	fill()
	if allocs := testing.AllocsPerRun(20, fill); allocs != 0 {
		t.Errorf("Reset and 8 Adds allocate %v times, want 0", allocs)
	}
	h.Reset(m)
	if !slices.Equal(h.Var(), m.Var()) || h.Len() != 0 || !h.Current(m) {
		t.Fatalf("after Reset: Len %d, Current %v, Var equal %v", h.Len(), h.Current(m), slices.Equal(h.Var(), m.Var()))
	}
	m.Observe(3, 0.5)
	if h.Current(m) {
		t.Fatal("Current after the model observed")
	}
	defer func() {
		if recover() == nil {
			t.Error("Add on a model that observed since Reset did not panic")
		}
	}()
	h.Add(1)
}

// TestHallucinatedRepeatedPoint checks the closed form of one action
// hallucinated twice with no real data and noise σ²: the variance there is
// k/(1 + 2k/σ²) — two independent observations of variance σ² — which the
// recursion must reach through s_2 = c_2(p) + σ².
func TestHallucinatedRepeatedPoint(t *testing.T) {
	t.Parallel()
	x := [][]float64{{0}, {1}}
	const sigma = 0.3
	m := gp.New(kernel.SE{Variance: 1.5, Lengthscale: 1}, x, sigma)
	var h gp.Hallucinated
	h.Reset(m)
	h.Add(0)
	h.Add(0)
	k, s2 := 1.5, sigma*sigma
	want := k / (1 + 2*k/s2)
	if got := h.Var()[0]; math.Abs(got-want) > 1e-12*k {
		t.Errorf("variance at the twice-hallucinated action %v, want %v", got, want)
	}
}

// TestHallucinatedParallelIsSerial: a covariance row large enough to be
// split across goroutines (R·t ≥ 2²⁰ multiply-adds) gives the same floats
// as computed on one core, over all of D and at some rows.
func TestHallucinatedParallelIsSerial(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("one core: nothing runs in parallel")
	}
	rng := rand.New(rand.NewPCG(8, 9))
	x := randPoints(rng, 4000, 2)
	m := gp.New(kernel.SE{Variance: 1, Lengthscale: 0.3}, x, 0.1)
	for range 300 {
		m.Observe(rng.IntN(len(x)), rng.NormFloat64())
	}
	rows := make([]int, 0, 3900)
	for i := range 3900 {
		rows = append(rows, i)
	}
	run := func(sub bool) [][]float64 {
		var h gp.Hallucinated
		if sub {
			h.ResetRows(m, rows)
		} else {
			h.Reset(m)
		}
		var out [][]float64
		for _, i := range []int{5, 3950, 1200} { // 3950: not among the rows
			h.Add(i)
			out = append(out, slices.Clone(h.Var()))
		}
		return out
	}
	for _, sub := range []bool{false, true} {
		par := run(sub)
		prev := runtime.GOMAXPROCS(1)
		ser := run(sub)
		runtime.GOMAXPROCS(prev)
		for k := range par {
			if !slices.Equal(par[k], ser[k]) {
				t.Errorf("rows %v, point %d: parallel and serial variances differ", sub, k+1)
			}
		}
	}
}
