package refit

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/safegp/safegp/config"
	"github.com/safegp/safegp/fit"
	"github.com/safegp/safegp/kernel"
)

// TestMix: the seeds of different fits and functions differ, and the
// same triple gives the same seed.
func TestMix(t *testing.T) {
	t.Parallel()
	seen := map[uint64]bool{}
	for n := 1; n <= 20; n++ {
		for gp := range 5 {
			s := Mix(7, n, gp)
			if seen[s] || s != Mix(7, n, gp) {
				t.Fatalf("Mix(7, %d, %d) = %d: repeated or not reproducible", n, gp, s)
			}
			seen[s] = true
		}
	}
}

// TestOptions: the block's restarts and prior are taken, fit's defaults
// otherwise.
func TestOptions(t *testing.T) {
	t.Parallel()
	r, p := 3, "none"
	o := Options(&config.Fit{ARD: true, Restarts: &r, Prior: &p}, "matern52", 9, 2, 1<<20)
	if o.Kernel != "matern52" || !o.ARD || o.Restarts != 3 || o.Prior != fit.PriorNone || o.Seed != 9 || o.Workers != 2 || o.MaxMemory != 1<<20 {
		t.Errorf("configured: %+v", o)
	}
	if d := Options(&config.Fit{}, "se", 1, 1, 0); d.Restarts != 0 || d.Prior != fit.PriorDefault {
		t.Errorf("defaults: %+v", d)
	}
}

