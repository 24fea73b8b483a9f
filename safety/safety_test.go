package safety_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/safegp/safegp/internal/outdir"
	"github.com/safegp/safegp/internal/racetest"
	"github.com/safegp/safegp/safety"
)

// TestFindings checks the report's statements against hand-made tables:
// who never violated (the oracle marked as told the safe set), who
// violated where, the most violating rounds and their share of the
// rounds, and the cost of safety in the control scenario.
func TestFindings(t *testing.T) {
	t.Parallel()
	row := func(l string, v, r int, reg, d float64) safety.Row {
		return safety.Row{Label: l, Runs: 10, Violating: v, Rounds: r, Regret: reg, Distinct: d}
	}
	results := []safety.Result{
		{Scenario: safety.Scenario{Name: "control"}, Horizon: 100, Rows: []safety.Row{
			row("sgp-ucb", 0, 0, 1.2, 12), row("gp-ucb-oracle", 0, 0, 0.3, 40), row("losbo", 0, 0, 1.5, 8.5), row("constrained-ei", 10, 300, 0.6, 60)}},
		{Scenario: safety.Scenario{Name: "wrong"}, Horizon: 100, Rows: []safety.Row{
			row("sgp-ucb", 2, 5, 1.1, 20), row("gp-ucb-oracle", 0, 0, 0.3, 40), row("losbo", 0, 0, 1.4, 6), row("constrained-ei", 10, 250, 0.5, 55)}},
	}
	got := safety.Findings(results)
	want := []string{
		"No violation in any run: gp-ucb-oracle (2 scenarios; it is told the true safe set), losbo (2 scenarios).",
		"control: violated in some run — constrained-ei 10/10; the most violating rounds: constrained-ei (300 over 10 runs, 30.0% of its rounds).",
		"wrong: violated in some run — sgp-ucb 2/10, constrained-ei 10/10; the most violating rounds: constrained-ei (250 over 10 runs, 25.0% of its rounds).",
		"What safety costs, with the model right: the algorithms that kept every run safe had R_T/T of 1.2 to 1.5, 4.0 to 5.0 times the oracle's 0.3 (told the safe set); constrained-ei's was 0.6, bought with violations in 10 of 10 runs.",
		"control: the safe algorithms played 8.5 to 12 distinct actions per run on average (fewest: losbo), seeds included.",
		"wrong: the safe algorithms played 6 to 20 distinct actions per run on average (fewest: losbo), seeds included.",
		"Violated in at least one run of some scenario: sgp-ucb, constrained-ei. A guarantee that rests on the model holds only where the model is right; LoSBO's rests on L and E instead, and holds as long as those are true bounds.",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
}

// TestRun runs the benchmark with 2 realizations per scenario, on 1 and
// on 2 workers: the tables agree (results never depend on the worker
// count), every scenario and its frequentist runs have a folder, and the
// report and the figure are written.
func TestRun(t *testing.T) {
	t.Parallel()
	racetest.Long(t, "every scenario, twice, takes 46 s")
	if testing.Short() {
		t.Skip("runs every scenario")
	}
	var tables [][]safety.Result
	var dir string
	for _, w := range []int{1, 2} {
		dir = filepath.Join(t.TempDir(), "out")
		o, err := safety.Run(context.Background(), safety.Options{Out: dir, Workers: w, Realizations: 1})
		if err != nil {
			t.Fatal(err)
		}
		tables = append(tables, o.Results)
	}
	if diff := cmp.Diff(tables[0], tables[1]); diff != "" {
		t.Errorf("1 and 2 workers differ (-1 +2):\n%s", diff)
	}
	for _, s := range safety.Scenarios {
		for _, name := range []string{s.Name, s.Name + "-frequentist"} {
			if _, err := os.Stat(filepath.Join(dir, name, "results.json")); err != nil {
				t.Error(err)
			}
		}
	}
	for _, f := range []string{"safety.png", "safety.svg"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	rep, err := os.ReadFile(filepath.Join(dir, "REPORT.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| losbo |", "| sgp-ucb (frequentist β) |", "## What the numbers say"} {
		if !strings.Contains(string(rep), want) {
			t.Errorf("REPORT.md lacks %q", want)
		}
	}
}

// TestFindingsOneSafe: with one algorithm safe in the control scenario,
// the cost is stated once, not as a range from a value to itself.
func TestFindingsOneSafe(t *testing.T) {
	t.Parallel()
	results := []safety.Result{{Scenario: safety.Scenario{Name: "control"}, Horizon: 100, Rows: []safety.Row{
		{Label: "losbo", Runs: 2, Regret: 1.5, Distinct: 7},
		{Label: "gp-ucb-oracle", Runs: 2, Regret: 0.3, Distinct: 30},
		{Label: "constrained-ei", Runs: 2, Violating: 2, Rounds: 40, Regret: 0.6, Distinct: 50},
	}}}
	want := "What safety costs, with the model right: the algorithms that kept every run safe had R_T/T of 1.5, 5.0 times the oracle's 0.3 (told the safe set); constrained-ei's was 0.6, bought with violations in 2 of 2 runs."
	if got := safety.Findings(results); !slices.Contains(got, want) {
		t.Errorf("findings %q lack %q", got, want)
	}
}

// TestRunRefusesTheOutput: an output folder holding other files, or a path
// under a regular file, is refused before any scenario runs, and what is
// there is kept.
func TestRunRefusesTheOutput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	taken := filepath.Join(dir, "taken")
	file := filepath.Join(dir, "file")
	if err := os.Mkdir(taken, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(taken, "notes.txt"), file} {
		if err := os.WriteFile(p, []byte("mine"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		out  string
		is   error
		want string
	}{
		{taken, outdir.ErrNotEmpty, "safety: " + taken + " exists and is not empty"},
		{filepath.Join(file, "out"), syscall.ENOTDIR, "safety: " + filepath.Join(file, "out") + " "},
	} {
		o, err := safety.Run(context.Background(), safety.Options{Out: c.out, Realizations: 1})
		if !errors.Is(err, c.is) || !strings.HasPrefix(err.Error(), c.want) || o != nil {
			t.Errorf("%s: %v, want %v starting %q", c.out, err, c.is, c.want)
		}
	}
	for _, p := range []string{filepath.Join(taken, "notes.txt"), file} {
		if b, err := os.ReadFile(p); err != nil || string(b) != "mine" {
			t.Errorf("%s after the refusals: %q, %v", p, b, err)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("%d entries in %s after the refusals, want its 2", len(entries), dir)
	}
}
