package study_test

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/safegp/safegp/internal/racetest"
	"github.com/safegp/safegp/kernel"
	"github.com/safegp/safegp/space"
	"github.com/safegp/safegp/study/api"
)

// plant simulates a PI controller (gain kp, integral gain ki) closing the
// loop around a second-order process with dead time, K/((τ1 s+1)(τ2 s+1))
// e^{−θs}, after a unit step of the setpoint: the settling time (the
// last time the output is 2 % away from the setpoint, within 200 s) and
// the overshoot (the output's peak above the setpoint, negative while it
// stays below it; at most 5: an unstable loop is cut there).
func plant(kp, ki float64) (settle, overshoot float64) {
	settle, overshoot, _ = loop(kp, ki, 0, 1.5, 2, 0.5, 0.3)
	return settle, overshoot
}

// loop is plant's simulation for the process K, τ1, τ2, θ, with a
// derivative gain kd acting on the measurement (a PID controller); it
// also returns the control effort, the largest |u|.
func loop(kp, ki, kd, K, tau1, tau2, theta float64) (settle, overshoot, effort float64) {
	const dt = 0.005
	var integ, prev float64
	settle, overshoot, _ = stepResponse(K, tau1, tau2, theta, dt, 200, func(_ int, y float64) float64 {
		e := 1 - y
		integ += e * dt
		u := kp*e + ki*integ - kd*(y-prev)/dt
		prev = y
		effort = max(effort, math.Abs(u))
		return u
	})
	return settle, overshoot, effort
}

// loopIAE is loop's process under a PI controller scored as issue 42's
// engineer scored theirs: the integral of the absolute error over 60 s,
// the control effort (the largest |u|) and the overshoot.
func loopIAE(kp, ki float64) (iae, effort, overshoot float64) {
	const dt = 0.005
	var integ float64
	_, overshoot, _ = stepResponse(1.5, 2, 0.5, 0.3, dt, 60, func(_ int, y float64) float64 {
		e := 1 - y
		integ += e * dt
		iae += math.Abs(e) * dt
		u := kp*e + ki*integ
		effort = max(effort, math.Abs(u))
		return u
	})
	return iae, effort, overshoot
}

// stepResponse simulates the process K e^{−θs}/((τ1 s+1)(τ2 s+1)) from
// rest, with time step dt until tEnd, under the input control(k, y)
// gives at step k with output y: the settling time (the last time the
// output is 2 % away from the setpoint 1) and the overshoot (the peak
// above 1, at most 5), or tEnd, 5 and diverged when |y| passes 6.
func stepResponse(K, tau1, tau2, theta, dt, tEnd float64, control func(k int, y float64) float64) (settle, overshoot float64, diverged bool) {
	delay := int(theta / dt)
	buf := make([]float64, delay+1) // the input, delayed
	var x1, x2, peak float64
	n := int(tEnd / dt)
	for k := 0; k < n; k++ {
		y := x2
		buf[k%(delay+1)] = control(k, y)
		ud := buf[(k+1)%(delay+1)]
		// x1' = (K·u − x1)/τ1, x2' = (x1 − x2)/τ2
		x1 += dt * (K*ud - x1) / tau1
		x2 += dt * (x1 - x2) / tau2
		peak = max(peak, y)
		if math.Abs(y-1) > 0.02 {
			settle = float64(k+1) * dt
		}
		if math.Abs(y) > 6 || math.IsNaN(y) {
			return tEnd, 5, true
		}
	}
	return settle, min(peak-1, 5), false
}

