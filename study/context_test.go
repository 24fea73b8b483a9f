package study_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/safegp/safegp/study"
	"github.com/safegp/safegp/study/api"
	"github.com/safegp/safegp/study/exchange"
)

// ctxSpec is a 1-D study whose asks take the temperature (and, with two,
// the load): replaySpec's grid, seeds and model, with alg and a context.
func ctxSpec(alg, context string) string {
	s := replaySpec(alg)
	if context == "" {
		return s
	}
	return strings.TrimSuffix(s, "}") + `, "context": ` + context + `}`
}

const (
	oneContext = `{"names": ["temperature"], "kernel": {"kernel": "se", "lengthscale": 5}}`
	twoContext = `{"names": ["temperature", "load"], "kernel": {"kernel": "matern52", "lengthscale": [5, 0.5]}}`
)

// ctxTruth is the system in context (temperature, load): f peaks at
// x = 3 − T/10, g ≥ 0 for x ≤ 3.5 − T/10 − load.
func ctxTruth(x float64, c map[string]float64) (float64, []float64) {
	s := c["temperature"]/10 + c["load"]
	return -(x - 3 + c["temperature"]/10) * (x - 3 + c["temperature"]/10), []float64{1 - math.Pow((x+s)/3.5, 4)}
}

// TestContextOneContextAsksAsWithout: a study with a context whose every
// ask is made in the same context asks exactly what the same study without
// a context asks — with tells outside the loop by index and at points, an
// import before the first ask, and a retraction (which rebuilds the
// policy) on the way.
func TestContextOneContextAsksAsWithout(t *testing.T) {
	ctx := context.Background()
	temp := map[string]float64{"temperature": 21.5}
	for name, alg := range replaySpecs {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			plain, _ := newService(t, filepath.Join(dir, "plain.db"))
			with, _ := newService(t, filepath.Join(dir, "context.db"))
			if err := plain.Create(ctx, "s", resolved(t, ctxSpec(alg, ""))); err != nil {
				t.Fatal(err)
			}
			if err := with.Create(ctx, "s", resolved(t, ctxSpec(alg, oneContext))); err != nil {
				t.Fatal(err)
			}
			both := func(do func(v *study.Service, c map[string]float64) error) {
				t.Helper()
				if err := do(plain, nil); err != nil {
					t.Fatal(err)
				}
				if err := do(with, temp); err != nil {
					t.Fatal(err)
				}
			}
			imp := func(x, f, g float64) api.TellRequest {
				return api.TellRequest{X: []float64{x}, F: &f, G: []float64{g}}
			}
			both(func(v *study.Service, c map[string]float64) error {
				rows := []api.TellRequest{imp(1, -4, 0.9), imp(1.05, -3.8, 0.9)} // an action, a point off the grid
				for k := range rows {
					rows[k].Context = c
				}
				_, err := v.Import(ctx, "s", rows)
				return err
			})
			var typo int
			for round := 1; round <= 20; round++ {
				a, err := plain.Ask(ctx, "s")
				if err != nil {
					t.Fatal(err)
				}
				b, err := with.AskIn(ctx, "s", temp)
				if err != nil {
					t.Fatal(err)
				}
				if a.Ask != b.Ask || a.Index != b.Index || !slices.Equal(a.X, b.X) || b.Context["temperature"] != 21.5 {
					t.Fatalf("round %d: ask %+v, with a context %+v", round, a, b)
				}
				f, g := truth(a.X[0])
				both(func(v *study.Service, _ map[string]float64) error {
					_, err := v.Tell(ctx, "s", &api.TellRequest{Ask: &a.Ask, F: &f, G: g})
					return err
				})
				switch round {
				case 5:
					both(func(v *study.Service, c map[string]float64) error {
						i, f := 13, -3.0
						_, err := v.Tell(ctx, "s", &api.TellRequest{Index: &i, F: &f, G: []float64{0.4}, Context: c})
						return err
					})
				case 8:
					both(func(v *study.Service, c map[string]float64) error {
						f := -2.0
						a, err := v.Tell(ctx, "s", &api.TellRequest{X: []float64{1.23}, F: &f, G: []float64{50}, Context: c})
						if err == nil {
							typo = a.Observation
						}
						return err
					})
				case 12:
					both(func(v *study.Service, _ map[string]float64) error {
						_, err := v.Retract(ctx, "s", typo)
						return err
					})
				}
			}
		})
	}
}

