package problem

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// scanProblem draws n actions in [0, 1]^d (some on a coarse grid: many
// equal distances) with m constraints: random sinusoids, some constant
// (L = 0), some rough (L on the scale of the whole set).
func scanProblem(rng *rand.Rand, k int) (x, g [][]float64) {
	d := 1 + k%6
	m := 1 + (k/6)%2
	n := 2 + rng.IntN(400)
	x = make([][]float64, n)
	for i := range x {
		x[i] = make([]float64, d)
		for j := range x[i] {
			x[i][j] = rng.Float64()
			if k%4 == 3 {
				x[i][j] = float64(rng.IntN(7)) / 6
			}
		}
		if k%4 == 3 {
			x[i][d-1] = float64(i) / float64(n) // distinct points
		}
	}
	for c := range m {
		v := make([]float64, n)
		w := make([]float64, d)
		for j := range w {
			w[j] = []float64{2, 10, 40}[(k+c)%3] * rng.NormFloat64()
		}
		for i, xi := range x {
			var t float64
			for j := range w {
				t += w[j] * xi[j]
			}
			v[i] = 0.5*math.Sin(t) + 0.3
			if k%9 == 0 && c == 0 {
				v[i] = 1
			}
		}
		g = append(g, v)
	}
	return x, g
}

// TestLipschitzConstantsSameAsScan: the same L_i, bit for bit, as the scan
// over all pairs, on 300 random problems in d = 1 … 6.
func TestLipschitzConstantsSameAsScan(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(13, 21))
	for k := range 300 {
		x, g := scanProblem(rng, k)
		if got, want := LipschitzConstants(x, g), lipschitzScan(x, g); !slices.Equal(got, want) {
			t.Fatalf("#%d (n=%d d=%d): L = %v, want %v", k, len(x), len(x[0]), got, want)
		}
	}
	// Large enough to be split among the cores (on two or more).
	x := make([][]float64, 6000)
	g := [][]float64{make([]float64, len(x)), make([]float64, len(x))}
	for i := range x {
		x[i] = []float64{rng.Float64(), rng.Float64()}
		g[0][i] = math.Sin(5*x[i][0]) * math.Cos(3*x[i][1])
		g[1][i] = rng.Float64() // rough: its L is set by some close pair
	}
	if got, want := LipschitzConstants(x, g), lipschitzScan(x, g); !slices.Equal(got, want) {
		t.Fatalf("n=6000: L = %v, want %v", got, want)
	}
}

// TestReachableSameAsScan: the same R̄_ε(D^w) as the scan over all pairs on
// 300 random problems (d = 1 … 6, one and two constraints), with the true,
// an underestimated (larger reach) and an overestimated L_i, ε from 0 to
// 0.2, one to three seeds; the sets must be non-trivial in most.
func TestReachableSameAsScan(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(13, 22))
	grew := 0
	for k := range 300 {
		x, g := scanProblem(rng, k)
		l := lipschitzScan(x, g)
		for c := range l {
			l[c] *= []float64{1, 0.2, 3}[k%3]
		}
		h := make([]float64, len(g))
		var seed []int
		for i := range x {
			if len(seed) < 1+k%3 && !slices.Contains(seed, i) && safeAll(g, h, i) {
				seed = append(seed, i)
			}
		}
		if seed == nil {
			continue
		}
		slices.Sort(seed)
		eps := 0.2 * rng.Float64()
		got, want := Reachable(x, g, h, l, eps, seed), reachableScan(x, g, h, l, eps, seed)
		if !slices.Equal(got, want) {
			t.Fatalf("#%d (n=%d d=%d): reachable sets differ", k, len(x), len(x[0]))
		}
		if members(want) > len(seed) {
			grew++
		}
	}
	if grew < 100 {
		t.Errorf("only %d of 300 reachable sets grew beyond their seeds", grew)
	}
}

func safeAll(g [][]float64, h []float64, i int) bool {
	for c := range g {
		if g[c][i] < h[c] {
			return false
		}
	}
	return true
}

func members(b []bool) int {
	n := 0
	for _, v := range b {
		if v {
			n++
		}
	}
	return n
}

// TestAnalyzeSameAsScan: Analyze's Reachable, f*_ε and L_i against the
// scans on random problems with an objective threshold.
func TestAnalyzeSameAsScan(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(13, 23))
	for k := range 100 {
		x, g := scanProblem(rng, k)
		f := g[len(g)-1]
		p := &Problem{X: x, F: f, G: g[:len(g)-1], Epsilon: 0.01}
		if len(p.G) == 0 {
			p.G = [][]float64{f}
		}
		p.H = make([]float64, len(p.G))
		if k%2 == 0 {
			p.HF = new(-0.1)
		}
		for i := range x {
			if p.Safe(i, 0) {
				p.Seed = []int{i}
				break
			}
		}
		if p.Seed == nil {
			continue
		}
		info, err := p.Analyze()
		if err != nil {
			continue
		}
		gs, hs := p.Safety()
		wantL := lipschitzScan(x, gs)
		wantR := reachableScan(x, gs, hs, wantL, p.Epsilon, p.Seed)
		r, _ := Argmax(p.F, wantR)
		if !slices.Equal(info.Lipschitz, wantL) || !slices.Equal(info.Reachable, wantR) || info.FReach != p.F[r] {
			t.Fatalf("#%d: Analyze differs from the scans", k)
		}
	}
}