// plantExample is the controller of issue 26's example study: a PI or
// PID controller of gain kp, with its integral time at the process's
// first lag (Ti = τ1) and, for pid, its derivative time at the second
// (Td = τ2), acting on the measurement through a first-order filter of
// time constant 0.02·filter s, around plant's process. It returns the
// settling time (within 100 s), the overshoot and the loop's gain margin
// in dB (−20 log10 |L(jω)| where the phase of L first reaches −180°;
// −20 for a loop that diverges, 60 where the phase never gets there).
func plantExample(kp float64, filter int, pid bool) (settle, overshoot, marginDB float64) {
	const (
		K, tau1, tau2, theta = 1.5, 2.0, 0.5, 0.3
		dt, tEnd             = 0.002, 100.0
	)
	ti, td, tf := tau1, 0.0, 0.02*float64(filter)
	if pid {
		td = tau2
	}
	var yf, integ, prev float64
	settle, overshoot, diverged := stepResponse(K, tau1, tau2, theta, dt, tEnd, func(k int, y float64) float64 {
		yf += dt * (y - yf) / tf
		e := 1 - yf
		integ += e * dt
		d := 0.0 // derivative on the filtered measurement
		if k > 0 {
			d = (yf - prev) / dt
		}
		prev = yf
		return kp * (e + integ/ti - td*d)
	})
	if diverged {
		return settle, overshoot, -20
	}
	// L(jω) = C(jω)·F(jω)·G(jω), C = kp(1 + 1/(jωTi) + jωTd).
	phase := func(w float64) float64 {
		return math.Atan2(w*ti, 1-w*w*ti*td) - math.Pi/2 - math.Atan(w*tf) - math.Atan(w*tau1) - math.Atan(w*tau2) - w*theta
	}
	gain := func(w float64) float64 {
		return kp * math.Hypot(1-w*w*ti*td, w*ti) / (w * ti) * K / math.Hypot(1, w*tf) / math.Hypot(1, w*tau1) / math.Hypot(1, w*tau2)
	}
	for w := 1e-3; w < 1e3; w *= 1.01 {
		if phase(w) > -math.Pi {
			continue
		}
		a, b := w/1.01, w
		for range 60 {
			if m := (a + b) / 2; phase(m) <= -math.Pi {
				b = m
			} else {
				a = m
			}
		}
		return settle, overshoot, -20 * math.Log10(gain(b))
	}
	return settle, overshoot, 60
}

// loopMixed is loop's process under a PI or PID controller (gains kp,
// ki, and kd for pid) acting on the measurement through a first-order
// filter of time constant 0.05·filter s: a slower filter lags the loop
// and overshoots more. It returns the settling time (within 200 s) and
// the overshoot.
func loopMixed(kp, ki, kd float64, filter int, pid bool) (settle, overshoot float64) {
	const dt = 0.005
	if !pid {
		kd = 0
	}
	tf := 0.05 * float64(filter)
	var yf, integ, prev float64
	settle, overshoot, _ = stepResponse(1.5, 2, 0.5, 0.3, dt, 200, func(k int, y float64) float64 {
		yf += dt * (y - yf) / tf
		e := 1 - yf
		integ += e * dt
		d := 0.0
		if k > 0 {
			d = (yf - prev) / dt
		}
		prev = yf
		return kp*e + ki*integ - kd*d
	})
	return settle, overshoot
}

// A tuneCase is a controller tuned from one safe setting in raw units.
type tuneCase struct {
	spec string
	// measure runs the system at a setting: the outcomes' values
	// (noiseless) and whether they keep every limit.
	measure func(space.Setting) (map[string]float64, bool)
	// noise are the outcomes in the order their noise is drawn, each
	// with its noise: relative (a fraction of the value) or absolute.
	noise []tuneNoise
	// objective is the outcome minimized, "" for settle_time.
	objective string
	// trials is the study's trials, 0 for 60.
	trials int
	// maximize: the objective is maximized (its values are negated
	// where the suite compares them: best, optimum, seed).
	maximize bool
	// optimum, if not 0, is the objective's best value known (a
	// benchmark's), in place of the grid's or random settings' best.
	optimum float64
}

