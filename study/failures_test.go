package study_test

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/safegp/safegp/internal/racetest"
	"github.com/safegp/safegp/space"
	"github.com/safegp/safegp/store"
	"github.com/safegp/safegp/study"
	"github.com/safegp/safegp/study/api"
	"github.com/safegp/safegp/study/exchange"
)

// Issue 43: failed trials, unsafe seeds, the way back after a violation.

// failSpecs are a study of each kind a failure reaches the policy
// through: a grid in parameters, a box in parameters (line-bo on
// clouds), and a plain decision set.
var failSpecs = map[string]string{
	"named grid": piSpec,
	"named box": `
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
`,
	"plain": specYAML,
}

// measureAny is a smooth safe-everywhere measurement of any of
// failSpecs' asks: the values only have to be plausible.
func measureAny(a *api.AskAnswer, name string) *api.TellRequest {
	id := a.Ask
	if name == "plain" {
		f := -a.X[0] * a.X[0] / 100
		return &api.TellRequest{Ask: &id, F: &f, G: []float64{1}}
	}
	kp := a.Params["kp"].Num
	return &api.TellRequest{Ask: &id, Values: map[string]float64{"settle_time": 10 / (1 + kp), "overshoot": 0.01 * kp / 20}}
}

// key is a setting as JSON, its parameters in order.
func key(p space.Setting) string {
	b, _ := json.Marshal(p)
	return string(b)
}

// sameSetting reports whether two asks are at the same setting.
func sameSetting(a, b *api.AskAnswer) bool {
	if a.Params != nil {
		return key(a.Params) == key(b.Params)
	}
	return a.Index == b.Index && slices.Equal(a.X, b.X)
}

// TestFailedTrial: a trial told as failed (no values) is never asked
// again, is a round but not a violation, is counted apart in the summary,
// the list and the export, can be retracted, and replays: a study
// reopened from its records asks what the live one asks.
func TestFailedTrial(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for name, spec := range failSpecs {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "f.db")
			v, _ := newService(t, path)
			if err := v.Create(ctx, "s", resolved(t, spec)); err != nil {
				t.Fatal(err)
			}
			var failed []*api.AskAnswer
			for trial := range 20 {
				a, err := v.Ask(ctx, "s")
				if err != nil {
					t.Fatalf("trial %d: %v", trial, err)
				}
				for _, f := range failed {
					if sameSetting(a, f) {
						t.Fatalf("trial %d asks the setting of failed ask %d again: %v %v", trial, f.Ask, a.Params, a.X)
					}
				}
				if trial == 5 || trial == 11 { // past the seed's trials
					id := a.Ask
					ans, err := v.Tell(ctx, "s", &api.TellRequest{Ask: &id, Failed: true})
					if err != nil || !ans.Failed || ans.Violation {
						t.Fatalf("trial %d: failed tell: %+v, %v", trial, ans, err)
					}
					failed = append(failed, a)
					continue
				}
				if _, err := v.Tell(ctx, "s", measureAny(a, name)); err != nil {
					t.Fatalf("trial %d: %v", trial, err)
				}
			}
			sum, err := v.Show(ctx, "s")
			if err != nil {
				t.Fatal(err)
			}
			if sum.Failures != 2 || sum.Violations != 0 || sum.Rounds != 20 {
				t.Errorf("summary: %d failures, %d violations, %d rounds; want 2, 0, 20", sum.Failures, sum.Violations, sum.Rounds)
			}
			list, err := v.List(ctx)
			if err != nil || len(list) != 1 || list[0].Failures != 2 || list[0].Rounds != 20 || list[0].Pending != 0 {
				t.Errorf("list: %+v, %v", list, err)
			}
			csv := string(exchange.ExportCSV(mustExport(t, v)))
			if strings.Count(csv, ",fail,") != 2 {
				t.Errorf("export: %d fail rows:\n%s", strings.Count(csv, ",fail,"), csv)
			}
			// An export with failures imports (its measurements; a failure
			// has none to carry over).
			if err := v.Create(ctx, "copy", resolved(t, spec)); err != nil {
				t.Fatal(err)
			}
			if ans, err := v.Import(ctx, "copy", csvRows(t, v, csv)); err != nil || ans.Imported != 18 {
				t.Errorf("import of the export: %+v, %v; want its 18 measurements", ans, err)
			}
			// The next ask, live and reopened from the records.
			live, err := v.Ask(ctx, "s")
			if err != nil {
				t.Fatal(err)
			}
			copyDB(t, path, path+".copy")
			again, _ := newService(t, path+".copy")
			re, err := again.Ask(ctx, "s")
			if err != nil || !sameSetting(live, re) || live.Ask != re.Ask {
				t.Errorf("reopened: ask %+v (%v), live %+v", re, err, live)
			}
			// A failure is retracted like a tell.
			obs := 0
			for _, e := range mustExport(t, v).Failures {
				obs = e.Seq
			}
			if _, err := v.Retract(ctx, "s", obs); err != nil {
				t.Fatal(err)
			}
			if sum, _ := v.Show(ctx, "s"); sum.Failures != 1 || sum.Rounds != 19 {
				t.Errorf("after retracting a failure: %d failures, %d rounds; want 1, 19", sum.Failures, sum.Rounds)
			}
		})
	}
}

