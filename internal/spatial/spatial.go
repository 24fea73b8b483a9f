package spatial

import (
	"math"

	"github.com/safegp/safegp/internal/vec"
)

// leafSize is the most points a leaf holds: small enough that a ball
// query reads few points outside the ball, large enough that the tree's
// boxes (2d floats per node) stay a fraction of the points' size.
const leafSize = 8

// maxDepth bounds the query stack: the tree halves the points at every
// level, so its depth is at most log2(N/leafSize) + 1 < 64.
const maxDepth = 64

// Tree is a k-d tree over points given at New; it keeps a reference to
// them, which must not change while the tree is used. The zero value is
// not usable.
type Tree struct {
	x     [][]float64
	d     int
	perm  []int     // point indices, each leaf's a contiguous run
	nodes []node    // nodes[0] is the root
	box   []float64 // node k's box: lows at box[2dk:], highs at box[2dk+d:]
	up    []int32   // each node's parent, −1 for the root
	leaf  []int32   // each point's leaf
}

// node covers perm[lo:hi]; an inner node's children are left and left+1.
type node struct {
	lo, hi int32
	left   int32 // 0 for a leaf
}

// Bytes estimates the memory of a tree over n points in d dimensions:
// the permutation, each point's leaf, and at most MaxNodes nodes with
// their boxes and parents, plus an eighth for the allocator's size
// classes, which round each allocation up by less than that.
func Bytes(n, d int) int64 {
	b := 12*int64(n) + MaxNodes(n)*(16+16*int64(d))
	return b + b/8 + 256
}

// MaxNodes bounds the number of nodes of a tree over n points: a node is
// split only above leafSize points, in halves, so a leaf holds at least
// leafSize/2 (unless it is the root), there are at most 2n/leafSize
// leaves, and a binary tree has fewer than twice as many nodes as leaves.
func MaxNodes(n int) int64 { return int64(4*n/leafSize + 1) }

// New builds the tree over x, whose points all have the dimension of
// x[0]. It costs O(N log N) time and Bytes(N, d) memory.
func New(x [][]float64) *Tree {
	t := &Tree{x: x, perm: make([]int, len(x))}
	if len(x) > 0 {
		t.d = len(x[0])
	}
	for i := range t.perm {
		t.perm[i] = i
	}
	t.nodes = make([]node, 1, MaxNodes(len(x)))
	t.nodes[0] = node{lo: 0, hi: int32(len(x))}
	t.box = make([]float64, 2*t.d, 2*int64(t.d)*MaxNodes(len(x)))
	t.build(0)
	t.up = make([]int32, len(t.nodes))
	t.up[0] = -1
	t.leaf = make([]int32, len(x))
	for k, n := range t.nodes {
		if n.left != 0 {
			t.up[n.left], t.up[n.left+1] = int32(k), int32(k)
			continue
		}
		for _, p := range t.perm[n.lo:n.hi] {
			t.leaf[p] = int32(k)
		}
	}
	return t
}

// build fills node k's box and splits it at the median of its widest
// coordinate until it has at most leafSize points.
func (t *Tree) build(k int) {
	n := t.nodes[k]
	d := t.d
	b := t.box[2*d*k : 2*d*(k+1)]
	for j := range d {
		lo, hi := t.x[t.perm[n.lo]][j], t.x[t.perm[n.lo]][j]
		for _, p := range t.perm[n.lo:n.hi] {
			lo, hi = min(lo, t.x[p][j]), max(hi, t.x[p][j])
		}
		b[j], b[d+j] = lo, hi
	}
	if n.hi-n.lo <= leafSize {
		return
	}
	wide := 0
	for j := range d {
		if b[d+j]-b[j] > b[d+wide]-b[wide] {
			wide = j
		}
	}
	mid := n.lo + (n.hi-n.lo)/2
	t.selectNth(t.perm[n.lo:n.hi], int(mid-n.lo), wide)
	left := int32(len(t.nodes))
	t.nodes[k].left = left
	t.nodes = append(t.nodes, node{lo: n.lo, hi: mid}, node{lo: mid, hi: n.hi})
	t.box = t.box[:len(t.box)+4*d] // within the capacity MaxNodes sets
	t.build(int(left))
	t.build(int(left) + 1)
}

