package experiment_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/safegp/safegp/bandit"
	"github.com/safegp/safegp/config"
	"github.com/safegp/safegp/experiment"
	"github.com/safegp/safegp/internal/memlimit"
	"github.com/safegp/safegp/kernel"
	"github.com/safegp/safegp/problem"
)

// contextConfig is a drawn problem with every finite algorithm, in each
// mode; withContext adds a problem.context block to it.
const contextConfig = `seed: 9
realizations: 3
horizon: 40
problem:
  generate:
    decision_set: {kind: unit-disk, size: 40}
    objective: {kernel: se, lengthscale: 0.8}
    constraints: [{kernel: se, lengthscale: 0.4}]
    seed_set: {size: [3, 6], from: safe}
  thresholds: [0.0]
  epsilon: 0.01
  noise_std: 0.05
model:
  noise_std: 0.05
  delta: 0.01
algorithms:
  - {name: sgp-ucb, phase1: uniform, exploration: {fixed: 10}}
  - {name: sgp-ucb, label: plateau, phase1: uncertainty, exploration: {plateau: {window: 5, cap: 20}}}
  - {name: naive-sgp-ucb}
  - {name: gp-ucb-oracle}
  - {name: safeopt, safe_set: gp}
  - {name: safeopt, label: safeopt-lip}
  - {name: safeopt-mc, safe_set: lipschitz, lipschitz: auto, exploration: {fixed: 10}}
  - {name: stageopt, safe_set: gp, exploration: {fixed: 10}}
`

func withContext(cfg, block string) string {
	return strings.Replace(cfg, "  thresholds:", block+"  thresholds:", 1)
}

// TestContextOneContextIsPlain is the correctness requirement for
// simulations: with a single context, every algorithm plays the same
// action every round as without contexts, with bit-identical regret,
// violations and safe-set sizes (the problem is drawn identically, and
// the context's own random stream leaves the others untouched).
func TestContextOneContextIsPlain(t *testing.T) {
	t.Parallel()
	plain := execute(t, contextConfig, 2)
	with := execute(t, withContext(contextConfig, `  context:
    names: [temperature]
    values: [[21.5]]
    kernel: {kernel: matern52, lengthscale: 0.01}
`), 2)
	if len(plain.Runs) != len(with.Runs) {
		t.Fatalf("%d runs, %d with a context", len(plain.Runs), len(with.Runs))
	}
	for k, a := range plain.Runs {
		b := with.Runs[k]
		if a.Label != b.Label || !slices.Equal(a.Actions, b.Actions) || !bitsEqual(a.Regret, b.Regret) || !bitsEqual(a.ReachableRegret, b.ReachableRegret) ||
			a.Violations != b.Violations || !slices.Equal(a.SafeSetSize, b.SafeSetSize) || a.ExplorationRounds != b.ExplorationRounds {
			t.Errorf("%s, realization %d: the run with one context differs", a.Label, a.Realization)
		}
		if a.Contexts != nil || len(b.Contexts) != len(b.Actions) || slices.Max(b.Contexts) != 0 {
			t.Errorf("%s: contexts %v without, %v with one context", a.Label, a.Contexts, b.Contexts)
		}
	}
}

func bitsEqual(a, b []float64) bool {
	return slices.EqualFunc(a, b, func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) })
}

// TestContextGoldenOneContext: on both golden problems (../testdata, the
// shared cases TestGolden checks against an independent implementation),
// each algorithm played through PlayContext in a single context plays
// Play's actions with bit-identical regret.
func TestContextGoldenOneContext(t *testing.T) {
	t.Parallel()
	cases, _ := filepath.Glob("../testdata/public_*.yaml")
	if len(cases) != 2 {
		t.Fatalf("%d golden cases, want 2", len(cases))
	}
	for _, path := range cases {
		cfg, err := experiment.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		p, err := cfg.LoadProblem()
		if err != nil {
			t.Fatal(err)
		}
		for i := range cfg.Algorithms {
			s := &cfg.Algorithms[i]
			in, err := cfg.Instance(0, p)
			if err != nil {
				t.Fatal(err)
			}
			want, err := experiment.Play(s, cfg.Setting(0, in), experiment.OnProblem(in.Problem, in.Info), cfg.Noise(0), nil)
			if err != nil {
				t.Fatal(err)
			}
			st := cfg.Setting(0, in)
			st.Model.Objective, st.Model.Constraints = config.Products(st.Model.Objective, st.Model.Constraints, kernel.SE{Variance: 1, Lengthscale: 0.3}, p.Dim())
			ci := &experiment.ContextInstance{Values: [][]float64{{-4, 2}}, Problems: []*problem.Problem{in.Problem}, Infos: []*problem.Info{in.Info}}
			got, err := experiment.Play(s, st, experiment.OnContexts(ci, nil, cfg.Contexts(0)), cfg.Noise(0), nil)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got.Actions, want.Actions) || !bitsEqual(got.Regret, want.Regret) || got.Violations != want.Violations {
				t.Errorf("%s %s: one context plays %v, regret %v; Play %v, %v", filepath.Base(path), s.DisplayLabel(), got.Actions, got.Regret, want.Actions, want.Regret)
			}
		}
	}
}