// TestContextReplay: a study asked in changing contexts, told outside the
// loop in other contexts, then reopened from a copy of its database
// (replayed from the records: each ask's context set before it is asked
// again) suggests the same next ask as the study kept in memory.
func TestContextReplay(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for name, alg := range replaySpecs {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "live.db")
			live, _ := newService(t, path)
			if err := live.Create(ctx, "s", resolved(t, ctxSpec(alg, twoContext))); err != nil {
				t.Fatal(err)
			}
			contexts := []map[string]float64{{"temperature": 20, "load": 0.1}, {"temperature": 25, "load": 0.3}, {"temperature": 20, "load": 0.1}, {"temperature": 10, "load": 0}}
			copies := 0
			compare := func(when string, c map[string]float64) {
				t.Helper()
				copies++
				cp := filepath.Join(dir, fmt.Sprint("copy", copies, ".db"))
				copyDB(t, path, cp)
				reopened, _ := newService(t, cp)
				want, err := live.AskIn(ctx, "s", c)
				if err != nil {
					t.Fatal(err)
				}
				got, err := reopened.AskIn(ctx, "s", c)
				if err != nil {
					t.Fatal(err)
				}
				if got.Ask != want.Ask || got.Index != want.Index {
					t.Fatalf("%s: reopened, the next ask is %+v; kept in memory, %+v", when, got, want)
				}
				f, g := ctxTruth(want.X[0], c)
				if _, err := live.Tell(ctx, "s", &api.TellRequest{Ask: &want.Ask, F: &f, G: g}); err != nil {
					t.Fatal(err)
				}
			}
			for k := range 12 {
				compare(fmt.Sprint("round ", k+1), contexts[k%len(contexts)])
				if k == 4 {
					i, f := 12, -3.0
					_, g := ctxTruth(1.2, contexts[1])
					if _, err := live.Tell(ctx, "s", &api.TellRequest{Index: &i, F: &f, G: g, Context: contexts[1]}); err != nil {
						t.Fatal(err)
					}
				}
				if k == 7 {
					f := -2.0
					if _, err := live.Tell(ctx, "s", &api.TellRequest{X: []float64{0.77}, F: &f, G: []float64{0.5}, Context: map[string]float64{"temperature": 30, "load": 0.2}}); err != nil {
						t.Fatal(err)
					}
				}
			}
			obs, err := live.Observations(ctx, "s")
			if err != nil {
				t.Fatal(err)
			}
			if c := obs[len(obs)-1].Context; c["temperature"] != contexts[11%4]["temperature"] || c["load"] != contexts[11%4]["load"] {
				t.Errorf("the last tell of an ask has context %v, want the ask's %v", c, contexts[11%4])
			}
		})
	}
}