// selectNth reorders part so that part[k] has the k-th smallest
// coordinate j, none after it smaller and none before it larger
// (Hoare's selection, median-of-three pivots: O(len(part)) expected, and
// deterministic, so a tree is the same each time it is built).
func (t *Tree) selectNth(part []int, k, j int) {
	key := func(i int) float64 { return t.x[part[i]][j] }
	lo, hi := 0, len(part)-1
	for hi > lo {
		mid := lo + (hi-lo)/2
		// Median of three to part[mid].
		if key(mid) < key(lo) {
			part[mid], part[lo] = part[lo], part[mid]
		}
		if key(hi) < key(lo) {
			part[hi], part[lo] = part[lo], part[hi]
		}
		if key(hi) < key(mid) {
			part[hi], part[mid] = part[mid], part[hi]
		}
		pivot := key(mid)
		i, m := lo, hi
		for i <= m {
			for key(i) < pivot {
				i++
			}
			for key(m) > pivot {
				m--
			}
			if i <= m {
				part[i], part[m] = part[m], part[i]
				i++
				m--
			}
		}
		// Now part[lo..m] ≤ pivot ≤ part[i..hi], and m < i.
		switch {
		case k <= m:
			hi = m
		case k >= i:
			lo = i
		default:
			return
		}
	}
}

// Order returns the points in the tree's order, each leaf's together (the
// tree's own slice: do not modify it).
func (t *Tree) Order() []int { return t.perm }

// Len is the number of points.
func (t *Tree) Len() int { return len(t.perm) }

// Within appends to dst[:0] the indices of the points p with
// vec.SqDist(q, p) ≤ r2 (r2 = +Inf: every point; NaN: none) and returns
// it, in no particular order. It allocates only when dst is too short.
func (t *Tree) Within(dst []int, q []float64, r2 float64) []int {
	return t.within(dst, q, r2, nil)
}

// within is Within over the points of live, or all points if live is nil.
func (t *Tree) within(dst []int, q []float64, r2 float64, live *Live) []int {
	dst = dst[:0]
	if len(t.perm) == 0 || !(r2 >= 0) {
		return dst
	}
	var stack [maxDepth]int32
	sp := 0
	stack[sp] = 0
	sp++
	for sp > 0 {
		sp--
		k := stack[sp]
		n := t.nodes[k]
		if live != nil && live.alive[k] == 0 {
			continue
		}
		if t.gap(int(k), q) > r2 {
			continue
		}
		if n.left == 0 {
			for _, p := range t.perm[n.lo:n.hi] {
				if live != nil && !live.in[p] {
					continue
				}
				if vec.SqDist(q, t.x[p]) <= r2 {
					dst = append(dst, p)
				}
			}
			continue
		}
		stack[sp] = n.left
		stack[sp+1] = n.left + 1
		sp += 2
	}
	return dst
}

// gap is a lower bound of vec.SqDist(q, p) for every point p in node k's
// box: per coordinate the difference to the nearer face (0 inside),
// squared, summed. Exactly, each term is at most the point's; the rounded
// sums of both differ from the exact ones by at most d+2 units of
// roundoff, 2⁻⁵³ each, relatively (whether or not the compiler fuses a
// multiply and add), plus underflow's 2⁻¹⁰⁷⁴ per step, so shrinking the
// bound by 10⁻¹² relatively and 10⁻³⁰⁰ absolutely keeps it below the
// rounded vec.SqDist of every point in the box for any d < 10³.
func (t *Tree) gap(k int, q []float64) float64 {
	d := t.d
	b := t.box[2*d*k : 2*d*(k+1)]
	var s float64
	for j, qj := range q[:d] {
		var g float64
		if lo := b[j]; qj < lo {
			g = qj - lo
		} else if hi := b[d+j]; qj > hi {
			g = qj - hi
		}
		s += g * g
	}
	return s*(1-1e-12) - 1e-300
}

// Live is a subset of a tree's points that only shrinks — the actions
// outside a safe set that only grows, or not yet reached by a search —
// with per node the number of its points still in, so that a query skips
// the parts of the tree already emptied instead of listing their points.
type Live struct {
	t     *Tree
	alive []int32 // points still in, per node
	in    []bool  // per point
}

// NewLive returns the set of all the tree's points. It costs
// LiveBytes(N) memory.
func (t *Tree) NewLive() *Live {
	l := &Live{t: t, alive: make([]int32, len(t.nodes)), in: make([]bool, len(t.perm))}
	for k, n := range t.nodes {
		l.alive[k] = n.hi - n.lo
	}
	for i := range l.in {
		l.in[i] = true
	}
	return l
}

// LiveBytes estimates the memory of a Live over n points.
func LiveBytes(n int) int64 {
	b := int64(n) + 4*MaxNodes(n)
	return b + b/8 + 64
}

// Has reports whether point i is still in the set.
func (l *Live) Has(i int) bool { return l.in[i] }

