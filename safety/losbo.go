package safety

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/safegp/safegp/experiment"
	"github.com/safegp/safegp/internal/moments"
	"github.com/safegp/safegp/internal/outdir"
	"github.com/safegp/safegp/problem/losbo"
	"github.com/safegp/safegp/shard"
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
	Beta     string  // model.beta, as YAML (studyBeta: with objective_beta)
	// Algorithms are the experiment's algorithm entries, as YAML; %L
	// stands for 1.1 times the function's Lipschitz constant (LoSBO's).
	Algorithms []string
}

// Heuristic β: the β = 2 of the paper's SafeOpt and LoSBO multiplies σ;
// safegp's β is its square.
const heuristicBeta = "4"

// studyBeta is the β of a study stated in parameters that names no
// algorithm (issue 42): the paper's for the safe set, objective_beta 9
// in f's upper bound; with studyEntry, sgp-ucb with repeats: explore.
const (
	studyBeta  = "paper\n  objective_beta: 9"
	studyEntry = "{name: sgp-ucb, exploration: {fixed: 10}, repeats: explore, label: 'sgp-ucb, study default'}"
)

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

// losboEntry is LoSBO as the protocol runs it (%L: 1.1·L, E = 0.02).
const losboEntry = "{name: losbo, lipschitz: %L, noise_bound: 0.02, label: 'losbo, β½ = 2'}"

// besideHeuristic and besidePaper are the algorithms the paper does not
// run, beside LoSBO with the heuristic β and with the paper's β (ours).
var (
	besideHeuristic = []string{
		"{name: safeopt, safe_set: gp, label: 'safeopt, β½ = 2'}",
		"{name: sgp-ucb, exploration: {fixed: 10}, label: 'sgp-ucb, β½ = 2'}",
		"{name: stageopt, safe_set: gp, exploration: {fixed: 10}, label: 'stageopt, β½ = 2'}",
		"{name: constrained-ei}",
		"{name: pof-ei}",
	}
	besidePaper = []string{
		"{name: sgp-ucb, exploration: {fixed: 10}, label: 'sgp-ucb, paper β'}",
		"{name: safeopt, safe_set: gp, label: 'safeopt, paper β'}",
	}
)

// LoSBOProtocols are the suite's experiment configurations.
var LoSBOProtocols = []LoSBOProtocol{
	{"onb-se-2", "2", "onb-se", "se", 2, false, 1, heuristicBeta, []string{"{name: safeopt, safe_set: gp, label: 'safeopt, β½ = 2'}"}},
	{"onb-se-2", "33", "onb-se", "se", 2, false, 1, heuristicBeta, []string{losboEntry}},
	{"onb-se-2", "30", "onb-se", "se", 2, false, 1, freq("10"), []string{"{name: safeopt, safe_set: gp, label: 'safeopt, frequentist B = 10'}"}},
	{"onb-se-2", "31", "onb-se", "se", 2, false, 1, freq("2.5"), []string{"{name: safeopt, safe_set: gp, label: 'safeopt, frequentist B = 2.5'}"}},
	{"onb-se-2", "32", "onb-se", "se", 2, false, 1, freq("20"), []string{"{name: safeopt, safe_set: gp, label: 'safeopt, frequentist B = 20'}"}},
	{"onb-se-reach", "40", "onb-se", "se", 1, true, 1, freq("10"), []string{"{name: safeopt, safe_set: gp, label: 'safeopt, frequentist B = 10'}"}},
	{"onb-se-reach", "41", "onb-se", "se", 1, true, 1, heuristicBeta, append([]string{losboEntry}, besideHeuristic...)},
	{"onb-se-reach", "", "onb-se", "se", 1, true, 1, "paper", besidePaper},
	{"onb-se-reach", "", "onb-se", "se", 1, true, 1, studyBeta, []string{studyEntry}},
	{"matern32-reach", "42", "matern32", "matern32", 1, true, 1, freq("10"), []string{"{name: safeopt, safe_set: gp, label: 'safeopt, frequentist B = 10'}"}},
	{"matern32-reach", "43", "matern32", "matern32", 1, true, 1, heuristicBeta, append([]string{losboEntry}, besideHeuristic...)},
	{"matern32-reach", "", "matern32", "matern32", 1, true, 1, "paper", besidePaper},
	{"matern32-reach", "", "matern32", "matern32", 1, true, 1, studyBeta, []string{studyEntry}},
	{"matern32-long", "50", "matern32", "matern32", 1, true, 4, freq("10"), []string{"{name: safeopt, safe_set: gp, label: 'safeopt, frequentist B = 10'}"}},
	{"matern32-long", "51", "matern32", "matern32", 1, true, 4, heuristicBeta, []string{losboEntry}},
	{"matern32-short", "52", "matern32", "matern32", 1, true, 0.2, freq("10"), []string{"{name: safeopt, safe_set: gp, label: 'safeopt, frequentist B = 10'}"}},
	{"matern32-short", "53", "matern32", "matern32", 1, true, 0.2, heuristicBeta, []string{losboEntry}},
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
	// Shard, if set, makes Out a shard folder: the units (protocol,
	// function) it holds (shard.Shard.Holds of p·Functions + k), their
	// runs' outcomes in units.jsonl and shard.json, for MergeLoSBO.
	Shard shard.Shard
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
	regret moments.Moments // of the runs with a simple regret
}