// TestModel: a fit of too many points is recorded as skipped, saying
// why; a fit stopped by its context is an error, not a record; a fit of a
// smooth function gives a kernel per GP, with the noise the block had
// when the observations carry their own.
func TestModel(t *testing.T) {
	t.Parallel()
	noise := 0.1
	se := kernel.Spec{Kernel: "se"}
	m := &config.Model{Objective: &se, Constraints: []kernel.Spec{se}, NoiseStd: &noise, Fit: &config.Fit{}}
	var d config.FitData
	for k := range 12 {
		x := float64(k) / 11
		d.X = append(d.X, []float64{x})
		d.NoiseVar = append(d.NoiseVar, 0.01)
	}
	d.Y = make([][]float64, 2)
	for _, x := range d.X {
		d.Y[0] = append(d.Y[0], math.Sin(3*x[0]))
		d.Y[1] = append(d.Y[1], 1-x[0]*x[0])
	}
	rec, err := Model(context.Background(), m, d, 1, 1, 1, 0)
	if err != nil || rec.Skipped != "" || rec.Objective == nil || len(rec.Constraints) != 1 || rec.Points != 12 || len(rec.LML) != 2 || rec.Objective.NoiseStd == nil || *rec.Objective.NoiseStd != noise {
		t.Fatalf("fit: %+v, %v", rec, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Model(ctx, m, d, 1, 1, 1, 0); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled fit: %v, want context.Canceled", err)
	}
	big := config.FitData{X: make([][]float64, fit.MaxPoints+1)}
	if rec, err := Model(context.Background(), m, big, 1, 1, 1, 0); err != nil || !strings.Contains(rec.Skipped, "more than the") {
		t.Errorf("too many points: %+v, %v", rec, err)
	}
	bad := d
	bad.Y = [][]float64{d.Y[0], append([]float64(nil), d.Y[1][:5]...)} // g has 5 values for 12 points
	if rec, err := Model(context.Background(), m, bad, 1, 1, 1, 0); err != nil || !strings.Contains(rec.Skipped, "fit of g1") {
		t.Errorf("data a fit refuses: %+v, %v", rec, err)
	}
}

// TestConstraintVarianceFloor: with constraint_variance_floor, a
// constraint fitted on data that sit far from 0 (a flat constraint well
// above its limit, y ≈ 1 + small wiggles) gets at least the floor times
// the data's second moment, with its lengthscale and noise as fitted;
// the objective keeps its fitted variance unless it has a threshold, and
// without the floor the constraint keeps its own. The data are chosen so that the fit alone
// gives a variance below the second moment (checked in the first row).
func TestConstraintVarianceFloor(t *testing.T) {
	t.Parallel()
	var d config.FitData
	d.Y = make([][]float64, 2)
	var m2 float64
	for k := range 15 {
		x := float64(k) / 14
		d.X = append(d.X, []float64{x})
		d.Y[0] = append(d.Y[0], math.Sin(3*x))
		g := 1 + 0.05*math.Sin(7*x)
		d.Y[1] = append(d.Y[1], g)
		m2 += g * g / 15
	}
	fitFloors := func(t *testing.T, d config.FitData, fb *config.Fit) config.FitRecord {
		t.Helper()
		noise := 0.1
		k := kernel.Spec{Kernel: "matern52"}
		m := &config.Model{Objective: &k, Constraints: []kernel.Spec{k}, NoiseStd: &noise, Fit: fb}
		rec, err := Model(context.Background(), m, d, 1, 1, 1, 0)
		if err != nil || rec.Skipped != "" {
			t.Fatalf("fit: %+v, %v", rec, err)
		}
		return rec
	}
	fitWith := func(floor *float64) config.FitRecord {
		t.Helper()
		return fitFloors(t, d, &config.Fit{ConstraintVarianceFloor: floor})
	}
	plain := fitWith(nil)
	if v := *plain.Constraints[0].Variance; !(v < 0.9*m2) {
		t.Fatalf("without a floor the constraint's variance is %v, not below its data's second moment %v: the data do not test the floor", v, m2)
	}
	for _, floor := range []float64{0.5, 1, 2} {
		rec := fitWith(&floor)
		g, pg := rec.Constraints[0], plain.Constraints[0]
		want := math.Max(*pg.Variance, floor*m2)
		if math.Abs(*g.Variance-want) > 1e-12*want {
			t.Errorf("floor %v: constraint variance %v, want max(fitted %v, %v·%v)", floor, *g.Variance, *pg.Variance, floor, m2)
		}
		if g.Lengthscale[0] != pg.Lengthscale[0] || *g.NoiseStd != *pg.NoiseStd {
			t.Errorf("floor %v: lengthscale %v, noise %v; want them as fitted, %v and %v", floor, g.Lengthscale, *g.NoiseStd, pg.Lengthscale, *pg.NoiseStd)
		}
		if *rec.Objective.Variance != *plain.Objective.Variance {
			t.Errorf("floor %v: objective variance %v, want %v as fitted", floor, *rec.Objective.Variance, *plain.Objective.Variance)
		}
	}
	// An objective with a threshold (f ≥ h_f, a safety condition) gets
	// the floor too: f given the constraint's data, fitted as it is.
	d.Y[0] = d.Y[1]
	fitted := *fitWith(nil).Objective.Variance
	if !(fitted < 0.9*m2) {
		t.Fatalf("f given the constraint's data is fitted a variance %v, not below its second moment %v: the data do not test the floor", fitted, m2)
	}
	floor := 1.0
	for _, cond := range []bool{false, true} {
		d.ObjectiveCondition = cond
		rec := fitWith(&floor)
		want := fitted
		if cond {
			want = floor * m2
		}
		if v := *rec.Objective.Variance; math.Abs(v-want) > 1e-12*want {
			t.Errorf("objective a safety condition %v: its variance %v, want %v", cond, v, want)
		}
	}
	// objective_variance_floor, when given, is f's floor in place of the
	// constraints' (0: none), and never the constraints'; f without a
	// limit gets neither.
	two := 2.0
	d.ObjectiveCondition = false
	if v := *fitFloors(t, d, &config.Fit{ConstraintVarianceFloor: &floor, ObjectiveVarianceFloor: &two}).Objective.Variance; v != fitted {
		t.Errorf("objective_variance_floor 2, f without a limit: its variance %v, want %v as fitted", v, fitted)
	}
	d.ObjectiveCondition = true
	for _, of := range []float64{0, 0.5, 2} {
		rec := fitFloors(t, d, &config.Fit{ConstraintVarianceFloor: &floor, ObjectiveVarianceFloor: &of})
		if want := math.Max(fitted, of*m2); math.Abs(*rec.Objective.Variance-want) > 1e-12*want {
			t.Errorf("objective_variance_floor %v: f's variance %v, want max(fitted %v, %v·%v)", of, *rec.Objective.Variance, fitted, of, m2)
		}
		if want := math.Max(*plain.Constraints[0].Variance, floor*m2); math.Abs(*rec.Constraints[0].Variance-want) > 1e-12*want {
			t.Errorf("objective_variance_floor %v: the constraint's variance %v, want %v", of, *rec.Constraints[0].Variance, want)
		}
	}
}