func mustExport(t *testing.T, v *study.Service) *api.Export {
	t.Helper()
	x, err := v.Export(context.Background(), "s")
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// TestFailedTellRefused: a failed tell carries no values, answers an ask
// once, and names an ask or a setting.
func TestFailedTellRefused(t *testing.T) {
	ctx := context.Background()
	v, _ := newService(t, filepath.Join(t.TempDir(), "f.db"))
	if err := v.Create(ctx, "s", resolved(t, piSpec)); err != nil {
		t.Fatal(err)
	}
	a, err := v.Ask(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	id, unknown := a.Ask, a.Ask+100
	for _, c := range []struct {
		name string
		req  api.TellRequest
		want error
	}{
		{"with values", api.TellRequest{Ask: &id, Failed: true, Values: map[string]float64{"settle_time": 1, "overshoot": 0}}, api.ErrBadTell},
		{"unknown ask", api.TellRequest{Ask: &unknown, Failed: true}, api.ErrUnknownAsk},
		{"no setting", api.TellRequest{Failed: true}, api.ErrBadTell},
		{"setting outside the space", api.TellRequest{Failed: true, Params: space.Setting{"kp": space.Number(100), "ki": space.Number(0.1)}}, api.ErrBadTell},
	} {
		if _, err := v.Tell(ctx, "s", &c.req); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
	if _, err := v.Tell(ctx, "s", &api.TellRequest{Ask: &id, Failed: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := v.Tell(ctx, "s", &api.TellRequest{Ask: &id, Failed: true}); !errors.Is(err, api.ErrAlreadyTold) {
		t.Errorf("a second failed tell of the ask: %v, want ErrAlreadyTold", err)
	}
	// Outside the loop, at a setting: never asked then.
	at := space.Setting{"kp": space.Number(0.35), "ki": space.Number(0.06)}
	if _, err := v.Tell(ctx, "s", &api.TellRequest{Failed: true, Params: at}); err != nil {
		t.Fatal(err)
	}
}

// TestUnsafeSeedAskedOnce: of two seeds, the one that measures unsafe is
// asked at most once, the study goes on from the other; a study whose
// only seed measures unsafe stops asking (ErrNoSafeSetting).
func TestUnsafeSeedAskedOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	two := strings.Replace(piSpec, "seeds: [{kp: 0.3, ki: 0.05}]", "seeds: [{kp: 0.3, ki: 0.05}, {kp: 2, ki: 0.5}]", 1)
	box := strings.Replace(failSpecs["named box"], "seeds: [{kp: 0.3, ki: 0.05, kd: 0.01}]", "seeds: [{kp: 0.3, ki: 0.05, kd: 0.01}, {kp: 2, ki: 0.5, kd: 0.01}]", 1)
	bad := func(p space.Setting) bool { return p["kp"].Num == 2 } // the second seed overshoots
	for name, spec := range map[string]string{"grid": two, "box": box} {
		t.Run(name, func(t *testing.T) {
			v, _ := newService(t, filepath.Join(t.TempDir(), "u.db"))
			if err := v.Create(ctx, "s", resolved(t, spec)); err != nil {
				t.Fatal(err)
			}
			asked := 0
			for trial := range 20 {
				a, err := v.Ask(ctx, "s")
				if err != nil {
					t.Fatalf("trial %d: %v", trial, err)
				}
				vals, _ := piMeasure(a.Params)
				if bad(a.Params) {
					asked++
					vals["overshoot"] = 0.3
				}
				id := a.Ask
				if _, err := v.Tell(ctx, "s", &api.TellRequest{Ask: &id, Values: vals}); err != nil {
					t.Fatalf("trial %d: %v", trial, err)
				}
			}
			if asked != 1 {
				t.Errorf("the unsafe seed was asked %d times in 20 trials, want once", asked)
			}
		})
	}
	t.Run("only seed", func(t *testing.T) {
		v, _ := newService(t, filepath.Join(t.TempDir(), "o.db"))
		if err := v.Create(ctx, "s", resolved(t, piSpec)); err != nil {
			t.Fatal(err)
		}
		a, err := v.Ask(ctx, "s")
		if err != nil {
			t.Fatal(err)
		}
		id := a.Ask
		if _, err := v.Tell(ctx, "s", &api.TellRequest{Ask: &id, Values: map[string]float64{"settle_time": 9, "overshoot": 0.2}}); err != nil {
			t.Fatal(err)
		}
		for range 2 { // and stays so
			_, err := v.Ask(ctx, "s")
			if !errors.Is(err, api.ErrNoSafeSetting) || !strings.Contains(err.Error(), `{"ki":0.05,"kp":0.3}`) || !strings.Contains(err.Error(), `"overshoot":0.2`) {
				t.Fatalf("ask after the only seed measured unsafe: %v; want ErrNoSafeSetting naming the seed and its measurement", err)
			}
		}
	})
}

// TestAfterViolationBest: with after_violation: best, the ask after a
// violating tell (or a failed trial) is the best safe setting measured
// so far, marked so, and the study resumes after its tell; a study
// reopened from its records asks the same. Without it the study goes on.
func TestAfterViolationBest(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, after := range []string{"", "after_violation: continue\n", "after_violation: best\n"} {
		t.Run(cmp.Or(strings.TrimSpace(after), "default"), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "b.db")
			v, _ := newService(t, path)
			if err := v.Create(ctx, "s", resolved(t, piSpec+after)); err != nil {
				t.Fatal(err)
			}
			var best space.Setting
			type measured struct {
				at space.Setting
				v  float64
			}
			var told []measured
			failed := map[string]bool{}
			backs := 0
			for trial := range 24 {
				a, err := v.Ask(ctx, "s")
				if err != nil {
					t.Fatalf("trial %d: %v", trial, err)
				}
				wantBack := after == "after_violation: best\n" && (trial == 9 || trial == 15)
				if a.BackToBest != wantBack || wantBack && key(a.Params) != key(best) {
					t.Fatalf("trial %d: ask %v back %v; want back %v to %v", trial, a.Params, a.BackToBest, wantBack, best)
				}
				if a.BackToBest {
					backs++
				}
				vals, _ := piMeasure(a.Params)
				id := a.Ask
				req := &api.TellRequest{Ask: &id, Values: vals}
				switch trial {
				case 8:
					vals["overshoot"] = 0.5 // a violation the model did not foresee
				case 14:
					req = &api.TellRequest{Ask: &id, Failed: true}
				}
				if _, err := v.Tell(ctx, "s", req); err != nil {
					t.Fatalf("trial %d: %v", trial, err)
				}
				// The best safe tell whose setting never failed nor broke
				// a limit.
				if req.Failed || vals["overshoot"] > 0.05 {
					failed[key(a.Params)] = true
				} else {
					told = append(told, measured{a.Params, vals["settle_time"]})
				}
				best = nil
				bestV := math.Inf(1)
				for _, m := range told {
					if !failed[key(m.at)] && m.v < bestV {
						best, bestV = m.at, m.v
					}
				}
			}
			if after == "after_violation: best\n" && backs != 2 {
				t.Errorf("%d asks back to the best, want 2", backs)
			}
			live, err := v.Ask(ctx, "s")
			if err != nil {
				t.Fatal(err)
			}
			copyDB(t, path, path+".copy")
			again, _ := newService(t, path+".copy")
			if re, err := again.Ask(ctx, "s"); err != nil || key(re.Params) != key(live.Params) {
				t.Errorf("reopened: %v (%v), live %v", re, err, live.Params)
			}
		})
	}
	s, err := study.ParseSpec([]byte(piSpec + "after_violation: stop\n"))
	if err == nil {
		_, err = s.Resolve(".")
	}
	if !errors.Is(err, api.ErrSpec) || !strings.Contains(err.Error(), "after_violation") {
		t.Errorf("after_violation: stop: %v, want ErrSpec naming it", err)
	}
}

// tripCase is issue 43's PI loop (BenchmarkTuneControllers/pi) on a rig
// with an interlock the model knows nothing of: it trips — no values —
// whenever kp·ki > tripAt, a region next to the loop's optimum (kp·ki ≈
// 0.27 there), and one measurement is lost at trial dropAt.
const (
	tripAt = 0.25
	dropAt = 20
)

func trips(p space.Setting) bool {
	if os.Getenv("TRIP_SHAPE") == "ki" { // a second shape, to choose the defaults on: ki capped
		return p["ki"].Num > 0.3
	}
	return p["kp"].Num*p["ki"].Num > tripAt
}

// TestTripLoop: the trips and the drop are told as failed; none of
// their settings is asked again, at most 5 of 60 trials fail, no limit
// is broken, and the best settling time comes within 30 % of the best
// setting that neither trips nor overshoots (the grid's). TUNE_NOISE-like
// realizations 0…2.
func TestTripLoop(t *testing.T) {
	if testing.Short() {
		t.Skip("60 trials ×3")
	}
	racetest.Long(t, "180 simulated trials take 36 s")
	opt := math.Inf(1)
	sp, err := space.New(resolved(t, piSpec).Spec.Parameters)
	if err != nil {
		t.Fatal(err)
	}
	_, sets, err := sp.Candidates()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range sets {
		if vals, safe := piMeasure(s); safe && !trips(s) {
			opt = min(opt, vals["settle_time"])
		}
	}
	for ns := range envInt("TRIP_RUNS", 3) {
		r := tripRun(t, ns)
		t.Logf("realization %d: best %.3g (optimum %.3g, %+.0f %%), %d failed, %d violations", ns, r.best, opt, 100*(r.best/opt-1), r.failed, r.violations)
		if r.failed > 5 || r.violations > 0 || r.best > 1.3*opt || r.again > 0 {
			t.Errorf("realization %d: %d failed (at most 5), %d violations, %d failed settings asked again, best %.3g against %.3g (within 30 %%)", ns, r.failed, r.violations, r.again, r.best, opt)
		}
	}
}

type tripResult struct {
	best                      float64
	failed, violations, again int
}

func tripRun(t *testing.T, ns int) tripResult {
	t.Helper()
	ctx := context.Background()
	v, _ := newService(t, filepath.Join(t.TempDir(), "trip.db"))
	if err := v.Create(ctx, "c", resolved(t, piSpec)); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4+uint64(ns)))
	r := tripResult{best: math.Inf(1)}
	var failed []string
	off := os.Getenv("TRIP_OFF") != "" // the same loop without trips: its baseline
	for trial := range 60 {
		a, err := v.Ask(ctx, "c")
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		if slices.Contains(failed, key(a.Params)) {
			r.again++
		}
		id := a.Ask
		if !off && (trips(a.Params) || trial == dropAt) {
			r.failed++
			failed = append(failed, key(a.Params))
			if _, err := v.Tell(ctx, "c", &api.TellRequest{Ask: &id, Failed: true}); err != nil {
				t.Fatalf("trial %d: %v", trial, err)
			}
			continue
		}
		vals, safe := piMeasure(a.Params)
		if safe {
			r.best = min(r.best, vals["settle_time"])
		} else {
			r.violations++
		}
		if os.Getenv("TRIP_LOG") != "" {
			t.Logf("trial %d: %v %v best %.3g", trial, a.Params, vals, r.best)
		}
		vals["settle_time"] *= 1 + 0.01*rng.NormFloat64()
		vals["overshoot"] += 0.002 * rng.NormFloat64()
		if _, err := v.Tell(ctx, "c", &api.TellRequest{Ask: &id, Values: vals}); err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
	}
	return r
}