// value is the objective's value at vals as the suite minimizes it.
func (c *tuneCase) value(vals map[string]float64) float64 {
	v := vals[cmp.Or(c.objective, "settle_time")]
	if c.maximize {
		return -v
	}
	return v
}

type tuneNoise struct {
	name     string
	std      float64
	relative bool
}

const piSpec = `
parameters:
  - {name: kp, low: 0.05, high: 20, scale: log}
  - {name: ki, low: 0.01, high: 10, scale: log}
objective: {name: settle_time, goal: minimize}
constraints:
  - {name: overshoot, max: 0.05}
seeds: [{kp: 0.3, ki: 0.05}]
horizon: 60
seed: 1
`

// exampleSpec is issue 26's example study, with outcomes its plant has.
const exampleSpec = `
parameters:
  - {name: kp, low: 0.05, high: 20, scale: log}
  - {name: filter, type: int, low: 1, high: 8}
  - {name: mode, type: choice, values: [pi, pid]}
objective: {name: settle_time, goal: minimize}
constraints:
  - {name: overshoot, max: 0.02}
  - {name: margin_db, min: 6}
seeds: [{kp: 0.2, filter: 2, mode: pi}]
horizon: 60
seed: 1
`

// piIAESpec is issue 42's PI loop (BenchmarkTuneControllers/pi-iae).
const piIAESpec = `
parameters:
  - {name: kp, low: 0.05, high: 20, scale: log}
  - {name: ki, low: 0.01, high: 10, scale: log}
objective: {name: iae, goal: minimize}
constraints:
  - {name: effort, max: 1.6}
seeds: [{kp: 0.3, ki: 0.05}]
horizon: 60
seed: 1
`

// piMeasure and piNoise are the pi plant's (TestTuneController).
func piMeasure(p space.Setting) (map[string]float64, bool) {
	s, o := plant(p["kp"].Num, p["ki"].Num)
	return map[string]float64{"settle_time": s, "overshoot": o}, o <= 0.05
}

var piNoise = []tuneNoise{{"settle_time", 0.01, true}, {"overshoot", 0.002, false}}