// TestContextBadInput: a context missing, with a name too many, not a
// number, given to a study without one, or differing from a pending ask's
// is refused, naming the variable, and changes nothing.
func TestContextBadInput(t *testing.T) {
	ctx := context.Background()
	v, st := newService(t, filepath.Join(t.TempDir(), "s.db"))
	if err := v.Create(ctx, "c", resolved(t, ctxSpec(replaySpecs["stageopt gp"], twoContext))); err != nil {
		t.Fatal(err)
	}
	if err := v.Create(ctx, "plain", resolved(t, ctxSpec(replaySpecs["stageopt gp"], ""))); err != nil {
		t.Fatal(err)
	}
	good := map[string]float64{"temperature": 20, "load": 0.1}
	f := 1.0
	bad := []struct {
		name  string
		study string
		c     map[string]float64
		want  error
		msg   string
	}{
		{"none", "c", nil, api.ErrBadContext, "context is missing"},
		{"missing", "c", map[string]float64{"temperature": 20}, api.ErrBadContext, "context.load is missing"},
		{"extra", "c", map[string]float64{"temperature": 20, "load": 0.1, "humidity": 3}, api.ErrBadContext, "context.humidity is not a context variable"},
		{"NaN", "c", map[string]float64{"temperature": math.NaN(), "load": 0.1}, api.ErrBadContext, "context.temperature = NaN"},
		{"Inf", "c", map[string]float64{"temperature": 20, "load": math.Inf(1)}, api.ErrBadContext, "context.load = +Inf"},
		{"study without", "plain", good, api.ErrBadContext, "has no context"},
	}
	before, _ := st.Events(ctx, "c")
	for _, c := range bad {
		if _, err := v.AskIn(ctx, c.study, c.c); !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("ask, %s: %v, want %v with %q", c.name, err, c.want, c.msg)
		}
		i := 3
		if _, err := v.Tell(ctx, c.study, &api.TellRequest{Index: &i, F: &f, G: []float64{0}, Context: c.c}); !errors.Is(err, c.want) || !errors.Is(err, api.ErrBadTell) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("tell, %s: %v, want %v and api.ErrBadTell with %q", c.name, err, c.want, c.msg)
		}
		if _, err := v.PosteriorIn(ctx, c.study, [][]float64{{1}}, c.c); !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("posterior, %s: %v, want %v with %q", c.name, err, c.want, c.msg)
		}
	}
	if after, _ := st.Events(ctx, "c"); len(after) != len(before) {
		t.Errorf("bad input recorded %d events", len(after)-len(before))
	}
	a, err := v.AskIn(ctx, "c", good)
	if err != nil {
		t.Fatal(err)
	}
	if again, err := v.AskIn(ctx, "c", map[string]float64{"temperature": 20, "load": 0.1}); err != nil || again.Ask != a.Ask {
		t.Errorf("the same context with ask %d pending: %+v, %v", a.Ask, again, err)
	}
	// Another context with ask a pending: a new ask there, a stays
	// pending in its own.
	if b, err := v.AskIn(ctx, "c", map[string]float64{"temperature": 21, "load": 0.1}); err != nil || b.Ask == a.Ask {
		t.Errorf("another context with ask %d pending: %+v, %v, want a new ask", a.Ask, b, err)
	}
	if _, err := v.Tell(ctx, "c", &api.TellRequest{Ask: &a.Ask, F: &f, G: []float64{0}, Context: good}); !errors.Is(err, api.ErrBadTell) || !strings.Contains(err.Error(), "the ask's context") {
		t.Errorf("a tell of an ask with a context: %v", err)
	}
	if _, err := v.Tell(ctx, "c", &api.TellRequest{Ask: &a.Ask, F: &f, G: []float64{0}}); err != nil {
		t.Fatal(err)
	}
	if _, err := v.AskIn(ctx, "c", map[string]float64{"temperature": 21, "load": 0.1}); err != nil {
		t.Errorf("another context once the ask is told: %v", err)
	}

	// The JSON forms.
	for _, c := range []struct{ s, msg string }{{"temperature", "not name=value"}, {"temperature=x", `"x" is not a decimal number`}, {"t=1,t=2", "given twice"}, {"=1", "not name=value"}} {
		if _, err := api.ParseContext(c.s); !errors.Is(err, api.ErrBadContext) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("ParseContext(%q): %v, want %q", c.s, err, c.msg)
		}
	}
	if c, err := api.ParseContext(" temperature = 21.5 ,load=0.3"); err != nil || c["temperature"] != 21.5 || c["load"] != 0.3 {
		t.Errorf("ParseContext: %v, %v", c, err)
	}
}

