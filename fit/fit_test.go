package fit

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/safegp/safegp/internal/memlimit"
	"github.com/safegp/safegp/kernel"
)

// smooth returns t points in [0, 1]^d and a smooth function of them plus
// noise of standard deviation sd.
func smooth(seed uint64, t, d int, sd float64) ([][]float64, []float64) {
	rng := rand.New(rand.NewPCG(seed, 1))
	x := make([][]float64, t)
	y := make([]float64, t)
	for i := range x {
		x[i] = make([]float64, d)
		for j := range x[i] {
			x[i][j] = rng.Float64()
		}
		y[i] = math.Sin(4*x[i][0]) + 0.5*math.Cos(3*x[i][d-1]) + sd*rng.NormFloat64()
	}
	return x, y
}

// TestWorkersDoNotMatter checks that a fit depends on its seed, not on the
// workers, with and without the climb on a subset (t ≥ 200).
func TestWorkersDoNotMatter(t *testing.T) {
	t.Parallel()
	for _, n := range []int{40, 240} {
		x, y := smooth(1, n, 2, 0.1)
		var first Result
		for i, w := range []int{1, 2, 3, 8} {
			res, err := Fit(context.Background(), x, y, nil, Options{Kernel: "matern52", ARD: true, Restarts: 6, Workers: w, Seed: 3})
			if err != nil {
				t.Fatal(err)
			}
			for r := range res.Runs {
				res.Runs[r].Err = nil // errors compare by pointer
			}
			if i == 0 {
				first = res
				continue
			}
			if diff := cmp.Diff(first, res, cmpopts.EquateNaNs()); diff != "" {
				t.Errorf("t = %d: %d workers against 1 (−1 +%d):\n%s", n, w, w, diff)
			}
		}
		if other, _ := Fit(context.Background(), x, y, nil, Options{Kernel: "matern52", ARD: true, Restarts: 6, Seed: 4}); other.Runs[1].ClimbEvaluations == first.Runs[1].ClimbEvaluations && other.Runs[1].Evaluations == first.Runs[1].Evaluations {
			t.Errorf("t = %d: seeds 3 and 4 ran restart 1 alike", n)
		}
	}
}

// TestResult checks what a fit reports: a kernel spec that kernel.New
// accepts, for d lengthscales with ARD and one without, a log posterior
// that is the log marginal likelihood plus the prior, the runs, and with
// a subset at most finishCount finished runs.
func TestResult(t *testing.T) {
	t.Parallel()
	for _, n := range []int{50, 220} {
		x, y := smooth(2, n, 3, 0.1)
		for _, ard := range []bool{false, true} {
			for _, prior := range []Prior{PriorDefault, PriorNone} {
				res, err := Fit(context.Background(), x, y, nil, Options{Kernel: "matern32", ARD: ard, Prior: prior, Restarts: 4})
				if err != nil {
					t.Fatal(err)
				}
				if _, err := kernel.New(res.Spec); err != nil {
					t.Errorf("spec %+v: %v", res.Spec, err)
				}
				if err := kernel.CheckDim(res.Spec, 3); err != nil {
					t.Error(err)
				}
				if want := map[bool]int{false: 1, true: 3}[ard]; len(res.Spec.Lengthscale) != want || res.Spec.NoiseStd == nil {
					t.Errorf("ard=%v: lengthscale %v, noise_std %v", ard, res.Spec.Lengthscale, res.Spec.NoiseStd)
				}
				lml, _, err := LogMarginalLikelihood(x, y, nil, res.Spec)
				if err != nil || !closeRel(lml, res.LogMarginalLikelihood, math.Abs(lml), 1e-9) {
					t.Errorf("log ML %v, recomputed %v (%v)", res.LogMarginalLikelihood, lml, err)
				}
				switch {
				case prior == PriorNone && res.LogPosterior != res.LogMarginalLikelihood:
					t.Errorf("prior none: log posterior %v, log ML %v", res.LogPosterior, res.LogMarginalLikelihood)
				case prior == PriorDefault && res.LogPosterior == res.LogMarginalLikelihood:
					t.Errorf("default prior: log posterior = log ML %v", res.LogPosterior)
				}
				finished := 0
				for r, run := range res.Runs {
					if run.Finished {
						finished++
					}
					if run.Same >= r || (run.Same >= 0 && run.Finished) {
						t.Errorf("run %d: %+v", r, run)
					}
				}
				if len(res.Runs) != 4 || !res.Runs[res.Best].Finished || res.Runs[res.Best].LogPosterior != res.LogPosterior {
					t.Errorf("runs %+v, best %d", res.Runs, res.Best)
				}
				if n >= climbFrom && finished > finishCount || n < climbFrom && finished != 4 {
					t.Errorf("t = %d: %d runs finished", n, finished)
				}
			}
		}
	}
}