// TestContextualRegretByHand: on a tiny problem of three actions in two
// contexts, whose safe optimum differs per context, the contextual regret
// of each round is f*(c_t) − f(x_t, c_t) with f*(c) the best f over
// D^s_ε(c), computed here by hand; violations count g(x_t, c_t) < h; and
// the contexts follow the probabilities given.
func TestContextualRegretByHand(t *testing.T) {
	t.Parallel()
	x := [][]float64{{0}, {0.5}, {1}}
	// Context 0: all safe, f* = f(x₂) = 3. Context 1: x₂ unsafe (g < 0)
	// and x₁ safe but within ε = 0.1 of the threshold, so D^s_ε = {x₀}
	// and f* = f(x₀) = 1.
	f := [][]float64{{1, 2, 3}, {1, 5, 4}}
	g := [][]float64{{1, 1, 1}, {1, 0.05, -1}}
	fstar := []float64{3, 1}
	var probs []*problem.Problem
	var infos []*problem.Info
	for k := range f {
		p := &problem.Problem{X: x, F: f[k], G: [][]float64{g[k]}, H: []float64{0}, Epsilon: 0.1, Seed: []int{0}}
		if err := p.Validate(); err != nil {
			t.Fatal(err)
		}
		info, err := p.Analyze()
		if err != nil {
			t.Fatal(err)
		}
		if info.FStar != fstar[k] {
			t.Fatalf("context %d: Analyze's f* = %v, by hand %v", k, info.FStar, fstar[k])
		}
		probs, infos = append(probs, p), append(infos, info)
	}
	ci := &experiment.ContextInstance{Values: [][]float64{{0}, {1}}, Problems: probs, Infos: infos}
	se := kernel.SE{Variance: 1, Lengthscale: 0.5}
	kc := kernel.SE{Variance: 1, Lengthscale: 0.3}
	const T = 150
	st := &experiment.Setting{
		Model: bandit.Model{Objective: kernel.Product{X: se, C: kc, D: 1}, Constraints: []kernel.Kernel{kernel.Product{X: se, C: kc, D: 1}},
			NoiseStd: 0.01, Delta: 0.1, Beta: bandit.Beta{Value: 4}},
		Set:     bandit.DecisionSet{X: x, Seed: []int{0}},
		Options: bandit.Options{Thresholds: []float64{0}, Epsilon: 0.1, Horizon: T},
	}
	// Lipschitz constant 0: every action is certified safe by the seed,
	// so the policy plays x₂ in context 1 too, a violation.
	s := &bandit.Spec{Name: "safeopt", Lipschitz: &bandit.Lipschitz{Value: 0}}
	run, err := experiment.Play(s, st, experiment.OnContexts(ci, []float64{0.25, 0.75}, rand.New(rand.NewPCG(2, 2))), rand.New(rand.NewPCG(1, 1)), nil)
	if err != nil {
		t.Fatal(err)
	}
	viol, in1 := 0, 0
	for t0, a := range run.Actions {
		k := run.Contexts[t0]
		in1 += k
		if want := fstar[k] - f[k][a]; run.Regret[t0] != want {
			t.Fatalf("round %d (context %d, action %d): regret %v, by hand %v", t0+1, k, a, run.Regret[t0], want)
		}
		if g[k][a] < 0 {
			viol++
		}
	}
	if run.Violations != viol || viol == 0 {
		t.Errorf("%d violations, by hand %d (want some: x₂ is unsafe in context 1)", run.Violations, viol)
	}
	// Context 1 has probability 3/4: its count is Binomial(150, 3/4),
	// mean 112.5 and standard deviation √28.1 ≈ 5.3; 5 of them is 26.5.
	if math.Abs(float64(in1)-112.5) > 26.5 {
		t.Errorf("context 1 drawn %d times in %d rounds, want about 112", in1, T)
	}
}

