package safety

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/safegp/safegp"
	"github.com/safegp/safegp/bandit"
	"github.com/safegp/safegp/experiment"
	"github.com/safegp/safegp/internal/moments"
	"github.com/safegp/safegp/internal/outdir"
)

// Scenario is one way the model is wrong (or right).
type Scenario struct {
	Name  string // folder and examples/safety/<Name>.yaml
	Short string // the figure's tick label
	What  string // the report's description
}

// Scenarios lists the benchmark's scenarios in the report's order.
var Scenarios = []Scenario{
	{"control", "model right", "the model is right: the drawing kernels (SE, lengthscale 0.2, variance 1) and noise (σ 0.1)"},
	{"lengthscale-2x", "ℓ 2× long", "the model's lengthscale is 2× too long (0.4)"},
	{"lengthscale-3x", "ℓ 3× long", "the model's lengthscale is 3× too long (0.6)"},
	{"variance-4x", "v 4× small", "the model's kernel variance is 4× too small (0.25)"},
	{"noise-3x", "σ 3× small", "the model believes the noise 3× smaller (σ 0.0333)"},
	{"hidden", "ℓ 3×, v 2× off", "issue 28's hidden problem: the functions vary 3× faster and with twice the variance the model is told (drawn with lengthscale 0.1 and variance 2, modelled with 0.3 and 1)"},
	{"fitted", "fitted", "the kernels and noise fitted to the first 10 measurements (`fit: {when: seed, min_points: 10}`), a guess of lengthscale 0.4 before"},
	{"paper", "paper", "the paper's own regret comparison (SPEC §6.2, seed sets of 1–10; 100 actions in the unit disk), the model right, T = 500"},
}

// FrequentistRKHSNorm is the B of the frequentist β runs: a user's guess,
// as the RKHS norm of a function drawn from a GP is not finite.
const FrequentistRKHSNorm = 3

// Options tune a benchmark run.
type Options struct {
	Out       string    // output folder
	Workers   int       // parallel runs; 0: all cores
	Force     bool      // replace an Out an earlier run wrote
	Log       io.Writer // one line per finished experiment, if set
	MaxMemory int64     // each experiment's memory limit (experiment.Options)
	// Realizations, if > 0, cuts every scenario to that many (a smoke
	// test).
	Realizations int
}

// Row is one algorithm's outcome in one scenario.
type Row struct {
	Label     string
	Runs      int     // realizations
	Violating int     // runs with at least one violation
	Rounds    int     // violating rounds, over all runs
	Regret    float64 // mean over runs of R_T/T
	RegretSE  float64 // its standard error
	// Distinct is the mean over runs of the distinct actions played (the
	// seeds among them): how far a run got from its seeds. An algorithm
	// that never leaves them cannot violate, and measures nothing.
	Distinct float64
}

// Result is one scenario's rows, in the order of its algorithms (the
// frequentist runs last).
type Result struct {
	Scenario
	Horizon int
	Rows    []Row
}

// Outcome is a benchmark run's results.
type Outcome struct {
	Results []Result
	Elapsed time.Duration
}

// Load returns scenario s's configuration and, when frequentist, its
// frequentist variant (FrequentistBeta).
func Load(s Scenario, frequentist bool, realizations int) (*experiment.Config, error) {
	data, err := safegp.Examples.ReadFile("examples/safety/" + s.Name + ".yaml")
	if err != nil {
		return nil, fmt.Errorf("safety: %w", err)
	}
	cfg, err := experiment.Parse(bytes.NewReader(data), ".")
	if err != nil {
		return nil, fmt.Errorf("safety: examples/safety/%s.yaml: %w", s.Name, err)
	}
	if realizations > 0 {
		cfg.Realizations = min(cfg.Realizations, realizations)
	}
	if frequentist {
		FrequentistBeta(cfg)
	}
	if err := cfg.Check(); err != nil {
		return nil, fmt.Errorf("safety: %s: %w", s.Name, err)
	}
	return cfg, nil
}

