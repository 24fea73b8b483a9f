package safety

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/safegp/safegp/experiment"
	"github.com/safegp/safegp/internal/outdir"
	"github.com/safegp/safegp/problem/losbo"
)

// The LoSBO suite (docs/safety-benchmarks.md): the grid protocol of
// C. Fiedler, J. Menn, L. Kreisköther, S. Trimpe, "On Safety in Safe
// Bayesian Optimization", TMLR 2024, as its code runs it
// (Data-Science-in-Mechanical-Engineering/LoSBO,
// experiment_scripts/grid_experiment.py and
// src/experiments/generic_grid_experiment.py): each of the suite's
// functions on 501 evenly spaced points of [0, 1], f its own safety
// condition (f ≥ h), noise uniform in [−0.01, 0.01], a GP of the
// function set's kernel with lengthscale γ/√2 (times a factor where the
// protocol misstates it), variance 1 and noise variance 0.01, seed points
// drawn where f ≥ h + 0.02, and 20 rounds after them.

// LoSBOProtocol is one experiment configuration of the suite: one of the
// paper's experiments or several sharing their β (model.beta is an
// experiment's), each run on every function of Set.
type LoSBOProtocol struct {
	Scenario string  // the scenario it belongs to (rows are grouped by it)
	Exps     string  // the paper's experiment numbers, "" for ours
	Set      string  // losbo.Sets
	Kernel   string  // the model's kernel: se or matern32
	Seeds    int     // seed points per run
	InReach  bool    // drawn in the reachable safe set, else anywhere safe
	Factor   float64 // the model's lengthscale is Factor·γ/√2
	Beta     string  // model.beta, as YAML
	// Algorithms are the experiment's algorithm entries, as YAML; %L
	// stands for 1.1 times the function's Lipschitz constant (LoSBO's).
	Algorithms []string
}

// Heuristic β: the β = 2 of the paper's SafeOpt and LoSBO multiplies σ;
// safegp's β is its square.
const heuristicBeta = "4"

// freq is a frequentist β with RKHS norm bound b and the noise's bound.
func freq(b string) string { return "{rkhs_norm: " + b + ", noise_bound: 0.01}" }

// LoSBOScenario describes one group of the suite's rows.
type LoSBOScenario struct {
	Name, Short, What string
}

// LoSBOScenarios are the suite's scenarios in the report's order.
var LoSBOScenarios = []LoSBOScenario{
	{"onb-se-2", "SE, 2 seeds", "the 100 SE functions (sums of the SE kernel's orthonormal basis), 2 seed points anywhere safe (the paper's experiments 2, 30–33)"},
	{"onb-se-reach", "SE, 1 in reach", "the 100 SE functions, 1 seed point in the reachable safe set (experiments 40, 41, and the other algorithms)"},
	{"matern32-reach", "Matérn, 1 in reach", "the 100 pre-RKHS Matérn-3/2 functions, 1 seed point in the reachable safe set (experiments 42, 43, and the other algorithms)"},
	{"matern32-long", "Matérn, ℓ×4", "the Matérn functions modelled with a lengthscale 4× too long (experiments 50, 51)"},
	{"matern32-short", "Matérn, ℓ×0.2", "the Matérn functions modelled with a lengthscale 5× too short (experiments 52, 53)"},
}