// suiteCommand is the command a suite's shard.json names.
const suiteCommand = "safety --suite losbo"

// unitsFile holds a shard's units, one JSON line each.
const unitsFile = "units.jsonl"

// suiteUnit is what one protocol's experiment on one function measured:
// per algorithm label, per run, whether it violated, whether it left its
// seeds, and its last simple regret. It is all the table needs, so that a
// merge of shards computes the floats an unsharded run computes, in the
// same order.
type suiteUnit struct {
	P    int             `json:"p"` // index into LoSBOProtocols
	K    int             `json:"k"` // function index
	Rows []suiteUnitRows `json:"rows"`
}

type suiteUnitRows struct {
	Label    string    `json:"label"`
	Violated []bool    `json:"violated"`
	Started  []bool    `json:"started"`
	Regret   []float64 `json:"regret"`
}

// suiteHash identifies a suite's work for its shards: the runs, the
// functions, the data's source and the protocols.
func suiteHash(runs, nf int) string {
	b, _ := json.Marshal(struct {
		Runs, Functions int
		Source          string
		Protocols       []LoSBOProtocol
	}{runs, nf, losbo.Source, LoSBOProtocols})
	return shard.Hash(b)
}

// RunLoSBO runs the LoSBO suite into opt.Out: losbo.csv (a row per
// scenario and algorithm), losbo.png/.svg and REPORT.md, written whole or
// not at all; with opt.Shard, that shard's units and shard.json instead.
func RunLoSBO(ctx context.Context, opt SuiteOptions) (*SuiteOutcome, error) {
	start := time.Now()
	if opt.Runs < 1 {
		return nil, fmt.Errorf("safety: losbo suite: runs must be ≥ 1, got %d", opt.Runs)
	}
	nf := opt.Functions
	if nf <= 0 || nf > losbo.Count(losbo.Sets[0]) {
		nf = losbo.Count(losbo.Sets[0])
	}
	stage, err := staged(opt.Out, opt.Force)
	if err != nil {
		return nil, err
	}
	defer outdir.Discard(stage)
	var units []suiteUnit
	var held []int
	for p, pr := range LoSBOProtocols {
		for k := range nf {
			if !opt.Shard.Holds(p*nf + k) {
				continue
			}
			u, err := runUnit(ctx, p, k, opt)
			if err != nil {
				return nil, err
			}
			units = append(units, u)
			held = append(held, p*nf+k)
		}
		if opt.Log != nil {
			fmt.Fprintf(opt.Log, "losbo suite: %s, experiments %s: %d functions × %d runs\n", pr.Scenario, orOurs(pr.Exps), nf, opt.Runs)
		}
	}
	out := &SuiteOutcome{Runs: opt.Runs, Functions: nf}
	if opt.Shard.Sharded() {
		if err := writeUnits(filepath.Join(stage, unitsFile), units); err != nil {
			return nil, err
		}
		out.Elapsed = time.Since(start)
		info := &shard.Info{Format: shard.Format, Command: suiteCommand, ConfigSHA256: suiteHash(opt.Runs, nf), Shard: opt.Shard.I, Of: opt.Shard.N,
			Total: len(LoSBOProtocols) * nf, Units: append([]int{}, held...), Seconds: out.Elapsed.Seconds()}
		if err := shard.Write(stage, info); err != nil {
			return nil, fmt.Errorf("safety: %w", err)
		}
	} else {
		out.Rows = suiteRows(units)
		out.Elapsed = time.Since(start)
		if err := writeSuite(stage, out); err != nil {
			return nil, err
		}
	}
	if err := outdir.Publish(stage, opt.Out, opt.Force); err != nil {
		return nil, fmt.Errorf("safety: %w", err)
	}
	return out, nil
}

