package fit

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestGroups: lengthscale groups are ARD when each dimension has its own
// and isotropic when all share one — the same fit, bit for bit — and in
// between the fit's likelihood is the one its per-dimension lengthscales
// give (LogMarginalLikelihood, evaluated apart; tolerance 1e-9 relative,
// the two sum the same terms in another order), with the lengthscales
// of a group equal.
func TestGroups(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(4, 2))
	const n, d = 30, 3
	x := make([][]float64, n)
	y := make([]float64, n)
	for i := range x {
		x[i] = []float64{rng.Float64(), rng.Float64(), float64(rng.IntN(2))}
		y[i] = math.Sin(3*x[i][0]) + 0.5*math.Cos(2*x[i][1]) + 0.3*x[i][2] + 0.05*rng.NormFloat64()
	}
	fit := func(opt Options) Result {
		opt.Kernel, opt.Seed, opt.Restarts, opt.Workers = "matern52", 1, 4, 1
		r, err := Fit(context.Background(), x, y, nil, opt)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	ard, iso := fit(Options{ARD: true}), fit(Options{})
	if g := fit(Options{Groups: []int{0, 1, 2}}); !slices.Equal(g.Spec.Lengthscale, ard.Spec.Lengthscale) || g.LogMarginalLikelihood != ard.LogMarginalLikelihood {
		t.Errorf("groups 0 1 2: %v (%v), want ARD's %v (%v)", g.Spec.Lengthscale, g.LogMarginalLikelihood, ard.Spec.Lengthscale, ard.LogMarginalLikelihood)
	}
	if g := fit(Options{Groups: []int{0, 0, 0}}); !slices.Equal(g.Spec.Lengthscale, []float64{iso.Spec.Lengthscale[0], iso.Spec.Lengthscale[0], iso.Spec.Lengthscale[0]}) || g.LogMarginalLikelihood != iso.LogMarginalLikelihood {
		t.Errorf("groups 0 0 0: %v (%v), want the isotropic %v (%v) thrice", g.Spec.Lengthscale, g.LogMarginalLikelihood, iso.Spec.Lengthscale, iso.LogMarginalLikelihood)
	}
	g := fit(Options{Groups: []int{0, 0, 1}})
	if ls := g.Spec.Lengthscale; len(ls) != d || ls[0] != ls[1] {
		t.Fatalf("groups 0 0 1: lengthscales %v, want 3 with the first two equal", ls)
	}
	lml, _, err := LogMarginalLikelihood(x, y, nil, g.Spec)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(lml-g.LogMarginalLikelihood) > 1e-9*math.Abs(lml) {
		t.Errorf("groups 0 0 1: the fit's log marginal likelihood %v, its lengthscales' %v", g.LogMarginalLikelihood, lml)
	}
	for _, bad := range [][]int{{0, 1}, {0, 2, 2}, {-1, 0, 0}, {0, 0, 3}} {
		if _, err := Fit(context.Background(), x, y, nil, Options{Groups: bad}); err == nil {
			t.Errorf("groups %v: no error", bad)
		}
	}
}