// LoSBOProtocols are the suite's experiment configurations.
var LoSBOProtocols = []LoSBOProtocol{
	{"onb-se-2", "2, 33", "onb-se", "se", 2, false, 1, heuristicBeta, []string{
		"{name: safeopt, safe_set: gp, label: 'safeopt, β½ = 2'}",
		"{name: losbo, lipschitz: %L, noise_bound: 0.02, label: 'losbo, β½ = 2'}"}},
	{"onb-se-2", "30", "onb-se", "se", 2, false, 1, freq("10"), []string{"{name: safeopt, safe_set: gp, label: 'safeopt, frequentist B = 10'}"}},
	{"onb-se-2", "31", "onb-se", "se", 2, false, 1, freq("2.5"), []string{"{name: safeopt, safe_set: gp, label: 'safeopt, frequentist B = 2.5'}"}},
	{"onb-se-2", "32", "onb-se", "se", 2, false, 1, freq("20"), []string{"{name: safeopt, safe_set: gp, label: 'safeopt, frequentist B = 20'}"}},
	{"onb-se-reach", "40", "onb-se", "se", 1, true, 1, freq("10"), []string{"{name: safeopt, safe_set: gp, label: 'safeopt, frequentist B = 10'}"}},
	{"onb-se-reach", "41", "onb-se", "se", 1, true, 1, heuristicBeta, []string{
		"{name: losbo, lipschitz: %L, noise_bound: 0.02, label: 'losbo, β½ = 2'}",
		"{name: safeopt, safe_set: gp, label: 'safeopt, β½ = 2'}",
		"{name: sgp-ucb, exploration: {fixed: 10}, label: 'sgp-ucb, β½ = 2'}",
		"{name: stageopt, safe_set: gp, exploration: {fixed: 10}, label: 'stageopt, β½ = 2'}",
		"{name: constrained-ei}",
		"{name: pof-ei}"}},
	{"onb-se-reach", "", "onb-se", "se", 1, true, 1, "paper", []string{
		"{name: sgp-ucb, exploration: {fixed: 10}, label: 'sgp-ucb, paper β'}",
		"{name: safeopt, safe_set: gp, label: 'safeopt, paper β'}"}},
	{"matern32-reach", "42", "matern32", "matern32", 1, true, 1, freq("10"), []string{"{name: safeopt, safe_set: gp, label: 'safeopt, frequentist B = 10'}"}},
	{"matern32-reach", "43", "matern32", "matern32", 1, true, 1, heuristicBeta, []string{
		"{name: losbo, lipschitz: %L, noise_bound: 0.02, label: 'losbo, β½ = 2'}",
		"{name: safeopt, safe_set: gp, label: 'safeopt, β½ = 2'}",
		"{name: sgp-ucb, exploration: {fixed: 10}, label: 'sgp-ucb, β½ = 2'}",
		"{name: stageopt, safe_set: gp, exploration: {fixed: 10}, label: 'stageopt, β½ = 2'}",
		"{name: constrained-ei}",
		"{name: pof-ei}"}},
	{"matern32-reach", "", "matern32", "matern32", 1, true, 1, "paper", []string{
		"{name: sgp-ucb, exploration: {fixed: 10}, label: 'sgp-ucb, paper β'}",
		"{name: safeopt, safe_set: gp, label: 'safeopt, paper β'}"}},
	{"matern32-long", "50", "matern32", "matern32", 1, true, 4, freq("10"), []string{"{name: safeopt, safe_set: gp, label: 'safeopt, frequentist B = 10'}"}},
	{"matern32-long", "51", "matern32", "matern32", 1, true, 4, heuristicBeta, []string{"{name: losbo, lipschitz: %L, noise_bound: 0.02, label: 'losbo, β½ = 2'}"}},
	{"matern32-short", "52", "matern32", "matern32", 1, true, 0.2, freq("10"), []string{"{name: safeopt, safe_set: gp, label: 'safeopt, frequentist B = 10'}"}},
	{"matern32-short", "53", "matern32", "matern32", 1, true, 0.2, heuristicBeta, []string{"{name: losbo, lipschitz: %L, noise_bound: 0.02, label: 'losbo, β½ = 2'}"}},
}

// LoSBORounds is the protocol's rounds after the seed points.
const LoSBORounds = 20

// LoSBOGrid is the protocol's decision set: this many points of [0, 1].
const LoSBOGrid = 501