var tuneCases = map[string]tuneCase{
	"pi": {spec: piSpec, measure: piMeasure, noise: piNoise},
	"example": {spec: exampleSpec,
		measure: func(p space.Setting) (map[string]float64, bool) {
			s, o, m := plantExample(p["kp"].Num, int(p["filter"].Num), p["mode"].Str == "pid")
			return map[string]float64{"settle_time": s, "overshoot": o, "margin_db": m}, o <= 0.02 && m >= 6
		},
		noise: []tuneNoise{{"settle_time", 0.01, true}, {"overshoot", 0.002, false}, {"margin_db", 0.1, false}}},
	// A slower process with a longer dead time, a 10 % overshoot limit.
	"pi-slow": {spec: `
parameters:
  - {name: kp, low: 0.01, high: 10, scale: log}
  - {name: ki, low: 0.001, high: 2, scale: log}
objective: {name: settle_time, goal: minimize}
constraints:
  - {name: overshoot, max: 0.1}
seeds: [{kp: 0.1, ki: 0.01}]
horizon: 60
seed: 1
`, measure: func(p space.Setting) (map[string]float64, bool) {
		s, o, _ := loop(p["kp"].Num, p["ki"].Num, 0, 2, 5, 1, 1)
		return map[string]float64{"settle_time": s, "overshoot": o}, o <= 0.1
	},
		noise: []tuneNoise{{"settle_time", 0.01, true}, {"overshoot", 0.002, false}}},
	// A PID controller: three floats, so the study searches the box
	// with line-bo; its optimum is the best of 4 000 random settings.
	"pid": {spec: `
parameters:
  - {name: kp, low: 0.05, high: 20, scale: log}
  - {name: ki, low: 0.01, high: 10, scale: log}
  - {name: kd, low: 0.001, high: 2, scale: log}
objective: {name: settle_time, goal: minimize}
constraints:
  - {name: overshoot, max: 0.05}
seeds: [{kp: 0.3, ki: 0.05, kd: 0.01}]
horizon: 60
seed: 1
`, measure: func(p space.Setting) (map[string]float64, bool) {
		s, o, _ := loop(p["kp"].Num, p["ki"].Num, p["kd"].Num, 1.5, 2, 0.5, 0.3)
		return map[string]float64{"settle_time": s, "overshoot": o}, o <= 0.05
	},
		noise: []tuneNoise{{"settle_time", 0.01, true}, {"overshoot", 0.002, false}}},
	// pi from a more cautious seed, (0.1, 0.02): 0.18 and 0.13 of the
	// cube further from the optimum, which the study must walk.
	"pi-far": {spec: strings.Replace(piSpec, "seeds: [{kp: 0.3, ki: 0.05}]", "seeds: [{kp: 0.1, ki: 0.02}]", 1),
		measure: piMeasure, noise: piNoise},
	// pi with kp and ki on linear scales over the same ranges
	// (TestTuneLinearScale); its optimum is the linear grid's.
	"pi-linear": {spec: strings.ReplaceAll(piSpec, ", scale: log", ""), measure: piMeasure, noise: piNoise},
	// pi with an int among its parameters, the measurement filter: 3
	// numeric parameters, searched on their box at its lattice's points.
	"pi-int": {spec: `
parameters:
  - {name: kp, low: 0.05, high: 20, scale: log}
  - {name: ki, low: 0.01, high: 10, scale: log}
  - {name: filter, type: int, low: 1, high: 8}
objective: {name: settle_time, goal: minimize}
constraints:
  - {name: overshoot, max: 0.05}
seeds: [{kp: 0.3, ki: 0.05, filter: 4}]
horizon: 60
seed: 1
`, measure: func(p space.Setting) (map[string]float64, bool) {
		s, o := loopMixed(p["kp"].Num, p["ki"].Num, 0, int(p["filter"].Num), false)
		return map[string]float64{"settle_time": s, "overshoot": o}, o <= 0.05
	},
		noise: []tuneNoise{{"settle_time", 0.01, true}, {"overshoot", 0.002, false}}},
	// A PI or PID controller with the filter: 3 floats, an int and a
	// choice, one seed per choice value, 80 trials.
	"pid-mixed": {spec: `
parameters:
  - {name: kp, low: 0.05, high: 20, scale: log}
  - {name: ki, low: 0.01, high: 10, scale: log}
  - {name: kd, low: 0.001, high: 2, scale: log}
  - {name: filter, type: int, low: 1, high: 8}
  - {name: mode, type: choice, values: [pi, pid]}
objective: {name: settle_time, goal: minimize}
constraints:
  - {name: overshoot, max: 0.05}
seeds: [{kp: 0.3, ki: 0.05, kd: 0.01, filter: 4, mode: pi}, {kp: 0.3, ki: 0.05, kd: 0.01, filter: 4, mode: pid}]
horizon: 80
seed: 1
`, measure: func(p space.Setting) (map[string]float64, bool) {
		s, o := loopMixed(p["kp"].Num, p["ki"].Num, p["kd"].Num, int(p["filter"].Num), p["mode"].Str == "pid")
		return map[string]float64{"settle_time": s, "overshoot": o}, o <= 0.05
	},
		noise: []tuneNoise{{"settle_time", 0.01, true}, {"overshoot", 0.002, false}}, trials: 80},
	// issue 42's PI loop: the integral of the absolute error (IAE,
	// within 60 s) minimized with the actuator's peak at most 1.6,
	// binding at the optimum (IAE 1.50 at kp 1.31, ki 0.53 on the grid),
	// from a seed 8.6 times it.
	"pi-iae": {spec: piIAESpec, measure: func(p space.Setting) (map[string]float64, bool) {
		iae, u, _ := loopIAE(p["kp"].Num, p["ki"].Num)
		return map[string]float64{"iae": iae, "effort": u}, u <= 1.6
	},
		noise: []tuneNoise{{"iae", 0.01, true}, {"effort", 0.01, true}}, objective: "iae"},
	// pi-iae with the overshoot at most 10 % too.
	"pi-iae-overshoot": {spec: strings.Replace(piIAESpec, "  - {name: effort, max: 1.6}\n", "  - {name: effort, max: 1.6}\n  - {name: overshoot, max: 0.1}\n", 1), measure: func(p space.Setting) (map[string]float64, bool) {
		iae, u, o := loopIAE(p["kp"].Num, p["ki"].Num)
		return map[string]float64{"iae": iae, "effort": u, "overshoot": o}, u <= 1.6 && o <= 0.1
	},
		noise: []tuneNoise{{"iae", 0.01, true}, {"effort", 0.01, true}, {"overshoot", 0.002, false}}, objective: "iae"},
	// pi-iae with a limit on the objective too, the IAE at most 15 (the
	// seed's 12.9): f ≥ h_f a safety condition (study/defaults' objectiveVarianceFloor).
	"pi-iae-max": {spec: strings.Replace(piIAESpec, "goal: minimize}", "goal: minimize, max: 15}", 1), measure: func(p space.Setting) (map[string]float64, bool) {
		iae, u, _ := loopIAE(p["kp"].Num, p["ki"].Num)
		return map[string]float64{"iae": iae, "effort": u}, u <= 1.6 && iae <= 15
	},
		noise: []tuneNoise{{"iae", 0.01, true}, {"effort", 0.01, true}}, objective: "iae"},
	// pi with its settling time at most 70 s (the seed's 62 s): an
	// objective's limit that the search moves away from.
	"pi-settle-max": {spec: strings.Replace(piSpec, "goal: minimize}", "goal: minimize, max: 70}", 1), measure: func(p space.Setting) (map[string]float64, bool) {
		s, o := plant(p["kp"].Num, p["ki"].Num)
		return map[string]float64{"settle_time": s, "overshoot": o}, o <= 0.05 && s <= 70
	}, noise: piNoise},
	// pi with a second limit, on the control effort, binding at the
	// optimum too.
	"pi-effort": {spec: piSpec[:len(piSpec)-len("seeds: [{kp: 0.3, ki: 0.05}]\nhorizon: 60\nseed: 1\n")] + `  - {name: effort, max: 0.9}
seeds: [{kp: 0.3, ki: 0.05}]
horizon: 60
seed: 1
`, measure: func(p space.Setting) (map[string]float64, bool) {
		s, o, u := loop(p["kp"].Num, p["ki"].Num, 0, 1.5, 2, 0.5, 0.3)
		return map[string]float64{"settle_time": s, "overshoot": o, "effort": u}, o <= 0.05 && u <= 0.9
	},
		noise: []tuneNoise{{"settle_time", 0.01, true}, {"overshoot", 0.002, false}, {"effort", 0.01, true}}},
}