// runUnit runs protocol p on function k of its set.
func runUnit(ctx context.Context, p, k int, opt SuiteOptions) (suiteUnit, error) {
	pr := LoSBOProtocols[p]
	fn, err := losbo.Lookup(pr.Set, k)
	if err != nil {
		return suiteUnit{}, fmt.Errorf("safety: %w", err)
	}
	cfg, err := LoSBOConfig(pr, fn, opt.Runs)
	if err != nil {
		return suiteUnit{}, err
	}
	res, err := experiment.Execute(ctx, cfg, experiment.Options{Workers: opt.Workers, MaxMemory: opt.MaxMemory})
	if err != nil {
		return suiteUnit{}, fmt.Errorf("safety: losbo %s %d, experiments %s: %w", pr.Set, k, pr.Exps, err)
	}
	u := suiteUnit{P: p, K: k}
	at := map[string]int{}
	for i := range res.Runs {
		r := &res.Runs[i]
		j, ok := at[r.Label]
		if !ok {
			j = len(u.Rows)
			at[r.Label] = j
			u.Rows = append(u.Rows, suiteUnitRows{Label: r.Label})
		}
		row := &u.Rows[j]
		row.Violated = append(row.Violated, r.Violations > 0)
		row.Started = append(row.Started, started(r))
		sr := math.NaN()
		if len(r.SimpleRegret) > 0 {
			sr = r.SimpleRegret[len(r.SimpleRegret)-1]
		}
		row.Regret = append(row.Regret, sr)
	}
	return u, nil
}

// started reports whether run r played a point of the grid: the seed
// points are drawn off it, almost surely, so a run that played none never
// left its seeds.
func started(r *experiment.Run) bool {
	for _, x := range r.Points {
		if v := x[0] * (LoSBOGrid - 1); v == math.Round(v) {
			return true
		}
	}
	return false
}

// suiteRows accumulates units, in the order protocol then function, into
// the table's rows, in the order of the scenarios.
func suiteRows(units []suiteUnit) []SuiteRow {
	accs := map[string]*suiteAcc{}
	var order []string
	for _, u := range units {
		pr := LoSBOProtocols[u.P]
		for _, row := range u.Rows {
			key := pr.Scenario + "\x00" + row.Label
			a := accs[key]
			if a == nil {
				a = &suiteAcc{SuiteRow: SuiteRow{Scenario: pr.Scenario, Exps: pr.Exps, Label: row.Label, WorstFunction: -1}}
				accs[key] = a
				order = append(order, key)
			}
			bad := 0
			for i, v := range row.Violated {
				a.add(v, row.Started[i], row.Regret[i])
				if v {
					bad++
				}
			}
			a.Functions++
			if s := float64(bad) / float64(len(row.Violated)); a.WorstFunction < 0 || s > a.Worst {
				a.Worst, a.WorstFunction = s, u.K
			}
		}
	}
	var rows []SuiteRow
	for _, s := range LoSBOScenarios {
		for _, key := range order {
			if a := accs[key]; a.Scenario == s.Name {
				rows = append(rows, a.row())
			}
		}
	}
	return rows
}

// writeSuite writes the suite's outputs into dir.
func writeSuite(dir string, out *SuiteOutcome) error {
	if err := writeSuiteCSV(filepath.Join(dir, "losbo.csv"), out.Rows); err != nil {
		return err
	}
	if err := figure(dir, suiteResults(out.Rows), figureText{
		name: "losbo", title: "the LoSBO suite's functions", x: "scenario",
		regret: "simple regret, mean ± 1 SE", regretY: "simple regret",
	}); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "REPORT.md"), SuiteReport(out), 0o644); err != nil {
		return fmt.Errorf("safety: write REPORT.md: %w", err)
	}
	return nil
}

func writeUnits(path string, units []suiteUnit) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	for _, u := range units {
		if err := enc.Encode(u); err != nil {
			return fmt.Errorf("safety: %s: %w", unitsFile, err)
		}
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		return fmt.Errorf("safety: write %s: %w", unitsFile, err)
	}
	return nil
}

// MaxUnitsBytes bounds a shard's units.jsonl as MergeLoSBO reads it: a
// unit of 10 000 runs of 6 algorithms is about 1.5 MB, 1 600 units 2.4 GB.
const MaxUnitsBytes = 4 << 30

