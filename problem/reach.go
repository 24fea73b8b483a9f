package problem

import (
	"math"
	"runtime"
	"sync"

	"github.com/safegp/safegp/internal/spatial"
	"github.com/safegp/safegp/internal/vec"
)

// LipschitzConstants returns L_i = max_{x≠x'} |g_i(x) − g_i(x')| / ‖x − x'‖
// over the decision set (SPEC §1). Pairs of coincident points are skipped.
//
// The result is the scan over all pairs' (the same float64s), found
// faster (issue 13): neighbours in the k-d tree's order give a first
// bound L⁰_i; from each x, a tree node whose values of g_i lie within m of
// g_i(x) can hold a steeper pair only within m/L_i of x (spatial.Radius2),
// L_i the largest slope found so far, so most of the tree is pruned; and
// the points are shared among the cores (a maximum does not depend on the
// order). Worst case O(N²(d+m)), for a function with no smaller-scale
// structure than the set (white noise).
func LipschitzConstants(x [][]float64, g [][]float64) []float64 {
	n := len(x)
	l := make([]float64, len(g))
	if n < 2 || len(g) == 0 {
		return l
	}
	tree := spatial.New(x)
	// L⁰: each point against the next few in the tree's order, which
	// keeps a leaf's points together.
	order := tree.Order()
	slope := func(a, b int, l []float64) {
		dist := vec.Dist(x[a], x[b])
		if dist == 0 {
			return
		}
		for c, gc := range g {
			if q := math.Abs(gc[a]-gc[b]) / dist; q > l[c] {
				l[c] = q
			}
		}
	}
	for k, a := range order {
		for _, b := range order[k+1 : min(k+8, n)] {
			slope(a, b, l)
		}
	}
	lo, hi := make([][]float64, len(g)), make([][]float64, len(g))
	for c, gc := range g {
		lo[c], hi[c] = tree.NodeRange(gc)
	}
	workers := max(1, min(runtime.GOMAXPROCS(0), n/2000))
	local := make([][]float64, workers)
	var wg sync.WaitGroup
	for w := range workers {
		lw := append([]float64(nil), l...)
		local[w] = lw
		wg.Go(func() {
			var a int
			// A node can hold a pair (a, b) steeper than lw_c only if
			// its range of g_c is far enough from g_c(a) for its box's
			// distance: m − lw_c·d ≥ 0 is Radius2's test with the most
			// g_c can differ, m. A bound that grows prunes more.
			keep := func(k int, gap2 float64) bool {
				for c, gc := range g {
					m := max(hi[c][k]-gc[a], gc[a]-lo[c][k])
					if m > 0 && gap2 <= spatial.Radius2(m, 0, lw[c]) {
						return true
					}
				}
				return false
			}
			visit := func(b int) {
				if b > a {
					slope(a, b, lw)
				}
			}
			for a = w; a < n; a += workers {
				tree.Search(x[a], keep, visit)
			}
		})
	}
	wg.Wait()
	for _, lw := range local {
		for c := range l {
			l[c] = max(l[c], lw[c])
		}
	}
	return l
}

// Reachable returns the indicator of R̄_ε(S_0), the fixed point of
// R_ε(S) = S ∪ {x : ∃x' ∈ S ∀i: g_i(x') − ε − L_i‖x − x'‖ ≥ h_i}
// from S_0 = seed (paper §5), by a breadth-first search: each member is a
// source once, and looks for new members only among the actions not yet
// reached within (g_i(x') − ε − h_i)/L_i of it (spatial.Radius2), with the
// test of the scan over all pairs, so the set is the same. The fixed point
// does not depend on the order the sources are taken in.
func Reachable(x [][]float64, g [][]float64, h, l []float64, eps float64, seed []int) []bool {
	in := make([]bool, len(x))
	if len(x) == 0 {
		return in
	}
	live := spatial.New(x).NewLive()
	queue := make([]int, 0, len(x))
	for _, s := range seed {
		if !in[s] {
			in[s] = true
			live.Remove(s)
			queue = append(queue, s)
		}
	}
	var buf []int
	for q := 0; q < len(queue); q++ {
		src := queue[q]
		r2 := math.Inf(1)
		none := false
		for c, gc := range g {
			b := gc[src] - eps
			// With a finite L ≥ 0, b − L·d ≤ b < h at every distance.
			if l[c] >= 0 && !math.IsInf(l[c], 1) && b < h[c] {
				none = true
				break
			}
			r2 = min(r2, spatial.Radius2(b, h[c], l[c]))
		}
		if none {
			continue
		}
		buf = live.Within(buf, x[src], r2)
		for _, j := range buf {
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
				live.Remove(j)
				queue = append(queue, j)
			}
		}
	}
	return in
}