// tuneRun is one tuning: the trials that broke a limit (the first, and
// how many), the best safe settling time measured, and the grid's.
type tuneRun struct {
	first, violations int
	// stopped is the trial at which the study had no safe setting left
	// to ask (api.ErrNoSafeSetting: every seed measured unsafe, nothing
	// else certified), −1 when it asked every trial.
	stopped int
	best    float64
	notes   []string  // the summary's after the last trial
	trace   []float64 // the best safe value after each trial
}

// tune tunes case c through the study's defaults for 60 trials with
// noise realization ns; logf, if not nil, gets each trial. TUNE_EXTRA,
// if set, is appended to the spec, to measure other settings than the
// defaults (docs/fitting.md's alternatives: model: {fit: {…}}).
func tune(tb testing.TB, c tuneCase, ns int, logf func(string, ...any)) tuneRun {
	tb.Helper()
	ctx := context.Background()
	v, st := newService(tb, filepath.Join(tb.TempDir(), fmt.Sprintf("tune%d.db", ns)))
	defer st.Close()
	if err := v.Create(ctx, "c", resolved(tb, c.spec+os.Getenv("TUNE_EXTRA"))); err != nil {
		tb.Fatal(err)
	}
	r := tuneRun{first: -1, stopped: -1, best: math.Inf(1)}
	rng := rand.New(rand.NewPCG(3, 4+uint64(ns)))
	for trial := range cmp.Or(c.trials, 60) {
		a, err := v.Ask(ctx, "c")
		if errors.Is(err, api.ErrNoSafeSetting) {
			// A user's study ends here too: the best so far stands.
			r.stopped = trial
			if logf != nil {
				logf("trial %2d: %v", trial, err)
			}
			break
		}
		if err != nil {
			tb.Fatalf("trial %d: %v", trial, err)
		}
		vals, safe := c.measure(a.Params)
		if safe {
			r.best = min(r.best, c.value(vals))
		} else {
			r.violations++
			if r.first < 0 {
				r.first = trial
			}
		}
		r.trace = append(r.trace, r.best)
		if logf != nil {
			logf("trial %2d: %v: %v safe %v best %.2f", trial, a.Params, vals, safe, r.best)
		}
		for _, n := range c.noise {
			if n.relative {
				vals[n.name] *= 1 + n.std*rng.NormFloat64()
			} else {
				vals[n.name] += n.std * rng.NormFloat64()
			}
		}
		id := a.Ask
		if _, err := v.Tell(ctx, "c", &api.TellRequest{Ask: &id, Values: vals}); err != nil {
			tb.Fatalf("trial %d: %v", trial, err)
		}
	}
	sum, err := v.Show(ctx, "c")
	if err != nil {
		tb.Fatal(err)
	}
	r.notes = sum.Notes
	if logf != nil && sum.Model != nil {
		for i, k := range append([]kernel.Spec{*sum.Model.Objective}, sum.Model.Constraints...) {
			logf("kernel %d: lengthscale %v variance %v noise %v", i, k.Lengthscale, *k.Variance, *k.NoiseStd)
		}
	}
	return r
}