func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil {
		return n
	}
	return def
}

// csvRows parses CSV text as an import into study "s" of v.
func csvRows(t *testing.T, v *study.Service, text string) []api.TellRequest {
	t.Helper()
	cols, err := v.Columns(context.Background(), "s")
	if err != nil {
		t.Fatal(err)
	}
	rows, err := exchange.ParseImportCSV(strings.NewReader(text), cols)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// TestExtend: a finished study's horizon is extended in place — an event
// that replays — and the study asks on; an extension not above the
// horizon, or with an ask pending, is refused.
func TestExtend(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "e.db")
	v, _ := newService(t, path)
	if err := v.Create(ctx, "s", resolved(t, strings.Replace(piSpec, "horizon: 60", "horizon: 6", 1))); err != nil {
		t.Fatal(err)
	}
	step := func() *api.AskAnswer {
		t.Helper()
		a, err := v.Ask(ctx, "s")
		if err != nil {
			t.Fatal(err)
		}
		vals, _ := piMeasure(a.Params)
		id := a.Ask
		if _, err := v.Tell(ctx, "s", &api.TellRequest{Ask: &id, Values: vals}); err != nil {
			t.Fatal(err)
		}
		return a
	}
	for range 6 {
		step()
	}
	if _, err := v.Ask(ctx, "s"); !errors.Is(err, api.ErrFinished) || !errors.Is(err, api.ErrHorizon) {
		t.Fatalf("ask at the horizon: %v, want ErrFinished", err)
	}
	if _, err := v.Extend(ctx, "s", 6); !errors.Is(err, api.ErrBadExtend) {
		t.Errorf("extend to the same horizon: %v, want ErrBadExtend", err)
	}
	ans, err := v.Extend(ctx, "s", 10)
	if err != nil || ans.Horizon != 10 || ans.Rounds != 6 {
		t.Fatalf("extend: %+v, %v", ans, err)
	}
	for range 3 {
		step()
	}
	if _, err := v.Ask(ctx, "s"); err != nil { // pending now
		t.Fatal(err)
	}
	if _, err := v.Extend(ctx, "s", 20); !errors.Is(err, api.ErrBadExtend) {
		t.Errorf("extend with an ask pending: %v, want ErrBadExtend", err)
	}
	if sum, _ := v.Show(ctx, "s"); sum.Horizon != 10 {
		t.Errorf("summary horizon %d, want 10", sum.Horizon)
	}
	if list, _ := v.List(ctx); len(list) != 1 || list[0].Horizon != 10 {
		t.Errorf("list: %+v", list)
	}
	live, _ := v.Ask(ctx, "s")
	copyDB(t, path, path+".copy")
	again, _ := newService(t, path+".copy")
	if re, err := again.Ask(ctx, "s"); err != nil || key(re.Params) != key(live.Params) {
		t.Errorf("reopened: %+v (%v), live %v", re, err, live.Params)
	}
}

