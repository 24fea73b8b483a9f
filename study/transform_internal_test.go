package study

import (
	"context"
	"math"
	"path/filepath"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/safegp/safegp/bandit"
	"github.com/safegp/safegp/space"
	"github.com/safegp/safegp/study/api"
)

// transformSpec: one outcome m limited on both sides (two conditions,
// 6 ≤ m ≤ 9) besides the objective, a float and a choice parameter.
const transformSpec = `
parameters:
  - {name: x, low: 0, high: 10}
  - {name: mode, type: choice, values: [a, b]}
objective: {name: y, goal: minimize}
constraints:
  - {name: m, min: 6, max: 9}
seeds: [{x: 5, mode: a}]
horizon: 40
`

// TestTransformSafeSet is issue 26's proof that the transform keeps
// safety exact: after the study fitted its transform and kernels, the
// safe set the policy holds in the transformed units is the set the
// raw-unit limits define. The raw-unit set is computed here from
// scratch: for each condition k a GP on the raw measurements of m, with
// prior mean at the limit, kernel variance v_k·S_k² and noise σ_k²·S_k²
// (S_k the transform's scale), solved with gonum's Cholesky; a setting
// is safe when μ − √β·σ ≥ 6 and μ + √β·σ ≤ 9. The means must agree to
// 1e-9 relative to the scale (the two solves differ only by rounding),
// and the sets exactly, away from 1e-9 of a limit. A choice value never
// measured (mode b) must not be in the safe set.
func TestTransformSafeSet(t *testing.T) {
	ctx := context.Background()
	v := lruService(t, filepath.Join(t.TempDir(), "t.db"), 4)
	createStudy(t, v, "s", transformSpec)
	m := func(x float64) float64 { return 7.5 + 0.4*math.Sin(x) }
	for _, x := range []float64{5, 4.5, 5.5, 4, 6, 3.5} {
		req := &api.TellRequest{Params: space.Setting{"x": space.Number(x), "mode": space.String("a")},
			Values: map[string]float64{"y": x * x, "m": m(x)}}
		if _, err := v.Tell(ctx, "s", req); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := v.Ask(ctx, "s"); err != nil { // fits the transform and the kernels
		t.Fatal(err)
	}
	err := v.with(ctx, "s", func(s *Study) error {
		if len(s.fits) == 0 || s.tr.Scales[0] == 1 {
			t.Fatalf("no transform fitted: fits %v, transform %+v", s.fits, s.tr)
		}
		var snap bandit.Snapshot
		s.pol.Inspect(&snap, bandit.Full)
		sqb := snap.SqrtBeta
		// The observations, encoded, and their raw values of m.
		var xs [][]float64
		var ys []float64
		for _, e := range s.events {
			if e.Kind == "tell" {
				xs = append(xs, pointOf(&e))
				ys = append(ys, e.G[0])
			}
		}
		_, kg := s.model.Kernels()
		sigma := s.model.NoiseStds()
		conds := s.res.Named.conds
		safe := make([]bool, len(s.res.X))
		for i := range safe {
			safe[i] = true
		}
		for k, c := range conds {
			S := s.tr.Scales[k]
			n := len(xs)
			K := mat.NewSymDense(n, nil)
			for a := range n {
				for b := a; b < n; b++ {
					K.SetSym(a, b, S*S*kg[k].Eval(xs[a], xs[b]))
				}
				K.SetSym(a, a, K.At(a, a)+S*S*sigma[1+k]*sigma[1+k])
			}
			var ch mat.Cholesky
			if !ch.Factorize(K) {
				t.Fatal("raw-unit kernel matrix not positive definite")
			}
			r := mat.NewVecDense(n, nil)
			for a := range n {
				r.SetVec(a, ys[a]-c.Limit)
			}
			var alpha mat.VecDense
			if err := ch.SolveVecTo(&alpha, r); err != nil {
				t.Fatal(err)
			}
			kx := mat.NewVecDense(n, nil)
			var w mat.VecDense
			for i, x := range s.res.X {
				for a := range n {
					kx.SetVec(a, S*S*kg[k].Eval(x, xs[a]))
				}
				mu := c.Limit + mat.Dot(kx, &alpha)
				if err := ch.SolveVecTo(&w, kx); err != nil {
					t.Fatal(err)
				}
				sd := math.Sqrt(max(S*S*kg[k].Eval(x, x)-mat.Dot(kx, &w), 0))
				// The policy's posterior, mapped back to raw units.
				got := c.Limit + c.Sign*S*snap.G[k].Mean[i]
				if d := math.Abs(got - mu); d > 1e-9*S {
					t.Fatalf("condition %d, action %d: raw mean %.12g, the policy's mapped back %.12g", k, i, mu, got)
				}
				if d := math.Abs(S*snap.G[k].Std[i] - sd); d > 1e-9*S {
					t.Fatalf("condition %d, action %d: raw sd %.12g, the policy's mapped back %.12g", k, i, sd, S*snap.G[k].Std[i])
				}
				// The raw-unit limit: m ≥ 6 surely, or m ≤ 9 surely.
				margin := c.Sign*(mu-c.Limit) - sqb*sd
				if math.Abs(margin) < 1e-9*S {
					continue // a tie: rounding decides
				}
				safe[i] = safe[i] && margin > 0
			}
		}
		nSafe, nB := 0, 0
		for i, x := range s.res.X {
			if snap.Safe[i] != safe[i] {
				t.Errorf("action %d (%v): the policy's safe set says %v, the raw-unit limits %v", i, s.res.Named.settings[i], snap.Safe[i], safe[i])
			}
			if snap.Safe[i] {
				nSafe++
				if x[len(x)-1] == 1 { // mode b's one-hot coordinate
					nB++
				}
			}
		}
		if nSafe == 0 {
			t.Error("an empty safe set proves nothing: make the data safer")
		}
		if nB != 0 {
			t.Errorf("%d settings with mode b, never measured, are in the safe set", nB)
		}
		t.Logf("%d of %d settings safe, transform %+v", nSafe, len(safe), s.tr)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
