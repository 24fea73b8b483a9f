package reproduce_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/safegp/safegp/experiment"
	"github.com/safegp/safegp/reproduce"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// T is the horizon of the constructed experiments: the near-linear rule
// compares R_T/T with R_50/50, so T ≥ 50.
const T = 100

// series is a regret series r_1 … r_T: v in every round, or, with
// until > 0, v up to round until and 0 after.
func series(v float64, until int) []float64 {
	r := make([]float64, T)
	for t := range r {
		if until == 0 || t < until {
			r[t] = v
		}
	}
	return r
}

// exp builds an experiment whose runs have, per label, the given regret
// series per realization (every label the same number of realizations),
// and its curves as the package computes them.
func exp(name string, runs map[string][][]float64, order ...string) *reproduce.Experiment {
	res := &experiment.Results{}
	n := 0
	for _, label := range order {
		for r, reg := range runs[label] {
			res.Runs = append(res.Runs, experiment.Run{
				Algorithm: label, Label: label, Realization: r,
				Actions: make([]int, T), Regret: reg, ReachableRegret: reg, SafeSetSize: make([]int, T),
			})
			n = len(runs[label])
		}
	}
	return &reproduce.Experiment{
		Name:    name,
		Config:  &experiment.Config{Horizon: T, Realizations: n},
		Results: res,
		Curves:  experiment.Summarize(res),
	}
}

// constant gives each realization r a constant per-round regret base[r] +
// shift[r], so that R_T/T per realization is exactly that value.
func constant(base, shift []float64) [][]float64 {
	out := make([][]float64, len(base))
	for r := range base {
		out[r] = series(base[r]+shift[r], 0)
	}
	return out
}

var base = []float64{1.0, 1.1, 0.9, 1.0}

// Paired differences a − b over the four realizations, and their verdict
// for "a ends below b" (REPORT.md: beyond two standard errors):
//
//	below:   d = (−0.5, −0.6, −0.4, −0.5): mean −0.5, sd 0.0816, SE 0.0408 → holds
//	above:   d = (+0.5, +0.6, +0.4, +0.5): mean +0.5 beyond 2 SE → does not hold
//	even:    d = (−0.1, +0.1, −0.2, +0.2): mean 0 → not distinguishable
//	wide:    d = (−1, −3, −1, −3): mean −2, sd 2/√3, SE 1/√3 = 0.577 → holds
//	close:   d = (−0.1, −0.9, 0.3, −1.3): mean −0.5, sd 0.7303, SE 0.3651: |mean| < 2 SE → not distinguishable
//	edge:    d = (−1, −1, −1, −5) from integer regrets (exact in binary):
//	         mean −2, deviations (1, 1, 1, −3), sd √(12/3) = 2, SE 2/√4 = 1:
//	         |mean| = 2 SE exactly, not beyond → not distinguishable
var diffs = map[string][]float64{
	"below": {-0.5, -0.6, -0.4, -0.5},
	"above": {0.5, 0.6, 0.4, 0.5},
	"even":  {-0.1, 0.1, -0.2, 0.2},
	"wide":  {-1, -3, -1, -3},
	"close": {-0.1, -0.9, 0.3, -1.3},
	"edge":  {-1, -1, -1, -5},
}

func neg(d []float64) []float64 {
	out := make([]float64, len(d))
	for i, v := range d {
		out[i] = -v
	}
	return out
}

var zero = []float64{0, 0, 0, 0}

// regime builds regret-NAME with the paper's labels and their ablations
// (the same data, so both setups get the same verdict): sgp-ucb at base,
// the others shifted so that sgp − mc = dMC and sgp − stage = dStage.
func regime(name string, dMC, dStage []float64) *reproduce.Experiment {
	return regimeFrom(name, base, dMC, dStage)
}