// gridOptimum is the best settling time among the candidates of case
// name's study that keep every limit (a box's: among 4 000 random
// settings).
func gridOptimum(tb testing.TB, name string) float64 {
	tb.Helper()
	c := tuneCases[name]
	if c.optimum != 0 {
		if c.maximize {
			return -c.optimum
		}
		return c.optimum
	}
	sp, err := space.New(resolved(tb, c.spec).Spec.Parameters)
	if err != nil {
		tb.Fatal(err)
	}
	_, sets, err := sp.Candidates()
	if errors.Is(err, space.ErrInvalid) { // a box: random settings
		rng := rand.New(rand.NewPCG(1, 2))
		x := make([]float64, sp.Dim())
		for range 4000 {
			for j := range x {
				x[j] = rng.Float64()
			}
			sets = append(sets, sp.Decode(x))
		}
	} else if err != nil {
		tb.Fatal(err)
	}
	best := math.Inf(1)
	for _, set := range sets {
		if vals, safe := c.measure(set); safe {
			best = min(best, c.value(vals))
		}
	}
	return best
}

// seedValue is the best settling time among case name's seeds that keep
// every limit, noiseless.
func seedValue(tb testing.TB, name string) float64 {
	tb.Helper()
	c := tuneCases[name]
	best := math.Inf(1)
	for _, set := range resolved(tb, c.spec).Spec.Seeds {
		if vals, safe := c.measure(set); safe {
			best = min(best, c.value(vals))
		}
	}
	return best
}

