package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestStudyCommands: each subcommand of the table has its own flags and
// no other's (the old single flag set handed every subcommand nil
// pointers for the flags of the others), and the usage text documents
// exactly the commands of the table.
func TestStudyCommands(t *testing.T) {
	want := map[string][]string{
		"create":    nil,
		"ask":       {"context", "count", "lease"},
		"heartbeat": {"ask", "lease", "lease-token"},
		"tell":      {"ask", "context", "f", "failed", "g", "index", "noise-std", "param", "value", "x"},
		"import":    {"repeat"},
		"posterior": {"context", "json"},
		"retract":   {"observation", "trial"},
		"extend":    {"horizon"},
		"list":      {"json"},
		"delete":    {"force"},
		"rename":    nil,
		"show":      {"json"},
		"export":    {"format"},
		"plot":      {"figure-width", "out"},
	}
	for name, cmd := range studyCommands {
		fs := flag.NewFlagSet(name, flag.ContinueOnError)
		if cmd.flags(fs) == nil {
			t.Errorf("%s: no run function", name)
		}
		var got []string
		fs.VisitAll(func(f *flag.Flag) { got = append(got, f.Name) })
		w, ok := want[name]
		if !ok {
			t.Errorf("%s: a command this test does not know", name)
		}
		if !slices.Equal(got, w) {
			t.Errorf("%s: flags %v, want %v", name, got, w)
		}
		if !strings.Contains(studyUsage, "\n  "+name+" ") && !strings.Contains(studyUsage, "\n  "+name+"\n") {
			t.Errorf("the usage text does not document %s", name)
		}
	}
	for name := range want {
		if _, ok := studyCommands[name]; !ok {
			t.Errorf("%s: missing from the table", name)
		}
	}
}

// TestStudyFlagsCheckedFirst: a subcommand's own flags are checked before
// the database is opened, so a mistyped command line is a usage error or a
// bad-request error even when the database does not exist, and creates
// nothing.
func TestStudyFlagsCheckedFirst(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "none.db")
	for _, c := range []struct {
		args  []string
		code  int
		wantE string
	}{
		{[]string{"plot"}, 2, ""},
		{[]string{"tell", "--f", "1", "--g", "1"}, 1, "--ask, --index and --x"},
		{[]string{"tell", "--x", "1,abc", "--f", "1", "--g", "1"}, 1, `--x: coordinate 2: "abc" is not a decimal number`},
		{[]string{"import", filepath.Join(dir, "missing.csv")}, 1, "import: open"},
		// An import file is read against the study's columns: the
		// database is opened first.
		{[]string{"import", writeFile(t, dir, "bad.csv", "x1,f\n1\n")}, 1, "none.db: no such file"},
		{[]string{"posterior", filepath.Join(dir, "missing.csv")}, 1, "posterior: open"},
		{[]string{"tell", "--ask", "1", "--g", "1"}, 1, "--f is required (a study stated in parameters takes --value NAME=V for each outcome instead)"},
		{[]string{"tell", "--ask", "1", "--f", "1", "--g", "1,x"}, 1, `--g: g2: "x" is not a decimal number`},
		{[]string{"retract"}, 1, "give one of --observation and --trial"},
		{[]string{"retract", "--observation", "2", "--trial", "1"}, 1, "give one of --observation and --trial"},
		{[]string{"tell", "--value", "f=1", "--f", "1"}, 1, "--f does not go with --value: a study stated in parameters takes"},
		{[]string{"tell", "--ask", "1", "--value", "f=1", "--noise-std", "0.1"}, 1, "--noise-std does not go with --value: a study stated in parameters (each outcome has a scale of its own, fitted by the transform, and a measurement's own noise is not offered for them yet) takes"},
		{[]string{"tell", "--param", "x=1", "--value", "f=1", "--index", "2"}, 1, "--index does not go with --param and --value"},
		{[]string{"tell", "--value", "f=1"}, 1, "give --ask ID (the ask measured), or --param name=value for each parameter (a measurement outside the loop)"},
		{[]string{"tell", "--ask", "1", "--param", "kp=1", "--value", "f=1"}, 1, "give --ask ID, or --param name=value for each parameter (a measurement outside the loop), not both"},
		{[]string{"tell", "--ask", "1", "--value", "f=x"}, 1, `--value "f": "x" is not a decimal number`},
		{[]string{"tell", "--ask", "1", "--value", "f"}, 2, ""},
		{[]string{"tell", "--param", "kp=1", "--value", "f=1", "--value", "f=2"}, 1, `--value "f" given twice`},
		{[]string{"delete"}, 1, "delete needs --study NAME"},
		{[]string{"rename"}, 2, ""},
		{[]string{"show", "extra"}, 2, ""},
		{[]string{"create"}, 2, ""},
		{[]string{"ask", "--bogus"}, 2, ""},
		{[]string{"ask", "--count", "0"}, 1, "--count 0"},
		{[]string{"heartbeat", "--ask", "3"}, 2, ""},
		{[]string{"heartbeat", "--lease", "3"}, 2, ""},
		{[]string{"heartbeat", "--ask", "3", "--lease", "-1"}, 1, "invalid heartbeat: --lease -1: want a number of seconds > 0"},
		{[]string{"heartbeat", "--ask", "3", "--lease", "5", "--lease-token", ""}, 1, "invalid heartbeat: --lease-token is empty"},
		{[]string{"ask", "--count", "1000"}, 1, "invalid ask request: --count 1000: want 1 … 64 asks"},
		{[]string{"ask", "--lease", "-1"}, 1, "invalid ask request: --lease -1: want a number of seconds ≥ 0 (0: no lease)"},
		{[]string{"ask", "--lease", "1e9"}, 1, "--lease 1e+09"},
	} {
		var stdout, stderr bytes.Buffer
		args := append([]string{"study"}, c.args...)
		args = append(args, "--db", db)
		err := run(args, &stdout, &stderr)
		if err == nil || exitCode(err) != c.code || !strings.Contains(err.Error(), c.wantE) {
			t.Errorf("%v: got %v (exit %d), want exit %d mentioning %q", c.args, err, exitCode(err), c.code, c.wantE)
		}
		if _, err := os.Stat(db); !os.IsNotExist(err) {
			t.Fatalf("%v: the database was created", c.args)
		}
	}
}

