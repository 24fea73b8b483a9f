package study

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/safegp/safegp/study/api"
	"github.com/safegp/safegp/study/calib"
)

// calibSpec: a 1-D study whose model (SE, lengthscale 0.5, variance 1,
// σ 0.05, β = 4: intervals of ±2 predictive sds) suits values of a
// smooth g of unit scale.
const calibSpec = `{"decision_set": {"grid": {"bounds": [[0, 1]], "points": [21]}}, "seed_actions": [10],
 "thresholds": [-10], "model": {"objective": {"kernel": "se", "lengthscale": 0.5}, "constraints": [{"kernel": "se", "lengthscale": 0.5}],
 "noise_std": 0.05, "delta": 0.05, "beta": 4}, "algorithm": {"name": "safeopt", "safe_set": "gp"}, "horizon": 100, "seed": 1}`

// TestCalibration: measurements the model explains leave the check
// plausible, with no note; measurements that jump by 3 between
// neighbours (the model's lengthscale 0.5 makes that a 10-sd event) make
// it implausible within a few tells — the tell answers, the ask notes
// and show say so — and retracting them makes it plausible again.
func TestCalibration(t *testing.T) {
	ctx := context.Background()
	c := &fakeClock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	v, done := batchService(t, filepath.Join(t.TempDir(), "c.db"), c)
	defer done()
	createStudy(t, v, "s", calibSpec)
	tell := func(i int, f, g float64) *api.TellAnswer {
		t.Helper()
		idx := i
		a, err := v.Tell(ctx, "s", &api.TellRequest{Index: &idx, F: &f, G: []float64{g}})
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	smooth := func(x float64) float64 { return math.Sin(2 * x) }
	for i := 0; i <= 20; i += 2 {
		if a := tell(i, smooth(float64(i)/20), smooth(float64(i)/20)); a.Calibration != "" {
			t.Fatalf("tell at %d: %q, want no calibration note", i, a.Calibration)
		}
	}
	sum, err := v.Show(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	if c := sum.Calibration; c == nil || c.Implausible || c.Window != 11 {
		t.Fatalf("after smooth data: %+v, want 11 tells judged, plausible", sum.Calibration)
	}
	var seqs []int
	var last *api.TellAnswer
	for k, i := range []int{1, 3, 5, 7, 9, 11} {
		y := 3.0
		if k%2 == 1 {
			y = -3
		}
		last = tell(i, y, y)
		seqs = append(seqs, last.Observation)
	}
	if !strings.Contains(last.Calibration, "the model looks wrong") || !strings.Contains(last.Calibration, "losbo") || strings.Contains(last.Calibration, "only the objective's") {
		t.Errorf("last tell's calibration %q, want the note", last.Calibration)
	}
	sum, _ = v.Show(ctx, "s")
	if c := sum.Calibration; c == nil || !c.Implausible || c.Outside < 5 || !reflect.DeepEqual(c.ByOutcome, []calib.OutcomeCount{{Outcome: "f", Outside: c.Outside}, {Outcome: "g1", Outside: c.Outside}}) {
		t.Fatalf("after the jumps: %+v, want implausible, every tell outside in f and g1", sum.Calibration)
	}
	if want := fmt.Sprintf("(f in %d, g1 in %d)", sum.Calibration.Outside, sum.Calibration.Outside); !strings.Contains(last.Calibration, want) {
		t.Errorf("last tell's calibration %q, want the outcomes named: %s", last.Calibration, want)
	}
	if !strings.Contains(strings.Join(sum.Notes, "\n"), "the model looks wrong") {
		t.Errorf("notes %q lack the calibration note", sum.Notes)
	}
	for _, s := range seqs {
		if _, err := v.Retract(ctx, "s", s); err != nil {
			t.Fatal(err)
		}
	}
	sum, _ = v.Show(ctx, "s")
	if c := sum.Calibration; c == nil || c.Implausible {
		t.Errorf("after retracting the jumps: %+v, want plausible", sum.Calibration)
	}
	// Jumps in f alone: the note says that the safe set does not rest on
	// f's model (no objective threshold here).
	for k, i := range []int{1, 3, 5, 7, 9, 11} {
		y := 3.0
		if k%2 == 1 {
			y = -3
		}
		last = tell(i, y, smooth(float64(i)/20))
	}
	sum, _ = v.Show(ctx, "s")
	if c := sum.Calibration; c == nil || !c.Implausible || !reflect.DeepEqual(c.ByOutcome, []calib.OutcomeCount{{Outcome: "f", Outside: c.Outside}}) {
		t.Fatalf("after jumps in f: %+v, want implausible, every tell outside in f alone", sum.Calibration)
	}
	if !strings.Contains(last.Calibration, fmt.Sprintf("(f in %d)", sum.Calibration.Outside)) || !strings.Contains(last.Calibration, "only the objective's values did") {
		t.Errorf("after jumps in f, the note %q, want f named and the safe set said not to rest on it", last.Calibration)
	}
}

// TestCalibratePoint checks one tell's check against its definition at
// an action no measurement informs (the prior: mean 0, predictive sd
// √(1 + 0.05²)), √β = 2 and two GPs: g = 2.1 lies outside 2·sd = 2.0025,
// g = 1.9 inside, f = 0 inside; P(outside) = 1 − (1 − erfc(2/√2))².
func TestCalibratePoint(t *testing.T) {
	ctx := context.Background()
	c := &fakeClock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	v, done := batchService(t, filepath.Join(t.TempDir(), "p.db"), c)
	defer done()
	spec := strings.Replace(calibSpec, `"lengthscale": 0.5}]`, `"lengthscale": 0.01}]`, 1) // g's prior at every action
	spec = strings.Replace(spec, `{"kernel": "se", "lengthscale": 0.5}, "constraints"`, `{"kernel": "se", "lengthscale": 0.01}, "constraints"`, 1)
	createStudy(t, v, "s", spec)
	want := 1 - math.Pow(1-math.Erfc(2/math.Sqrt2), 2)
	for _, tc := range []struct {
		index   int
		g       float64
		outside bool
	}{{0, 2.1, true}, {20, 1.9, false}, {5, -2.1, true}} {
		f, idx := 0.0, tc.index
		a, err := v.Tell(ctx, "s", &api.TellRequest{Index: &idx, F: &f, G: []float64{tc.g}})
		if err != nil {
			t.Fatal(err)
		}
		if err := v.write(ctx, "s", func(s *Study) error {
			p, ok := s.calib[a.Observation]
			if !ok || p.Outside != tc.outside || math.Abs(p.P-want) > 1e-15 {
				t.Errorf("g = %v at %d: %+v (recorded %v), want outside %v, p %.17g", tc.g, tc.index, p, ok, tc.outside, want)
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
}

// TestCalibrationNoteByAlgorithm: the note says what a wrong model means
// for the study's algorithm — losbo's safe set does not rest on it,
// constrained-ei promises nothing, the others' guarantee rests on it.
func TestCalibrationNoteByAlgorithm(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct{ alg, want string }{
		{`{"name": "safeopt", "safe_set": "gp"}`, "the safety guarantee rests on the model"},
		{`{"name": "losbo", "lipschitz": 100, "noise_bound": 0.1}`, "losbo's safe set rests on its Lipschitz and noise bounds"},
		{`{"name": "constrained-ei"}`, "constrained-ei gives no safety guarantee"},
	} {
		clock := &fakeClock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
		v, done := batchService(t, filepath.Join(t.TempDir(), "a.db"), clock)
		createStudy(t, v, "s", strings.Replace(calibSpec, `{"name": "safeopt", "safe_set": "gp"}`, c.alg, 1))
		var last *api.TellAnswer
		for k, i := range []int{1, 3, 5, 7, 9, 11, 13} {
			y := 3.0
			if k%2 == 1 {
				y = -3
			}
			f, idx := y, i
			a, err := v.Tell(ctx, "s", &api.TellRequest{Index: &idx, F: &f, G: []float64{y}})
			if err != nil {
				t.Fatal(err)
			}
			last = a
		}
		if !strings.Contains(last.Calibration, c.want) {
			t.Errorf("%s: note %q, want %q", c.alg, last.Calibration, c.want)
		}
		done()
	}
}
