package theory_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/safegp/safegp/kernel"
	"github.com/safegp/safegp/theory"
)

// ardProblems returns the same exploration problem twice: an ARD kernel
// with lengthscales l on 80 random points x of the box [0, side_1] ×
// [0, side_2], and the isotropic kernel of ℓ = 1 of the same family on the
// rescaled points x_j/l_j, which the ARD kernel on x equals (SPEC §2).
func ardProblems(name string, l []float64, side [2]float64) (ard, iso theory.Problem) {
	rng := rand.New(rand.NewPCG(21, 22))
	x, scaled := make([][]float64, 80), make([][]float64, 80)
	for i := range x {
		x[i] = []float64{side[0] * rng.Float64(), side[1] * rng.Float64()}
		scaled[i] = []float64{x[i][0] / l[0], x[i][1] / l[1]}
	}
	seed := make([]int, 50)
	for i := range seed {
		seed[i] = i
	}
	kARD, _ := kernel.New(kernel.Spec{Kernel: name, Lengthscale: l})
	kIso, _ := kernel.New(kernel.Spec{Kernel: name, Lengthscale: kernel.Iso(1)})
	base := theory.Problem{Seed: seed, NoiseStd: 0.1, Delta: 0.01, Epsilon: 0.5, Horizon: 40, M: 1, MeasureEps0: true}
	ard, iso = base, base
	ard.X, ard.Kernel = x, kARD
	iso.X, iso.Kernel = scaled, kIso
	return ard, iso
}

// featureCases are the feature maps the ARD tests compare: QFF with the
// nodes Theorem 4's ε_0 asks for (more than 50 seeds can span: a partial
// report), a fixed QFF, and RFF maps.
var featureCases = []struct {
	kernel string
	feat   theory.Features
}{
	{"se", theory.Features{}},
	{"se", theory.Features{Kind: "qff", Nodes: 4}},
	{"se", theory.Features{Kind: "rff", Size: 8, Seed: 3}},
	{"matern32", theory.Features{Size: 8}},
	{"matern52", theory.Features{Size: 10, Seed: 9}},
}

// TestExplorationLengthARDRescaled: Theorem 4's quantities for an ARD
// kernel — the QFF nodes and the lemma's bound (whose box is measured in
// lengthscales), λ̃_−, the measured ε_0, t_ε, t_δ, T' — are those of the
// isotropic kernel of ℓ = 1 on the rescaled decision set. With ℓ_j powers
// of two the rescaling, the maps' frequencies and every product are exact
// in floating point, so the two agree to the bit: tolerance 0.
func TestExplorationLengthARDRescaled(t *testing.T) {
	t.Parallel()
	for _, c := range featureCases {
		ard, iso := ardProblems(c.kernel, []float64{2, 0.25}, [2]float64{3, 0.5})
		a, errA := theory.ExplorationLength(ard, c.feat)
		b, errB := theory.ExplorationLength(iso, c.feat)
		if (errA == nil) != (errB == nil) || errors.Is(errA, theory.ErrSeedTooSmall) != errors.Is(errB, theory.ErrSeedTooSmall) {
			t.Errorf("%s %+v: ARD error %v, isotropic %v", c.kernel, c.feat, errA, errB)
		}
		if a == nil || b == nil {
			t.Fatalf("%s %+v: no report: %v, %v", c.kernel, c.feat, errA, errB)
		}
		if diff := cmp.Diff(b, a); diff != "" {
			t.Errorf("%s %+v: ARD on D against isotropic on the rescaled D (-iso +ard):\n%s", c.kernel, c.feat, diff)
		}
		if c.feat.Kind == "" && c.kernel == "se" && (a.Nodes < 2 || !errors.Is(errA, theory.ErrSeedTooSmall)) {
			t.Errorf("test premise: the ε_0 condition asks for nodes^2 > 50 seeds, got %d nodes, %v", a.Nodes, errA)
		}
		if c.feat.Kind == "qff" && !(a.Lambda > 0) {
			t.Errorf("test premise: λ̃_− > 0 for the fixed QFF, got %v (%v)", a.Lambda, errA)
		}
	}
}