// TestCreateScaleNote: create says on stderr, after creating the study,
// which parameter's linear scale is too coarse near its seeds
// (space.Space.Hints), and nothing on a log scale.
func TestCreateScaleNote(t *testing.T) {
	const spec = `
parameters:
  - {name: kp, low: 0.05, high: 20%s}
objective: {name: settle_time, goal: minimize}
constraints:
  - {name: overshoot, max: 0.05}
seeds: [{kp: 0.3}]
horizon: 20
`
	dir := t.TempDir()
	for _, c := range []struct {
		scale, want string
	}{
		{"", "safegp: note: kp runs from 0.05 to 20 on a linear scale"},
		{", scale: log", ""},
	} {
		var stdout, stderr bytes.Buffer
		db := filepath.Join(dir, "s"+c.scale+".db")
		file := writeFile(t, dir, "spec.yaml", fmt.Sprintf(spec, c.scale))
		if err := run([]string{"study", "create", "--db", db, "--study", "s", file}, &stdout, &stderr); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(stdout.String(), `created study "s"`) {
			t.Errorf("scale %q: stdout %q", c.scale, stdout.String())
		}
		if got := stderr.String(); c.want == "" && got != "" || !strings.Contains(got, c.want) || strings.Count(got, "\n") > 1 {
			t.Errorf("scale %q: stderr %q, want %q", c.scale, got, c.want)
		}
	}
}

// TestShowNamed: create and show of a study stated in parameters speak
// its terms — parameters, candidate settings and seeds, not the cube's
// actions and dimensions — and show counts the safe set on the current
// line of one searched on its box by line-bo (before, "line-bo on 0
// actions in 3-D", "safe set: 0 actions"; a choice's one-hot coordinates
// made "4-D" of three parameters).
func TestShowNamed(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name, spec string
		want       []string
	}{
		{"pid", `
parameters:
  - {name: kp, low: 0.05, high: 20, scale: log}
  - {name: ki, low: 0.01, high: 10, scale: log}
  - {name: kd, low: 0.001, high: 2, scale: log}
objective: {name: settle_time, goal: minimize}
constraints:
  - {name: overshoot, max: 0.05}
seeds: [{kp: 0.3, ki: 0.05, kd: 0.01}]
horizon: 20
`, []string{
			`created study "pid" in ` + filepath.Join(dir, "pid.db") + ": 3 parameters, searched on their box, 1 seed\n",
			"study pid: line-bo on the box of its 3 parameters, minimize settle_time with overshoot ≤ 0.05, horizon 20\n",
			"rounds: 0, violations: 0, safe set: 0 points of the current line\n",
			"parameters: kp, ki, kd; trials: 0\n",
		}},
		{"one", `
parameters:
  - {name: kp, low: 0.05, high: 20, scale: log}
objective: {name: f, goal: minimize}
constraints:
  - {name: g, max: 1}
seeds: [{kp: 0.2}]
horizon: 20
`, []string{
			`created study "one" in ` + filepath.Join(dir, "one.db") + ": 1 parameter, 202 candidate settings, 1 seed\n",
			"study one: sgp-ucb on 202 candidate settings of its one parameter, minimize f with g ≤ 1, horizon 20\n",
		}},
		// 625 values of kp for each filter and mode, and the seeds, off
		// that grid: 10 000 + 2.
		{"mixed", `
parameters:
  - {name: kp, low: 0.05, high: 20, scale: log}
  - {name: filter, type: int, low: 1, high: 8}
  - {name: mode, type: choice, values: [pi, pid]}
objective: {name: settle_time, goal: minimize}
constraints:
  - {name: overshoot, max: 0.02}
seeds: [{kp: 0.2, filter: 2, mode: pi}, {kp: 0.2, filter: 2, mode: pid}]
horizon: 60
`, []string{
			`created study "mixed" in ` + filepath.Join(dir, "mixed.db") + ": 3 parameters, 10002 candidate settings, 2 seeds\n",
			"study mixed: sgp-ucb on 10002 candidate settings of its 3 parameters, minimize settle_time with overshoot ≤ 0.02, horizon 60\n",
			"rounds: 0, violations: 0, safe set: 0 settings (2 with the seeds)\n",
			"parameters: kp, filter, mode; trials: 0\n",
			// The model's GPs by name, not objective and constraints[0].
			"  objective settle_time: {\"kernel\":\"matern52\"",
			"  overshoot ≤ 0.02: {\"kernel\":\"matern52\"",
		}},
	} {
		db := filepath.Join(dir, c.name+".db")
		file := writeFile(t, dir, c.name+".yaml", c.spec)
		var stdout, stderr bytes.Buffer
		if err := run([]string{"study", "create", "--db", db, "--study", c.name, file}, &stdout, &stderr); err != nil {
			t.Fatal(err)
		}
		if err := run([]string{"study", "show", "--db", db, "--study", c.name}, &stdout, &stderr); err != nil {
			t.Fatal(err)
		}
		for _, want := range c.want {
			if !strings.Contains(stdout.String(), want) {
				t.Errorf("%s: create and show:\n%s\nlack %q", c.name, stdout.String(), want)
			}
		}
	}
}
