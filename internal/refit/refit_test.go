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
