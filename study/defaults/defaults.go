package defaults

import (
	"math"

	"github.com/safegp/safegp/bandit"
	"github.com/safegp/safegp/config"
	"github.com/safegp/safegp/kernel"
	"github.com/safegp/safegp/space"
)

// The defaults (Model, Search): kernels on
// the unit cube, for data the transform gives a second moment of 1.
const (
	// lengthscale is each parameter's share of the cube a kernel
	// correlates over before the first fit. A fit needs two distinct
	// settings, and until one is made this is the model: at the range
	// floor, 0.1 (with T′ = 2), all 48 realizations of
	// BenchmarkTuneControllers/pi-slow stayed at their seed — no
	// neighbour on its grid was certified, so no fit could ever be made
	// — where at 0.2 none did.
	lengthscale = 0.2
	noise       = 0.1  // σ in the transform's units: a tenth of the data's spread about the limit
	delta       = 0.05 // δ of β's schedule
	// rangeLengthscale and baseRangeFloor bound the fitted
	// lengthscale by a quarter of the span of the settings measured so
	// far, and never below a tenth of the cube for up to two numeric
	// parameters (RangeFloor beyond; fit.Options.RangeLengthscale): a
	// constraint measured only where it is flat would otherwise be
	// fitted flat, and its safe set spread far beyond the data. Chosen on TestTuneController's plant over 48 noise
	// seeds (docs/fitting.md): on the 51 × 51 grid used then, a cap of
	// 0.25 spans overshot in 1 of them and came within 25 % of the
	// optimum in 25, 0.5 spans in 10 and 31; caps of 1 and 2 spans
	// overshot in 6 and 16 of the first 16. On today's 100 × 100 grid
	// (space.Candidates) a floor of 0.07 instead of 0.1 overshot as often
	// (6 of 48) and came within 25 % less often (23 against 31). Safety
	// first: a stalled study says so (its notes), an overshoot cannot be
	// taken back.
	rangeLengthscale = 0.25
	baseRangeFloor   = 0.1
	// objectiveVarianceFloor is f's variance floor when f ≥ h_f is
	// a safety condition (config.Fit.ObjectiveVarianceFloor): none. A
	// search drives f away from its threshold, so the second moment
	// about it that varianceFloor scales grows with the progress
	// made, and the floor shrank the certified steps as the study
	// succeeded. With the constraints' floor for f too,
	// BenchmarkTuneControllers/gp-sample-10 (f ≥ −0.5 its one condition)
	// went 0.70 of the way in 100 trials in realization 0 against 0.84
	// without (both with RangeFloor's scaling); over 48 realizations the
	// pi loop with its settling time at most 70 s (the seed's 62 s)
	// ended a median gap (best − optimum)/optimum of 17.1 against 0.67,
	// and issue 42's PI loop with its IAE at most 15 (the seed's 12.9)
	// came within 15 % after 40 trials in 0 against 58 %; no violation
	// either way. A seed 4 % below its
	// objective's limit, where one grid step moves f 6 %, broke the
	// limit in about a quarter of the realizations with or without it.
	objectiveVarianceFloor = 0.0
	// varianceFloor raises each constraint's fitted kernel variance
	// to at least 1, the second moment of its data about the limit as
	// the transform scales them (config.Fit.ConstraintVarianceFloor).
	// A constraint measured mostly where it is flat and safe (an
	// overshoot of 0 below its limit) was fitted with a variance near
	// 0.26: a prior that expects it to move a quarter as far as its
	// distance to the limit, sure of the edge where the loop turns
	// oscillatory. Over 48 realizations of BenchmarkTuneControllers's
	// pi, with the floor 0 of 48 overshot (6 without) and 31 came
	// within 25 % (31 without); over pi-slow 0 (1) and 29 (41), pi-effort
	// 0 (0) and 44 (48), example 0 and 48 either way. A floor of 0.5
	// let 2 pi realizations overshoot; a floor imposed inside the fit
	// (noise and lengthscale fitted under it) tuned fewer (pi 22,
	// pi-slow 24), as did raising the noise with the variance (29, 23).
	varianceFloor = 1.0
	// maxStep bounds line-bo's lines, in a study of three or more
	// floats, to 0.2 of the cube per coordinate from the best safe
	// setting (bandit.Spec.MaxStep), and the study keeps its line across
	// refits (keep_line). On the PID controller of
	// BenchmarkTuneControllers with neither, 45 of 48 realizations
	// overshot: each refit restarted line-bo on kp's line through the
	// best point, and a 1-D model fitted flat along it stepped over the
	// edge where the loop turns oscillatory; with keep_line alone 12
	// did, with both none (the median best settling time 5.6 times the
	// optimum, against 21 without keep_line).
	maxStep = 0.2
	// perCloud is the evaluations of each of line-bo's clouds on a
	// box study: one, a cloud drawn anew around the best safe setting at
	// every trial. Over 48 realizations of BenchmarkTuneControllers, with
	// one pi-int was tuned in 48 and pid-mixed in 36, with line-bo's
	// default of five in 43 and 31 (pid in none either way).
	perCloud = 1
	// exploration is SGP-UCB's T′ on a study's candidate grid:
	// phase 1 measures the seed, the one setting known safe, three
	// times. The replicates ground the first fit's noise: with T′ = 1,
	// 25 of 48 realizations of BenchmarkTuneControllers/pi-linear broke
	// the limit, with 2 or 3 none; 2 and 3 ask the same settings on the
	// log-scale plants (the third ask is the seed either way), and 3 is
	// what studies were created with before (docs/tuning.md).
	exploration = 3
	// cloudPointsPerDim is the points of each of line-bo's clouds per
	// parameter of a study's box, where that is more than line-bo's
	// 300 (bandit.Spec.Points; from seven parameters on): a cloud
	// changes up to 20 coordinates of the best safe point at a time, and
	// in more of them a fixed number of points leaves fewer good
	// certified ones to choose from. On GP samples stated as studies with
	// `{name: line-bo}` (16 draws each, issue 42's check; docs/LINEBO.md),
	// the share of the way at T with 300 points, 30 and 50 a coordinate:
	// d = 10, 0.836 / — / 0.826; d = 20, 0.861 / 0.867 / 0.869; d = 40,
	// 0.776 / 0.802 / 0.819; no violation. Over 48 realizations of
	// BenchmarkTuneControllers/gp-sample-10 (the default search, 500
	// points) the median way went 0.70 → 0.75 and the share within 25 %
	// of the optimum 29 → 52 %, no violation; every smaller box keeps
	// 300 (1 000 points on pid-mixed's 5 coordinates broke its limit in 1
	// of 48 realizations).
	cloudPointsPerDim = 50
	// objectiveBeta is the default study's β of the objective's
	// upper bound (model.objective_beta: √β = 3), the safe set keeping
	// the paper's schedule, with sgp-ucb's repeats rule "explore"
	// (bandit.Spec.Repeats). Over 48 realizations of
	// BenchmarkTuneControllers, the paper's β for both bounds tuned pi
	// in 65 %, pi-iae in 81 % (44 % within 15 % after 40 trials),
	// pi-iae-overshoot in 58 %, pid-mixed in 75 %; this default 77 %,
	// 100 % (83 %), 90 % and 85 %, with no violation either way, and
	// tnk in 38 % against 60 %. Objective β 4 without the repeats rule
	// broke pi-linear's limit in 5 of 48 (a path the model, wrong on
	// that plant, certified); 1 without it tuned pi in none of 24; and
	// without it one of the first 12 pi-iae realizations measured the
	// end of its walk along kp 40 times.
	// docs/tuning.md has the tables.
	objectiveBeta = 9.0
)

