package study_test

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/safegp/safegp/study"
	"github.com/safegp/safegp/study/api"
)

// safeObjectiveSpec is a study whose only safety condition is f ≥ h_f =
// −1.5: with truth's f = −(x − 3)², the actions x ≥ 1.8 of the grid on
// [0, 4] are safe (|x − 3| ≤ √1.5 = 1.22). No thresholds, no constraints.
const safeObjectiveSpec = `decision_set: {grid: {bounds: [[0, 4]], points: [21]}}
seed_actions: [10]
objective_threshold: -1.5
model:
  objective: {kernel: se, lengthscale: 1}
  noise_std: 0.05
  delta: 0.1
  beta: 4
algorithm: {name: safeopt, safe_set: gp}
horizon: 30
seed: 3
`

// TestStudyObjectiveThreshold: a study with f ≥ h_f and no constraint
// flags a tell with f < h_f as a violation of the objective
// (violated_objective, not in violated), counts it in show, keeps the
// action out of the best safe action, and replays to the same state.
func TestStudyObjectiveThreshold(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "hf.db")
	v, st := newService(t, path)
	r := resolved(t, safeObjectiveSpec)
	if len(r.Spec.Thresholds) != 0 || r.Spec.Thresholds == nil {
		t.Errorf("thresholds resolved to %#v, want []", r.Spec.Thresholds)
	}
	if err := v.Create(ctx, "s", r); err != nil {
		t.Fatal(err)
	}
	tell := func(index int, f float64) *api.TellAnswer {
		t.Helper()
		ans, err := v.Tell(ctx, "s", &api.TellRequest{Index: &index, F: &f, G: []float64{}})
		if err != nil {
			t.Fatal(err)
		}
		return ans
	}
	// x = 0: f = −9 < −1.5. x = 2.4: f = −0.36 ≥ −1.5.
	if ans := tell(0, -9); !ans.Violation || !ans.ViolatedObjective || ans.Violated != nil {
		t.Errorf("f below h_f: %+v", ans)
	}
	ans := tell(12, -0.36)
	if ans.Violation || ans.ViolatedObjective {
		t.Errorf("f above h_f: %+v", ans)
	}
	// An answer without an objective violation keeps the JSON of before.
	if js, _ := json.Marshal(ans); strings.Contains(string(js), "violated_objective") {
		t.Errorf("answer %s names violated_objective", js)
	}
	for range 12 {
		a, err := v.Ask(ctx, "s")
		if err != nil {
			t.Fatal(err)
		}
		f, _ := truth(a.X[0])
		if f < -1.5 {
			t.Errorf("safeopt asked for x = %v, whose f = %v is below h_f (exact data, β = 4)", a.X[0], f)
		}
		id := a.Ask
		if _, err := v.Tell(ctx, "s", &api.TellRequest{Ask: &id, F: &f, G: []float64{}}); err != nil {
			t.Fatal(err)
		}
	}
	sum, err := v.Show(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	if sum.Violations != 1 || sum.Constraints != 0 || sum.ObjectiveThreshold == nil || *sum.ObjectiveThreshold != -1.5 {
		t.Errorf("summary %+v", sum)
	}
	if sum.Best == nil || sum.Best.X[0] < 1.8 {
		t.Errorf("best safe action %+v: want one with f ≥ h_f", sum.Best)
	}
	_, _, _, snap, err := v.Inspect(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	if snap.Safe[0] {
		t.Error("action 0, observed at f = −9 < h_f, is in the safe set")
	}
	if h, hf, err := v.Safety(ctx, "s"); err != nil || len(h) != 0 || hf == nil || *hf != -1.5 {
		t.Errorf("Safety = %v, %v, %v", h, hf, err)
	}
	st.Close()
	// Reopened, the replay rebuilds the same summary, violations included.
	v2, _ := newService(t, path)
	again, err := v2.Show(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	if a, b := mustJSON(t, again), mustJSON(t, sum); a != b {
		t.Errorf("after reopening: %s, before: %s", a, b)
	}
}

// TestStudyObjectiveThresholdWithConstraints: with constraints and h_f, a
// tell reports the constraints it violates in violated and f < h_f in
// violated_objective, each independently.
func TestStudyObjectiveThresholdWithConstraints(t *testing.T) {
	ctx := context.Background()
	v, _ := newService(t, filepath.Join(t.TempDir(), "both.db"))
	spec := strings.Replace(specYAML, "thresholds: [0.0]", "thresholds: [0.0]\nobjective_threshold: -1.5", 1)
	if err := v.Create(ctx, "s", resolved(t, spec)); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		f, g          float64
		violated      []int
		objective, in bool
	}{
		{-1, 0.5, nil, false, false},
		{-2, 0.5, nil, true, true},
		{-1, -0.5, []int{1}, false, true},
		{-2, -0.5, []int{1}, true, true},
	} {
		i := 3
		ans, err := v.Tell(ctx, "s", &api.TellRequest{Index: &i, F: &c.f, G: []float64{c.g}})
		if err != nil {
			t.Fatal(err)
		}
		if ans.Violation != c.in || ans.ViolatedObjective != c.objective || !slices.Equal(ans.Violated, c.violated) {
			t.Errorf("f = %v, g = %v: %+v", c.f, c.g, ans)
		}
	}
}

// TestStudySpecSafetyCondition: a specification needs thresholds or an
// objective threshold; the error names both keys.
func TestStudySpecSafetyCondition(t *testing.T) {
	y := strings.Replace(safeObjectiveSpec, "objective_threshold: -1.5\n", "", 1)
	s, err := study.ParseSpec([]byte(y))
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Resolve(".")
	if !errors.Is(err, api.ErrSpec) || !strings.HasPrefix(err.Error(), "thresholds: missing") || !strings.Contains(err.Error(), "objective_threshold") {
		t.Errorf("got %v, want api.ErrSpec naming thresholds and objective_threshold", err)
	}
	y = strings.Replace(safeObjectiveSpec, "-1.5", ".nan", 1)
	if s, err = study.ParseSpec([]byte(y)); err == nil {
		_, err = s.Resolve(".")
	}
	if err == nil || !strings.Contains(err.Error(), "objective_threshold") {
		t.Errorf("h_f = NaN: got %v", err)
	}
	if _, err := study.ParseSpec([]byte(safeObjectiveSpec + "objective_treshold: 1\n")); err == nil {
		t.Error("a misspelt key is accepted")
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestImportObjectiveThreshold: an imported measurement with f < h_f is a
// violation exactly as the same tell is (the reviewer's case: it was not
// flagged, and show then named its action the best safe one).
func TestImportObjectiveThreshold(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name    string
		f       float64
		violate bool
	}{
		{"f below h_f", -1.6, true},
		{"f at h_f", -1.5, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			v, _ := newService(t, filepath.Join(t.TempDir(), "hf.db"))
			if err := v.Create(ctx, "s", resolved(t, safeObjectiveSpec)); err != nil {
				t.Fatal(err)
			}
			// Action 16 is x = 3.2: observed at f, above the seed's −0.36.
			x, f, seedF := []float64{3.2}, c.f, -2.0
			seed := 10
			if _, err := v.Import(ctx, "s", []api.TellRequest{{Index: &seed, F: &seedF, G: []float64{}}, {X: x, F: &f, G: []float64{}}}); err != nil {
				t.Fatal(err)
			}
			sum, err := v.Show(ctx, "s")
			if err != nil {
				t.Fatal(err)
			}
			// The seed row itself (f = −2 < −1.5) violates too.
			if want := 1 + btoi(c.violate); sum.Violations != want {
				t.Errorf("%d violations, want %d", sum.Violations, want)
			}
			if b := sum.Best; c.violate && b != nil && b.Index == 16 {
				t.Errorf("best safe action %+v is the import that violated f ≥ h_f", b)
			}
		})
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestImportOutsideLimit: an import that would hold more than MaxOutside
// observations at points outside the decision set is refused whole,
// before anything is stored (their replay is O(t³)).
func TestImportOutsideLimit(t *testing.T) {
	ctx := context.Background()
	spec := strings.Replace(safeObjectiveSpec, "horizon: 30", "horizon: 5000", 1)
	v, _ := newService(t, filepath.Join(t.TempDir(), "hf.db"))
	if err := v.Create(ctx, "s", resolved(t, spec)); err != nil {
		t.Fatal(err)
	}
	rows := make([]api.TellRequest, api.MaxOutside+1)
	for k := range rows {
		// Off the grid's 0.2 spacing: every point is outside D.
		f := -0.5
		rows[k] = api.TellRequest{X: []float64{2 + 0.0001*float64(k) + 0.00003}, F: &f, G: []float64{}}
	}
	_, err := v.Import(ctx, "s", rows)
	if !errors.Is(err, api.ErrBadImport) || !strings.Contains(err.Error(), "at most 2000") {
		t.Fatalf("import of %d points outside D: %v, want api.ErrBadImport naming the limit", len(rows), err)
	}
	if sum, err := v.Show(ctx, "s"); err != nil || sum.Rounds != 0 {
		t.Errorf("after the refused import: %+v, %v; want no observations", sum, err)
	}
}

// TestTellWithoutG: over HTTP "g" may be left out exactly where there is
// nothing to give, a study without constraints (as the CLI takes no --g);
// a study with constraints refuses it missing, naming it, and records
// nothing.
func TestTellWithoutG(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name, spec, want string
	}{
		{"no constraints", safeObjectiveSpec, ""},
		{"one constraint", strings.Replace(strings.Replace(safeObjectiveSpec, "objective_threshold: -1.5", "thresholds: [0]", 1),
			"  noise_std: 0.05", "  constraints: [{kernel: se, lengthscale: 1}]\n  noise_std: 0.05", 1), `"g" is missing: give the 1 constraint value measured`},
	} {
		t.Run(c.name, func(t *testing.T) {
			v, _ := newService(t, filepath.Join(t.TempDir(), "g.db"))
			if err := v.Create(ctx, "s", resolved(t, c.spec)); err != nil {
				t.Fatal(err)
			}
			i, f := 10, -0.5
			_, err := v.Tell(ctx, "s", &api.TellRequest{Index: &i, F: &f})
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("tell without g: %v", err)
			case c.want != "" && (!errors.Is(err, api.ErrBadTell) || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("tell without g: %v, want api.ErrBadTell saying %q", err, c.want)
			}
			sum, err := v.Show(ctx, "s")
			if want := map[bool]int{true: 1, false: 0}[c.want == ""]; err != nil || sum.Rounds != want {
				t.Errorf("rounds %d (%v), want %d", sum.Rounds, err, want)
			}
		})
	}
}