// TestTuneController is issue 26's end-to-end case: a PI controller tuned
// from one safe setting in raw units (kp and ki on log scales, the
// settling time minimized with the overshoot at most 5 %), through the
// study's defaults, 60 trials with noisy measurements: no trial may
// overshoot, and the best settling time found must come within 25 % of
// the best among the candidates that keep the limit (3.17 s at kp ≈
// 0.76, ki ≈ 0.35 on the 100 × 100 grid).
//
// It runs noise realizations 5 and 10 (TUNE_NOISE picks another). On the
// 51 × 51 grid used before (space.Candidates) realization 5 stalled at
// 7.61 s. Realization 10 overshot (5.6 %, at trial 27) before the
// constraints' kernel variance had its floor (study/defaults' varianceFloor): the
// overshoot jumps from 0.002 to 0.056 between settings 0.03 apart in the
// cube, next to the optimum, and a variance fitted at 0.26 made the model
// sure of the edge. BenchmarkTuneControllers measures all 48
// realizations (docs/fitting.md): none overshoots, and 31 come within
// 25 %. Issue 26's target (no violation in 60 trials, and tuned) is
// therefore not met on every realization; this test holds two it is met
// on.
func TestTuneController(t *testing.T) {
	tuneTest(t, "pi", []int{5, 10})
}

// TestTuneExample tunes issue 26's own example study — kp on a log
// scale, an int filter, a choice of pi or pid, the overshoot at most 2 %
// and the gain margin at least 6 dB — from its one seed, on
// plantExample, with the same bar as TestTuneController. On the 51 × 51
// grid's allocation (36 values of kp for every filter and mode) every one
// of 48 realizations stalled at the seed; now each of the 48 keeps both
// limits and comes within 25 % (BenchmarkTuneControllers).
func TestTuneExample(t *testing.T) {
	tuneTest(t, "example", []int{0, 1})
}

// TestTuneLinearScale is TestTuneController's plant with kp and ki on
// linear scales over the same ranges: the seed (0.3, 0.05) lies in the
// first 1.3 % and 0.4 % of them, each candidate step changes a gain by
// 67 % or 200 % of the seed's, and the study stalls near the seed; its
// summary then names both parameters and the log scale
// (space.Space.Hints, docs/limits.md has the measurement).
func TestTuneLinearScale(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("60 trials with fits")
	}
	racetest.Long(t, "60 trials of a simulated plant with fits take 9 s")
	r := tune(t, tuneCases["pi-linear"], 0, nil)
	notes := strings.Join(r.notes, "\n")
	for _, want := range []string{"the safe set has not grown", "kp runs from 0.05 to 20 on a linear scale", "ki runs from 0.01 to 10 on a linear scale", "scale: log"} {
		if !strings.Contains(notes, want) {
			t.Errorf("summary notes %q lack %q", r.notes, want)
		}
	}
	if r.violations > 0 {
		t.Errorf("%d trials broke the limit", r.violations)
	}
}

func tuneTest(t *testing.T, name string, noises []int) {
	if testing.Short() {
		t.Skip("60 trials with fits")
	}
	racetest.Long(t, "the plants' simulations take 88 s")
	if e := os.Getenv("TUNE_NOISE"); e != "" {
		n, err := strconv.Atoi(e)
		if err != nil {
			t.Fatalf("TUNE_NOISE: %v", err)
		}
		noises = []int{n}
	}
	opt := gridOptimum(t, name)
	for _, ns := range noises {
		t.Run(fmt.Sprintf("noise%d", ns), func(t *testing.T) {
			r := tune(t, tuneCases[name], ns, t.Logf)
			t.Logf("best found %.3f s, grid optimum %.3f s", r.best, opt)
			if r.violations > 0 {
				t.Errorf("%d trials broke a limit, the first trial %d", r.violations, r.first)
			}
			if r.best > 1.25*opt {
				t.Errorf("best settling time %.3f s after 60 trials, the grid's optimum %.3f s", r.best, opt)
			}
		})
	}
}