// TestContextImportShowExport: an import with context columns (CSV) and
// contexts (JSON), the contexts in the observations, the export's columns
// and the summary's context.
func TestContextImportShowExport(t *testing.T) {
	ctx := context.Background()
	v, _ := newService(t, filepath.Join(t.TempDir(), "s.db"))
	if err := v.Create(ctx, "c", resolved(t, ctxSpec(replaySpecs["stageopt gp"], twoContext))); err != nil {
		t.Fatal(err)
	}
	sum, err := v.Show(ctx, "c")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(sum.ContextNames, []string{"temperature", "load"}) || sum.Context != nil || sum.Best != nil {
		t.Errorf("before any ask: context names %v, context %v, best %v", sum.ContextNames, sum.Context, sum.Best)
	}
	rows, err := exchange.ParseImportCSV(strings.NewReader("x1,temperature,load,f,g1\n1,20,0.1,-4,0.9\n1.05,25,0.3,-3.8,0.8\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[1].Context["temperature"] != 25 || rows[1].Context["load"] != 0.3 || *rows[1].F != -3.8 || rows[1].X[0] != 1.05 {
		t.Fatalf("parsed %+v", rows)
	}
	i3, f3 := 3, -5.0
	js := []api.TellRequest{{Index: &i3, F: &f3, G: []float64{0.9}, Context: map[string]float64{"temperature": 20, "load": 0.1}}}
	ans, err := v.Import(ctx, "c", append(rows, js...))
	if err != nil {
		t.Fatal(err)
	}
	if ans.Imported != 3 || ans.Outside != 1 {
		t.Errorf("import: %+v", ans)
	}
	for _, c := range []struct{ csv, msg string }{
		{"x1,temperature,f,g1\n1,20,-4,0.9\n", "context.load is missing"},
		{"x1,temperature,load,humidity,f,g1\n1,20,0.1,3,-4,0.9\n", "context.humidity is not a context variable"},
		{"x1,f,g1\n1,-4,0.9\n", "context is missing"},
	} {
		rows, err := exchange.ParseImportCSV(strings.NewReader(c.csv), nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := v.Import(ctx, "c", rows); !errors.Is(err, api.ErrBadImport) || !errors.Is(err, api.ErrBadContext) || !strings.Contains(err.Error(), "line 2") || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("import %q: %v, want api.ErrBadImport naming line 2 and %q", c.csv, err, c.msg)
		}
	}
	if _, err := exchange.ParseImportCSV(strings.NewReader("x1,temperature,f,g1\n1,NaN,-4,0.9\n"), nil); !errors.Is(err, api.ErrBadImport) || !strings.Contains(err.Error(), "line 2, column temperature") {
		t.Errorf("a NaN context cell: %v", err)
	}
	if _, err := exchange.ParseImportCSV(strings.NewReader("x1,temperature,f,g1\n1,20,-4\n"), nil); !errors.Is(err, api.ErrBadImport) || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("a short row: %v", err)
	}

	c1 := map[string]float64{"temperature": 20, "load": 0.1}
	a, err := v.AskIn(ctx, "c", c1)
	if err != nil {
		t.Fatal(err)
	}
	f, g := ctxTruth(a.X[0], c1)
	if _, err := v.Tell(ctx, "c", &api.TellRequest{Ask: &a.Ask, F: &f, G: g}); err != nil {
		t.Fatal(err)
	}
	sum, err = v.Show(ctx, "c")
	if err != nil {
		t.Fatal(err)
	}
	if sum.Context["temperature"] != 20 || sum.Context["load"] != 0.1 || sum.Best == nil || sum.Rounds != 4 || sum.Outside != 1 {
		t.Errorf("summary: %+v", sum)
	}
	x, err := v.Export(ctx, "c")
	if err != nil {
		t.Fatal(err)
	}
	csv := string(exchange.ExportCSV(x))
	lines := strings.Split(strings.TrimSpace(csv), "\n")
	if !strings.HasPrefix(lines[0], "seq,kind,ask,index,x1,temperature,load,f,g1,") || !strings.Contains(lines[2], ",1.05,25,0.3,-3.8,0.8,") {
		t.Errorf("export CSV:\n%s", csv)
	}
	// The export's columns import again: x1, the context, f, g1.
	obs, _ := v.Observations(ctx, "c")
	if c := obs[2].Context; c["temperature"] != 20 || obs[2].Index != 3 {
		t.Errorf("imported JSON row: %+v", obs[2])
	}
	// A retraction rebuilds the policy: its view stays in the last ask's
	// context.
	if _, err := v.Retract(ctx, "c", obs[1].Seq); err != nil {
		t.Fatal(err)
	}
	if sum, err := v.Show(ctx, "c"); err != nil || sum.Context["temperature"] != 20 || sum.Best == nil || sum.Rounds != 3 {
		t.Errorf("after a retraction: %+v (%v)", sum, err)
	}
	// The posterior depends on the context it is taken in.
	p1, err := v.PosteriorIn(ctx, "c", [][]float64{{1}}, c1)
	if err != nil {
		t.Fatal(err)
	}
	p2, err := v.PosteriorIn(ctx, "c", [][]float64{{1}}, map[string]float64{"temperature": 90, "load": 3})
	if err != nil {
		t.Fatal(err)
	}
	if p1.Context["temperature"] != 20 || p1.Points[0].F.Std >= p2.Points[0].F.Std {
		t.Errorf("posterior at x = 1: σ_f %v in the observed context, %v far from every observation", p1.Points[0].F.Std, p2.Points[0].F.Std)
	}
}

