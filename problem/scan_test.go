package problem

import (
	"math"

	"github.com/safegp/safegp/internal/vec"
)

// lipschitzScan is LipschitzConstants over all pairs, as it was before
// issue 13; the tests compare the two. It returns L_i = max_{x≠x'} |g_i(x) − g_i(x')| / ‖x − x'‖
// over the decision set (SPEC §1). Pairs of coincident points are skipped.
// Cost O(N²(d+m)).
func lipschitzScan(x [][]float64, g [][]float64) []float64 {
	l := make([]float64, len(g))
	for a := range x {
		for b := a + 1; b < len(x); b++ {
			dist := vec.Dist(x[a], x[b])
			if dist == 0 {
				continue
			}
			for c, gc := range g {
				if q := math.Abs(gc[a]-gc[b]) / dist; q > l[c] {
					l[c] = q
				}
			}
		}
	}
	return l
}

// reachableScan is Reachable over all pairs, as it was before issue 13;
// the tests compare the two. It returns the indicator of R̄_ε(S_0), the fixed point of
// R_ε(S) = S ∪ {x : ∃x' ∈ S ∀i: g_i(x') − ε − L_i‖x − x'‖ ≥ h_i}
// from S_0 = seed (paper §5). Each member is a source once, so the cost is
// O(N²·m) however many steps the fixed point takes.
func reachableScan(x [][]float64, g [][]float64, h, l []float64, eps float64, seed []int) []bool {
	in := make([]bool, len(x))
	queue := make([]int, 0, len(x))
	for _, s := range seed {
		if !in[s] {
			in[s] = true
			queue = append(queue, s)
		}
	}
	for q := 0; q < len(queue); q++ {
		src := queue[q]
		for j := range x {
			if in[j] {
				continue
			}
			dist := vec.Dist(x[src], x[j])
			ok := true
			for c, gc := range g {
				if gc[src]-eps-l[c]*dist < h[c] {
					ok = false
					break
				}
			}
			if ok {
				in[j] = true
				queue = append(queue, j)
			}
		}
	}
	return in
}