// TestExplorationLengthARDEqual: an ARD kernel whose ℓ_j are all ℓ gives
// the isotropic kernel's quantities. Here the two compute the same values
// in another order (ℓ applied per coordinate or once), so they differ by
// rounding: features by a few ulps (≲ 1e-15 relative), hence Σ's entries
// by ≲ 1e-15 of ‖Σ‖ ≤ v = 1 and λ̃_− (≥ 1e-4 here) by ≲ 1e-11 relative;
// 1e-9 bounds it. The node count, a threshold on the bound, is equal.
func TestExplorationLengthARDEqual(t *testing.T) {
	t.Parallel()
	for _, c := range featureCases {
		for _, l := range []float64{0.7, 1.3} {
			p, _ := ardProblems(c.kernel, []float64{1, 1}, [2]float64{8, 8})
			ard, iso := p, p
			ard.Kernel, _ = kernel.New(kernel.Spec{Kernel: c.kernel, Lengthscale: kernel.Lengthscale{l, l}})
			iso.Kernel, _ = kernel.New(kernel.Spec{Kernel: c.kernel, Lengthscale: kernel.Iso(l)})
			a, errA := theory.ExplorationLength(ard, c.feat)
			b, errB := theory.ExplorationLength(iso, c.feat)
			if a == nil || b == nil || (errA == nil) != (errB == nil) {
				t.Fatalf("%s %+v ℓ = %v: ARD %+v, %v; isotropic %+v, %v", c.kernel, c.feat, l, a, errA, b, errB)
			}
			rel := cmp.Comparer(func(x, y float64) bool { return x == y || math.Abs(x-y) <= 1e-9*math.Max(math.Abs(x), math.Abs(y)) })
			if diff := cmp.Diff(b, a, rel); diff != "" {
				t.Errorf("%s %+v ℓ = %v: ARD of equal ℓ_j against isotropic (-iso +ard):\n%s", c.kernel, c.feat, l, diff)
			}
			if a.Lambda != 0 && !(a.Lambda >= 1e-4) {
				t.Errorf("test premise: λ̃_− = %v ≥ 1e-4", a.Lambda)
			}
		}
	}
}

// TestARDFeatureMaps: the QFF and RFF maps of an ARD kernel approximate
// it: within the QFF lemma's bound for the box measured in lengthscales,
// and the RFF error shrinks with the number of features (Monte Carlo:
// 4096 features give an error ≈ 1/√2048 ≈ 0.02 in the kernel's scale;
// 0.1 leaves room).
func TestARDFeatureMaps(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(31, 32))
	l := []float64{0.8, 2.5}
	x := make([][]float64, 40)
	for i := range x {
		x[i] = []float64{rng.Float64(), rng.Float64()}
	}
	se := kernel.SE{Variance: 1, ARD: l}
	// The box [0,1]² is 1/0.8 lengthscales across at most: ℓ_eff = 0.8.
	for _, nodes := range []int{6, 10} {
		bound := theory.QFFErrorBound(2, nodes, 0.8)
		if e := theory.MaxError(theory.NewQFF(se, 2, nodes), se, x); e > bound {
			t.Errorf("QFF, %d nodes: error %g above the lemma's bound %g", nodes, e, bound)
		}
	}
	for _, k := range []kernel.Kernel{se, kernel.Matern32{Variance: 1, ARD: l}, kernel.Matern52{Variance: 1, ARD: l}} {
		f, err := theory.NewRFF(k, 2, 4096, rand.New(rand.NewPCG(5, 5)))
		if err != nil {
			t.Fatal(err)
		}
		if e := theory.MaxError(f, k, x); e > 0.1 {
			t.Errorf("%s RFF of 4096 features: error %g", k.Name(), e)
		}
	}
	if _, err := theory.NewRFF(kernel.SE{Variance: 1, ARD: []float64{1, 2, 3}}, 2, 8, rng); !errors.Is(err, kernel.ErrInvalid) {
		t.Errorf("RFF of 3 lengthscales in 2-D: got %v, want kernel.ErrInvalid", err)
	}
	p, _ := ardProblems("se", []float64{1, 1}, [2]float64{1, 1})
	p.Kernel = kernel.SE{Variance: 1, ARD: []float64{1}}
	if _, err := theory.ExplorationLength(p, theory.Features{}); !errors.Is(err, kernel.ErrInvalid) {
		t.Errorf("1 lengthscale list in 2-D: got %v, want kernel.ErrInvalid", err)
	}
}