// TestContextSpecErrors: a context block is checked like the rest of the
// spec, errors naming the key.
func TestContextSpecErrors(t *testing.T) {
	base := replaySpec(replaySpecs["stageopt gp"])
	with := func(s, c string) string { return strings.TrimSuffix(s, "}") + `, "context": ` + c + `}` }
	for _, c := range []struct{ spec, msg string }{
		{with(base, `{"names": [], "kernel": {"kernel": "se", "lengthscale": 1}}`), "context.names: missing"},
		{with(base, `{"names": ["t", "t"], "kernel": {"kernel": "se", "lengthscale": 1}}`), `context.names[1]: "t" is also names[0]`},
		{with(base, `{"names": ["f"], "kernel": {"kernel": "se", "lengthscale": 1}}`), `context.names[0]: "f" is the name of a data column`},
		{with(base, `{"names": ["x2"], "kernel": {"kernel": "se", "lengthscale": 1}}`), `context.names[0]: "x2" is the name of a data column`},
		{with(base, `{"names": ["1t"], "kernel": {"kernel": "se", "lengthscale": 1}}`), `context.names[0]: "1t" is not a name`},
		{with(base, `{"names": ["t"], "kernel": {"kernel": "se", "lengthscale": [1, 2]}}`), "context.kernel.lengthscale: 2 lengthscales for 1 context dimensions"},
		{with(base, `{"names": ["t"], "kernel": {"kernel": "se", "lengthscale": 1, "variance": 2}}`), "context.kernel.variance: fixed to 1"},
		{with(base, `{"names": ["t"], "kernel": {"kernel": "linear"}}`), "context.kernel.kernel: a context kernel must be stationary"},
		{with(base, `{"names": ["t"]}`), "context.kernel.kernel: missing"},
		{with(base, `{"names": ["t"], "kernel": {"kernel": "se", "lengthscale": 1}, "values": [[1]]}`), "values"},
		{with(replaySpec(`{"name": "sgp-ucb", "phase1": "uniform", "exploration": "theory"}`), `{"names": ["t"], "kernel": {"kernel": "se", "lengthscale": 1}}`), "algorithm.exploration: theory is not offered with a context"},
		{with(`{"decision_set": {"box": {"bounds": [[0, 4]]}}, "seed_points": [[1]], "thresholds": [0.0],
	 "model": {"objective": {"kernel": "se", "lengthscale": 1}, "constraints": [{"kernel": "se", "lengthscale": 1}], "noise_std": 0.05, "delta": 0.01},
	 "algorithm": {"name": "line-bo", "lipschitz": 2}, "horizon": 60, "seed": 5}`, `{"names": ["t"], "kernel": {"kernel": "se", "lengthscale": 1}}`), "context: not offered on a box"},
		{with(`{"decision_set": {"grid": {"bounds": [[0, 4]], "points": [41]}}, "seed_actions": [10, 11, 12], "thresholds": [0.0],
	 "model": {"objective": {"kernel": "se", "lengthscale": 1}, "constraints": [{"kernel": "se", "lengthscale": 1}], "noise_std": 0.05, "delta": 0.01, "fit": {"when": "seed"}},
	 "algorithm": {"name": "safeopt", "safe_set": "gp"}, "horizon": 60, "seed": 5}`, `{"names": ["t"], "kernel": {"kernel": "se", "lengthscale": 1}}`), "model.fit: not offered with a context"},
	} {
		s, err := study.ParseSpec([]byte(c.spec))
		if err == nil {
			_, err = s.Resolve(".")
		}
		if !errors.Is(err, api.ErrSpec) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: %v, want api.ErrSpec with %q", c.msg, err, c.msg)
		}
	}
}