// FrequentistBeta turns a scenario's configuration into its frequentist
// runs: model.beta {rkhs_norm: FrequentistRKHSNorm, noise_bound: the σ
// the model believes} (Fiedler et al. 2021), for sgp-ucb and safeopt in
// gp mode as the scenario configures them.
func FrequentistBeta(cfg *experiment.Config) {
	cfg.Model.Beta = &bandit.Beta{Freq: &bandit.Frequentist{RKHSNorm: FrequentistRKHSNorm, NoiseBound: *cfg.Model.NoiseStd}}
	var keep []bandit.Spec
	for _, a := range cfg.Algorithms {
		if a.Name == bandit.SGPUCB || (a.Name == bandit.SafeOpt && a.SafeSet == "gp") {
			a.Label = a.DisplayLabel() + " (frequentist β)"
			keep = append(keep, a)
		}
	}
	cfg.Algorithms = keep
}

// Run runs every scenario, with and without the frequentist β, into
// opt.Out: a folder per experiment (results.json, summary.csv, regret
// figure), safety.png/.svg and REPORT.md. It writes into a staging
// folder renamed into place at the end; an existing, non-empty opt.Out is
// refused unless opt.Force is set.
func Run(ctx context.Context, opt Options) (*Outcome, error) {
	start := time.Now()
	stage, err := staged(opt.Out, opt.Force)
	if err != nil {
		return nil, err
	}
	defer outdir.Discard(stage)
	out := &Outcome{}
	for _, s := range Scenarios {
		res := Result{Scenario: s}
		for _, freq := range []bool{false, true} {
			cfg, err := Load(s, freq, opt.Realizations)
			if err != nil {
				return nil, err
			}
			name := s.Name
			if freq {
				name += "-frequentist"
			}
			rows, err := runOne(ctx, cfg, filepath.Join(stage, name), opt)
			if err != nil {
				return nil, fmt.Errorf("safety: %s: %w", name, err)
			}
			res.Horizon = cfg.Horizon
			res.Rows = append(res.Rows, rows...)
			if opt.Log != nil {
				fmt.Fprintf(opt.Log, "%s: %d runs\n", name, cfg.Realizations*len(cfg.Algorithms))
			}
		}
		out.Results = append(out.Results, res)
	}
	if err := Figure(stage, out.Results); err != nil {
		return nil, err
	}
	out.Elapsed = time.Since(start)
	if err := os.WriteFile(filepath.Join(stage, "REPORT.md"), Report(out), 0o644); err != nil {
		return nil, fmt.Errorf("safety: write REPORT.md: %w", err)
	}
	if err := outdir.Publish(stage, opt.Out, opt.Force); err != nil {
		return nil, fmt.Errorf("safety: %w", err)
	}
	return out, nil
}

// staged checks that out may be written (outdir.Check) and returns the
// staging folder its output is written into, published in place at the
// end (outdir.Publish) and discarded in any case (outdir.Discard).
func staged(out string, force bool) (string, error) {
	if err := outdir.Check(out, force); err != nil {
		return "", fmt.Errorf("safety: %s %w", out, err)
	}
	stage, err := outdir.Stage(out)
	if err != nil {
		return "", fmt.Errorf("safety: %w", err)
	}
	return stage, nil
}

// runOne runs one experiment into dir and returns its rows.
func runOne(ctx context.Context, cfg *experiment.Config, dir string, opt Options) ([]Row, error) {
	acc := map[string]*rowAcc{}
	var order []string
	wopt := experiment.WriteOptions{
		Figures: experiment.RegretFigure(filepath.Base(dir)),
		Runs: func(r *experiment.Run) {
			a := acc[r.Label]
			if a == nil {
				a = &rowAcc{}
				acc[r.Label] = a
				order = append(order, r.Label)
			}
			a.add(r)
		},
	}
	if _, err := experiment.ExecuteToDir(ctx, cfg, experiment.Options{Workers: opt.Workers, MaxMemory: opt.MaxMemory}, dir, wopt); err != nil {
		return nil, err
	}
	rows := make([]Row, len(order))
	for i, l := range order {
		rows[i] = acc[l].row(l)
	}
	return rows, nil
}

// rowAcc accumulates one label's runs: R_T/T's mean and SE.
type rowAcc struct {
	n, violating, rounds, distinct int
	regret                         moments.Moments
}