// TestContextConfigErrors: problem.context is checked with the rest of
// the configuration, errors naming the key.
func TestContextConfigErrors(t *testing.T) {
	t.Parallel()
	block := func(b string) string { return withContext(regimeConfig, b) }
	good := "  context:\n    names: [t]\n    values: [[0], [1]]\n    kernel: {kernel: se, lengthscale: 1}\n"
	for _, c := range []struct{ config, want string }{
		{block("  context:\n    names: []\n    values: [[0]]\n    kernel: {kernel: se, lengthscale: 1}\n"), "problem.context.names: missing"},
		{block("  context:\n    names: [t, t]\n    values: [[0, 1]]\n    kernel: {kernel: se, lengthscale: 1}\n"), `problem.context.names[1]: "t" is also names[0]`},
		{block("  context:\n    names: [t]\n    kernel: {kernel: se, lengthscale: 1}\n"), "problem.context.values: missing"},
		{block("  context:\n    names: [t]\n    values: [[0, 1]]\n    kernel: {kernel: se, lengthscale: 1}\n"), "problem.context.values[0]: 2 values for 1 name"},
		{block("  context:\n    names: [t]\n    values: [[0], [0]]\n    kernel: {kernel: se, lengthscale: 1}\n"), "problem.context.values[1]: [0] is also values[0]"},
		{block("  context:\n    names: [t]\n    values: [[1e200]]\n    kernel: {kernel: se, lengthscale: 1}\n"), "problem.context.values[0][0]: must be a finite number"},
		{block("  context:\n    names: [t]\n    values: [[0], [1]]\n    probabilities: [0.5]\n    kernel: {kernel: se, lengthscale: 1}\n"), "problem.context.probabilities: 1 given for 2 contexts"},
		{block("  context:\n    names: [t]\n    values: [[0], [1]]\n    probabilities: [0.5, 0.6]\n    kernel: {kernel: se, lengthscale: 1}\n"), "problem.context.probabilities: sum to 1.1"},
		{block("  context:\n    names: [t]\n    values: [[0], [1]]\n    probabilities: [-0.5, 1.5]\n    kernel: {kernel: se, lengthscale: 1}\n"), "problem.context.probabilities[0]: must be in [0, 1]"},
		{block("  context:\n    names: [t]\n    values: [[0], [1]]\n    kernel: {kernel: se, lengthscale: 1, variance: 3}\n"), "problem.context.kernel.variance: fixed to 1"},
		{block("  context:\n    names: [t]\n    values: [[0], [1]]\n    kernel: {kernel: polynomial}\n"), "problem.context.kernel.kernel: a context kernel must be stationary"},
		{block("  context:\n    names: [t]\n    values: [[0], [1]]\n"), "problem.context.kernel.kernel: missing"},
		{block("  context:\n    names: [t]\n    values: [" + contextValues(102) + "]\n    kernel: {kernel: se, lengthscale: 1}\n"), "50 actions × 102 contexts = 5100 points (x, c)"},
		{strings.Replace(strings.Replace(block(good), "  generate:\n    decision_set: {kind: unit-disk, size: 50}\n    objective: {kernel: se, lengthscale: 1}\n    constraints: [{kernel: se, lengthscale: 0.2}]\n    seed_set: {size: [3, 8], from: safe}\n", "  file: p.csv\n", 1), "model:\n", "model:\n  objective: {kernel: se, lengthscale: 1}\n  constraints: [{kernel: se, lengthscale: 1}]\n", 1), "problem.context: only with problem.generate"},
		{strings.Replace(block(good), "model:\n", "model:\n  fit: {when: seed}\n", 1), "model.fit: not offered with problem.context"},
		{strings.Replace(block(good), "exploration: {plateau: {window: 10, cap: 30}}", "exploration: theory", 1), "algorithms[0].exploration: theory is not offered with problem.context"},
	} {
		_, err := experiment.Parse(strings.NewReader(c.config), ".")
		if !errors.Is(err, experiment.ErrConfig) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v, want ErrConfig with %q", err, c.want)
		}
	}
	cfg, err := experiment.Parse(strings.NewReader(block(good)), ".")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := experiment.Bound(cfg, 0, cfg.Algorithms[0].Exploration.TheoryFeatures); !errors.Is(err, experiment.ErrConfig) || !strings.Contains(err.Error(), "problem.context: the bounds of SPEC §7") {
		t.Errorf("bound with contexts: %v", err)
	}
	res, err := experiment.Execute(context.Background(), cfg, experiment.Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, run := range res.Runs {
		if len(run.Contexts) != cfg.Horizon || slices.Max(run.Contexts) > 1 {
			t.Errorf("%s: contexts %v", run.Label, run.Contexts)
		}
	}
}

// contextValues lists n distinct one-value contexts [0] … [n−1], as YAML.
func contextValues(n int) string {
	v := make([]string, n)
	for k := range v {
		v[k] = fmt.Sprintf("[%d]", k)
	}
	return strings.Join(v, ", ")
}

// TestContextPlanRefuses: a contextual experiment whose kept policies
// (one per context) would not fit is refused before anything is drawn,
// naming the contexts.
func TestContextPlanRefuses(t *testing.T) {
	t.Parallel()
	cfg, err := experiment.Parse(strings.NewReader(withContext(bigConfig(1, 100_000, "{kind: unit-disk, size: 100}", "{name: naive-sgp-ucb}"),
		"  context:\n    names: [t]\n    values: ["+contextValues(10)+"]\n    kernel: {kernel: se, lengthscale: 1}\n")), ".")
	if err != nil {
		t.Fatal(err)
	}
	_, err = experiment.Execute(context.Background(), cfg, experiment.Options{Workers: 2, MaxMemory: 1 << 30})
	if !errors.Is(err, memlimit.ErrTooLarge) || !strings.Contains(err.Error(), "problem.context.values (10 contexts)") {
		t.Errorf("got %v, want a memory-limit error naming the contexts", err)
	}
}