// LoSBOConfig is protocol p's experiment on function fn with runs
// realizations: its YAML, parsed and checked. Realization r of every
// protocol of one scenario draws the same seed points and noise (the
// experiment's seed is the function's index).
func LoSBOConfig(p LoSBOProtocol, fn *losbo.Function, runs int) (*experiment.Config, error) {
	box := "[[0, 1]]"
	if p.InReach {
		box = fmt.Sprintf("[[%s, %s]]", g(fn.Reach[0]), g(fn.Reach[1]))
	}
	var algs strings.Builder
	for _, a := range p.Algorithms {
		fmt.Fprintf(&algs, "  - %s\n", strings.ReplaceAll(a, "%L", g(1.1*fn.Lipschitz)))
	}
	y := fmt.Sprintf(`seed: %d
realizations: %d
horizon: %d
problem:
  function: {name: losbo, set: %s, index: %d, decision_set: {grid: {points: [%d]}}}
  objective_threshold: %s
  noise_bound: %s
  epsilon: 0.01
  seed_points: {count: %d, min_f: %s, box: %s}
model:
  objective: {kernel: %s, lengthscale: %s, variance: 1}
  noise_std: 0.1
  delta: 0.01
  beta: %s
algorithms:
%s`, fn.Index, runs, LoSBORounds+p.Seeds, fn.Set, fn.Index, LoSBOGrid, g(fn.Threshold), g(fn.Noise),
		p.Seeds, g(fn.Threshold+2*fn.Noise), box, p.Kernel, g(p.Factor*fn.Gamma/math.Sqrt2), p.Beta, algs.String())
	cfg, err := experiment.Parse(strings.NewReader(y), ".")
	if err != nil {
		return nil, fmt.Errorf("safety: losbo %s %d, experiments %s: %w", fn.Set, fn.Index, p.Exps, err)
	}
	return cfg, nil
}

