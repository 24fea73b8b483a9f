package bandit

import (
	"math"

	"github.com/safegp/safegp/internal/memlimit"
	"github.com/safegp/safegp/internal/spatial"
	"github.com/safegp/safegp/internal/vec"
)

// bruteLipschitz makes lipschitz mode compare every pair of actions, as it
// did before issue 13: the tests set it to check that the neighbour search
// gives the same S_t, G_t and actions.
var bruteLipschitz = false

// lipIndex is lipschitz mode's neighbour search (issue 13): a k-d tree
// over the decision set, built once, and what S_t and G_t keep between
// rounds so that a pair is compared only when it may have changed.
//
// A pair (x', x) can certify x only within ‖x − x'‖ ≤ (ℓ_{g_i}(x') − h_i)/L_i
// and make x an expander only within (u_{g_i}(x) − h_i)/L_i (SPEC §5), so
// each source asks the tree for the actions within spatial.Radius2 of that radius
// and evaluates today's test, the same expression on the same rounded
// distance, on them only.
type lipIndex struct {
	tree *spatial.Tree
	out  *spatial.Live // the actions outside S_t, the only ones a query wants
	buf  []int
	// cov[c][x]: some source of S_{t−1} certifies x for safety condition
	// c. It only becomes true while the sources' ℓ only grow (S_t only
	// grows, and ℓ is intersected over time): a source is visited again
	// only when its ℓ changed, and all of c's are when one fell (bounds
	// replaces an empty intersection).
	cov [][]bool
	// vis[c][p], visLo[c][p]: source p was visited for c with ℓ = visLo.
	vis   [][]bool
	visLo [][]float64
	// clear2[p]: every action outside S_t has a squared distance ≥
	// clear2[p] from p (0 at first). The outside only shrinks, so a
	// source whose radius is below it has nothing left to certify: the
	// interior of S_t costs nothing once passed.
	clear2 []float64
	// notG[x]: x was tested and is no expander, with u_{g_c}(x) =
	// notGHi[c][x]. It stays none while no u_{g_c}(x) grows, since the
	// outside of S_t only shrinks and the test is monotone in u.
	notG   []bool
	notGHi [][]float64
	// wit[x]: the outside action that last made x an expander, −1 for
	// none. It is tested first: it usually still is one, and the test of
	// one pair is all it takes (an expander's ball can hold most of D).
	wit []int
}

// lipIndexBytes estimates a lipIndex's memory for spec s (a SafeOpt-family
// spec; 0 unless in lipschitz mode) over n actions with m
// constraints and an objective threshold when hf: the tree without its
// boxes (spatial.Bytes at d = 0; the boxes, at most 8·d bytes an action,
// are no larger than the decision set the caller already holds, whose d
// Bytes is not told), the outside set, and per action 25 bytes and 18
// per safety condition.
func lipIndexBytes(s *Spec, n, m int, hf bool) int64 {
	if !s.lipschitzMode() {
		return 0
	}
	safety := int64(m)
	if hf {
		safety++
	}
	return memlimit.Add(spatial.Bytes(n, 0)+spatial.LiveBytes(n), memlimit.Mul(int64(n), 25+18*safety))
}

func newLipIndex(x [][]float64, conditions int) *lipIndex {
	n := len(x)
	ix := &lipIndex{tree: spatial.New(x), buf: make([]int, 0, 64), notG: make([]bool, n), clear2: make([]float64, n)}
	ix.out = ix.tree.NewLive()
	ix.wit = make([]int, n)
	for i := range ix.wit {
		ix.wit[i] = -1
	}
	for range conditions {
		ix.cov = append(ix.cov, make([]bool, n))
		ix.vis = append(ix.vis, make([]bool, n))
		ix.visLo = append(ix.visLo, make([]float64, n))
		ix.notGHi = append(ix.notGHi, make([]float64, n))
	}
	return ix
}

// certifies is the Lipschitz test b − L·d ≥ h of S_t and G_t (false for
// NaN), one function for the neighbour search and the scan so that both
// evaluate the same expression.
func certifies(b, l, d, h float64) bool { return b-l*d >= h }

// fails reports that b − L·d ≥ h fails at every distance d ≥ 0: b < h
// (or NaN) with L ≥ 0 (+Inf included), since then L·d ≥ 0.
func fails(b, h, l float64) bool { return !(b >= h) && !(l < 0) }

