package bandit

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/safegp/safegp/kernel"
)

// gridProblem is experiment's benchmark problem (experiment/bench_test.go:
// f = sin 3x + cos 2y, g = 0.6 − x² − 0.5y² + 0.2 sin 7y, h = 0) on a
// k×k grid over [−1, 1]², with the safe grid points nearest the origin as
// seeds (at most 20).
func gridProblem(k int) (x [][]float64, f, g []float64, seed []int) {
	for a := range k {
		for b := range k {
			p := []float64{-1 + 2*float64(a)/float64(k-1), -1 + 2*float64(b)/float64(k-1)}
			x = append(x, p)
			f = append(f, math.Sin(3*p[0])+math.Cos(2*p[1]))
			gv := 0.6 - p[0]*p[0] - 0.5*p[1]*p[1] + 0.2*math.Sin(7*p[1])
			g = append(g, gv)
			if p[0]*p[0]+p[1]*p[1] < 0.01 && gv >= 0 && len(seed) < 20 {
				seed = append(seed, len(x)-1)
			}
		}
	}
	return x, f, g, seed
}

// playGrid plays spec in gp mode on gridProblem(k) for T rounds (SE
// kernels, ℓ = 1 for f and lg for g, σ = 0.1, δ = 0.01, the paper's β),
// and returns the final |S_T|.
func playGrid(b *testing.B, s *Spec, x [][]float64, f, g []float64, seed []int, lg float64, T int) int {
	p, err := Build(s, Model{
		Objective:   kernel.SE{Variance: 1, Lengthscale: 1},
		Constraints: []kernel.Kernel{kernel.SE{Variance: 1, Lengthscale: lg}},
		NoiseStd:    0.1, Delta: 0.01, Beta: PaperBeta,
	}, Domain{Set: DecisionSet{X: x, Seed: seed}}, Options{Thresholds: []float64{0}, Epsilon: 0.01, Horizon: T, Rand: rand.New(rand.NewPCG(1, 2))})
	if err != nil {
		b.Fatal(err)
	}
	noise := rand.New(rand.NewPCG(3, 4))
	for range T {
		q, err := p.Ask()
		if err != nil {
			b.Fatal(err)
		}
		if err := p.Tell(q.ID, Observation{F: f[q.Index] + 0.1*noise.NormFloat64(), G: []float64{g[q.Index] + 0.1*noise.NormFloat64()}}); err != nil {
			b.Fatal(err)
		}
	}
	var snap Snapshot
	p.Inspect(&snap, SafeSet)
	return snap.SafeSetSize
}

// BenchmarkSafeOptGP times whole gp-mode runs of the SafeOpt family at
// N = 10⁴ (a 100×100 grid), T = 500, one constraint (issue 13 target:
// ≤ 3 s and ≤ 200 MB, from 27.5 s and 886 MB), and as "old" the path it
// replaced (gpModeOld: the N×N covariance kept, every expander tested).
// Run one case at a time under /usr/bin/time -v for the peak memory.
func BenchmarkSafeOptGP(b *testing.B) {
	benchGrid(b, 100, 500)
}

// BenchmarkSafeOptGPHuge is BenchmarkSafeOptGP at N ≈ 10⁵ (a 316×316
// grid), T = 200 (issue 13 target: ≤ 60 s and ≤ 2 GB; the old path
// needs 8·N² = 80 GB and is not run).
func BenchmarkSafeOptGPHuge(b *testing.B) {
	benchGrid(b, 316, 200)
}

func benchGrid(b *testing.B, k, T int) {
	x, f, g, seed := gridProblem(k)
	plateau := Exploration{Plateau: &Plateau{Window: 20, Cap: 100}}
	for _, s := range []Spec{
		{Name: "safeopt", SafeSet: "gp"},
		{Name: "safeopt-mc", SafeSet: "gp", Exploration: plateau},
		{Name: "stageopt", SafeSet: "gp", Exploration: plateau},
	} {
		for _, old := range []bool{false, true} {
			if old && len(x) > 20000 {
				continue
			}
			path := "new"
			if old {
				path = "old"
			}
			b.Run(fmt.Sprintf("%s/N=%d/T=%d/%s", s.Name, len(x), T, path), func(b *testing.B) {
				defer func(o bool) { gpModeOld = o }(gpModeOld)
				gpModeOld = old
				size := 0
				for b.Loop() {
					size = playGrid(b, &s, x, f, g, seed, 0.1, T)
				}
				b.ReportMetric(float64(size), "|S_T|")
			})
		}
	}
}