// Remove takes point i out of the set (a no-op if it is out already), in
// O(log N).
func (l *Live) Remove(i int) {
	if !l.in[i] {
		return
	}
	l.in[i] = false
	for k := l.t.leaf[i]; k >= 0; k = l.t.up[k] {
		l.alive[k]--
	}
}

// Within is Tree.Within over the points still in the set.
func (l *Live) Within(dst []int, q []float64, r2 float64) []int {
	return l.t.within(dst, q, r2, l)
}

// Any reports whether ok(p) holds for some point p still in the set with
// vec.SqDist(q, p) ≤ r2, calling ok on such points (in no particular
// order) until one returns true: a test that needs one witness stops at
// the first, where Within lists every point of the ball.
func (l *Live) Any(q []float64, r2 float64, ok func(p int) bool) bool {
	t := l.t
	if len(t.perm) == 0 || !(r2 >= 0) {
		return false
	}
	var stack [maxDepth]int32
	sp := 0
	stack[sp] = 0
	sp++
	for sp > 0 {
		sp--
		k := stack[sp]
		n := t.nodes[k]
		if l.alive[k] == 0 || t.gap(int(k), q) > r2 {
			continue
		}
		if n.left == 0 {
			for _, p := range t.perm[n.lo:n.hi] {
				if l.in[p] && vec.SqDist(q, t.x[p]) <= r2 && ok(p) {
					return true
				}
			}
			continue
		}
		stack[sp] = n.left
		stack[sp+1] = n.left + 1
		sp += 2
	}
	return false
}

// Radius2 bounds the squared distance s within which the Lipschitz test
// b − L·d ≥ h can hold for d = √s rounded (vec.Dist): for every s above it
// the test fails. Exactly, the test needs d ≤ (b − h)/L; the roundings of
// the square root, of L·d and of b − L·d each move it by at most 2⁻⁵³
// relatively, and a b computed as a difference by 2⁻⁵³·(|b| + |h|) more,
// so enlarging the radius by 10⁻¹² relatively and absolutely keeps every
// pair that passes (the few extra candidates then fail the test itself).
// L ≤ 0 or NaN, or a radius beyond the float64s, prunes nothing (+Inf).
// The safe sets, expanders (SPEC §5) and the ε-reachable set (SPEC §1)
// search their candidates within it.
func Radius2(b, h, l float64) float64 {
	if !(l > 0) {
		return math.Inf(1)
	}
	num := (b - h) + 1e-12*(math.Abs(b)+math.Abs(h)) + 1e-300
	r := num / l * (1 + 1e-12)
	r2 := r*r*(1+1e-12) + 1e-300
	if math.IsNaN(r2) {
		return math.Inf(1)
	}
	return r2
}

// Nodes is the number of the tree's nodes, the length of NodeRange's
// slices.
func (t *Tree) Nodes() int { return len(t.nodes) }

// NodeRange returns, per node, the least and the largest of v (one value
// per point) over the node's points: with the node's box they bound how
// much v can change between a query point and any point of the node.
func (t *Tree) NodeRange(v []float64) (lo, hi []float64) {
	lo, hi = make([]float64, len(t.nodes)), make([]float64, len(t.nodes))
	// Children come after their parent: fill from the last node up.
	for k := len(t.nodes) - 1; k >= 0; k-- {
		n := t.nodes[k]
		if n.left != 0 {
			lo[k] = min(lo[n.left], lo[n.left+1])
			hi[k] = max(hi[n.left], hi[n.left+1])
			continue
		}
		lo[k], hi[k] = v[t.perm[n.lo]], v[t.perm[n.lo]]
		for _, p := range t.perm[n.lo:n.hi] {
			lo[k], hi[k] = min(lo[k], v[p]), max(hi[k], v[p])
		}
	}
	return lo, hi
}

// Search visits every point of the nodes keep accepts, pruning the rest:
// keep gets a node and a lower bound of vec.SqDist(q, p) for every point p
// in it (the bound Within prunes with), visit each point of an accepted
// leaf. keep may change what it accepts as the search goes (a bound that
// tightens). The search does not allocate.
func (t *Tree) Search(q []float64, keep func(node int, gap2 float64) bool, visit func(p int)) {
	if len(t.perm) == 0 {
		return
	}
	var stack [maxDepth]int32
	sp := 1
	for sp > 0 {
		sp--
		k := stack[sp]
		if !keep(int(k), t.gap(int(k), q)) {
			continue
		}
		n := t.nodes[k]
		if n.left == 0 {
			for _, p := range t.perm[n.lo:n.hi] {
				visit(p)
			}
			continue
		}
		stack[sp] = n.left
		stack[sp+1] = n.left + 1
		sp += 2
	}
}