func regimeFrom(name string, base, dMC, dStage []float64) *reproduce.Experiment {
	runs := map[string][][]float64{
		"sgp-ucb":       constant(base, zero),
		"safeopt-mc":    constant(base, neg(dMC)),
		"stageopt":      constant(base, neg(dStage)),
		"naive-sgp-ucb": constant(base, zero),
		"gp-ucb-oracle": constant(zero, zero),
	}
	order := []string{"sgp-ucb", "stageopt", "safeopt-mc", "naive-sgp-ucb", "gp-ucb-oracle"}
	for _, l := range []string{"sgp-ucb", "naive-sgp-ucb"} {
		runs[l+" keep_seed"] = runs[l]
		order = append(order, l+" keep_seed")
	}
	for _, l := range []string{"safeopt-mc", "stageopt"} {
		runs[l+" gp"] = runs[l]
		order = append(order, l+" gp")
	}
	// SafeOpt-MC switched by the plateau rule: the same data as at t*.
	runs["safeopt-mc (plateau)"] = runs["safeopt-mc"]
	order = append(order, "safeopt-mc (plateau)")
	return exp("regret-"+name, runs, order...)
}

// withPlateauMC replaces the runs of "safeopt-mc (plateau)" in e with
// constant regrets such that sgp − it = d.
func withPlateauMC(e *reproduce.Experiment, d []float64) *reproduce.Experiment {
	runs := map[string][][]float64{}
	var order []string
	for _, c := range e.Curves {
		order = append(order, c.Label)
	}
	for _, r := range e.Results.Runs {
		runs[r.Label] = append(runs[r.Label], r.Regret)
	}
	runs["safeopt-mc (plateau)"] = constant(base, neg(d))
	return exp(e.Name, runs, order...)
}

// claim returns the verdict of the claim starting with prefix, for the
// given setup.
func claim(t *testing.T, cs []reproduce.Claim, prefix, setup string) string {
	t.Helper()
	for _, c := range cs {
		if strings.HasPrefix(c.Claim, prefix) && c.Setup == setup {
			return c.Verdict
		}
	}
	t.Fatalf("no claim %q (%s) in %+v", prefix, setup, cs)
	return ""
}

