package experiment_test

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/safegp/safegp/bandit"
	"github.com/safegp/safegp/experiment"
	"github.com/safegp/safegp/kernel"
	"github.com/safegp/safegp/problem"
	"github.com/safegp/safegp/theory"
)

// goldenHF is an objective threshold for each golden problem: below f at
// every seed action (public_core's lowest is −0.789, public_baselines'
// 1.059), above f at many other actions (22 of 60, and 27 of 40).
var goldenHF = map[string]float64{"public_core": -0.8, "public_baselines": 0}

// safeObjectiveSpecs are every algorithm, in both safe_set modes where
// there are two, and both phase-1 rules.
func safeObjectiveSpecs() []bandit.Spec {
	fixed := func(n int) bandit.Exploration { return bandit.Exploration{Fixed: &n} }
	plateau := bandit.Exploration{Plateau: &bandit.Plateau{Window: 5, Cap: 20}}
	auto := &bandit.Lipschitz{Auto: true}
	return []bandit.Spec{
		{Name: "sgp-ucb", Label: "sgp-ucb-unc", Phase1: "uncertainty", Exploration: fixed(12)},
		{Name: "sgp-ucb", Label: "sgp-ucb-uni", Phase1: "uniform", Exploration: plateau},
		{Name: "sgp-ucb", Label: "sgp-ucb-keep", Phase1: "uncertainty", Exploration: fixed(6), KeepSeed: true},
		{Name: "naive-sgp-ucb"},
		{Name: "safeopt", Label: "safeopt-gp", SafeSet: "gp"},
		{Name: "safeopt", Label: "safeopt-lip", SafeSet: "lipschitz", Lipschitz: auto},
		{Name: "safeopt-mc", Label: "safeopt-mc-gp", SafeSet: "gp", Exploration: fixed(15)},
		{Name: "safeopt-mc", Label: "safeopt-mc-lip", SafeSet: "lipschitz", Lipschitz: auto, Exploration: plateau},
		{Name: "stageopt", Label: "stageopt-gp", SafeSet: "gp", Exploration: fixed(15)},
		{Name: "stageopt", Label: "stageopt-lip", SafeSet: "lipschitz", Lipschitz: auto, Exploration: fixed(15)},
		{Name: "gp-ucb-oracle"},
	}
}