func (a *rowAcc) add(r *experiment.Run) {
	a.n++
	if r.Violations > 0 {
		a.violating++
	}
	a.rounds += r.Violations
	seen := map[int]bool{}
	for _, i := range r.Actions {
		seen[i] = true
	}
	a.distinct += len(seen)
	var sum float64
	for _, v := range r.Regret {
		sum += v
	}
	a.regret.Add(sum / float64(len(r.Regret)))
}

func (a *rowAcc) row(label string) Row {
	return Row{Label: label, Runs: a.n, Violating: a.violating, Rounds: a.rounds, Regret: a.regret.Mean, RegretSE: a.regret.SE(), Distinct: float64(a.distinct) / float64(a.n)}
}

// labels lists every algorithm label in the order of first appearance.
func labels(results []Result) []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range results {
		for _, row := range r.Rows {
			if !seen[row.Label] {
				seen[row.Label] = true
				out = append(out, row.Label)
			}
		}
	}
	return out
}

// find returns the row of label in r, or nil.
func (r *Result) find(label string) *Row {
	for i := range r.Rows {
		if r.Rows[i].Label == label {
			return &r.Rows[i]
		}
	}
	return nil
}

// Report renders REPORT.md: what was run, the table and what it says.
func Report(out *Outcome) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "# Safety when the model is wrong\n\n")
	fmt.Fprintf(&b, "`safegp safety` ran %d scenarios in %s (docs/safety.md explains the design). Each scenario draws f and g from one GP and models them with another; every algorithm runs on the same realizations.\n\n", len(out.Results), out.Elapsed.Round(100*time.Millisecond))
	for _, r := range out.Results {
		fmt.Fprintf(&b, "- **%s** (T = %d): %s.\n", r.Name, r.Horizon, r.What)
	}
	fmt.Fprintf(&b, "\nThe frequentist β rows use `beta: {rkhs_norm: %d, noise_bound: σ}` with σ the noise the model believes (Fiedler, Scherer, Trimpe 2021). LoSBO gets the true Lipschitz constant of g on the grid and E = 4 × the σ the model believes. constrained-ei and pof-ei promise nothing.\n\n", FrequentistRKHSNorm)
	fmt.Fprintf(&b, "Each cell: runs with at least one violation / runs · violating rounds over all runs · mean R_T/T (± standard error) · mean distinct actions played per run (the seeds among them: a run that stays on its seeds cannot violate, and tests nothing).\n\n")
	ls := labels(out.Results)
	b.WriteString("| algorithm |")
	for _, r := range out.Results {
		fmt.Fprintf(&b, " %s |", r.Name)
	}
	b.WriteString("\n|---|")
	for range out.Results {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	for _, l := range ls {
		fmt.Fprintf(&b, "| %s |", l)
		for i := range out.Results {
			row := out.Results[i].find(l)
			if row == nil {
				b.WriteString(" — |")
				continue
			}
			fmt.Fprintf(&b, " %d/%d · %d · %.3g ± %.2g · %.3g |", row.Violating, row.Runs, row.Rounds, row.Regret, row.RegretSE, row.Distinct)
		}
		b.WriteString("\n")
	}
	b.WriteString("\n![violations and regret per scenario](safety.png)\n\n## What the numbers say\n\n")
	for _, line := range Findings(out.Results) {
		fmt.Fprintf(&b, "- %s\n", line)
	}
	return []byte(b.String())
}

// Findings states what the table shows, computed from it: which
// algorithms never violated, which violated where the model was right,
// the worst in each scenario, and what the safe ones paid for it.
func Findings(results []Result) []string {
	var out []string
	never, some := violators(results)
	if len(never) > 0 {
		out = append(out, "No violation in any run: "+strings.Join(never, ", ")+".")
	}
	for i := range results {
		out = append(out, results[i].violations())
	}
	// What safety costs, where the model is right: the safe algorithms'
	// regret against the oracle's (the safe set known) and constrained-ei's.
	for i := range results {
		if r := &results[i]; r.Name == "control" {
			if f, ok := r.safetyCost(); ok {
				out = append(out, f)
			}
		}
	}
	// How far the safe algorithms got: a run that never leaves its seeds
	// cannot violate, so a zero there says little.
	for i := range results {
		if f, ok := results[i].reach(); ok {
			out = append(out, f)
		}
	}
	if len(some) > 0 {
		out = append(out, "Violated in at least one run of some scenario: "+strings.Join(some, ", ")+". A guarantee that rests on the model holds only where the model is right; LoSBO's rests on L and E instead, and holds as long as those are true bounds.")
	}
	return out
}