// Model fills in what a study stated in parameters over sp, with conds
// limits, leaves out of its model m: Matérn 5/2 kernels with one lengthscale per coordinate of
// the unit cube and variance 1 (the transform's scale), one per limit;
// σ, δ; and fits of the kernels and the transform on the schedule auto
// from the first observation (config.FitWhen.Auto). The fits are
// isotropic, one lengthscale for all coordinates: with ARD, each
// coordinate the study has not yet moved along is capped at the range
// floor, and the safe set grows along none of them
// (BenchmarkTuneControllers, docs/fitting.md). Each choice has a
// lengthscale of its own (space.Groups): two seeds that differ only in a
// choice and measure alike would otherwise fit one long lengthscale for
// all, certifying steps in the gains the data do not vouch for (issue 42:
// 43 of 48 realizations of BenchmarkTuneControllers/pid-mixed broke the
// limit with one lengthscale, none with the groups).
func Model(m *config.Model, sp *space.Space, conds int) {
	d := sp.Dim()
	k := func() kernel.Spec {
		v := 1.0
		ls := make(kernel.Lengthscale, d)
		for j := range ls {
			ls[j] = lengthscale
		}
		return kernel.Spec{Kernel: "matern52", Lengthscale: ls, Variance: &v}
	}
	if m.Objective == nil {
		o := k()
		m.Objective = &o
	}
	if m.Constraints == nil {
		m.Constraints = make([]kernel.Spec, conds)
		for i := range m.Constraints {
			m.Constraints[i] = k()
		}
	}
	if m.NoiseStd == nil {
		v := noise
		m.NoiseStd = &v
	}
	if m.Delta == nil {
		v := delta
		m.Delta = &v
	}
	if m.Fit == nil {
		one, rl, rf, vf, of := 1, rangeLengthscale, RangeFloor(sp.Numeric()), varianceFloor, objectiveVarianceFloor
		m.Fit = &config.Fit{When: &config.FitWhen{Auto: true}, MinPoints: &one, RangeLengthscale: &rl, RangeFloor: &rf,
			ConstraintVarianceFloor: &vf, ObjectiveVarianceFloor: &of, Groups: sp.Groups()}
	}
}

