package reproduce

import (
	"bytes"
	"context"
	"fmt"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	gplot "gonum.org/v1/plot"

	"github.com/safegp/safegp"
	"github.com/safegp/safegp/bandit"
	"github.com/safegp/safegp/experiment"
	"github.com/safegp/safegp/internal/outdir"
	"github.com/safegp/safegp/plot"
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
	defer os.RemoveAll(stage) // gone already once published
	final := opt.Out
	opt.Out = stage // every writer below writes into the staging folder
	logf := func(format string, args ...any) {
		if opt.Log != nil {
			fmt.Fprintf(opt.Log, format+"\n", args...)
		}
	}
	out := &Outcome{Quick: opt.Quick, Theory: map[string]*experiment.BoundReport{}}

	ill, err := RunIllustration(ctx, filepath.Join(opt.Out, "illustration"))
	if err != nil {
		return nil, err
	}
	out.Illustration = ill
	logf("illustration: done")

	var fig2 []*gplot.Plot
	for _, r := range Regimes {
		cfg, err := load("regime-"+r+".yaml", opt.Quick)
		if err != nil {
			return nil, err
		}
		addAblations(cfg)
		e, err := run(ctx, cfg, "regret-"+r, opt, func(tmp string, curves []experiment.Curve) error {
			left, right := regimePanels(curves, r)
			if err := plot.SaveRow([]*gplot.Plot{left, right}, tmp, "regret"); err != nil {
				return err
			}
			fig2 = append(fig2, left)
			return nil
		})
		if err != nil {
			return nil, err
		}
		out.Experiments = append(out.Experiments, e)
		b, err := experiment.Bound(cfg, 0, defaultFeatures)
		if err != nil {
			return nil, fmt.Errorf("reproduce: regime %s: bound: %w", r, err)
		}
		out.Theory[r] = b
		logf("regret comparison, seed sets of %s: %d runs", r, len(e.Results.Runs))
	}
	if err := plot.SaveRow(fig2, opt.Out, "fig2-regret"); err != nil {
		return nil, err
	}

	cfg, err := load("linear.yaml", opt.Quick)
	if err != nil {
		return nil, err
	}
	e, err := run(ctx, cfg, "linear", opt, func(tmp string, curves []experiment.Curve) error {
		return plot.Save(linearPanel(curves), tmp, "regret")
	})
	if err != nil {
		return nil, err
	}
	out.Experiments = append(out.Experiments, e)
	logf("linear kernel: %d runs", len(e.Results.Runs))

	cfg, err = load("phase1.yaml", opt.Quick)
	if err != nil {
		return nil, err
	}
	e, err = run(ctx, cfg, "phase1", opt, func(tmp string, curves []experiment.Curve) error {
		p, err := plot.Bands("Phase-1 rule (paper Fig. 5)", "round t", "average regret R_t / t", experiment.RegretSeries(curves))
		if err != nil {
			return err
		}
		return plot.Save(p, tmp, "regret")
	})
	if err != nil {
		return nil, err
	}
	out.Experiments = append(out.Experiments, e)
	logf("phase-1 rule: %d runs", len(e.Results.Runs))

	out.Claims = Claims(out)
	out.Elapsed = time.Since(start)
	if err := os.WriteFile(filepath.Join(opt.Out, "REPORT.md"), Report(out), 0o644); err != nil {
		return nil, fmt.Errorf("reproduce: write REPORT.md: %w", err)
	}
	if err := outdir.Publish(stage, final, opt.Force); err != nil {
		return nil, fmt.Errorf("reproduce: %w", err)
	}
	return out, nil
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

// Ablation labels: the two implementation choices the paper discusses.
const (
	keepSuffix = " keep_seed"
	gpSuffix   = " gp"
)

// addAblations appends, for each algorithm of the paper's comparison, its
// run under the other implementation choice: keep_seed for the SGP-UCB
// family, safe_set: gp (as their own papers ran them) for SafeOpt-MC and
// StageOpt. Each is a separate label on the same realizations.
func addAblations(cfg *experiment.Config) {
	var extra []bandit.Spec
	for _, a := range cfg.Algorithms {
		switch a.Name {
		case "sgp-ucb", "naive-sgp-ucb":
			a.KeepSeed = true
			a.Label = a.DisplayLabel() + keepSuffix
			extra = append(extra, a)
		case "safeopt-mc", "stageopt":
			a.SafeSet, a.Lipschitz = "gp", nil
			a.Label = a.DisplayLabel() + gpSuffix
			extra = append(extra, a)
		}
	}
	cfg.Algorithms = append(cfg.Algorithms, extra...)
}

func run(ctx context.Context, cfg *experiment.Config, name string, opt Options, figures func(string, []experiment.Curve) error) (*Experiment, error) {
	if err := cfg.Check(); err != nil {
		return nil, fmt.Errorf("reproduce: %s: %w", name, err)
	}
	res, err := experiment.Execute(ctx, cfg, experiment.Options{Workers: opt.Workers, MaxMemory: opt.MaxMemory})
	if err != nil {
		return nil, fmt.Errorf("reproduce: %s: %w", name, err)
	}
	e := &Experiment{Name: name, Config: cfg, Results: res}
	if err := experiment.WriteWith(filepath.Join(opt.Out, name), res, func(tmp string, curves []experiment.Curve) error {
		e.Curves = curves
		return figures(tmp, curves)
	}); err != nil {
		return nil, err
	}
	return e, nil
}

// family gives each algorithm its colour across every figure.
func family(label string) color.NRGBA {
	base := strings.TrimSuffix(strings.TrimSuffix(label, keepSuffix), gpSuffix)
	switch base {
	case "sgp-ucb", "uniform":
		return plot.Palette[0]
	case "stageopt", "uncertainty":
		return plot.Palette[1]
	case "safeopt-mc", "safeopt":
		return plot.Palette[2]
	case "naive-sgp-ucb":
		return plot.Palette[3]
	case "gp-ucb-oracle":
		return plot.Palette[4]
	}
	return plot.Palette[7]
}

func isAblation(label string) bool {
	return strings.HasSuffix(label, keepSuffix) || strings.HasSuffix(label, gpSuffix)
}

// regimePanels draws the paper's comparison (left) and the same comparison
// under the other implementation choices, with the oracle for reference
// (right).
func regimePanels(curves []experiment.Curve, regime string) (left, right *gplot.Plot) {
	var paper, ablation []plot.Series
	for _, s := range experiment.RegretSeries(curves) {
		s.Color = family(s.Label)
		switch {
		case isAblation(s.Label):
			s.Dashed = true
			ablation = append(ablation, s)
		case s.Label == "gp-ucb-oracle":
			paper = append(paper, s)
			ablation = append(ablation, s)
		default:
			paper = append(paper, s)
		}
	}
	title := fmt.Sprintf("|D^w| in %s: as in the paper", strings.Replace(regime, "-", "–", 1))
	left, err := plot.Bands(title, "round t", "average regret R_t / t", paper)
	if err != nil {
		panic(err) // series built above have matching lengths
	}
	right, err = plot.Bands(fmt.Sprintf("|D^w| in %s: keep_seed / safe_set gp", strings.Replace(regime, "-", "–", 1)), "round t", "average regret R_t / t", ablation)
	if err != nil {
		panic(err)
	}
	// One y range for both panels, so that they compare at a glance.
	lo, hi := math.Min(left.Y.Min, right.Y.Min), math.Max(left.Y.Max, right.Y.Max)
	left.Y.Min, right.Y.Min, left.Y.Max, right.Y.Max = lo, lo, hi, hi
	return left, right
}

// linearPanel draws Fig. 4: each algorithm against x* (solid) and against
// the reachable benchmark f*_ε(D^w) (dashed).
func linearPanel(curves []experiment.Curve) *gplot.Plot {
	var s []plot.Series
	for _, c := range curves {
		x := make([]float64, len(c.MeanAvg))
		for t := range x {
			x[t] = float64(t + 1)
		}
		s = append(s,
			plot.Series{Label: c.Label + " vs x*", X: x, Mean: c.MeanAvg, Std: c.StdAvg, Color: family(c.Label)},
			plot.Series{Label: c.Label + " vs f*_ε(D^w)", X: x, Mean: c.MeanAvgReach, Color: family(c.Label), Dashed: true})
	}
	p, err := plot.Bands("Linear kernels (paper Fig. 4)", "round t", "average regret R_t / t", s)
	if err != nil {
		panic(err)
	}
	return p
}
