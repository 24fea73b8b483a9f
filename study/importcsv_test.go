package study_test

import (
	"bytes"
	"context"
	"errors"
	"math"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/safegp/safegp/study"
	"github.com/safegp/safegp/study/api"
	"github.com/safegp/safegp/study/exchange"
)

// TestImportHeaderForStudy: read against a study's columns, an import's
// header errors say what that study takes — its context variables, never
// a seed column — and name the column missing or unknown (issue 12
// review). The columns of a context may come in any order.
func TestImportHeaderForStudy(t *testing.T) {
	ctx := context.Background()
	v, _ := newService(t, filepath.Join(t.TempDir(), "s.db"))
	if err := v.Create(ctx, "c", resolved(t, ctxSpec(replaySpecs["stageopt gp"], twoContext))); err != nil {
		t.Fatal(err)
	}
	if err := v.Create(ctx, "plain", resolved(t, ctxSpec(replaySpecs["stageopt gp"], ""))); err != nil {
		t.Fatal(err)
	}
	withCtx, err := v.Columns(ctx, "c")
	if err != nil || withCtx.Dim != 1 || withCtx.Constraints != 1 || !reflect.DeepEqual(withCtx.Context, []string{"temperature", "load"}) {
		t.Fatalf("columns of c: %+v (%v)", withCtx, err)
	}
	plain, err := v.Columns(ctx, "plain")
	if err != nil || plain.Context != nil {
		t.Fatalf("columns of plain: %+v (%v)", plain, err)
	}
	const want = "(want x1,temperature,load,f,g1[,noise_std])"
	for _, c := range []struct {
		cols      *study.Columns
		csv, msg  string
		forbidden string
	}{
		{withCtx, "x1,temperature,load,f,g1,violation\n1,20,0.1,-4,0.9,false\n", `header: unexpected column "violation" ` + want, "seed"},
		{withCtx, "x1,f,g1\n1,-4,0.9\n", "header: columns temperature, load are missing: every row is measured in a context " + want, "a tell outside the loop"},
		{withCtx, "x1,temperature,f,g1\n1,20,-4,0.9\n", "header: column load is missing", "a tell outside the loop"},
		{withCtx, "x1,Temperature,load,f,g1\n1,20,0.1,-4,0.9\n", "header: column Temperature is not a context variable (temperature, load; want", ""},
		{withCtx, "x1,temp,f,g1\n1,20,-4,0.9\n", "header: column temp is not a context variable (temperature, load;", ""},
		{withCtx, "x1,temperature,temperature,load,f,g1\n1,20,20,0.1,-4,0.9\n", "header: column temperature is given twice", ""},
		{withCtx, "x1,x2,temperature,load,f,g1\n1,1,20,0.1,-4,0.9\n", "header: columns x1…x2: the study's points have 1 coordinate " + want, ""},
		{withCtx, "x1,temperature,load,f\n1,20,0.1,-4\n", "header: 0 constraint columns, the study has 1 constraint " + want, ""},
		{withCtx, "x1,temperature,load,g1\n1,20,0.1,0.9\n", "header: column f is missing " + want, ""},
		{withCtx, "x1,temperature,load,f,g1,seed\n1,20,0.1,-4,0.9,1\n", "header: a seed column marks known-safe actions", ""},
		{withCtx, "temperature,x1,load,f,g1\n20,1,0.1,-4,0.9\n", `header: the first column must be x1, got "temperature" ` + want, ""},
		{plain, "x1,temperature,f,g1\n1,20,-4,0.9\n", `header: unexpected column "temperature": the study has no context variables (want x1,f,g1[,noise_std])`, ""},
		{withCtx, "x1,temperature,load,f,g1\n", "no rows below the header", ""},
		{withCtx, "", "empty file, want a header row x1,temperature,load,f,g1[,noise_std]", ""},
		{nil, "x1,f,g1,extra\n1,-4,0.9,1\n", `unexpected column "extra" (want x1…xd[,context names…],f[,g1…gm][,noise_std])`, ""},
	} {
		_, err := exchange.ParseImportCSV(strings.NewReader(c.csv), c.cols)
		if !errors.Is(err, api.ErrBadImport) || !strings.Contains(err.Error(), c.msg) || c.forbidden != "" && strings.Contains(err.Error(), c.forbidden) {
			t.Errorf("%q: %v\nwant api.ErrBadImport with %q", c.csv, err, c.msg)
		}
	}
	// The context columns in another order, an empty noise_std cell for
	// the model's σ.
	rows, err := exchange.ParseImportCSV(strings.NewReader("x1,load,temperature,f,g1,noise_std\n1,0.1,20,-4,0.9,\n1.1,0.3,25,-3.8,0.8,0.02\n"), withCtx)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].Context["temperature"] != 20 || rows[0].Context["load"] != 0.1 || rows[0].NoiseStd != nil || *rows[1].NoiseStd != 0.02 || *rows[1].F != -3.8 || rows[1].G[0] != 0.8 {
		t.Fatalf("parsed %+v", rows)
	}
	if ans, err := v.Import(ctx, "c", rows); err != nil || ans.Imported != 2 {
		t.Fatalf("import: %+v (%v)", ans, err)
	}
	// A misspelt context variable is named, not only the one missing.
	for _, c := range []map[string]float64{{"temp": 20, "load": 0.1}, {"temp": 20}} {
		if _, err := v.AskIn(ctx, "c", c); !errors.Is(err, api.ErrBadContext) || !strings.Contains(err.Error(), `context.temp is not a context variable of study "c" (temperature, load)`) {
			t.Errorf("ask in %v: %v, want the unknown temp named", c, err)
		}
	}
}