// TestClaimVerdicts checks each verdict rule of Claims on constructed
// outcomes whose verdict is known by hand (see diffs above).
func TestClaimVerdicts(t *testing.T) {
	t.Parallel()
	const (
		in2125 = "In regime 21–25 SGP-UCB ends below"
		in1120 = "In regime 11–20 StageOpt does well"
		in110  = "In regime 1–10 SGP-UCB does poorly"
		naive  = "Naive SGP-UCB is near-linear"
		linear = "With linear kernels SafeOpt's regret"
	)
	cases := []struct {
		name   string
		o      *reproduce.Outcome
		prefix string
		want   string
	}{
		// 21–25: SGP-UCB below both SafeOpt-MC and StageOpt (d = sgp − other).
		{"21–25 below both", out(regime("21-25", diffs["below"], diffs["below"])), in2125, reproduce.Holds},
		{"21–25 above one", out(regime("21-25", diffs["below"], diffs["above"])), in2125, reproduce.DoesNotHold},
		{"21–25 even with one", out(regime("21-25", diffs["even"], diffs["below"])), in2125, reproduce.Indistinct},
		{"21–25 above one, even with the other", out(regime("21-25", diffs["even"], diffs["above"])), in2125, reproduce.DoesNotHold},
		{"21–25 large spread", out(regime("21-25", diffs["close"], diffs["below"])), in2125, reproduce.Indistinct},
		{"21–25 wide but beyond 2 SE", out(regime("21-25", diffs["wide"], diffs["wide"])), in2125, reproduce.Holds},
		{"21–25 two SE exactly", out(regimeFrom("21-25", []float64{8, 8, 8, 8}, diffs["edge"], diffs["below"])), in2125, reproduce.Indistinct},
		// 11–20: StageOpt below SGP-UCB, i.e. sgp − stage > 0.
		{"11–20 StageOpt below", out(regime("11-20", zero, diffs["above"])), in1120, reproduce.Holds},
		{"11–20 StageOpt above", out(regime("11-20", zero, diffs["below"])), in1120, reproduce.DoesNotHold},
		{"11–20 even", out(regime("11-20", zero, diffs["even"])), in1120, reproduce.Indistinct},
		// 1–10: SGP-UCB above both (poorly), i.e. sgp − other > 0.
		{"1–10 SGP-UCB above both", out(regime("1-10", diffs["above"], diffs["above"])), in110, reproduce.Holds},
		{"1–10 SGP-UCB below one", out(regime("1-10", diffs["above"], diffs["below"])), in110, reproduce.DoesNotHold},
		{"1–10 even with one", out(regime("1-10", diffs["above"], diffs["even"])), in110, reproduce.Indistinct},
		// Near-linear: R_T/T ÷ R_50/50 ≥ 0.8 in every regime present.
		{"naive constant regret: rate 1", out(naiveRegime("21-25", 0)), naive, reproduce.Holds},
		// r_t = 1 up to round 80: R_100/100 = 0.8, R_50/50 = 1: rate 0.8 exactly.
		{"naive rate 0.8 exactly", out(naiveRegime("21-25", 80)), naive, reproduce.Holds},
		// Up to round 79: rate 0.79.
		{"naive rate 0.79", out(naiveRegime("21-25", 79)), naive, reproduce.DoesNotHold},
		{"naive flattens in one regime of two", out(naiveRegime("21-25", 0), naiveRegime("1-10", 50)), naive, reproduce.DoesNotHold},
		// Linear: SafeOpt's mean r_t over the last fifth beyond 2 SE of 0.
		{"linear: r_t stays", out(linearExp([]float64{0.2, 0.3, 0.25, 0.2}, 0)), linear, reproduce.Holds},
		{"linear: r_t vanishes", out(linearExp([]float64{0.2, 0.3, 0.25, 0.2}, 60)), linear, reproduce.DoesNotHold},
		// Tail means (0.1, −0.1, 0.1, −0.1): mean 0 → not beyond 2 SE.
		{"linear: r_t around 0", out(linearExp([]float64{0.1, -0.1, 0.1, -0.1}, 0)), linear, reproduce.DoesNotHold},
		// Tail means (0.1, −0.1, 0.3, 0.1): mean 0.1, sd √(0.08/3) = 0.163,
		// SE 0.0816: beyond one SE, not beyond two.
		{"linear: r_t within 2 SE of 0", out(linearExp([]float64{0.1, -0.1, 0.3, 0.1}, 0)), linear, reproduce.DoesNotHold},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cs := reproduce.Claims(c.o)
			if got := claim(t, cs, c.prefix, "as in the paper"); got != c.want {
				t.Errorf("verdict %q, want %q", got, c.want)
			}
			if !strings.HasPrefix(c.prefix, "With linear") {
				for _, setup := range []string{reproduce.SetupPlateau, reproduce.SetupAblate} {
					if got := claim(t, cs, c.prefix, setup); got != c.want {
						t.Errorf("%s: verdict %q, want %q (same data)", setup, got, c.want)
					}
				}
			}
		})
	}
}