func g(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// SuiteOptions tune a run of the LoSBO suite.
type SuiteOptions struct {
	Out       string // output folder
	Workers   int    // parallel runs; 0: all cores
	Force     bool
	Log       io.Writer
	MaxMemory int64
	Runs      int // runs per function and algorithm (the paper: 10 000)
	Functions int // the first this many functions of each set (0: all 100)
}

// SuiteRow is one algorithm's outcome in one scenario of the suite.
type SuiteRow struct {
	Scenario, Exps, Label string
	Functions, Runs       int
	NeverStarted          int // runs that played their seed points only
	Violating             int // runs with at least one violation
	// Worst is the largest share of violating runs on one function, and
	// WorstFunction that function's index.
	Worst         float64
	WorstFunction int
	// Regret is the mean over runs of the last round's simple regret
	// against the function's optimum over its reachable safe set; RegretSE
	// its standard error.
	Regret, RegretSE float64
}

// SuiteOutcome is a run of the suite.
type SuiteOutcome struct {
	Rows      []SuiteRow
	Runs      int // per function and algorithm
	Functions int // per set
	Elapsed   time.Duration
}

// suiteAcc accumulates one row over functions.
type suiteAcc struct {
	SuiteRow
	mean, m2 float64
	n        int
}

// RunLoSBO runs the LoSBO suite into opt.Out: losbo.csv (a row per
// scenario and algorithm), losbo.png/.svg and REPORT.md, written whole or
// not at all.
func RunLoSBO(ctx context.Context, opt SuiteOptions) (*SuiteOutcome, error) {
	start := time.Now()
	if opt.Runs < 1 {
		return nil, fmt.Errorf("safety: losbo suite: runs must be ≥ 1, got %d", opt.Runs)
	}
	nf := opt.Functions
	if nf <= 0 || nf > losbo.Count(losbo.Sets[0]) {
		nf = losbo.Count(losbo.Sets[0])
	}
	if err := outdir.Check(opt.Out, opt.Force); err != nil {
		return nil, fmt.Errorf("safety: %s %w", opt.Out, err)
	}
	stage, err := outdir.Stage(opt.Out)
	if err != nil {
		return nil, fmt.Errorf("safety: %w", err)
	}
	defer outdir.Discard(stage)
	accs := map[string]*suiteAcc{}
	var order []string
	for _, p := range LoSBOProtocols {
		for k := range nf {
			fn, err := losbo.Lookup(p.Set, k)
			if err != nil {
				return nil, fmt.Errorf("safety: %w", err)
			}
			cfg, err := LoSBOConfig(p, fn, opt.Runs)
			if err != nil {
				return nil, err
			}
			res, err := experiment.Execute(ctx, cfg, experiment.Options{Workers: opt.Workers, MaxMemory: opt.MaxMemory})
			if err != nil {
				return nil, fmt.Errorf("safety: losbo %s %d, experiments %s: %w", p.Set, k, p.Exps, err)
			}
			perLabel := map[string][2]int{} // runs, violating on this function
			for i := range res.Runs {
				r := &res.Runs[i]
				key := p.Scenario + "\x00" + r.Label
				a := accs[key]
				if a == nil {
					a = &suiteAcc{SuiteRow: SuiteRow{Scenario: p.Scenario, Exps: p.Exps, Label: r.Label, WorstFunction: -1}}
					accs[key] = a
					order = append(order, key)
				}
				a.add(r)
				c := perLabel[key]
				c[0]++
				if r.Violations > 0 {
					c[1]++
				}
				perLabel[key] = c
			}
			for key, c := range perLabel {
				a := accs[key]
				a.Functions++
				if s := float64(c[1]) / float64(c[0]); a.WorstFunction < 0 || s > a.Worst {
					a.Worst, a.WorstFunction = s, k
				}
			}
		}
		if opt.Log != nil {
			fmt.Fprintf(opt.Log, "losbo suite: %s, experiments %s: %d functions × %d runs\n", p.Scenario, orOurs(p.Exps), nf, opt.Runs)
		}
	}
	out := &SuiteOutcome{Runs: opt.Runs, Functions: nf}
	for _, s := range LoSBOScenarios {
		for _, key := range order {
			if a := accs[key]; a.Scenario == s.Name {
				out.Rows = append(out.Rows, a.row())
			}
		}
	}
	if err := writeSuiteCSV(filepath.Join(stage, "losbo.csv"), out.Rows); err != nil {
		return nil, err
	}
	if err := figure(stage, suiteResults(out.Rows), figureText{
		name: "losbo", title: "the LoSBO suite's functions", x: "scenario",
		regret: "simple regret, mean ± 1 SE", regretY: "simple regret",
	}); err != nil {
		return nil, err
	}
	out.Elapsed = time.Since(start)
	if err := os.WriteFile(filepath.Join(stage, "REPORT.md"), SuiteReport(out), 0o644); err != nil {
		return nil, fmt.Errorf("safety: write REPORT.md: %w", err)
	}
	if err := outdir.Publish(stage, opt.Out, opt.Force); err != nil {
		return nil, fmt.Errorf("safety: %w", err)
	}
	return out, nil
}

func orOurs(exps string) string {
	if exps == "" {
		return "(ours)"
	}
	return exps
}

// add counts run r: whether it violated, whether it left its seeds (a
// point of the grid: the seed points are drawn off it, almost surely),
// and its last simple regret (Welford).
func (a *suiteAcc) add(r *experiment.Run) {
	a.Runs++
	if r.Violations > 0 {
		a.Violating++
	}
	started := false
	for _, x := range r.Points {
		if v := x[0] * (LoSBOGrid - 1); v == math.Round(v) {
			started = true
			break
		}
	}
	if !started {
		a.NeverStarted++
	}
	if len(r.SimpleRegret) > 0 {
		x := r.SimpleRegret[len(r.SimpleRegret)-1]
		a.n++
		d := x - a.mean
		a.mean += d / float64(a.n)
		a.m2 += d * (x - a.mean)
	}
}

func (a *suiteAcc) row() SuiteRow {
	r := a.SuiteRow
	r.Regret = a.mean
	if a.n > 1 {
		r.RegretSE = math.Sqrt(a.m2/float64(a.n-1)) / math.Sqrt(float64(a.n))
	}
	return r
}

// suiteResults are the rows as the figure's Results: a scenario each.
func suiteResults(rows []SuiteRow) []Result {
	var out []Result
	for _, s := range LoSBOScenarios {
		res := Result{Scenario: Scenario(s)}
		for _, r := range rows {
			if r.Scenario == s.Name {
				res.Rows = append(res.Rows, Row{Label: r.Label, Runs: r.Runs, Violating: r.Violating, Regret: r.Regret, RegretSE: r.RegretSE})
			}
		}
		if len(res.Rows) > 0 {
			out = append(out, res)
		}
	}
	return out
}

// SuiteHeader is losbo.csv's header.
var SuiteHeader = []string{"scenario", "experiments", "algorithm", "functions", "runs", "never_started", "violating", "share_violating", "worst_share", "worst_function", "simple_regret", "simple_regret_se"}

func writeSuiteCSV(path string, rows []SuiteRow) error {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	w.Write(SuiteHeader)
	for _, r := range rows {
		w.Write([]string{r.Scenario, r.Exps, r.Label, strconv.Itoa(r.Functions), strconv.Itoa(r.Runs), strconv.Itoa(r.NeverStarted),
			strconv.Itoa(r.Violating), g(share(r.Violating, r.Runs)), g(r.Worst), strconv.Itoa(r.WorstFunction), g(r.Regret), g(r.RegretSE)})
	}
	w.Flush()
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		return fmt.Errorf("safety: write %s: %w", filepath.Base(path), err)
	}
	return nil
}