// TestKnownNoise checks a fit with each observation's noise variance
// given: the noise is not fitted (NoiseStd nil), the result's log marginal
// likelihood is the one at those variances, and exact values at a repeated
// input (noise 0) still fit, the variance raised to the floor.
func TestKnownNoise(t *testing.T) {
	t.Parallel()
	x, y := smooth(3, 30, 1, 0.05)
	nv := make([]float64, len(y))
	for i := range nv {
		nv[i] = 0.05 * 0.05 * float64(1+i%3)
	}
	res, err := Fit(context.Background(), x, y, nv, Options{Kernel: "se"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Spec.NoiseStd != nil {
		t.Errorf("noise_std %v with known noise", *res.Spec.NoiseStd)
	}
	lml, g, err := LogMarginalLikelihood(x, y, nv, res.Spec)
	if err != nil || !closeRel(lml, res.LogMarginalLikelihood, math.Abs(lml), 1e-9) || len(g) != 2 {
		t.Errorf("log ML %v, recomputed %v, gradient %v (%v)", res.LogMarginalLikelihood, lml, g, err)
	}
	x = append(x, x[0])
	y = append(y, y[0])
	exact := make([]float64, len(y))
	if _, err := Fit(context.Background(), x, y, exact, Options{Kernel: "matern52", Prior: PriorNone}); err != nil {
		t.Errorf("exact values at a repeated input: %v", err)
	}
}

// TestFloors checks that no fit crosses a floor: noise-free values of a
// smooth function (maximum likelihood wants σ² → 0) and pure noise (it
// wants ℓ → 0 or v → 0) fit without error, each parameter at least its
// floor, and a parameter at its floor is reported.
func TestFloors(t *testing.T) {
	t.Parallel()
	x, y := smooth(4, 40, 1, 0)
	res, err := Fit(context.Background(), x, y, nil, Options{Kernel: "se", Prior: PriorNone})
	if err != nil {
		t.Fatal(err)
	}
	sc := newScales(x, y, 1)
	if s2 := *res.Spec.NoiseStd * *res.Spec.NoiseStd; s2 < sc.nfloor*(1-1e-12) {
		t.Errorf("noise variance %v below the floor %v", s2, sc.nfloor)
	}
	if !hasWarning(res, "noise variance") {
		t.Errorf("noise-free values: warnings %q", res.Warnings)
	}

	rng := rand.New(rand.NewPCG(5, 5))
	x = make([][]float64, 60)
	y = make([]float64, 60)
	for i := range x {
		x[i] = []float64{float64(i) / 59, rng.Float64()}
		y[i] = rng.NormFloat64()
	}
	for _, ard := range []bool{false, true} {
		res, err = Fit(context.Background(), x, y, nil, Options{Kernel: "matern32", ARD: ard, Prior: PriorNone})
		if err != nil {
			t.Fatal(err)
		}
		p := len(res.Spec.Lengthscale)
		sc = newScales(x, y, p)
		for j, l := range res.Spec.Lengthscale {
			if l < sc.lfloor[j]*(1-1e-12) {
				t.Errorf("ard=%v: lengthscale[%d] %v below the floor %v", ard, j, l, sc.lfloor[j])
			}
		}
		if v := *res.Spec.Variance; !(v > 0) || math.IsInf(v, 0) {
			t.Errorf("variance %v", v)
		}
	}
}

// TestNoSignalWarning checks the warning for a variance that vanishes:
// two measurements at one point that differ are all noise.
func TestNoSignalWarning(t *testing.T) {
	t.Parallel()
	res, err := Fit(context.Background(), [][]float64{{0.5}, {0.5}}, []float64{1, -1}, nil, Options{Prior: PriorNone})
	if err != nil || !hasWarning(res, "no signal") {
		t.Errorf("%v, warnings %q, variance %v", err, res.Warnings, *res.Spec.Variance)
	}
}

func hasWarning(res Result, s string) bool {
	for _, w := range res.Warnings {
		if strings.Contains(w, s) {
			return true
		}
	}
	return false
}

// TestUncentredWarning checks the warning for values far from the prior
// mean 0, and its absence for centred ones.
func TestUncentredWarning(t *testing.T) {
	t.Parallel()
	x, y := smooth(6, 30, 1, 0.1)
	res, err := Fit(context.Background(), x, y, nil, Options{})
	if err != nil || hasWarning(res, "centre") {
		t.Errorf("centred: %v, warnings %q", err, res.Warnings)
	}
	for i := range y {
		y[i] += 50
	}
	res, err = Fit(context.Background(), x, y, nil, Options{})
	if err != nil || !hasWarning(res, "centre") {
		t.Errorf("offset by 50: %v, warnings %q", err, res.Warnings)
	}
}

// TestBadInput checks that every bad input gets an error wrapping the
// right sentinel, and no panic.
func TestBadInput(t *testing.T) {
	t.Parallel()
	x, y := smooth(7, 10, 2, 0.1)
	big := make([][]float64, MaxPoints+1)
	bigY := make([]float64, MaxPoints+1)
	for i := range big {
		big[i] = []float64{float64(i)}
		bigY[i] = float64(i % 7)
	}
	nan := append([]float64(nil), y...)
	nan[3] = math.NaN()
	badX := append([][]float64(nil), x...)
	badX[2] = []float64{1, math.Inf(1)}
	ragged := append([][]float64(nil), x...)
	ragged[4] = []float64{1}
	neg := make([]float64, len(y))
	neg[5] = -1
	nanNoise := make([]float64, len(y))
	nanNoise[1] = math.NaN()
	for _, c := range []struct {
		name  string
		x     [][]float64
		y, nv []float64
		opt   Options
		want  error
	}{
		{"no points", nil, nil, nil, Options{}, ErrInvalid},
		{"one point", x[:1], y[:1], nil, Options{}, ErrInvalid},
		{"values and points", x, y[:9], nil, Options{}, ErrInvalid},
		{"noise and points", x, y, neg[:3], Options{}, ErrInvalid},
		{"NaN value", x, nan, nil, Options{}, ErrInvalid},
		{"Inf input", badX, y, nil, Options{}, ErrInvalid},
		{"ragged inputs", ragged, y, nil, Options{}, ErrInvalid},
		{"dimension 0", [][]float64{{}, {}}, []float64{1, 2}, nil, Options{}, ErrInvalid},
		{"negative noise", x, y, neg, Options{}, ErrInvalid},
		{"NaN noise", x, y, nanNoise, Options{}, ErrInvalid},
		{"all values 0", x, make([]float64, len(y)), nil, Options{}, ErrInvalid},
		{"kernel", x, y, nil, Options{Kernel: "linear"}, ErrInvalid},
		{"restarts", x, y, nil, Options{Restarts: -1}, ErrInvalid},
		{"too many restarts", x, y, nil, Options{Restarts: MaxRestarts + 1}, ErrInvalid},
		{"prior", x, y, nil, Options{Prior: Prior(7)}, ErrInvalid},
		{"too many points", big, bigY, nil, Options{}, ErrInvalid},
		{"memory", x, y, nil, Options{MaxMemory: 100}, memlimit.ErrTooLarge},
		{"negative max lengthscale", x, y, nil, Options{MaxLengthscale: -1, RangeLengthscale: 1, RangeFloor: 0.1}, ErrInvalid},
		{"infinite max lengthscale", x, y, nil, Options{MaxLengthscale: math.Inf(1)}, ErrInvalid},
		{"NaN range lengthscale", x, y, nil, Options{RangeLengthscale: math.NaN(), MaxLengthscale: 1}, ErrInvalid},
		{"range lengthscale without floor", x, y, nil, Options{RangeLengthscale: 1}, ErrInvalid},
		{"negative range floor", x, y, nil, Options{MaxLengthscale: 1, RangeFloor: -0.1}, ErrInvalid},
		{"negative range floor with a range", x, y, nil, Options{RangeLengthscale: 1, RangeFloor: -0.1}, ErrInvalid},
		{"infinite range floor", x, y, nil, Options{RangeLengthscale: 1, RangeFloor: math.Inf(1)}, ErrInvalid},
	} {
		_, err := Fit(context.Background(), c.x, c.y, c.nv, c.opt)
		if !errors.Is(err, c.want) {
			t.Errorf("%s: error %v, want %v", c.name, err, c.want)
		}
	}
	if _, err := ParsePrior("flat"); !errors.Is(err, ErrInvalid) {
		t.Errorf("ParsePrior(flat): %v", err)
	}
	for _, p := range []Prior{PriorDefault, PriorNone} {
		if q, err := ParsePrior(p.String()); q != p || err != nil {
			t.Errorf("ParsePrior(%q) = %v, %v", p.String(), q, err)
		}
	}
}

// TestBytes checks the memory estimate against what the data and one
// worker's scratch hold.
func TestBytes(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		t, d int
		ard  bool
		k    string
	}{{100, 3, true, "se"}, {100, 3, false, "matern52"}, {300, 6, true, "matern32"}} {
		dt := newData(make2(c.t, c.d), make([]float64, c.t), nil, families[c.k], c.ard)
		w := newWork(dt, 1)
		held := 8 * int64(len(dt.d2)+len(w.a)+len(w.kv)+len(w.al))
		if c.k != "se" {
			held += 8 * int64(len(w.gv))
		}
		if b := Bytes(c.t, c.d, c.ard, c.k, 1); b < held || b > 2*held {
			t.Errorf("%+v: estimate %d, held %d", c, b, held)
		}
	}
}

func make2(t, d int) [][]float64 {
	x := make([][]float64, t)
	for i := range x {
		x[i] = make([]float64, d)
		x[i][0] = float64(i)
	}
	return x
}

// TestEvaluationAllocates checks that an evaluation, with and without the
// gradient, allocates nothing.
func TestEvaluationAllocates(t *testing.T) {
	x, y := smooth(8, 50, 3, 0.1)
	for _, name := range names {
		dt := newData(x, y, nil, families[name], true)
		w := newWork(dt, 1)
		th := []float64{0, -1, -1, -1, -3}
		g := make([]float64, 5)
		if a := testing.AllocsPerRun(20, func() {
			th[0] += 1e-3
			w.logML(th)
			w.grad(g, th)
		}); a != 0 {
			t.Errorf("%s: %v allocations per evaluation", name, a)
		}
	}
}

// TestPriorNormalized checks that each factor of the default prior is a
// density over its log-parameter (LogPosterior includes every normalizing
// constant): the integral of exp(log density) over a wide range, by the
// trapezoid rule, is 1.
func TestPriorNormalized(t *testing.T) {
	t.Parallel()
	sc := scales{v0: 2.5, lmed: []float64{0.7}, lfloor: []float64{1e-3}, nfloor: 1e-6}
	integral := func(f func(u float64) float64) float64 {
		const lo, hi, n = -60.0, 20.0, 200000
		h := (hi - lo) / n
		s := 0.5 * (f(lo) + f(hi))
		for i := 1; i < n; i++ {
			s += f(lo + float64(i)*h)
		}
		return s * h
	}
	for name, f := range map[string]func(u float64) float64{
		"variance": func(u float64) float64 { l, _ := logGammaLog(u, varShape, varShape/sc.v0); return math.Exp(l) },
		"noise":    func(u float64) float64 { l, _ := logGammaLog(u, noiseShape, noiseRate/sc.v0); return math.Exp(l) },
		"lengthscale": func(u float64) float64 {
			lv, _ := logGammaLog(0, varShape, varShape/sc.v0) // the variance's factor at log v = 0
			return math.Exp(sc.logPrior(nil, []float64{0, u}, false) - lv)
		},
	} {
		if got := integral(f); math.Abs(got-1) > 1e-6 {
			t.Errorf("%s: integral %v", name, got)
		}
	}
}

// TestFitStops is issue 25, item 4: a fit stops with its context's error
// — cancelled before it starts, or during its restarts — and returns no
// result; with a context that is not done the result is the same as ever
// (the golden and scikit-learn tests check that).
func TestFitStops(t *testing.T) {
	x, y := smooth(2, 150, 3, 0.1) // no subset: every restart a full climb
	done, cancel := context.WithCancel(context.Background())
	cancel()
	if res, err := Fit(done, x, y, nil, Options{Kernel: "matern52", Restarts: 4, Seed: 1}); !errors.Is(err, context.Canceled) || res.Spec.Kernel != "" {
		t.Errorf("a cancelled context: %+v, %v; want context.Canceled and no result", res.Spec, err)
	}
	// Cancelled from within: at the first evaluations of the optimizer.
	mid, stop := context.WithCancel(context.Background())
	calls := 0
	fitTestHook = func() {
		if calls++; calls == 2 {
			stop()
		}
	}
	defer func() { fitTestHook = nil }()
	res, err := Fit(mid, x, y, nil, Options{Kernel: "matern52", ARD: true, Restarts: 4, Seed: 1, Workers: 1})
	if !errors.Is(err, context.Canceled) || res.Spec.Kernel != "" {
		t.Errorf("cancelled during the fit: %+v, %v; want context.Canceled and no result", res.Spec, err)
	}
	t.Logf("%d evaluations after the cancel", calls-2)
	if calls > 2+3 {
		t.Errorf("%d evaluations after the cancel at the 2nd: the optimizer did not stop at its next iteration", calls-2)
	}
}

// TestLengthscaleCaps: MaxLengthscale bounds every fitted lengthscale,
// RangeLengthscale by that multiple of the span of the points (the
// diagonal's without ARD) but never below RangeFloor; data that want a
// long lengthscale (a gentle slope over a short span, fitted uncapped
// above 0.5) end at most at the cap. Points all at one place (a seed
// measured again and again) say nothing of the lengthscale: the fit
// returns about the prior's median for a span of 1, half the cap that
// span sets — 0.125 for a range cap of a quarter (never below its
// floor), 0.15 for MaxLengthscale 0.3 — which sets how far a study first
// steps from its seed (newScales). Tolerance 1e-6: the optimizer stops
// there on a likelihood flat in the lengthscale.
func TestLengthscaleCaps(t *testing.T) {
	t.Parallel()
	var x [][]float64
	var y []float64
	for k := range 12 {
		u := 0.2 * float64(k) / 11
		x = append(x, []float64{0.4 + u, 0.5})
		y = append(y, 1+0.5*u+0.01*math.Sin(37*float64(k)))
	}
	seed := [][]float64{{0.3, 0.05}, {0.3, 0.05}, {0.3, 0.05}, {0.3, 0.05}}
	ys := []float64{1.02, 0.97, 1.01, 0.99}
	base := Options{Kernel: "matern52", Restarts: 4, Seed: 1}
	with := func(f func(*Options)) Options { o := base; f(&o); return o }
	uncapped, err := Fit(context.Background(), x, y, nil, base)
	if err != nil {
		t.Fatal(err)
	}
	if l := uncapped.Spec.Lengthscale[0]; !(l > 0.5) {
		t.Fatalf("uncapped lengthscale %v, not above 0.5: the data do not test the caps", l)
	}
	for _, c := range []struct {
		name    string
		x       [][]float64
		y       []float64
		opt     Options
		max, eq float64 // the cap each lengthscale keeps below (1e-9 relative), or what it is (1e-6)
	}{
		{"max 0.1", x, y, with(func(o *Options) { o.MaxLengthscale = 0.1 }), 0.1, 0},
		{"a quarter of the span 0.2, floor 0.01", x, y, with(func(o *Options) { o.RangeLengthscale, o.RangeFloor = 0.25, 0.01 }), 0.05, 0},
		{"a quarter of the span, floor 0.1", x, y, with(func(o *Options) { o.RangeLengthscale, o.RangeFloor = 0.25, 0.1 }), 0.1, 0},
		{"ARD, a quarter of each span, floor 0.1", x, y, with(func(o *Options) { o.ARD, o.RangeLengthscale, o.RangeFloor = true, 0.25, 0.1 }), 0.1, 0},
		{"one point, range cap", seed, ys, with(func(o *Options) { o.RangeLengthscale, o.RangeFloor = 0.25, 0.1 }), 0, 0.125},
		{"one point, range cap, ARD", seed, ys, with(func(o *Options) { o.ARD, o.RangeLengthscale, o.RangeFloor = true, 0.25, 0.1 }), 0, 0.125},
		{"one point, a floor above a quarter", seed, ys, with(func(o *Options) { o.RangeLengthscale, o.RangeFloor = 0.25, 0.4 }), 0, 0.2},
		{"one point, max 0.3", seed, ys, with(func(o *Options) { o.MaxLengthscale = 0.3 }), 0, 0.15},
	} {
		res, err := Fit(context.Background(), c.x, c.y, nil, c.opt)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for j, l := range res.Spec.Lengthscale {
			if c.eq > 0 && !(math.Abs(l-c.eq) <= 1e-6*c.eq) || c.max > 0 && !(l <= c.max*(1+1e-9)) {
				t.Errorf("%s: lengthscale[%d] = %v, want at most %v or %v", c.name, j, l, c.max, c.eq)
			}
		}
	}
}