// TestContextMinusZero is issue 24, item 7: asking in {"t": -0.0} and
// then in {"t": 0} left two asks pending in two contexts, which export
// showed as one (0). −0 is 0: the second ask is the first, pending, and
// everything recorded holds +0 — a context, and a point outside the set.
func TestContextMinusZero(t *testing.T) {
	ctx := context.Background()
	v, _ := newService(t, filepath.Join(t.TempDir(), "s.db"))
	spec := strings.Replace(ctxSpec(replaySpecs["sgp-ucb uniform"], oneContext), `"bounds": [[0, 4]]`, `"bounds": [[0.5, 4.5]]`, 1)
	if err := v.Create(ctx, "s", resolved(t, spec)); err != nil {
		t.Fatal(err)
	}
	negZero := math.Copysign(0, -1)
	first, err := v.AskIn(ctx, "s", map[string]float64{"temperature": negZero})
	if err != nil {
		t.Fatal(err)
	}
	second, err := v.AskIn(ctx, "s", map[string]float64{"temperature": 0})
	if err != nil {
		t.Fatal(err)
	}
	if second.Ask != first.Ask {
		t.Errorf("asks %d in −0 and %d in 0: two contexts for one value", first.Ask, second.Ask)
	}
	if math.Signbit(first.Context["temperature"]) {
		t.Errorf("the ask's context is recorded as −0")
	}
	// A measurement outside the loop at a point outside the decision set
	// ([0.5, 4.5] here), in context −0.
	f := 0.5
	if _, err := v.Tell(ctx, "s", &api.TellRequest{X: []float64{negZero}, F: &f, G: []float64{0.5}, Context: map[string]float64{"temperature": negZero}}); err != nil {
		t.Fatal(err)
	}
	obs, err := v.Observations(ctx, "s")
	if err != nil || len(obs) != 1 {
		t.Fatalf("%+v, %v", obs, err)
	}
	if o := obs[0]; o.Index != -1 || math.Signbit(o.X[0]) || math.Signbit(o.Context["temperature"]) {
		t.Errorf("recorded %+v: a −0 kept", o)
	}
	sum, err := v.Show(ctx, "s")
	if err != nil || len(sum.PendingAsks) > 1 {
		t.Errorf("pending: %v, %v; want one ask", sum.PendingAsks, err)
	}
}