// TestUnknownStudyNamesTheStudies: an unknown study's error names the
// studies the file holds, so that a default name or a typo shows.
func TestUnknownStudyNamesTheStudies(t *testing.T) {
	ctx := context.Background()
	v, _ := newService(t, filepath.Join(t.TempDir(), "n.db"))
	if _, err := v.Show(ctx, "default"); !errors.Is(err, store.ErrNotFound) || !strings.Contains(err.Error(), "holds no study yet") {
		t.Errorf("empty file: %v", err)
	}
	for _, n := range []string{"pi", "pid"} {
		if err := v.Create(ctx, n, resolved(t, piSpec)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := v.Ask(ctx, "default"); !errors.Is(err, store.ErrNotFound) || !strings.Contains(err.Error(), `2 studies: "pi", "pid"`) {
		t.Errorf("unknown study: %v", err)
	}
}

// losboSpec is a 2-D problem for losbo in raw units: the constraint
// c = a²/2 + 0.3·b ≤ 1.5 has |∂c/∂a| ≤ 2 and |∂c/∂b| = 0.3 on the box,
// its measurements within 0.02 (uniform noise); minimize the distance to
// (1.8, 1.5), beyond the limit.
const losboSpec = `
parameters:
  - {name: a, low: 0, high: 2}
  - {name: b, low: 0, high: 2}
objective: {name: d, goal: minimize}
constraints:
  - {name: c, max: 1.5, lipschitz: {a: 2, b: 0.3}, noise_bound: 0.02}
seeds: [{a: 0.2, b: 0.2}]
algorithm: {name: losbo}
horizon: 100
seed: 1
`

func losboTruth(p space.Setting) (d, c float64) {
	a, b := p["a"].Num, p["b"].Num
	return math.Hypot(a-1.8, b-1.5), a*a/2 + 0.3*b
}

// TestLoSBOInUnits (issue 43, item 4): losbo with true per-parameter
// Lipschitz bounds and a true noise bound in raw units breaks no limit in
// 100 trials and gets at least half way from its seed to the best
// setting reachable from it — the candidates certified, from the seed
// on, by exact measurements less the noise bound.
func TestLoSBOInUnits(t *testing.T) {
	if testing.Short() {
		t.Skip("100 trials")
	}
	racetest.Long(t, "100 trials on a 10 000-candidate grid take 130 s")
	ctx := context.Background()
	v, _ := newService(t, filepath.Join(t.TempDir(), "l.db"))
	r := resolved(t, losboSpec)
	if err := v.Create(ctx, "s", r); err != nil {
		t.Fatal(err)
	}
	// The best reachable: grow the certified set from the seed.
	sp, err := space.New(r.Spec.Parameters)
	if err != nil {
		t.Fatal(err)
	}
	_, sets, err := sp.Candidates()
	if err != nil {
		t.Fatal(err)
	}
	in := make([]bool, len(sets))
	seedD, _ := losboTruth(r.Spec.Seeds[0])
	reach := seedD
	sources := []space.Setting{r.Spec.Seeds[0]}
	for len(sources) > 0 {
		y := sources[len(sources)-1]
		sources = sources[:len(sources)-1]
		_, cy := losboTruth(y)
		for i, x := range sets {
			if !in[i] && 1.5-cy-0.02-2*math.Abs(x["a"].Num-y["a"].Num)-0.3*math.Abs(x["b"].Num-y["b"].Num) >= 0 {
				in[i] = true
				sources = append(sources, x)
				d, _ := losboTruth(x)
				reach = min(reach, d)
			}
		}
	}
	rng := rand.New(rand.NewPCG(5, 6))
	best := seedD
	for trial := range 100 {
		a, err := v.Ask(ctx, "s")
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		d, c := losboTruth(a.Params)
		if c > 1.5 {
			t.Fatalf("trial %d: %v breaks the limit: c = %v", trial, a.Params, c)
		}
		best = min(best, d)
		id := a.Ask
		noisy := map[string]float64{"d": d + 0.02*(2*rng.Float64()-1), "c": c + 0.02*(2*rng.Float64()-1)}
		if _, err := v.Tell(ctx, "s", &api.TellRequest{Ask: &id, Values: noisy}); err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
	}
	way := (seedD - best) / (seedD - reach)
	t.Logf("best %.3f, seed %.3f, best reachable %.3f: %.0f %% of the way", best, seedD, reach, 100*way)
	if way < 0.5 {
		t.Errorf("%.0f %% of the way from the seed to the best reachable setting, want ≥ 50 %%", 100*way)
	}
}

// TestLoSBOInUnitsRefused: losbo in a study stated in parameters takes
// its bounds from every constraint, on a candidate grid, and the
// frequentist β is refused there, each with a reason.
func TestLoSBOInUnitsRefused(t *testing.T) {
	for _, c := range []struct {
		name, from, to, want string
	}{
		{"constraint without bounds", "lipschitz: {a: 2, b: 0.3}, noise_bound: 0.02}", "}", "losbo needs lipschitz"},
		{"a parameter missing", "lipschitz: {a: 2, b: 0.3}", "lipschitz: {a: 2}", "b is missing"},
		{"bounds on the algorithm", "algorithm: {name: losbo}", "algorithm: {name: losbo, lipschitz: 2, noise_bound: 0.1}", "takes its bounds from each constraint"},
		{"on a box", "  - {name: b, low: 0, high: 2}\n", "  - {name: b, low: 0, high: 2}\n  - {name: e, low: 0, high: 1}\n", "candidate grid"},
		{"frequentist β", "algorithm: {name: losbo}", "model: {beta: {rkhs_norm: 2, noise_bound: 0.1}}", "frequentist β"},
	} {
		y := strings.Replace(losboSpec, c.from, c.to, 1)
		if c.name == "on a box" {
			y = strings.Replace(y, "lipschitz: {a: 2, b: 0.3}", "lipschitz: {a: 2, b: 0.3, e: 1}", 1)
			y = strings.Replace(y, "seeds: [{a: 0.2, b: 0.2}]", "seeds: [{a: 0.2, b: 0.2, e: 0.5}]", 1)
		}
		s, err := study.ParseSpec([]byte(y))
		if err == nil {
			_, err = s.Resolve(".")
		}
		if !errors.Is(err, api.ErrSpec) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want ErrSpec with %q", c.name, err, c.want)
		}
	}
}

// TestAfterViolationNotBackToIt: the way back never returns to a setting
// that broke a limit, even one measured safe before (here the seed, safe
// twice, then past the limit): it is never asked again.
func TestAfterViolationNotBackToIt(t *testing.T) {
	ctx := context.Background()
	v, _ := newService(t, filepath.Join(t.TempDir(), "n.db"))
	if err := v.Create(ctx, "s", resolved(t, piSpec+"after_violation: best\n")); err != nil {
		t.Fatal(err)
	}
	for trial, over := range []float64{0.01, 0.01, 0.2} {
		a, err := v.Ask(ctx, "s")
		if err != nil {
			t.Fatal(err)
		}
		if key(a.Params) != `{"ki":0.05,"kp":0.3}` {
			t.Fatalf("trial %d: %v, want the seed", trial, a.Params)
		}
		id := a.Ask
		if _, err := v.Tell(ctx, "s", &api.TellRequest{Ask: &id, Values: map[string]float64{"settle_time": 60, "overshoot": over}}); err != nil {
			t.Fatal(err)
		}
	}
	a, err := v.Ask(ctx, "s")
	if err == nil && (a.BackToBest || key(a.Params) == `{"ki":0.05,"kp":0.3}`) {
		t.Fatalf("after the seed broke the limit: %+v; want neither the seed nor a way back to it", a)
	}
	if err != nil && !errors.Is(err, api.ErrNoSafeSetting) {
		t.Fatal(err)
	}
}