// goldenProblem reads a golden case: its problem file with the
// configuration's ε, and the configuration.
func goldenProblem(t *testing.T, name string) (*problem.Problem, *experiment.Config) {
	t.Helper()
	cfg, err := experiment.Load(filepath.Join("..", "testdata", name+".yaml"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join("..", "testdata", name+".csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := problem.ReadCSV(f)
	if err != nil {
		t.Fatal(err)
	}
	p.H, p.Epsilon, p.NoiseStd = cfg.Problem.Thresholds, cfg.Problem.Epsilon, cfg.Problem.NoiseStd
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	return p, cfg
}

// playOn plays spec s on problem p with the model's objective kernel kf,
// constraint kernels kg and the constant β, exact observations.
func playOn(t *testing.T, s *bandit.Spec, p *problem.Problem, cfg *experiment.Config, kf kernel.Kernel, kg []kernel.Kernel, beta float64) *experiment.Run {
	t.Helper()
	info, err := p.Analyze()
	if err != nil {
		t.Fatal(err)
	}
	st := &experiment.Setting{
		Model: bandit.Model{Objective: kf, Constraints: kg, NoiseStd: *cfg.Model.NoiseStd, Delta: *cfg.Model.Delta,
			Beta: bandit.Beta{Value: beta}},
		Set:     bandit.DecisionSet{X: p.X, Seed: p.Seed},
		Truth:   &bandit.Truth{Safe: info.SafeTrue, Lipschitz: info.Lipschitz},
		Options: bandit.Options{Thresholds: p.H, ObjectiveThreshold: p.HF, Epsilon: p.Epsilon, Horizon: cfg.Horizon, Rand: rand.New(rand.NewPCG(5, 6))},
	}
	run, err := experiment.Play(s, st, experiment.OnProblem(p, info), rand.New(rand.NewPCG(7, 8)), nil)
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// TestObjectiveThresholdIsAConstraint is issue 10's equivalence: on each
// golden problem, with exact observations, a run with no constraint and
// f ≥ h_f (run A) plays exactly what the same run plays with one
// constraint g_1 := f, the objective's kernel as its kernel and h_1 = h_f
// (run B), round by round, for every algorithm; and it reports the same
// safe-set sizes, exploration length, regret and violations. The truth
// (D^s_0, D^s_ε, x*, L, R̄_ε) must agree too. Both runs use the constant
// β = 4 of the golden configurations: the paper's schedule counts the GPs
// (SPEC §3), one for run A and two for run B, so it would differ between
// them by design. The policies' random streams are the same.
func TestObjectiveThresholdIsAConstraint(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"public_core", "public_baselines"} {
		t.Run(name, func(t *testing.T) {
			p, cfg := goldenProblem(t, name)
			kf, _ := cfg.Model.Kernels()
			hf := goldenHF[name]
			a := *p
			a.G, a.H, a.HF = nil, []float64{}, &hf
			b := *p
			b.G, b.H, b.HF = [][]float64{slices.Clone(p.F)}, []float64{hf}, nil
			ia, err := a.Analyze()
			if err != nil {
				t.Fatal(err)
			}
			ib, err := b.Analyze()
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(ib, ia); d != "" {
				t.Fatalf("truth differs (-g_1 = f +h_f):\n%s", d)
			}
			if n := count(ia.SafeTrue); n == len(p.X) || n < 3 {
				t.Fatalf("h_f = %v leaves %d of %d actions safe: not a test of it", hf, n, len(p.X))
			}
			for _, s := range safeObjectiveSpecs() {
				t.Run(s.DisplayLabel(), func(t *testing.T) {
					if err := s.Check(cfg.Horizon); err != nil {
						t.Fatal(err)
					}
					ra := playOn(t, &s, &a, cfg, kf, nil, 4)
					rb := playOn(t, &s, &b, cfg, kf, []kernel.Kernel{kf}, 4)
					if d := cmp.Diff(rb.Actions, ra.Actions); d != "" {
						t.Errorf("actions differ (-g_1 = f +h_f):\n%s", d)
					}
					if d := cmp.Diff(rb, ra, cmp.AllowUnexported(experiment.Run{})); d != "" {
						t.Errorf("runs differ (-g_1 = f +h_f):\n%s", d)
					}
				})
			}
		})
	}
}

func count(in []bool) int {
	n := 0
	for _, v := range in {
		if v {
			n++
		}
	}
	return n
}

// TestObjectiveThresholdWithConstraints: on each golden problem with its
// own constraints and an objective threshold, every algorithm's violations
// are the rounds whose action has f < h_f or some g_i < h_i, recomputed
// here from the actions, and the oracle never violates. β = 0.01 leaves
// the confidence bounds almost no width, so that the model declares
// unsafe actions safe and there are violations to count (β = 4, the
// golden configurations', gives none).
func TestObjectiveThresholdWithConstraints(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"public_core", "public_baselines"} {
		t.Run(name, func(t *testing.T) {
			p, cfg := goldenProblem(t, name)
			kf, kg := cfg.Model.Kernels()
			hf := goldenHF[name]
			p.HF = &hf
			total, byF := 0, 0
			for _, s := range safeObjectiveSpecs() {
				run := playOn(t, &s, p, cfg, kf, kg, 0.01)
				want := 0
				for _, x := range run.Actions {
					bad := p.F[x] < hf
					if bad {
						byF++
					}
					for i, g := range p.G {
						bad = bad || g[x] < p.H[i]
					}
					if bad {
						want++
					}
				}
				if run.Violations != want {
					t.Errorf("%s: %d violations, want %d", s.DisplayLabel(), run.Violations, want)
				}
				if s.Name == "gp-ucb-oracle" && run.Violations != 0 {
					t.Errorf("oracle violated %d times", run.Violations)
				}
				total += run.Violations
			}
			if byF == 0 {
				t.Errorf("no algorithm played an action with f < h_f: the count of those is untested")
			}
			t.Logf("%d violations in all, %d rounds with f < h_f", total, byF)
		})
	}
}

// TestObjectiveThresholdConfig: an experiment with objective_threshold and
// no constraint runs from a file x1…xd,f[,seed]; without either the
// configuration is refused naming both keys.
func TestObjectiveThresholdConfig(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	csv := "x1,f,seed\n0,1,1\n0.5,0.2,0\n1,2,0\n1.5,1.5,0\n"
	if err := os.WriteFile(filepath.Join(dir, "p.csv"), []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	base := `seed: 1
realizations: 1
horizon: 6
problem:
  file: p.csv
  epsilon: 0.01
  noise_std: 0
%s
model:
  objective: {kernel: se, lengthscale: 0.5}
  noise_std: 0.05
  delta: 0.1
  beta: 4
algorithms:
  - {name: safeopt, safe_set: gp}
  - {name: gp-ucb-oracle}
`
	cfg, err := experiment.Parse(strings.NewReader(strings.Replace(base, "%s", "  objective_threshold: 0.5", 1)), dir)
	if err != nil {
		t.Fatal(err)
	}
	p, err := cfg.LoadProblem()
	if err != nil {
		t.Fatal(err)
	}
	if p.M() != 0 || p.HF == nil || *p.HF != 0.5 {
		t.Fatalf("problem: m = %d, h_f = %v", p.M(), p.HF)
	}
	res, err := experiment.Execute(t.Context(), cfg, experiment.Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, run := range res.Runs {
		for _, x := range run.Actions {
			if x == 1 { // f = 0.2 < h_f: never safe, never certified (exact data)
				t.Errorf("%s played action 1", run.Label)
			}
		}
		if run.Violations != 0 {
			t.Errorf("%s: %d violations", run.Label, run.Violations)
		}
	}
	if res.Config.Problem.Thresholds == nil {
		t.Error("thresholds echoed as null")
	}
	// safegp bound reports f ≥ h_f as the one constraint, with f's kernel.
	rep, err := experiment.Bound(cfg, 0, theory.Features{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Constraints) != 1 || !rep.Constraints[0].Objective || rep.M != 0 || rep.ObjectiveThreshold == nil {
		t.Errorf("bound: %+v", rep)
	}
	_, err = experiment.Parse(strings.NewReader(strings.Replace(base, "%s", "", 1)), dir)
	if err == nil || !strings.Contains(err.Error(), "problem.thresholds: missing") || !strings.Contains(err.Error(), "objective_threshold") {
		t.Errorf("no safety condition: got %v", err)
	}
}

// TestObjectiveThresholdGenerated: a generated problem may have an
// objective threshold and no constraint; every realization's seed set is
// safe for f, and each run's violations are its rounds with f < h_f.
func TestObjectiveThresholdGenerated(t *testing.T) {
	t.Parallel()
	cfg, err := experiment.Parse(strings.NewReader(`seed: 4
realizations: 3
horizon: 25
problem:
  generate:
    decision_set: {kind: unit-disk, size: 40}
    objective: {kernel: se, lengthscale: 0.5}
    seed_set: {size: [2, 4]}
  objective_threshold: 0.0
  epsilon: 0.01
  noise_std: 0.05
model: {noise_std: 0.05, delta: 0.1, beta: 0.5}
algorithms:
  - {name: sgp-ucb, phase1: uncertainty, exploration: {fixed: 5}}
  - {name: stageopt, safe_set: gp, exploration: {fixed: 5}}
  - {name: gp-ucb-oracle}
`), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	res, err := experiment.Execute(t.Context(), cfg, experiment.Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	js, err := json.Marshal(res.Config)
	if err != nil {
		t.Fatal(err)
	}
	if s := string(js); !strings.Contains(s, `"thresholds":[]`) || !strings.Contains(s, `"constraints":[]`) || !strings.Contains(s, `"objective_threshold":0`) {
		t.Errorf("configuration echoed as %s", s)
	}
	for _, run := range res.Runs {
		in, err := cfg.Instance(run.Realization, nil)
		if err != nil {
			t.Fatal(err)
		}
		p := in.Problem
		if p.M() != 0 || p.HF == nil {
			t.Fatalf("realization %d: m = %d, h_f = %v", run.Realization, p.M(), p.HF)
		}
		for _, s := range p.Seed {
			if p.F[s] < 0 {
				t.Errorf("realization %d: seed action %d has f = %v < h_f", run.Realization, s, p.F[s])
			}
		}
		want := 0
		for _, x := range run.Actions {
			if p.F[x] < 0 {
				want++
			}
		}
		if run.Violations != want {
			t.Errorf("%s, realization %d: %d violations, want %d", run.Label, run.Realization, run.Violations, want)
		}
	}
}
