package reproduce

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/safegp/safegp"
	"github.com/safegp/safegp/bandit"
	"github.com/safegp/safegp/experiment"
	"github.com/safegp/safegp/internal/outdir"
	"github.com/safegp/safegp/plot"
	"github.com/safegp/safegp/shard"
)

// Options tune a reproduction.
type Options struct {
	Out   string // output folder
	Quick bool   // QuickRealizations per experiment: a smoke test
	// Workers is the number of parallel runs; 0 means all cores.
	Workers int
	// Log, if set, gets one line per finished experiment.
	Log io.Writer
	// Force replaces an existing, non-empty Out whole, provided an earlier
	// run wrote it (it holds the outdir.Marker file).
	Force bool
	// MaxMemory is each experiment's memory limit, as in
	// experiment.Options.
	MaxMemory int64
	// Shard, if set, makes Out a shard folder of the reproduction: the
	// runs of its share of the work units (experiment, then algorithm,
	// then realization: shard.Shard) in a folder per experiment, and
	// shard.json; Merge makes the whole reproduction from the shards.
	Shard shard.Shard
}

// QuickRealizations is the number of realizations --quick runs.
const QuickRealizations = 3

// Regimes are the seed-set sizes of the paper's regret comparison.
var Regimes = []string{"1-10", "11-20", "21-25"}

// Experiment is one finished experiment.
type Experiment struct {
	Name    string // folder name
	Config  *experiment.Config
	Results *experiment.Results
	Curves  []experiment.Curve
}

// Outcome is everything a reproduction measured.
type Outcome struct {
	Quick        bool
	Experiments  []*Experiment
	Illustration *Illustration
	Theory       map[string]*experiment.BoundReport // per regime, realization 0
	Claims       []Claim
	Elapsed      time.Duration
}

// Run runs the four experiments of SPEC §6 and writes, under opt.Out, one
// folder per experiment (results.json, summary.csv, figures), the paper's
// Fig. 2 as fig2-regret.png/.svg, and REPORT.md. Everything is written into
// one temporary folder beside opt.Out and renamed into place at the end, so
// a failure or an interrupt leaves opt.Out as it was. An existing,
// non-empty opt.Out is refused unless opt.Force is set.
func Run(ctx context.Context, opt Options) (*Outcome, error) {
	start := time.Now()
	// Refuse before the minutes of work, not after them.
	if err := outdir.Check(opt.Out, opt.Force); err != nil {
		return nil, fmt.Errorf("reproduce: %s %w", opt.Out, err)
	}
	stage, err := outdir.Stage(opt.Out)
	if err != nil {
		return nil, fmt.Errorf("reproduce: %w", err)
	}
	defer outdir.Discard(stage) // gone already once published
	final := opt.Out
	opt.Out = stage // every writer below writes into the staging folder
	logf := func(format string, args ...any) {
		if opt.Log != nil {
			fmt.Fprintf(opt.Log, format+"\n", args...)
		}
	}
	if opt.Shard.Sharded() {
		if err := runShard(ctx, opt, start); err != nil {
			return nil, err
		}
		if err := outdir.Publish(stage, final, opt.Force); err != nil {
			return nil, fmt.Errorf("reproduce: %w", err)
		}
		return &Outcome{Quick: opt.Quick, Elapsed: time.Since(start)}, nil
	}
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	slots := make(chan struct{}, workers)
	out, err := assemble(ctx, opt.Out, opt.Quick, logf, func(ctx context.Context, pe *paperExperiment, cfg *experiment.Config, figures func(string, []experiment.Curve) error) (*Experiment, error) {
		return run(ctx, cfg, pe.name, opt, slots, figures)
	})
	if err != nil {
		return nil, err
	}
	out.Elapsed = time.Since(start)
	if err := writeReport(opt.Out, out); err != nil {
		return nil, err
	}
	if err := outdir.Publish(stage, final, opt.Force); err != nil {
		return nil, fmt.Errorf("reproduce: %w", err)
	}
	return out, nil
}