// TestClaimsPlateauReading: the plateau reading takes SafeOpt-MC's runs
// from "safeopt-mc (plateau)", the paper's reading from "safeopt-mc"; a
// verdict that differs between them is named in REPORT.md's section on
// the switch. In regime 21–25, SGP-UCB below SafeOpt-MC at t* (d =
// "below": holds) and above it with the plateau switch (d = "above": does
// not hold), StageOpt below in both.
func TestClaimsPlateauReading(t *testing.T) {
	t.Parallel()
	o := out(withPlateauMC(regime("21-25", diffs["below"], diffs["below"]), diffs["above"]))
	o.Claims = reproduce.Claims(o)
	const prefix = "In regime 21–25 SGP-UCB ends below"
	for setup, want := range map[string]string{reproduce.SetupPaper: reproduce.Holds, reproduce.SetupPlateau: reproduce.DoesNotHold, reproduce.SetupAblate: reproduce.Holds} {
		if got := claim(t, o.Claims, prefix, setup); got != want {
			t.Errorf("%s: verdict %q, want %q", setup, got, want)
		}
	}
	report := string(reproduce.Report(o))
	if want := `Verdicts that differ between the two readings: "In regime 21–25 SGP-UCB ends below SafeOpt-MC and StageOpt": holds at t*, does not hold with the plateau switch.`; !strings.Contains(report, want) {
		t.Errorf("REPORT.md lacks %q:\n%s", want, report)
	}
	// Without the plateau ablation's runs (an older reproduction) its
	// setup is left out, not reported on missing data.
	o = out(regime("21-25", diffs["below"], diffs["below"]))
	o.Experiments[0] = dropLabel(o.Experiments[0], "safeopt-mc (plateau)")
	for _, c := range reproduce.Claims(o) {
		if c.Setup == reproduce.SetupPlateau {
			t.Errorf("claim %q under the plateau reading without its runs", c.Claim)
		}
	}
}

// dropLabel returns e without the runs of label.
func dropLabel(e *reproduce.Experiment, label string) *reproduce.Experiment {
	runs := map[string][][]float64{}
	var order []string
	for _, c := range e.Curves {
		if c.Label != label {
			order = append(order, c.Label)
		}
	}
	for _, r := range e.Results.Runs {
		runs[r.Label] = append(runs[r.Label], r.Regret)
	}
	return exp(e.Name, runs, order...)
}

func out(es ...*reproduce.Experiment) *reproduce.Outcome {
	return &reproduce.Outcome{Experiments: es}
}

// naiveRegime is a regime whose naive SGP-UCB earns regret 1 per round up
// to round until (every round if 0), the others as in regime.
func naiveRegime(name string, until int) *reproduce.Experiment {
	e := regime(name, zero, zero)
	runs := map[string][][]float64{}
	var order []string
	for _, c := range e.Curves {
		order = append(order, c.Label)
	}
	for _, r := range e.Results.Runs {
		reg := r.Regret
		if strings.HasPrefix(r.Label, "naive-sgp-ucb") {
			reg = series(1, until)
		}
		runs[r.Label] = append(runs[r.Label], reg)
	}
	return exp(e.Name, runs, order...)
}

// linearExp is the linear-kernel experiment: SafeOpt's per-round regret
// per realization, ending at round until (never if 0); SGP-UCB's half of
// it.
func linearExp(safeopt []float64, until int) *reproduce.Experiment {
	runs := map[string][][]float64{}
	for _, v := range safeopt {
		runs["safeopt"] = append(runs["safeopt"], series(v, until))
		runs["sgp-ucb"] = append(runs["sgp-ucb"], series(v/2, until))
	}
	return exp("linear", runs, "safeopt", "sgp-ucb")
}

// TestReportClaimsGolden renders REPORT.md for a constructed outcome (no
// timing, no random draw) and compares its claims and best-algorithm
// tables with testdata/report-claims.golden byte for byte; go test
// -run ReportClaimsGolden -update rewrites it.
func TestReportClaimsGolden(t *testing.T) {
	t.Parallel()
	o := out(
		regime("1-10", diffs["above"], diffs["close"]),
		regime("11-20", diffs["even"], diffs["above"]),
		naiveRegime("21-25", 70),
		linearExp([]float64{0.2, 0.3, 0.25, 0.2}, 0),
	)
	o.Claims = reproduce.Claims(o)
	report := reproduce.Report(o)
	start := bytes.Index(report, []byte("## The paper's claims"))
	end := bytes.Index(report, []byte("## Regret comparison"))
	if start < 0 || end < start {
		t.Fatalf("REPORT.md lacks its claims section:\n%s", report)
	}
	got := report[start:end]
	path := filepath.Join("testdata", "report-claims.golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("the claims section differs from %s (go test -update rewrites it after a deliberate change):\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}