// TestExportImportRoundTrip: an export (ExportCSV) imported into a new
// study with the same spec gives it the same observations in force — the
// retracted ones and the retractions skipped — in the same order, with
// their points, noise and contexts; the policy then holds the same data,
// so its posterior agrees. Tolerance: the two GPs condition on the same
// observations in the same order, whose Gram matrix K + diag(σ²) has a
// condition number below 1 + t/σ² ≈ 10⁴ here (σ = 0.05, t ≤ 20), so
// round-off differences stay near 10⁴·2⁻⁵² ≈ 2·10⁻¹²; 1e-9 leaves a wide
// margin.
func TestExportImportRoundTrip(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	src, _ := newService(t, filepath.Join(dir, "src.db"))
	dst, _ := newService(t, filepath.Join(dir, "dst.db"))
	f := func(v float64) *float64 { return &v }
	for _, c := range []struct {
		name, spec string
		context    []map[string]float64 // the asks' contexts, nil without
	}{
		{"plain", specYAML, nil},
		{"context", ctxSpec(replaySpecs["stageopt gp"], twoContext), []map[string]float64{{"temperature": 20, "load": 0.1}, {"temperature": 24, "load": 0.3}, {"temperature": 20, "load": 0.1}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, v := range []*study.Service{src, dst} {
				if err := v.Create(ctx, c.name, resolved(t, c.spec)); err != nil {
					t.Fatal(err)
				}
			}
			tellRound := func(k int) int {
				t.Helper()
				var a *api.AskAnswer
				var err error
				if c.context == nil {
					a, err = src.Ask(ctx, c.name)
				} else {
					a, err = src.AskIn(ctx, c.name, c.context[k%len(c.context)])
				}
				if err != nil {
					t.Fatal(err)
				}
				fv, g := truth(a.X[0])
				if c.context != nil {
					fv, g = ctxTruth(a.X[0], a.Context)
				}
				id := a.Ask
				ans, err := src.Tell(ctx, c.name, &api.TellRequest{Ask: &id, F: &fv, G: g})
				if err != nil {
					t.Fatal(err)
				}
				return ans.Observation
			}
			first := tellRound(0)
			for k := 1; k < 5; k++ {
				tellRound(k)
			}
			// Outside the loop: at a point with its own noise, at an
			// action, with a context where the study has one.
			var at map[string]float64
			if c.context != nil {
				at = map[string]float64{"temperature": 22.5, "load": 0.2}
			}
			for _, r := range []api.TellRequest{
				{X: []float64{0.37}, F: f(-6.9), G: []float64{0.99}, NoiseStd: f(0.1), Context: at},
				{Index: func() *int { i := 3; return &i }(), F: f(-5.8), G: []float64{0.98}, NoiseStd: f(0), Context: at},
			} {
				if _, err := src.Tell(ctx, c.name, &r); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := src.Retract(ctx, c.name, first); err != nil {
				t.Fatal(err)
			}
			for k := 5; k < 8; k++ {
				tellRound(k)
			}
			if c.context != nil {
				// A pending ask is no observation: not exported.
				if _, err := src.AskIn(ctx, c.name, c.context[0]); err != nil {
					t.Fatal(err)
				}
			} else if _, err := src.Ask(ctx, c.name); err != nil {
				t.Fatal(err)
			}

			x, err := src.Export(ctx, c.name)
			if err != nil {
				t.Fatal(err)
			}
			csvText := exchange.ExportCSV(x)
			if !bytes.Contains(csvText, []byte(",retract,,")) {
				t.Fatalf("the export has no retraction row:\n%s", csvText)
			}
			cols, err := dst.Columns(ctx, c.name)
			if err != nil {
				t.Fatal(err)
			}
			rows, err := exchange.ParseImportCSV(bytes.NewReader(csvText), cols)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := dst.Import(ctx, c.name, rows); err != nil {
				t.Fatal(err)
			}

			inForce := func(v *study.Service) []api.Observation {
				t.Helper()
				obs, err := v.Observations(ctx, c.name)
				if err != nil {
					t.Fatal(err)
				}
				var kept []api.Observation
				for _, o := range obs {
					if !o.Retracted {
						// What an import cannot keep: the record's own
						// numbering and times, and the ask answered.
						o.Seq, o.Ask, o.Created = 0, 0, time.Time{}
						kept = append(kept, o)
					}
				}
				return kept
			}
			want, got := inForce(src), inForce(dst)
			if len(want) != 9 || !reflect.DeepEqual(got, want) {
				t.Fatalf("imported observations differ:\n got %+v\nwant %+v", got, want)
			}

			points := [][]float64{{0.2}, {1.3}, {2.45}, {3.9}}
			ps, err1 := src.PosteriorIn(ctx, c.name, points, at)
			pd, err2 := dst.PosteriorIn(ctx, c.name, points, at)
			if err1 != nil || err2 != nil {
				t.Fatal(err1, err2)
			}
			near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*max(1, math.Abs(a)) }
			for k := range points {
				a, b := ps.Points[k], pd.Points[k]
				if !near(a.F.Mean, b.F.Mean) || !near(a.F.Std, b.F.Std) || !near(a.G[0].Mean, b.G[0].Mean) || !near(a.G[0].Std, b.G[0].Std) {
					t.Errorf("posterior at %v: source %+v, imported %+v", points[k], a, b)
				}
			}
		})
	}
	// An export whose kind column holds something else is refused.
	if _, err := exchange.ParseImportCSV(strings.NewReader("seq,kind,ask,index,x1,f,g1,noise_std,violation,retracted_by,retracts,created\n1,ask,1,3,0.6,1,1,,false,,,x\n"), nil); !errors.Is(err, api.ErrBadImport) || !strings.Contains(err.Error(), `line 2, column kind: "ask", want tell, fail or retract`) {
		t.Errorf("an export row of kind ask: %v", err)
	}
	if _, err := exchange.ParseImportCSV(strings.NewReader("seq,kind,ask,index,x1,f,g1,noise_std,violation,retracts,created\n1,tell,1,3,0.6,1,1,,false,,x\n"), nil); !errors.Is(err, api.ErrBadImport) || !strings.Contains(err.Error(), "without its retracted_by column") {
		t.Errorf("an export without retracted_by: %v", err)
	}
	if _, err := exchange.ParseImportCSV(strings.NewReader("seq,kind,ask,index,x1,f,g1,noise_std,violation,retracted_by,retracts,created\n1,tell,1,3,0.6,1,1,,false,2,,x\n2,retract,,3,,,,,,,1,x\n"), nil); !errors.Is(err, api.ErrBadImport) || !strings.Contains(err.Error(), "no observation in force") {
		t.Errorf("an export of retracted observations only: %v", err)
	}
}
