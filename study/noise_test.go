package study_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/safegp/safegp/bandit"
	"github.com/safegp/safegp/gp"
	"github.com/safegp/safegp/kernel"
)

// noisySpec is a 2-D study whose constraint is measured by its own, noisy
// sensor (σ_g = 2, against the model's 0.05) and modelled with one
// lengthscale per input dimension.
const noisySpec = `decision_set: {grid: {bounds: [[0, 2], [0, 1]], points: [5, 3]}}
seed_actions: [0, 1]
thresholds: [0.0]
model:
  objective: {kernel: se, lengthscale: 1}
  constraints: [{kernel: matern52, lengthscale: [2, 0.5], noise_std: 2}]
  noise_std: 0.05
  delta: 0.1
  beta: 4
algorithm: {name: sgp-ucb, phase1: uniform, exploration: {fixed: 3}}
horizon: 30
seed: 3
`

// TestNoisePerGPAndARD: a study's GPs take their own σ (the constraint's
// kernel block's, f's the model's) and the ARD kernel, live and when the
// study is reopened from its stored spec; the typo warning measures each
// value against its own GP's σ (g = 9 is 4.5 σ_g from a prior mean of 0:
// plausible with σ_g = 2, a typo with 0.05; f = 9 is a typo).
func TestNoisePerGPAndARD(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "n.db")
	v, st := newService(t, path)
	r := resolved(t, noisySpec)
	if err := v.Create(ctx, "s", r); err != nil {
		t.Fatal(err)
	}
	f := gp.New(kernel.SE{Variance: 1, Lengthscale: 1}, r.X, 0.05)
	g := gp.New(kernel.Matern52{Variance: 1, ARD: []float64{2, 0.5}}, r.X, 2)
	tell := func(i int, fv, gv float64) []string {
		t.Helper()
		f.Observe(i, fv)
		g.Observe(i, gv)
		return tellIndex(t, v, "s", i, fv, gv).Warnings
	}
	if w := tell(7, 0.1, 9); len(w) != 0 {
		t.Errorf("g = 9 with σ_g = 2 warned: %v", w)
	}
	if w := tell(3, 9, 0.2); len(w) != 1 || !strings.HasPrefix(w[0], "f = 9 is") {
		t.Errorf("f = 9 with σ_f = 0.05: warnings %v, want one for f", w)
	}
	tell(12, -0.3, 0.4)
	check := func(when string, snap bandit.Snapshot) {
		t.Helper()
		for i := range r.X {
			// The same code on the same numbers: equal to the bit.
			if snap.F.Std[i] != f.Std(i) || snap.G[0].Std[i] != g.Std(i) || snap.G[0].Mean[i] != g.Mean()[i] {
				t.Fatalf("%s: action %d: f ± %v, g %v ± %v; want ± %v, %v ± %v (σ_f = 0.05, σ_g = 2, ARD)",
					when, i, snap.F.Std[i], snap.G[0].Mean[i], snap.G[0].Std[i], f.Std(i), g.Mean()[i], g.Std(i))
			}
		}
	}
	_, _, _, snap, err := v.Inspect(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	check("live", snap)
	st.Close()
	reopened, _ := newService(t, path)
	_, _, _, snap, err = reopened.Inspect(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	check("reopened", snap)
}
