package bandit_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/safegp/safegp/bandit"
)

// TestCloud checks direction: cloud (issue 42) against its definition,
// recomputed here from the policy's random stream: each evaluation's set
// is Points draws x̂ + ρ·r ⊙ z/‖z‖_∞ (ρ log-uniform on [0.01, 1], z
// Gaussian, r the max_step), clamped to the box and the step limit, with
// the seeds and observed points within the limit, x̂ the best safe point
// by ℓ_f; the policy asks a point of the set its inner algorithm (sgp-ucb,
// T′ = 0) certifies safe, and draws a new set after every evaluation.
func TestCloud(t *testing.T) {
	t.Parallel()
	step := []float64{0.3, 0.2}
	const points = 50
	s := &bandit.Spec{Name: bandit.LineBO, Points: ptr(points), PerLine: ptr(1), MaxStep: step}
	box := testBox()
	pol, err := bandit.Build(s, boxModel(), bandit.Domain{Box: &box}, boxOpt(3))
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 7)) // boxOpt(3)'s stream
	var seen [][]float64               // the seed and the points told
	seen = append(seen, box.Seeds[0])
	var prev [][]float64
	for round := range 12 {
		xb, _, ok := bandit.Best(pol)
		if !ok {
			t.Fatal("no best point")
		}
		a, err := pol.Ask()
		if err != nil {
			t.Fatal(err)
		}
		var want [][]float64
		for range points {
			rho := math.Exp(math.Log(0.01) * rng.Float64())
			z := make([]float64, 2)
			var top float64
			for j := range z {
				z[j] = rng.NormFloat64()
				_ = rng.Float64() // the draw that keeps coordinate j: always, for d ≤ 20
				top = max(top, math.Abs(z[j]))
			}
			x := make([]float64, 2)
			for j := range x {
				x[j] = xb[j] + rho*step[j]*z[j]/top
				x[j] = min(max(x[j], box.Bounds[j][0], xb[j]-step[j]), box.Bounds[j][1], xb[j]+step[j])
			}
			want = append(want, x)
		}
		for _, p := range seen {
			if math.Abs(p[0]-xb[0]) <= step[0] && math.Abs(p[1]-xb[1]) <= step[1] {
				want = append(want, p)
			}
		}
		slices.SortStableFunc(want, slices.Compare)
		want = slices.CompactFunc(want, slices.Equal)
		got := bandit.LinePoints(pol)
		if d := cmp.Diff(want, got); d != "" {
			t.Fatalf("round %d: the cloud (-by hand +line-bo):\n%s", round+1, d)
		}
		if round > 0 && cmp.Equal(got, prev) {
			t.Errorf("round %d: the same cloud as the round before", round+1)
		}
		prev = got
		var snap bandit.Snapshot
		pol.Inspect(&snap, bandit.Full)
		i := slices.IndexFunc(got, func(p []float64) bool { return slices.Equal(p, a.X) })
		if i < 0 || !snap.Safe[i] && !slices.Equal(a.X, box.Seeds[0]) {
			t.Fatalf("round %d: ask %v is not a point of the cloud certified safe (index %d)", round+1, a.X, i)
		}
		if err := pol.Tell(a.ID, bandit.Observation{F: boxF(a.X), G: []float64{boxG(a.X)}}); err != nil {
			t.Fatal(err)
		}
		seen = append(seen, a.X)
	}
}

// TestCloudBeta: on a cloud, β_t of the paper's schedule counts
// cloudBetaActions = 10⁶ candidates (a 100-per-axis grid of a 3-D box),
// not the cloud's few hundred: clouds are redrawn at every evaluation
// (SPEC §3's union bound over what may be judged).
func TestCloudBeta(t *testing.T) {
	t.Parallel()
	model := boxModel()
	model.Beta = bandit.PaperBeta
	box := testBox()
	pol, err := bandit.Build(&bandit.Spec{Name: bandit.LineBO, Points: ptr(40)}, model, bandit.Domain{Box: &box}, boxOpt(2))
	if err != nil {
		t.Fatal(err)
	}
	for round := range 5 {
		a, err := pol.Ask()
		if err != nil {
			t.Fatal(err)
		}
		var snap bandit.Snapshot
		pol.Inspect(&snap, bandit.Full)
		want := math.Sqrt(bandit.PaperBeta.At(snap.Round, 1, 1_000_000, model.Delta))
		if math.Abs(snap.SqrtBeta-want) > 1e-12*want {
			t.Fatalf("round %d: √β %v, want %v (N = 10⁶)", round+1, snap.SqrtBeta, want)
		}
		if err := pol.Tell(a.ID, bandit.Observation{F: boxF(a.X), G: []float64{boxG(a.X)}}); err != nil {
			t.Fatal(err)
		}
	}
}
