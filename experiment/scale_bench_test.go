package experiment_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/safegp/safegp/bandit"
	"github.com/safegp/safegp/experiment"
	"github.com/safegp/safegp/problem"
)

// gridProblem is benchProblem's f and g on the n×n grid over [−1, 1]²
// (issue 13: N = 10⁴ is the 100×100 grid), seeded by the safe actions
// nearest the origin.
func gridProblem(n int) (*problem.Problem, *problem.Info) {
	x := problem.Grid([][2]float64{{-1, 1}, {-1, 1}}, []int{n, n})
	N := len(x)
	p := &problem.Problem{X: x, F: make([]float64, N), G: [][]float64{make([]float64, N)}, H: []float64{0}, Epsilon: 0.01, NoiseStd: 0.1}
	for i, xi := range x {
		p.F[i] = math.Sin(3*xi[0]) + math.Cos(2*xi[1])
		p.G[0][i] = 0.6 - xi[0]*xi[0] - 0.5*xi[1]*xi[1] + 0.2*math.Sin(7*xi[1])
	}
	for i, xi := range x {
		if xi[0]*xi[0]+xi[1]*xi[1] < 0.01 && p.G[0][i] >= 0 && len(p.Seed) < 20 {
			p.Seed = append(p.Seed, i)
		}
	}
	info, err := p.Analyze()
	if err != nil {
		panic(err)
	}
	return p, info
}

// BenchmarkLipschitzScale times issue 13's lipschitz-mode cases: one run of
// safeopt-mc and of stageopt, T = 500, one constraint, on the 100×100 grid
// (target ≤ 2 s each, from about 40 s). The problem and its analysis are
// built once, outside the timer.
func BenchmarkLipschitzScale(b *testing.B) {
	plateau := bandit.Exploration{Plateau: &bandit.Plateau{Window: 20, Cap: 100}}
	p, info := gridProblem(100)
	for _, spec := range []bandit.Spec{
		{Name: "safeopt-mc", SafeSet: "lipschitz", Lipschitz: &bandit.Lipschitz{Auto: true}, Exploration: plateau},
		{Name: "stageopt", SafeSet: "lipschitz", Lipschitz: &bandit.Lipschitz{Auto: true}, Exploration: plateau},
	} {
		b.Run(fmt.Sprintf("%s-lipschitz/N=%d/T=500", spec.Name, p.N()), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				st := benchSetting(p, info, 0.1, 500)
				if _, err := experiment.Play(&spec, st, experiment.OnProblem(p, info), rand.New(rand.NewPCG(3, 4)), nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkAnalyze times Problem.Analyze (D^s, x*, L_i and R̄_ε(D^w)) of a
// problem read from a file, N = 10⁴ and 10⁵ actions in the unit disk
// (issue 13: it took about 85 of the 100 s of an sgp-ucb run at N = 10⁵).
func BenchmarkAnalyze(b *testing.B) {
	for _, n := range []int{10000, 100000} {
		p, _ := benchProblem(1000)
		rng := rand.New(rand.NewPCG(42, uint64(n)))
		x := problem.UnitBall(rng, n, 2)
		q := &problem.Problem{X: x, F: make([]float64, n), G: [][]float64{make([]float64, n)}, H: p.H, Epsilon: p.Epsilon, NoiseStd: p.NoiseStd}
		for i, xi := range x {
			q.F[i] = math.Sin(3*xi[0]) + math.Cos(2*xi[1])
			q.G[0][i] = 0.6 - xi[0]*xi[0] - 0.5*xi[1]*xi[1] + 0.2*math.Sin(7*xi[1])
			if xi[0]*xi[0]+xi[1]*xi[1] < 0.0005 && q.G[0][i] >= 0 && len(q.Seed) < 20 {
				q.Seed = append(q.Seed, i)
			}
		}
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			for b.Loop() {
				q.Lipschitz = nil
				if _, err := q.Analyze(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkFileScale times issue 13's end-to-end case: sgp-ucb on a problem
// file of N = 10⁵ actions in the unit disk (benchProblem's f and g), T = 500,
// one realization, from reading the file to the results (target ≤ 15 s,
// from about 100 s). The file is written once, outside the timer.
func BenchmarkFileScale(b *testing.B) {
	const n = 100000
	dir := b.TempDir()
	rng := rand.New(rand.NewPCG(42, n))
	x := problem.UnitBall(rng, n, 2)
	var csv strings.Builder
	csv.WriteString("x1,x2,f,g1,seed\n")
	seeds := 0
	for _, xi := range x {
		f := math.Sin(3*xi[0]) + math.Cos(2*xi[1])
		g := 0.6 - xi[0]*xi[0] - 0.5*xi[1]*xi[1] + 0.2*math.Sin(7*xi[1])
		seed := 0
		if xi[0]*xi[0]+xi[1]*xi[1] < 0.0005 && g >= 0 && seeds < 20 {
			seed, seeds = 1, seeds+1
		}
		fmt.Fprintf(&csv, "%v,%v,%v,%v,%d\n", xi[0], xi[1], f, g, seed)
	}
	if err := os.WriteFile(filepath.Join(dir, "p.csv"), []byte(csv.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	cfg := `{"seed": 1, "realizations": 1, "horizon": 500,
 "problem": {"thresholds": [0], "epsilon": 0.01, "noise_std": 0.1, "file": "p.csv"},
 "model": {"objective": {"kernel": "se", "lengthscale": 1, "variance": 1},
  "constraints": [{"kernel": "se", "lengthscale": 0.1, "variance": 1}],
  "noise_std": 0.1, "delta": 0.01},
 "algorithms": [{"name": "sgp-ucb", "phase1": "uniform", "exploration": {"plateau": {"window": 20, "cap": 100}}}]}`
	path := filepath.Join(dir, "c.yaml")
	if err := os.WriteFile(path, []byte(cfg), 0o644); err != nil {
		b.Fatal(err)
	}
	b.Run("sgp-ucb/N=100000/T=500", func(b *testing.B) {
		for b.Loop() {
			c, err := experiment.Load(path)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := experiment.Execute(context.Background(), c, experiment.Options{}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
