package spatial

import (
	"sort"

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
}

// node covers perm[lo:hi]; an inner node's children are left and left+1.
type node struct {
	lo, hi int32
	left   int32 // 0 for a leaf
}

// Bytes estimates the memory of a tree over n points in d dimensions:
// the permutation, about 2n/leafSize nodes and their boxes.
func Bytes(n, d int) int64 {
	nodes := int64(2*n/leafSize + 2)
	return 8*int64(n) + nodes*(12+16*int64(d))
}

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
	t.nodes = make([]node, 1, 2*len(x)/leafSize+2)
	t.nodes[0] = node{lo: 0, hi: int32(len(x))}
	t.box = make([]float64, 2*t.d)
	t.build(0)
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
	part := t.perm[n.lo:n.hi]
	// A full sort of the node's points along the widest coordinate: the
	// tree is built once per decision set, and O(N log² N) is well below
	// one round of a policy at the sizes that need the tree.
	sort.Slice(part, func(a, c int) bool { return t.x[part[a]][wide] < t.x[part[c]][wide] })
	mid := n.lo + (n.hi-n.lo)/2
	left := int32(len(t.nodes))
	t.nodes[k].left = left
	t.nodes = append(t.nodes, node{lo: n.lo, hi: mid}, node{lo: mid, hi: n.hi})
	t.box = append(t.box, make([]float64, 4*d)...)
	t.build(int(left))
	t.build(int(left) + 1)
}

// Len is the number of points.
func (t *Tree) Len() int { return len(t.perm) }

// Within appends to dst[:0] the indices of the points p with
// vec.SqDist(q, p) ≤ r2 (r2 = +Inf: every point; NaN: none) and returns
// it, in no particular order. It allocates only when dst is too short.
func (t *Tree) Within(dst []int, q []float64, r2 float64) []int {
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
		if t.gap(int(k), q) > r2 {
			continue
		}
		if n.left == 0 {
			for _, p := range t.perm[n.lo:n.hi] {
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