// assemble draws the illustration into dir, gets each experiment's folder
// written by experiment (a run or a merge of shards) with the figures
// given, and computes Fig. 2, the theory and the claims: what Run and
// Merge share.
//
// The illustration and the experiments go side by side, each on its own
// goroutine (Run's runs share its workers' slots: experiment.Options),
// so that one's serial parts — its figures, its theory, writing its
// folder — overlap the others' runs: on 2 workers the serial parts were
// 0.96 s of 6.2 s of CPU, and left the reproduction 1.69× faster than on
// one. Every result is the same; only the log's lines come in the order
// the experiments finish.
func assemble(ctx context.Context, dir string, quick bool, logf func(string, ...any), experiment_ func(ctx context.Context, pe *paperExperiment, cfg *experiment.Config, figures func(string, []experiment.Curve) error) (*Experiment, error)) (*Outcome, error) {
	out := &Outcome{Quick: quick, Theory: map[string]*experiment.BoundReport{}}
	pes := paperExperiments()
	cfgs := make([]*experiment.Config, len(pes))
	for i := range pes {
		var err error
		if cfgs[i], err = pes[i].config(quick); err != nil {
			return nil, err
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var mu sync.Mutex // logf
	log := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		logf(format, args...)
	}
	// errs[0] is the illustration's, errs[1+i] experiment i's.
	errs := make([]error, 1+len(pes))
	exps := make([]*Experiment, len(pes))
	bounds := make([]*experiment.BoundReport, len(pes))
	var wg sync.WaitGroup
	wg.Go(func() {
		ill, err := RunIllustration(ctx, filepath.Join(dir, "illustration"))
		if err != nil {
			errs[0] = err
			cancel()
			return
		}
		out.Illustration = ill
		log("illustration: done")
	})
	for i := range pes {
		pe := &pes[i]
		wg.Go(func() {
			e, err := experiment_(ctx, pe, cfgs[i], pe.figures)
			if err == nil && pe.regime != "" {
				if bounds[i], err = experiment.Bound(e.Config, 0, defaultFeatures); err != nil {
					err = fmt.Errorf("reproduce: regime %s: bound: %w", pe.regime, err)
				}
			}
			if err != nil {
				errs[1+i] = err
				cancel()
				return
			}
			exps[i] = e
			log(pe.log, len(e.Results.Runs))
		})
	}
	wg.Wait()
	if err := firstError(errs); err != nil {
		return nil, err
	}
	var regimes []*Experiment
	for i, pe := range pes {
		out.Experiments = append(out.Experiments, exps[i])
		if pe.regime != "" {
			regimes = append(regimes, exps[i])
			out.Theory[pe.regime] = bounds[i]
		}
	}
	if err := paperFigures(dir, regimes); err != nil {
		return nil, err
	}
	out.Claims = Claims(out)
	return out, nil
}

// firstError returns the first error of errs that is not a cancellation
// (one failure cancels the others: theirs would hide it), else the first.
func firstError(errs []error) error {
	for _, err := range errs {
		if err != nil && !errors.Is(err, context.Canceled) {
			return err
		}
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func writeReport(dir string, out *Outcome) error {
	if err := os.WriteFile(filepath.Join(dir, "REPORT.md"), Report(out), 0o644); err != nil {
		return fmt.Errorf("reproduce: write REPORT.md: %w", err)
	}
	return nil
}

// paperExperiment is one experiment of SPEC §6 as Run runs it.
type paperExperiment struct {
	name    string // output folder
	example string // embedded configuration, under examples/
	// regime is the seed-set sizes of a regret comparison (Regimes), which
	// runs with its ablations (addAblations) and has its theory computed;
	// "" for another experiment.
	regime string
	log    string // the line logged when it is done, given its number of runs
	// figures draws its figures into tmp (the paper's Figs. 2 and 6–8,
	// across regimes, are drawn by paperFigures).
	figures func(tmp string, curves []experiment.Curve) error
}

// paperExperiments lists the experiments in the order Run runs and
// reports them: the regret comparison per regime (paper Fig. 2), linear
// kernels (Fig. 4), the phase-1 rule (Fig. 5).
func paperExperiments() []paperExperiment {
	var list []paperExperiment
	for _, r := range Regimes {
		list = append(list, paperExperiment{
			name: "regret-" + r, example: "regime-" + r + ".yaml", regime: r,
			log: "regret comparison, seed sets of " + r + ": %d runs",
			figures: func(tmp string, curves []experiment.Curve) error {
				left, right := regimePanels(curves, r)
				return plot.SaveRow([]*plot.Panel{left, right}, tmp, "regret")
			},
		})
	}
	return append(list,
		paperExperiment{
			name: "linear", example: "linear.yaml", log: "linear kernel: %d runs",
			figures: func(tmp string, curves []experiment.Curve) error {
				return plot.Save(linearPanel(curves), tmp, "regret")
			},
		},
		paperExperiment{
			name: "phase1", example: "phase1.yaml", log: "phase-1 rule: %d runs",
			figures: func(tmp string, curves []experiment.Curve) error {
				return plot.SaveRow(phase1Panels(curves), tmp, "regret")
			},
		},
	)
}

// config loads the experiment's configuration, with its ablations.
func (pe *paperExperiment) config(quick bool) (*experiment.Config, error) {
	cfg, err := load(pe.example, quick)
	if err != nil {
		return nil, err
	}
	if pe.regime != "" {
		addAblations(cfg)
	}
	if err := cfg.Check(); err != nil {
		return nil, fmt.Errorf("reproduce: %s: %w", pe.name, err)
	}
	return cfg, nil
}

// load parses an embedded example; quick cuts its realizations.
func load(name string, quick bool) (*experiment.Config, error) {
	data, err := safegp.Examples.ReadFile("examples/" + name)
	if err != nil {
		return nil, fmt.Errorf("reproduce: %w", err)
	}
	cfg, err := experiment.Parse(bytes.NewReader(data), ".")
	if err != nil {
		return nil, fmt.Errorf("reproduce: examples/%s: %w", name, err)
	}
	if quick {
		cfg.Realizations = min(cfg.Realizations, QuickRealizations)
	}
	return cfg, nil
}

// Ablation labels: the two implementation choices the paper discusses,
// and the other reading of SafeOpt-MC's switch.
const (
	keepSuffix = " keep_seed"
	gpSuffix   = " gp"
	// plateauSuffix marks SafeOpt-MC switched by the plateau rule that
	// ends SGP-UCB's and StageOpt's first phase (paper §6, "for both
	// implementations") instead of at t* (paper §6: "We found t*
	// numerically", Berkenkamp et al. 2016, Theorem 1).
	plateauSuffix = " (plateau)"
)

// plateauRule is the paper's first-phase rule for SGP-UCB and StageOpt
// (§6: the safe region plateaued for 20 iterations, T' capped at 100).
var plateauRule = bandit.Exploration{Plateau: &bandit.Plateau{Window: 20, Cap: 100}}

// addAblations appends, for each algorithm of the paper's comparison, its
// run under the other implementation choice: keep_seed for the SGP-UCB
// family, safe_set: gp (as their own papers ran them) for SafeOpt-MC and
// StageOpt; then SafeOpt-MC switched by the plateau rule instead of at
// t*. Each is a separate label on the same realizations.
func addAblations(cfg *experiment.Config) {
	var extra, plateau []bandit.Spec
	for _, a := range cfg.Algorithms {
		switch a.Name {
		case bandit.SGPUCB, bandit.NaiveSGPUCB:
			a.KeepSeed = true
			a.Label = a.DisplayLabel() + keepSuffix
			extra = append(extra, a)
		case bandit.SafeOptMC, bandit.StageOpt:
			if a.UsesTStar() {
				p := a
				p.Exploration, p.Label = plateauRule, a.DisplayLabel()+plateauSuffix
				plateau = append(plateau, p)
			}
			a.SafeSet, a.Lipschitz = "gp", nil
			a.Label = a.DisplayLabel() + gpSuffix
			extra = append(extra, a)
		}
	}
	cfg.Algorithms = append(append(cfg.Algorithms, extra...), plateau...)
}

// run runs the experiment into its folder, its runs streamed to disk
// (experiment.ExecuteToDir), and reads them back for the report.
func run(ctx context.Context, cfg *experiment.Config, name string, opt Options, slots chan struct{}, figures func(string, []experiment.Curve) error) (*Experiment, error) {
	e := newExperiment(name, cfg)
	dir := filepath.Join(opt.Out, name)
	if _, err := experiment.ExecuteToDir(ctx, cfg, experiment.Options{Workers: opt.Workers, Slots: slots, MaxMemory: opt.MaxMemory}, dir, e.writeOptions(figures)); err != nil {
		return nil, fmt.Errorf("reproduce: %s: %w", name, err)
	}
	return e, nil
}

func newExperiment(name string, cfg *experiment.Config) *Experiment {
	return &Experiment{Name: name, Config: cfg,
		Results: &experiment.Results{Config: cfg, Runs: make([]experiment.Run, 0, experiment.Units(cfg))}}
}

// writeOptions has the experiment's folder writer hand e its runs (for
// the report) and its curves as it writes them, so that nothing is read
// back from runs.jsonl, and draw the figures from the curves.
func (e *Experiment) writeOptions(figures func(string, []experiment.Curve) error) experiment.WriteOptions {
	return experiment.WriteOptions{
		Runs: func(r *experiment.Run) { e.Results.Runs = append(e.Results.Runs, r.Clone()) },
		Figures: func(tmp string, curves []experiment.Curve) error {
			e.Curves = curves
			return figures(tmp, curves)
		},
	}
}
