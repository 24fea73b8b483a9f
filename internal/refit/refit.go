package refit

import (
	"context"
	"fmt"

	"github.com/safegp/safegp/config"
	"github.com/safegp/safegp/fit"
	"github.com/safegp/safegp/internal/vec"
	"github.com/safegp/safegp/kernel"
)

// Options returns the fit's options of block f for the kernel family
// name (f checked first): Restarts and Prior as configured, else fit's
// defaults.
func Options(f *config.Fit, name string, seed uint64, workers int, maxMemory int64) fit.Options {
	o := fit.Options{Kernel: name, ARD: f.ARD, Groups: f.Groups, Seed: seed, Workers: workers, MaxMemory: maxMemory}
	if f.Restarts != nil {
		o.Restarts = *f.Restarts
	}
	if f.Prior != nil {
		o.Prior, _ = fit.ParsePrior(*f.Prior)
	}
	if f.MaxLengthscale != nil {
		o.MaxLengthscale = *f.MaxLengthscale
	}
	if f.RangeLengthscale != nil && f.RangeFloor != nil {
		o.RangeLengthscale, o.RangeFloor = *f.RangeLengthscale, *f.RangeFloor
	}
	return o
}

// Mix derives the seed of fit number n (1, 2, …) of one function (gp: 0
// for f, 1+i for g_i) from a root seed: SplitMix64's finalizer over the
// three, so that fits of different numbers and functions draw distinct
// start points.
func Mix(root uint64, n, gp int) uint64 {
	x := root ^ (uint64(n)<<32 | uint64(gp)) + 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// Model fits the kernels of the model m (checked and resolved; its fit
// block active) to data, one fit.Fit per GP with the block's kernel
// family, and returns the record. A fit that cannot be made — more than
// fit.MaxPoints observations, a memory estimate above maxMemory (0:
// memlimit's default), data a fit refuses or no restart converging — is
// returned as a record with Skipped saying why, so that a run goes on
// with the model it has; the record is the same on every machine that
// gets the same error. seed is the run's fit seed, n the fit's number
// (1, 2, …): fit n of GP j starts from Mix(seed, n, j).
//
// A fit stopped by ctx is an error, not a record: nothing of it may be
// recorded (a study records its fits as events), and the caller fails
// the call that wanted it (a study's ask, answered 499 to a client gone).
func Model(ctx context.Context, m *config.Model, data config.FitData, seed uint64, n, workers int, maxMemory int64) (config.FitRecord, error) {
	rec := config.FitRecord{Points: len(data.X)}
	if len(data.X) > fit.MaxPoints {
		rec.Skipped = fmt.Sprintf("%d observations, more than the %d a fit takes: the model stays as it was", len(data.X), fit.MaxPoints)
		return rec, nil
	}
	blocks := append([]kernel.Spec{*m.Objective}, m.Constraints...)
	var out []kernel.Spec
	for j, b := range blocks {
		r, err := fit.Fit(ctx, data.X, data.Y[j], data.NoiseVar, Options(m.Fit, b.Kernel, Mix(seed, n, j), workers, maxMemory))
		if ctx.Err() != nil {
			return config.FitRecord{}, fmt.Errorf("fit of the model: %w", ctx.Err())
		}
		if err != nil {
			name := "f"
			if j > 0 {
				name = fmt.Sprintf("g%d", j)
			}
			return config.FitRecord{Points: len(data.X), Skipped: fmt.Sprintf("fit of %s: %v: the model stays as it was", name, err)}, nil
		}
		s := r.Spec
		if s.NoiseStd == nil {
			// Known noise: the block keeps the σ it had, for what no
			// observation carries.
			s.NoiseStd = b.NoiseStd
			if s.NoiseStd == nil {
				v := *m.NoiseStd
				s.NoiseStd = &v
			}
		}
		if floor := varianceFloor(m.Fit, j, data.ObjectiveCondition); floor != nil {
			s.Variance = raise(s.Variance, *floor*secondMoment(data.Y[j]))
		}
		out = append(out, s)
		rec.LML = append(rec.LML, r.LogMarginalLikelihood)
	}
	rec.Objective, rec.Constraints = &out[0], out[1:]
	return rec, nil
}

// varianceFloor is the variance floor of GP j (0: f), relative to its
// data's second moment, nil for none: every safety condition's GP gets
// one — the constraints', and f's when f ≥ h_f is one (a seed near the
// objective's limit, measured alone, is otherwise fitted sure of its
// neighbours) — f's its own when the block gives it.
func varianceFloor(fb *config.Fit, j int, objectiveCondition bool) *float64 {
	switch {
	case j > 0:
		return fb.ConstraintVarianceFloor
	case !objectiveCondition:
		return nil
	case fb.ObjectiveVarianceFloor != nil:
		return fb.ObjectiveVarianceFloor
	}
	return fb.ConstraintVarianceFloor
}

// raise returns a variance of at least floor: v itself when it is, else
// a new one. The lengthscale and the noise stay as fitted: a constraint
// measured mostly where it is flat, on the safe side of its limit, is
// fitted with a variance well below its data's spread about the limit,
// and its posterior is then too sure where the function turns
// (config.Fit.ConstraintVarianceFloor). Raising the variance alone widens
// the confidence intervals away from the data, where the turn is, and
// lets the measured points weigh more near them.
func raise(v *float64, floor float64) *float64 {
	if v == nil || *v >= floor {
		return v
	}
	return &floor
}

// secondMoment is the mean of y², the data's second moment about the
// GPs' zero prior mean.
func secondMoment(y []float64) float64 { return vec.Dot(y, y) / float64(max(len(y), 1)) }