// lipSafeSet sets S_t = S_{t−1} ∪ ⋂_i ⋃_{x'∈S_{t−1}} {x : ℓ_{g_i,t}(x') − L_i‖x − x'‖ ≥ h_i}
// as the scan in safeSet does, visiting only the sources whose ℓ changed
// and, from each, the actions within its radius.
func (o *safeOpt) lipSafeSet() {
	x, ix := o.set.X, o.lipIdx
	o.prev = o.prev[:0]
	for i, in := range o.safe {
		if in {
			o.prev = append(o.prev, i)
			ix.out.Remove(i)
		}
	}
	for c, sc := range o.safety {
		lo, h, l := o.lo[sc.j], sc.h, o.l[c]
		cov, vis, visLo := ix.cov[c], ix.vis[c], ix.visLo[c]
		for _, p := range o.prev {
			if vis[p] && !(lo[p] >= visLo[p]) {
				// p's ℓ fell: what it certified may no longer be.
				clear(cov)
				clear(vis)
				break
			}
		}
		for _, p := range o.prev {
			if vis[p] && math.Float64bits(lo[p]) == math.Float64bits(visLo[p]) {
				continue
			}
			vis[p], visLo[p] = true, lo[p]
			if fails(lo[p], h, l) {
				continue
			}
			r2 := spatial.Radius2(lo[p], h, l)
			if r2 < ix.clear2[p] {
				continue
			}
			ix.buf = ix.out.Within(ix.buf, x[p], r2)
			near := r2 // no outside point within r2 if none is found
			for _, i := range ix.buf {
				if o.safe[i] {
					continue
				}
				s := vec.SqDist(x[i], x[p])
				near = min(near, s)
				if cov[i] {
					continue
				}
				// math.Sqrt(s) is vec.Dist(x[i], x[p]), as the scan computes it.
				if certifies(lo[p], l, math.Sqrt(s), h) {
					cov[i] = true
				}
			}
			ix.clear2[p] = max(ix.clear2[p], near)
		}
	}
	for i := range x {
		if o.safe[i] {
			continue
		}
		all := true
		for c := range o.safety {
			if !ix.cov[c][i] {
				all = false
				break
			}
		}
		o.safe[i] = all
		if all {
			ix.out.Remove(i)
		}
	}
}

// lipExpander reports whether safe action i is in G_t: some x' ∉ S_t with
// u_{g_c,t}(x_i) − L_c‖x_i − x'‖ ≥ h_c for every c, as the scan in expanders
// tests, searched within the smallest of the conditions' radii.
func (o *safeOpt) lipExpander(i int) bool {
	x, ix := o.set.X, o.lipIdx
	if ix.notG[i] {
		grew := false
		for c, sc := range o.safety {
			if !(o.hi[sc.j][i] <= ix.notGHi[c][i]) {
				grew = true
				break
			}
		}
		if !grew {
			return false
		}
	}
	if p := ix.wit[i]; p >= 0 && !o.safe[p] && o.lipPair(i, p) {
		return true
	}
	r2 := math.Inf(1)
	none := false
	for c, sc := range o.safety {
		if fails(o.hi[sc.j][i], sc.h, o.l[c]) {
			none = true
			break
		}
		r2 = min(r2, spatial.Radius2(o.hi[sc.j][i], sc.h, o.l[c]))
	}
	if !none {
		ix.buf = ix.out.Within(ix.buf, x[i], r2)
		for _, p := range ix.buf {
			if !o.safe[p] && o.lipPair(i, p) {
				ix.notG[i], ix.wit[i] = false, p
				return true
			}
		}
	}
	ix.notG[i] = true
	for c, sc := range o.safety {
		ix.notGHi[c][i] = o.hi[sc.j][i]
	}
	return false
}

// lipPair is the expander test of safe action i with outside action p:
// u_{g_c,t}(x_i) − L_c‖x_i − x_p‖ ≥ h_c for every c, as the scan in
// expanders evaluates it.
func (o *safeOpt) lipPair(i, p int) bool {
	d := vec.Dist(o.set.X[i], o.set.X[p])
	for c, sc := range o.safety {
		if !certifies(o.hi[sc.j][i], o.l[c], d, sc.h) {
			return false
		}
	}
	return true
}
