package view_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"github.com/safegp/safegp/store"
	"github.com/safegp/safegp/study"
	"github.com/safegp/safegp/study/api"
	"github.com/safegp/safegp/study/view"
)

// specYAML is a 1-D study: 21 actions on [0, 4], one constraint.
const specYAML = `decision_set: {grid: {bounds: [[0, 4]], points: [21]}}
seed_actions: [10]
thresholds: [0.0]
model:
  objective: {kernel: se, lengthscale: 1}
  constraints: [{kernel: se, lengthscale: 1}]
  noise_std: 0.05
  delta: 0.1
  beta: 4
algorithm: {name: sgp-ucb, phase1: uniform, exploration: {fixed: 4}}
horizon: 30
seed: 3
`

// truth is the system being tuned: f peaks at x = 3, g ≥ 0 for x ≤ 3.5.
func truth(x float64) (f float64, g []float64) {
	return -(x - 3) * (x - 3), []float64{1 - math.Pow(x/3.5, 4)}
}

// The dashboard's reads: study.Service.List summarizes every study from
// the records, Of gives what the page draws of one. Neither changes a
// study.
func ExampleOf() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "safegp-example-*")
	defer os.RemoveAll(dir)
	st, _ := store.Open(filepath.Join(dir, "studies.db"), store.OpenOptions{Create: true})
	defer st.Close()
	v := study.NewService(st, study.ServiceOptions{})
	spec, _ := study.ParseSpec([]byte(specYAML)) // 21 actions on [0, 4], one constraint
	res, _ := spec.Resolve(".")
	if err := v.Create(ctx, "gains", res); err != nil {
		panic(err)
	}
	for _, i := range []int{10, 12} { // measurements at x = 2 and 2.4
		f, g := truth(res.X[i][0])
		if _, err := v.Tell(ctx, "gains", &api.TellRequest{Index: &i, F: &f, G: g}); err != nil {
			panic(err)
		}
	}
	if _, err := v.Ask(ctx, "gains"); err != nil {
		panic(err)
	}

	list, _ := v.List(ctx)
	for _, s := range list {
		fmt.Printf("%s: %s, %d actions, %d/%d rounds, %d pending\n", s.Study, s.Algorithm, s.Actions, s.Rounds, s.Horizon, s.Pending)
	}
	vw, _ := view.Of(ctx, v, "gains")
	p := vw.Posterior
	fmt.Printf("%d observations, thresholds %v, pending ask %d\n", len(vw.Observations), vw.Thresholds, vw.Pending[0].Ask)
	fmt.Printf("posterior over %d actions, √β = %g, mean of f at x = %g: %.2f\n", len(p.X), p.SqrtBeta, p.X[11][0], p.F.Mean[11])
	// Output:
	// gains: sgp-ucb, 21 actions, 2/30 rounds, 1 pending
	// 2 observations, thresholds [0], pending ask 3
	// posterior over 21 actions, √β = 2, mean of f at x = 2.2: -0.69
}