// MergeLoSBO merges the shard folders dirs of one suite run into out: the
// table, losbo.csv and the figure are the unsharded run's, byte for byte
// (the units are accumulated in the same order); REPORT.md's first line
// says the time the shards took.
func MergeLoSBO(ctx context.Context, out string, dirs []string, force bool) (*SuiteOutcome, error) {
	infos, owner, err := shard.Check(dirs)
	if err != nil {
		return nil, err
	}
	if infos[0].Command != suiteCommand {
		return nil, fmt.Errorf("%w: %s is a shard of `safegp %s`, not of `safegp %s`", shard.ErrShards, dirs[0], infos[0].Command, suiteCommand)
	}
	nf := infos[0].Total / len(LoSBOProtocols)
	if nf*len(LoSBOProtocols) != infos[0].Total {
		return nil, fmt.Errorf("%w: %s holds %d units, not a multiple of the suite's %d protocols (another version?)", shard.ErrShards, dirs[0], infos[0].Total, len(LoSBOProtocols))
	}
	byUnit := make([]*suiteUnit, infos[0].Total)
	runs := 0
	var secs float64
	for d, dir := range dirs {
		secs += infos[d].Seconds
		us, err := readUnits(filepath.Join(dir, unitsFile))
		if err != nil {
			return nil, err
		}
		for i := range us {
			u := &us[i]
			idx := u.P*nf + u.K
			if u.P < 0 || u.P >= len(LoSBOProtocols) || u.K < 0 || u.K >= nf || owner[idx] != d {
				return nil, fmt.Errorf("%w: %s: unit (%d, %d) is not one its shard.json lists", shard.ErrShards, dir, u.P, u.K)
			}
			for _, r := range u.Rows {
				if runs == 0 {
					runs = len(r.Violated)
				}
				if len(r.Violated) != runs || len(r.Started) != runs || len(r.Regret) != runs {
					return nil, fmt.Errorf("%w: %s: unit (%d, %d) %s has runs of different counts", shard.ErrShards, dir, u.P, u.K, r.Label)
				}
			}
			byUnit[idx] = u
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	units := make([]suiteUnit, len(byUnit))
	for i, u := range byUnit {
		if u == nil {
			return nil, fmt.Errorf("%w: unit %d is missing from %s", shard.ErrShards, i, dirs[owner[i]])
		}
		units[i] = *u
	}
	if suiteHash(runs, nf) != infos[0].ConfigSHA256 {
		return nil, fmt.Errorf("%w: %s is a shard of a suite this safegp does not run (another version?)", shard.ErrShards, dirs[0])
	}
	stage, err := staged(out, force)
	if err != nil {
		return nil, err
	}
	defer outdir.Discard(stage)
	o := &SuiteOutcome{Rows: suiteRows(units), Runs: runs, Functions: nf, Elapsed: time.Duration(secs * float64(time.Second))}
	if err := writeSuite(stage, o); err != nil {
		return nil, err
	}
	if err := outdir.Publish(stage, out, force); err != nil {
		return nil, fmt.Errorf("safety: %w", err)
	}
	return o, nil
}

func readUnits(path string) ([]suiteUnit, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", shard.ErrShards, err)
	}
	defer f.Close()
	dec := json.NewDecoder(io.LimitReader(f, MaxUnitsBytes))
	dec.DisallowUnknownFields()
	var us []suiteUnit
	for {
		var u suiteUnit
		if err := dec.Decode(&u); err == io.EOF {
			return us, nil
		} else if err != nil {
			return nil, fmt.Errorf("%w: %s: %w", shard.ErrShards, path, err)
		}
		us = append(us, u)
	}
}

func orOurs(exps string) string {
	if exps == "" {
		return "(ours)"
	}
	return exps
}

// add counts one run: whether it violated, whether it left its seeds,
// and its last simple regret (NaN where there is none).
func (a *suiteAcc) add(violated, started bool, regret float64) {
	a.Runs++
	if violated {
		a.Violating++
	}
	if !started {
		a.NeverStarted++
	}
	if regret == regret {
		a.regret.Add(regret)
	}
}

func (a *suiteAcc) row() SuiteRow {
	r := a.SuiteRow
	r.Regret, r.RegretSE = a.regret.Mean, a.regret.SE()
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
	if err := w.Error(); err != nil {
		return fmt.Errorf("safety: %s: %w", filepath.Base(path), err)
	}
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
