package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/safegp/safegp/store"
	"github.com/safegp/safegp/study"
	"github.com/safegp/safegp/study/api"
	"github.com/safegp/safegp/study/exchange"
)

// TestImportCLI: earlier measurements imported by one process, tells at a
// point with their own noise by others, and a fresh process reopening the
// study asks what a study kept in memory (this test's own, fed the same
// calls) asks: the replay reaches the same state. Bad imports, tells and
// point files get one error each (exit 1) and change nothing; posterior
// reads only.
func TestImportCLI(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "w.db")
	spec := writeSpec(t, dir)
	safegp(t, "study", "create", spec, "--db", db)
	data := filepath.Join(dir, "earlier.csv")
	csv := "x1,f,g1,noise_std\n0.93,-4.2849,0.995,0.1\n1.2,-3.24,0.986,0.05\n2.45,-0.3025,0.76,0\n"
	if err := os.WriteFile(data, []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	out := safegp(t, "study", "import", "--db", db, data)
	if !strings.Contains(out, `"imported":3`) || !strings.Contains(out, `"outside":2`) {
		t.Fatalf("import: %s", out)
	}
	out, stderr, code := runBinary(t, "study", "tell", "--db", db, "--x", "1.63", "--f", "-1.8769", "--g", "0.953", "--noise-std", "0.02")
	if code != 0 || !strings.Contains(out, `"index":-1`) || stderr != "" {
		t.Fatalf("tell --x: exit %d, %q, %q", code, out, stderr)
	}
	// A typo at a point between the actions warns, as at an action.
	out, stderr, code = runBinary(t, "study", "tell", "--db", db, "--x", "1.01", "--f", "400", "--g", "0.99")
	if code != 0 || !strings.Contains(stderr, "warning: f = 400") || !strings.Contains(stderr, "at point [1.01]") {
		t.Fatalf("typo tell --x: exit %d, %q, %q", code, out, stderr)
	}
	safegp(t, "study", "retract", "--db", db, "--observation", "5")

	// The same calls on a study kept in memory.
	ctx := context.Background()
	st, err := store.Open(filepath.Join(dir, "live.db"), store.OpenOptions{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	live := study.NewService(st, study.ServiceOptions{})
	res, err := study.LoadSpec(spec, 0)
	if err != nil {
		t.Fatal(err)
	}
	rows, _ := exchange.ParseImportCSV(strings.NewReader(csv), nil)
	f1, f2, noise := -1.8769, 400.0, 0.02
	for _, err := range []error{
		live.Create(ctx, "default", res),
		second(live.Import(ctx, "default", rows)),
		second(live.Tell(ctx, "default", &api.TellRequest{X: []float64{1.63}, F: &f1, G: []float64{0.953}, NoiseStd: &noise})),
		second(live.Tell(ctx, "default", &api.TellRequest{X: []float64{1.01}, F: &f2, G: []float64{0.99}})),
		second(live.Retract(ctx, "default", 5)),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	for round := range 4 {
		var got api.AskAnswer
		if err := json.Unmarshal([]byte(safegp(t, "study", "ask", "--db", db)), &got); err != nil {
			t.Fatal(err)
		}
		want, err := live.Ask(ctx, "default")
		if err != nil || got.Index != want.Index || got.Ask != want.Ask {
			t.Fatalf("round %d: a fresh process asks %+v, the study in memory %+v (%v)", round, got, want, err)
		}
		f, g := problem1D(got.X[0])
		safegp(t, "study", "tell", "--db", db, "--ask", itoa(got.Ask), "--f", ftoa(f), "--g", ftoa(g))
		id := want.Ask
		if _, err := live.Tell(ctx, "default", &api.TellRequest{Ask: &id, F: &f, G: []float64{g}}); err != nil {
			t.Fatal(err)
		}
	}

	if out := safegp(t, "study", "show", "--db", db); !strings.Contains(out, "of these: 3 at points outside the decision set, 4 with their own noise_std") {
		t.Errorf("show:\n%s", out)
	}
	before := safegp(t, "study", "export", "--db", db, "--format", "csv")
	if !strings.Contains(before, ",noise_std,") || !strings.Contains(before, ",1.63,-1.8769,0.953,0.02,") {
		t.Errorf("export lacks the tell's noise_std:\n%s", before)
	}
	bad := filepath.Join(dir, "bad.csv")
	for _, c := range []struct {
		name string
		file string // the import file's content, or "" for args alone
		args []string
		msg  string
	}{
		{"short row", "x1,f,g1\n1,1,1\n1,1\n", nil, "line 3"},
		{"negative noise", "x1,f,g1,noise_std\n1,1,1,-0.1\n", nil, "line 2, column noise_std"},
		{"NaN noise", "x1,f,g1,noise_std\n1,1,1,NaN\n", nil, "line 2, column noise_std"},
		{"two dimensions", "x1,x2,f,g1\n1,1,1,1\n", nil, "header: columns x1…x2: the study's points have 1 coordinate (want x1,f,g1[,noise_std])"},
		{"two constraints", "x1,f,g1,g2\n1,1,1,1\n", nil, "header: 2 constraint columns, the study has 1 constraint"},
		{"a context column", "x1,temperature,f,g1\n1,20,1,1\n", nil, `header: unexpected column "temperature": the study has no context variables`},
		{"seed column", "x1,f,g1,seed\n1,1,1,1\n", nil, "seed column"},
		{"past the horizon", "x1,f,g1\n" + strings.Repeat("1,1,1\n", 20), nil, "horizon of 20"},
		{"tell negative noise", "", []string{"tell", "--x", "1", "--f", "1", "--g", "1", "--noise-std", "-1"}, "noise_std = -1"},
		{"tell x of two", "", []string{"tell", "--x", "1,2", "--f", "1", "--g", "1"}, "x has 2 coordinates"},
		{"tell x and index", "", []string{"tell", "--x", "1", "--index", "2", "--f", "1", "--g", "1"}, "exactly one of --ask, --index and --x"},
		{"posterior of two", "", []string{"posterior", writeFile(t, dir, "p2.csv", "x1,x2\n1,2\n")}, "point 1 has 2 coordinates"},
		{"posterior seed", "", []string{"posterior", writeFile(t, dir, "ps.csv", "x1,seed\n1,1\n")}, "seed column"},
	} {
		args := c.args
		if c.file != "" {
			if err := os.WriteFile(bad, []byte(c.file), 0o644); err != nil {
				t.Fatal(err)
			}
			args = []string{"import", bad}
		}
		args = append([]string{"study", args[0], "--db", db}, args[1:]...)
		if _, stderr, code := runBinary(t, args...); code != 1 || !strings.Contains(stderr, c.msg) || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
			t.Errorf("%s: exit %d, %q; want exit 1 with one line mentioning %q", c.name, code, stderr, c.msg)
		}
	}
	if after := safegp(t, "study", "export", "--db", db, "--format", "csv"); after != before {
		t.Errorf("bad input changed the study:\n%s\nthen\n%s", before, after)
	}

	points := writeFile(t, dir, "points.csv", "x1\n0.93\n1.5\n3.3\n")
	var post api.PosteriorAnswer
	if err := json.Unmarshal([]byte(safegp(t, "study", "posterior", "--db", db, points, "--json")), &post); err != nil {
		t.Fatal(err)
	}
	want, err := live.Posterior(ctx, "default", [][]float64{{0.93}, {1.5}, {3.3}})
	if err != nil || len(post.Points) != 3 || post.Points[1].F != want.Points[1].F || post.Points[2].G[0] != want.Points[2].G[0] {
		t.Errorf("posterior: %+v, the study in memory %+v (%v)", post, want, err)
	}
	if table := safegp(t, "study", "posterior", "--db", db, points); !strings.Contains(table, "x1,f_mean,f_std,f_lower,f_upper,g1_mean") || strings.Count(table, "\n") != 5 {
		t.Errorf("posterior table:\n%s", table)
	}
	if after := safegp(t, "study", "export", "--db", db, "--format", "csv"); after != before {
		t.Error("posterior changed the study")
	}
}

func second[T any](_ T, err error) error { return err }

func ftoa(v float64) string { b, _ := json.Marshal(v); return string(b) }

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