// violators splits the algorithms into those that never violated in any
// scenario (never, with the scenarios they ran in) and those that did.
func violators(results []Result) (never, some []string) {
	for _, l := range labels(results) {
		total, in := 0, 0
		for i := range results {
			if row := results[i].find(l); row != nil {
				total += row.Violating
				in++
			}
		}
		switch {
		case total > 0:
			some = append(some, l)
		case l == bandit.GPUCBOracle:
			never = append(never, fmt.Sprintf("%s (%d scenarios; it is told the true safe set)", l, in))
		default:
			never = append(never, fmt.Sprintf("%s (%d scenarios)", l, in))
		}
	}
	return never, some
}

// violations states which algorithms violated in the scenario, and the
// one with the most violating rounds.
func (r *Result) violations() string {
	var worst *Row
	var bad []string
	for k := range r.Rows {
		row := &r.Rows[k]
		if row.Violating > 0 {
			bad = append(bad, fmt.Sprintf("%s %d/%d", row.Label, row.Violating, row.Runs))
		}
		if worst == nil || row.Rounds > worst.Rounds {
			worst = row
		}
	}
	if len(bad) == 0 {
		return fmt.Sprintf("%s: no algorithm violated.", r.Name)
	}
	return fmt.Sprintf("%s: violated in some run — %s; the most violating rounds: %s (%d over %d runs, %.1f%% of its rounds).",
		r.Name, strings.Join(bad, ", "), worst.Label, worst.Rounds, worst.Runs, 100*float64(worst.Rounds)/float64(worst.Runs*r.Horizon))
}

// safetyCost states the safe algorithms' regret against the oracle's and
// constrained-ei's; false when the scenario lacks one of those or LoSBO.
func (r *Result) safetyCost() (string, bool) {
	ei, lo, or := r.find(bandit.ConstrainedEI), r.find(bandit.LoSBO), r.find(bandit.GPUCBOracle)
	if ei == nil || lo == nil || or == nil {
		return "", false
	}
	lowest, highest := math.Inf(1), math.Inf(-1)
	for _, row := range r.Rows {
		if row.Violating == 0 && row.Label != bandit.GPUCBOracle {
			lowest, highest = math.Min(lowest, row.Regret), math.Max(highest, row.Regret)
		}
	}
	return fmt.Sprintf("What safety costs, with the model right: the algorithms that kept every run safe had R_T/T of %s, %s times the oracle's %.3g (told the safe set); constrained-ei's was %.3g, bought with violations in %d of %d runs.",
		span(lowest, highest, "%.3g"), span(lowest/or.Regret, highest/or.Regret, "%.1f"), or.Regret, ei.Regret, ei.Violating, ei.Runs), true
}

// span formats lo and hi with f as "lo to hi", or as one number where
// they read the same.
func span(lo, hi float64, f string) string {
	if fmt.Sprintf(f, lo) == fmt.Sprintf(f, hi) {
		return fmt.Sprintf(f, lo)
	}
	return fmt.Sprintf(f+" to "+f, lo, hi)
}

// reach states how many distinct actions the safe algorithms played per
// run; false when the scenario has none of them.
func (r *Result) reach() (string, bool) {
	lo, hi, lab := math.Inf(1), math.Inf(-1), ""
	for _, row := range r.Rows {
		if row.Label == bandit.ConstrainedEI || row.Label == bandit.PoFEI || row.Label == bandit.GPUCBOracle {
			continue
		}
		if row.Distinct < lo {
			lo, lab = row.Distinct, row.Label
		}
		hi = math.Max(hi, row.Distinct)
	}
	if lab == "" {
		return "", false
	}
	return fmt.Sprintf("%s: the safe algorithms played %.3g to %.3g distinct actions per run on average (fewest: %s), seeds included.", r.Name, lo, hi, lab), true
}
