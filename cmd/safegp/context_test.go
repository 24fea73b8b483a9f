package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/safegp/safegp/study/api"
)

// specContext is spec1D with a context: the temperature and the load.
const specContext = spec1D + `context:
  names: [temperature, load]
  kernel: {kernel: se, lengthscale: [10, 0.5]}
`

// TestStudyCLIContext drives a study with a context through the command
// line: ask --context, tells of the ask and outside the loop in a context,
// an import with context columns, show, posterior and export; a context
// missing, extra or not a number is refused naming it, and changes
// nothing.
func TestStudyCLIContext(t *testing.T) {
	dir := t.TempDir()
	spec := writeFile(t, dir, "spec.yaml", specContext)
	db := dir + "/s.db"
	do := func(args ...string) (string, error) {
		var stdout, stderr bytes.Buffer
		err := run(append(args, "--db", db), &stdout, &stderr)
		return stdout.String(), err
	}
	must := func(args ...string) string {
		t.Helper()
		out, err := do(args...)
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		return out
	}
	must("study", "create", spec)
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"study", "ask"}, "context is missing"},
		{[]string{"study", "ask", "--context", "temperature=21.5"}, "context.load is missing"},
		{[]string{"study", "ask", "--context", "temperature=21.5,load=0.3,humidity=4"}, "context.humidity is not a context variable"},
		{[]string{"study", "ask", "--context", "temp=20"}, `context.temp is not a context variable of study "default" (temperature, load)`},
		{[]string{"study", "ask", "--context", "temp=20,load=0.3"}, `context.temp is not a context variable of study "default" (temperature, load)`},
		{[]string{"study", "ask", "--context", "temperature=NaN,load=0.3"}, `context.temperature: "NaN" is not a finite number`},
		{[]string{"study", "ask", "--context", "temperature=warm,load=0.3"}, `context.temperature: "warm" is not a decimal number`},
		{[]string{"study", "ask", "--context", "temperature"}, "not name=value"},
		{[]string{"study", "tell", "--index", "3", "--f", "1", "--g", "1,1"}, "context is missing"},
		{[]string{"study", "posterior", writeFile(t, dir, "p.csv", "x1\n1\n2\n")}, "context is missing"},
	} {
		_, err := do(c.args...)
		if !errors.Is(err, api.ErrBadContext) || exitCode(err) != 1 || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%v: %v (exit %d), want exit 1 mentioning %q", c.args, err, exitCode(err), c.msg)
		}
	}
	// An import's header is read against the study's columns.
	for _, c := range []struct{ csv, msg string }{
		{"x1,f,g1,g2\n1.5,0.2,0.5,0.1\n", "header: columns temperature, load are missing"},
		{"x1,Temperature,load,f,g1,g2\n1.5,19,0.2,0.2,0.5,0.1\n", "header: column Temperature is not a context variable (temperature, load; want x1,temperature,load,f,g1,g2[,noise_std])"},
		{"x1,temperature,load,f,g1,g2,violation\n1.5,19,0.2,0.2,0.5,0.1,false\n", `header: unexpected column "violation" (want x1,temperature,load,f,g1,g2[,noise_std])`},
	} {
		_, err := do("study", "import", writeFile(t, dir, "bad.csv", c.csv))
		if !errors.Is(err, api.ErrBadImport) || exitCode(err) != 1 || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("import %q: %v (exit %d), want exit 1 mentioning %q", c.csv, err, exitCode(err), c.msg)
		}
	}
	if out := must("study", "show"); !strings.Contains(out, "context: temperature, load; current none yet") || !strings.Contains(out, "rounds: 0") {
		t.Errorf("show after bad input:\n%s", out)
	}
	var a api.AskAnswer
	if err := json.Unmarshal([]byte(must("study", "ask", "--context", "temperature=21.5,load=0.3")), &a); err != nil || a.Context["temperature"] != 21.5 || a.Context["load"] != 0.3 {
		t.Fatalf("ask: %+v (%v)", a, err)
	}
	// Another context with ask a pending: a new ask there; a stays
	// pending in its own, and is told after it.
	var b api.AskAnswer
	if err := json.Unmarshal([]byte(must("study", "ask", "--context", "temperature=22,load=0.3")), &b); err != nil || b.Ask == a.Ask || b.Context["temperature"] != 22 {
		t.Fatalf("ask in another context with ask %d pending: %+v (%v)", a.Ask, b, err)
	}
	must("study", "tell", "--ask", itoa(b.Ask), "--f", "0.2", "--g", "0.5,0.2")
	if err := json.Unmarshal([]byte(must("study", "ask", "--context", "temperature=21.5,load=0.3")), &b); err != nil || b.Ask != a.Ask {
		t.Fatalf("ask back in ask %d's context: %+v (%v), want it again", a.Ask, b, err)
	}
	must("study", "tell", "--ask", itoa(a.Ask), "--f", "0.3", "--g", "0.5,0.2")
	must("study", "tell", "--x", "1.23", "--f", "0.1", "--g", "0.4,0.1", "--context", "temperature=18,load=0.1")
	must("study", "import", writeFile(t, dir, "seed.csv", "x1,temperature,load,f,g1,g2\n1.5,19,0.2,0.2,0.5,0.1\n"))
	out := must("study", "show")
	if !strings.Contains(out, `current {"load":0.3,"temperature":22}`) || !strings.Contains(out, "rounds: 4") || !strings.Contains(out, "best safe action:") {
		t.Errorf("show:\n%s", out)
	}
	out = must("study", "posterior", writeFile(t, dir, "q.csv", "x1\n1.5\n"), "--context", "temperature=19,load=0.2")
	if !strings.Contains(out, `# context {"load":0.2,"temperature":19}`) || !strings.Contains(out, "x1,f_mean") {
		t.Errorf("posterior:\n%s", out)
	}
	out = must("study", "export", "--format", "csv")
	if !strings.Contains(out, "x1,temperature,load,f,g1,g2") || !strings.Contains(out, ",1.23,18,0.1,0.1,0.4,0.1,") {
		t.Errorf("export:\n%s", out)
	}
	// The export is what import reads: a copy of the study gets the same
	// observations.
	must("study", "create", spec, "--study", "copy")
	must("study", "import", writeFile(t, dir, "export.csv", out), "--study", "copy")
	if again := must("study", "export", "--format", "csv", "--study", "copy"); strings.Count(again, ",tell,") != 4 || !strings.Contains(again, ",1.23,18,0.1,0.1,0.4,0.1,") {
		t.Errorf("the export imported into a copy, exported:\n%s", again)
	}
	if _, err := do("study", "plot", "--out", dir+"/fig.png"); err != nil {
		t.Errorf("plot in the last ask's context: %v", err)
	}
}