func share(k, n int) float64 {
	if n == 0 {
		return 0
	}
	return float64(k) / float64(n)
}

// SuiteTable renders the rows as the Markdown table the command prints
// and the report shows: the paper's three shares and the simple regret.
func SuiteTable(rows []SuiteRow) string {
	var b strings.Builder
	b.WriteString("| scenario | exp. | algorithm | runs | never started | runs with a violation | worst function | simple regret |\n|---|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		worst := "—"
		if r.Violating > 0 {
			worst = fmt.Sprintf("%.1f %% (#%d)", 100*r.Worst, r.WorstFunction)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %d | %.1f %% | %.2f %% | %s | %.3f ± %.3f |\n", short(r.Scenario), orOurs(r.Exps), r.Label, r.Runs,
			100*share(r.NeverStarted, r.Runs), 100*share(r.Violating, r.Runs), worst, r.Regret, r.RegretSE)
	}
	return b.String()
}

func short(name string) string {
	for _, s := range LoSBOScenarios {
		if s.Name == name {
			return s.Short
		}
	}
	return name
}

// SuiteReport renders the suite's REPORT.md.
func SuiteReport(out *SuiteOutcome) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# The LoSBO suite\n\nWritten by `safegp safety --suite losbo` in %.1f s: %d functions of each set, %d runs per function and algorithm, %d rounds after the seed points on %d points of [0, 1] (docs/safety-benchmarks.md says what each scenario is and how the protocol follows the paper's code). The functions: %s.\n\n",
		out.Elapsed.Seconds(), out.Functions, out.Runs, LoSBORounds, LoSBOGrid, losbo.Source)
	for _, s := range LoSBOScenarios {
		fmt.Fprintf(&b, "- **%s**: %s.\n", s.Short, s.What)
	}
	b.WriteString("\n")
	b.WriteString(SuiteTable(out.Rows))
	b.WriteString("\n*never started*: the run played its seed points only. *runs with a violation*: over all functions. *worst function*: the largest share of runs with a violation on one function, and which. *simple regret*: the reachable set's optimum minus the best safe value played, after the last round, mean ± 1 SE over all runs.\n\n![the LoSBO suite](losbo.png)\n")
	return b.Bytes()
}