// BenchmarkTuneControllers measures the defaults of a study stated in
// parameters on every tuneCase — the simulated controllers and the
// public problems of tune_public_test.go — over 48 noise realizations
// (TUNE_REALIZATIONS sets another count; TUNE_EXTRA is appended to each
// spec, to measure another setting than the defaults). Run it with
// -benchtime 1x: about 15 minutes on 2 cores. Per plant: the share of
// realizations with a trial that broke a limit (violated); the share
// within 25 % of the optimum (tuned; the gap (best − optimum)/|optimum|
// at most 0.25, on the objective as minimized) and with both no
// violation and tuned (both: issue 26's bar); the median gap; the median
// of the way from the best seed to the optimum the study went, (seed −
// best)/(seed − optimum), with the share that went 80 % of it (issue 42's
// bar); the median number of trials to a gap of 10 % (the horizon + 1
// when never); and the share with a gap of at most 15 % after 40 trials
// (issue 42's bar for a 2-gain PI loop); and the share that stopped
// before the horizon with no safe setting left to ask (every seed
// measured beyond a limit once, by the noise: api.ErrNoSafeSetting).
// docs/tuning.md has the figures.
func BenchmarkTuneControllers(b *testing.B) {
	realizations := 48
	if e := os.Getenv("TUNE_REALIZATIONS"); e != "" {
		n, err := strconv.Atoi(e)
		if err != nil || n < 1 {
			b.Fatalf("TUNE_REALIZATIONS %q: want a count ≥ 1", e)
		}
		realizations = n
	}
	names := make([]string, 0, len(tuneCases))
	for name := range tuneCases {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		b.Run(name, func(b *testing.B) {
			opt := gridOptimum(b, name)
			start := seedValue(b, name)
			for range b.N {
				var violated, tuned, both, far, at40, stopped int
				// gap is how far a value is from the optimum, relative to
				// it: best/optimum − 1 for a positive objective minimized,
				// 1 − best/optimum for a positive one maximized.
				gap := func(v float64) float64 { return (v - opt) / math.Abs(opt) }
				gaps := make([]float64, realizations)
				ways := make([]float64, realizations)
				reach := make([]float64, realizations)
				for ns := range realizations {
					r := tune(b, tuneCases[name], ns, nil)
					// The trials to come within 10 % of the optimum
					// (issue 42's measure), one past the horizon if never.
					reach[ns] = float64(cmp.Or(tuneCases[name].trials, 60) + 1)
					if k := slices.IndexFunc(r.trace, func(v float64) bool { return gap(v) <= 0.1 }); k >= 0 {
						reach[ns] = float64(k + 1)
					}
					if r.stopped >= 0 {
						stopped++
					}
					// A study that stopped keeps its best so far.
					if n := len(r.trace); n > 0 && gap(r.trace[min(39, n-1)]) <= 0.15 {
						at40++
					}
					gaps[ns] = gap(r.best)
					ways[ns] = (start - r.best) / (start - opt)
					if ways[ns] >= 0.8 {
						far++
					}
					ok := gaps[ns] <= 0.25
					if r.violations > 0 {
						violated++
					}
					if ok {
						tuned++
					}
					if ok && r.violations == 0 {
						both++
					}
				}
				b.ReportMetric(float64(violated)/float64(realizations), "violated")
				b.ReportMetric(float64(tuned)/float64(realizations), "tuned")
				b.ReportMetric(float64(both)/float64(realizations), "both")
				slices.Sort(gaps)
				b.ReportMetric(gaps[realizations/2], "gap")
				slices.Sort(ways)
				b.ReportMetric(ways[realizations/2], "way")
				b.ReportMetric(float64(far)/float64(realizations), "way≥0.8")
				slices.Sort(reach)
				b.ReportMetric(reach[realizations/2], "trials-to-10%")
				b.ReportMetric(float64(at40)/float64(realizations), "15%-at-40")
				b.ReportMetric(float64(stopped)/float64(realizations), "stopped")
			}
		})
	}
}