// RangeFloor is the floor of the fitted lengthscales' cap
// (config.Fit.RangeFloor) for a study of n numeric parameters:
// baseRangeFloor for up to two, and √(n/2) times it beyond. The numeric
// parameters share one isotropic lengthscale, and a step of the same
// size along each of n coordinates is √n times as long: at a floor of
// 0.1 of the cube, a 10-parameter study certified steps of 0.005 per
// coordinate and went 0.26 of the way to the optimum of a GP sample in
// 200 trials (issue 42). Dimension-scaled lengthscales are what
// high-dimensional BO has found to work (Hvarfner et al. 2024, a
// lengthscale prior whose median grows as √d); the floor only bounds the
// cap, so data that vary faster still fit a shorter lengthscale. Over
// 48 realizations of BenchmarkTuneControllers, with
// objectiveVarianceFloor: pi-int (3 numeric) within 15 % after 40
// trials in 75 % against 23 %, pid-mixed (4) tuned in 98 % against 85 %,
// no violation; with the constraints' variance floor lowered as well,
// pid-mixed broke its limit in 1 of 48, so that floor stays. The floor
// applies to every lengthscale group, each choice's too (0.14 on
// pid-mixed's choice). Measured up to n = 40 (0.45); space.MaxNames
// allows 64 (0.57), unmeasured.
func RangeFloor(n int) float64 {
	return baseRangeFloor * math.Sqrt(max(float64(n), 2)/2)
}

// Search resolves the algorithm of a study stated in parameters, alg,
// with its model m, over sp, on its box (beyond space.GridDims numeric
// parameters) or on its candidate set. With no algorithm named, the
// default search (issue 42): sgp-ucb measures what it knows again only
// while that teaches something, and chooses among the certified settings
// with f's bound at √β = objectiveBeta's root, unless the model states a
// β. A named algorithm runs as published. On a box, line-bo's clouds,
// with a finite-set algorithm named inside, of cloudPointsPerDim points a
// parameter where that is more than line-bo's own number and the study
// names none.
func Search(alg *bandit.Spec, m *config.Model, sp *space.Space, box bool) {
	if alg.Name == "" {
		if m.Beta == nil && m.ObjectiveBeta == nil {
			m.ObjectiveBeta = &bandit.Beta{Value: objectiveBeta}
		}
		if !box {
			n := exploration
			*alg = bandit.Spec{Name: bandit.SGPUCB, Phase1: "uncertainty", Exploration: bandit.Exploration{Fixed: &n}, Repeats: bandit.RepeatsExplore}
		} else {
			alg.Repeats = bandit.RepeatsExplore // for line-bo's inner sgp-ucb on the clouds
		}
	}
	if a, ok := bandit.Lookup(alg.Name); box && (alg.Name == "" || ok && !a.Box && a.OnLine) {
		*alg = alg.OnClouds(sp.Steps(maxStep), perCloud)
	}
	if box && alg.Name == bandit.LineBO && alg.Points == nil {
		// Per parameter, not per coordinate: a choice spans a coordinate
		// per value, and 64 choices of 64 values would ask for more
		// points than a cloud may hold (measured on floats only).
		if l, n := alg.LineOptions(), cloudPointsPerDim*len(sp.Params()); l.Direction == "cloud" && n > l.Points {
			alg.Points = &n
		}
	}
}
