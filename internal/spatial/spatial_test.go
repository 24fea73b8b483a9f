package spatial_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/safegp/safegp/internal/spatial"
	"github.com/safegp/safegp/internal/vec"
)

// brute is the scan the tree replaces.
func brute(x [][]float64, q []float64, r2 float64) []int {
	var out []int
	for i, p := range x {
		if vec.SqDist(q, p) <= r2 {
			out = append(out, i)
		}
	}
	return out
}

// TestWithinBrute checks every query against the scan over all points:
// the same indices, exactly, on random clouds, grids (many ties of
// coordinates and distances, radii equal to a pair's rounded distance),
// clustered and large-magnitude points, in d = 1 … 6.
func TestWithinBrute(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(13, 1))
	for d := 1; d <= 6; d++ {
		for _, kind := range []string{"uniform", "grid", "cluster", "large"} {
			n := 1 + rng.IntN(600)
			x := make([][]float64, n)
			for i := range x {
				x[i] = make([]float64, d)
				for j := range x[i] {
					switch kind {
					case "uniform":
						x[i][j] = rng.Float64()
					case "grid":
						x[i][j] = float64(rng.IntN(5)) * 0.1
					case "cluster":
						x[i][j] = 0.3 + 1e-9*rng.NormFloat64()
					case "large":
						x[i][j] = 1e8 + rng.Float64()
					}
				}
			}
			tr := spatial.New(x)
			if tr.Len() != n {
				t.Fatalf("Len = %d, want %d", tr.Len(), n)
			}
			var buf []int
			for range 200 {
				var q []float64
				var r2 float64
				switch rng.IntN(4) {
				case 0: // a point of the set, radius the rounded distance to another
					q = x[rng.IntN(n)]
					r2 = vec.SqDist(q, x[rng.IntN(n)])
				case 1:
					q = x[rng.IntN(n)]
					r2 = math.Nextafter(vec.SqDist(q, x[rng.IntN(n)]), 0)
				case 2: // anywhere, any radius
					q = make([]float64, d)
					for j := range q {
						q[j] = x[rng.IntN(n)][j] + 0.2*rng.NormFloat64()
					}
					r2 = 0.1 * rng.ExpFloat64()
				default:
					q = x[rng.IntN(n)]
					r2 = []float64{0, math.Inf(1), math.NaN(), -1}[rng.IntN(4)]
				}
				buf = tr.Within(buf, q, r2)
				got := slices.Clone(buf)
				slices.Sort(got)
				if want := brute(x, q, r2); !slices.Equal(got, want) {
					t.Fatalf("d=%d %s n=%d r2=%v: got %d points, want %d", d, kind, n, r2, len(got), len(want))
				}
			}
		}
	}
}

func TestWithinNoAllocation(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 2))
	x := make([][]float64, 2000)
	for i := range x {
		x[i] = []float64{rng.Float64(), rng.Float64(), rng.Float64()}
	}
	tr := spatial.New(x)
	buf := make([]int, 0, len(x))
	if a := testing.AllocsPerRun(100, func() { buf = tr.Within(buf, x[7], 0.05) }); a != 0 {
		t.Errorf("%v allocations per query", a)
	}
}

func TestEmpty(t *testing.T) {
	t.Parallel()
	tr := spatial.New(nil)
	if got := tr.Within(nil, []float64{0}, 1); len(got) != 0 {
		t.Errorf("Within on no points = %v", got)
	}
}

func Example() {
	x := [][]float64{{0, 0}, {1, 0}, {0, 2}, {3, 3}}
	tr := spatial.New(x)
	near := tr.Within(nil, []float64{0, 0}, 4) // ‖x − 0‖² ≤ 4
	slices.Sort(near)
	fmt.Println(near)
	// Output: [0 1 2]
}

// BenchmarkWithin times a query of about 30 neighbours among 10⁴ points
// of the unit square, against the scan it replaces.
func BenchmarkWithin(b *testing.B) {
	rng := rand.New(rand.NewPCG(13, 3))
	x := make([][]float64, 10000)
	for i := range x {
		x[i] = []float64{rng.Float64(), rng.Float64()}
	}
	tr := spatial.New(x)
	r2 := 30 / (math.Pi * float64(len(x)))
	buf := make([]int, 0, len(x))
	b.Run("tree", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			buf = tr.Within(buf, x[i%len(x)], r2)
		}
	})
	b.Run("scan", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			buf = buf[:0]
			q := x[i%len(x)]
			for j, p := range x {
				if vec.SqDist(q, p) <= r2 {
					buf = append(buf, j)
				}
			}
		}
	})
}

// TestLiveBrute removes points in random order and checks every query
// against the scan over the points left.
func TestLiveBrute(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(13, 4))
	for d := 1; d <= 6; d++ {
		n := 1 + rng.IntN(500)
		x := make([][]float64, n)
		for i := range x {
			x[i] = make([]float64, d)
			for j := range x[i] {
				x[i][j] = rng.Float64()
			}
		}
		live := spatial.New(x).NewLive()
		left := make([]bool, n)
		for i := range left {
			left[i] = true
		}
		var buf []int
		for _, i := range rng.Perm(n) {
			live.Remove(i)
			live.Remove(i) // twice: a no-op
			left[i] = false
			if live.Has(i) {
				t.Fatalf("point %d still in after Remove", i)
			}
			q := x[rng.IntN(n)]
			r2 := 0.3 * rng.ExpFloat64()
			buf = live.Within(buf, q, r2)
			got := slices.Clone(buf)
			slices.Sort(got)
			var want []int
			for j, p := range x {
				if left[j] && vec.SqDist(q, p) <= r2 {
					want = append(want, j)
				}
			}
			if !slices.Equal(got, want) {
				t.Fatalf("d=%d n=%d: got %v, want %v", d, n, got, want)
			}
		}
	}
}

// TestRadius2 checks that no distance beyond Radius2 passes the test
// b − L·d ≥ h, at the radius's edge (the largest passing d, found by
// bisection on the float64s) for random, large and nearly equal b and h.
func TestRadius2(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(13, 5))
	pass := func(b, h, l, s float64) bool { return b-l*math.Sqrt(s) >= h }
	for k := range 20000 {
		scale := math.Pow(10, float64(rng.IntN(30)-15))
		h := scale * rng.NormFloat64()
		b := h + scale*rng.ExpFloat64()
		if k%3 == 0 {
			b = h + math.Abs(h)*1e-15*float64(rng.IntN(5)) // b − h a few ulps
		}
		l := math.Pow(10, float64(rng.IntN(20)-10)) * rng.ExpFloat64()
		r2 := spatial.Radius2(b, h, l)
		// The largest s that passes: bisect on [0, 4·r2] in float64 bits.
		lo, hi := 0.0, 4*r2+1
		if !pass(b, h, l, lo) {
			continue
		}
		for range 200 {
			mid := lo + (hi-lo)/2
			if mid == lo || mid == hi {
				break
			}
			if pass(b, h, l, mid) {
				lo = mid
			} else {
				hi = mid
			}
		}
		if lo > r2 {
			t.Fatalf("b=%v h=%v L=%v: d² = %v passes, beyond Radius2 = %v", b, h, l, lo, r2)
		}
	}
	for _, c := range []struct{ b, h, l float64 }{{1, 0, 0}, {1, 0, -1}, {1, 0, math.NaN()}, {math.Inf(1), 0, 1}} {
		if r2 := spatial.Radius2(c.b, c.h, c.l); !math.IsInf(r2, 1) {
			t.Errorf("Radius2(%v, %v, %v) = %v, want +Inf", c.b, c.h, c.l, r2)
		}
	}
}

// TestSearch: accepting every node visits every point once; accepting by
// the bound Within uses visits a superset of Within's answer; NodeRange
// bounds the values of each point Search reaches through a node.
func TestSearch(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(13, 6))
	for d := 1; d <= 6; d++ {
		n := 1 + rng.IntN(700)
		x := make([][]float64, n)
		v := make([]float64, n)
		for i := range x {
			x[i] = make([]float64, d)
			for j := range x[i] {
				x[i][j] = rng.Float64()
			}
			v[i] = rng.NormFloat64()
		}
		tr := spatial.New(x)
		lo, hi := tr.NodeRange(v)
		if len(lo) != tr.Nodes() || len(hi) != tr.Nodes() {
			t.Fatalf("NodeRange: %d, %d values for %d nodes", len(lo), len(hi), tr.Nodes())
		}
		seen := make([]int, n)
		tr.Search(x[0], func(k int, _ float64) bool {
			if lo[k] > hi[k] {
				t.Fatalf("node %d: range [%v, %v]", k, lo[k], hi[k])
			}
			return true
		}, func(p int) { seen[p]++ })
		for i, c := range seen {
			if c != 1 {
				t.Fatalf("d=%d: point %d visited %d times", d, i, c)
			}
		}
		// v of every point within bounds of the root's range.
		for _, vi := range v {
			if vi < lo[0] || vi > hi[0] {
				t.Fatalf("d=%d: %v outside the root's range [%v, %v]", d, vi, lo[0], hi[0])
			}
		}
		q, r2 := x[rng.IntN(n)], 0.05*rng.ExpFloat64()
		var got []int
		tr.Search(q, func(_ int, gap2 float64) bool { return gap2 <= r2 }, func(p int) {
			if vec.SqDist(q, x[p]) <= r2 {
				got = append(got, p)
			}
		})
		slices.Sort(got)
		if want := brute(x, q, r2); !slices.Equal(got, want) {
			t.Fatalf("d=%d: Search by radius found %d points, want %d", d, len(got), len(want))
		}
	}
}

// ExampleLive: the points not yet reached, as a breadth-first search takes
// them out.
func ExampleLive() {
	x := [][]float64{{0}, {1}, {2}, {5}}
	live := spatial.New(x).NewLive()
	live.Remove(0)
	near := live.Within(nil, []float64{0}, 4.5) // within √4.5 of 0, 0 excluded
	slices.Sort(near)
	fmt.Println(near)
	// Output: [1 2]
}

// ExampleRadius2: b − L·d ≥ h with b = 1, h = 0, L = 2 holds up to d = 0.5;
// the squared radius is 0.25, enlarged past the roundings.
func ExampleRadius2() {
	r2 := spatial.Radius2(1, 0, 2)
	fmt.Println(r2 >= 0.25, r2 < 0.25+1e-9)
	// Output: true true
}

// BenchmarkNew times building the tree over 10⁵ points of the unit square.
func BenchmarkNew(b *testing.B) {
	rng := rand.New(rand.NewPCG(13, 7))
	x := make([][]float64, 100000)
	for i := range x {
		x[i] = []float64{rng.Float64(), rng.Float64()}
	}
	for b.Loop() {
		spatial.New(x)
	}
}

// TestBytes: the tree has at most MaxNodes nodes, and building it
// allocates no more than Bytes estimates (runtime.MemStats, one
// goroutine), nor a Live more than LiveBytes.
func TestBytes(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 8))
	for _, n := range []int{1, 7, 9, 100, 5000, 20000} {
		for _, d := range []int{1, 3, 6} {
			x := make([][]float64, n)
			for i := range x {
				x[i] = make([]float64, d)
				for j := range x[i] {
					x[i][j] = rng.Float64()
				}
			}
			// TotalAlloc counts every goroutine's allocations, and the
			// runtime's own (a background GC's, the test framework's)
			// land in the window now and then: the least of three builds
			// is the tree's.
			var tr *spatial.Tree
			newBytes, liveBytes := int64(math.MaxInt64), int64(math.MaxInt64)
			for range 3 {
				var before, mid, after runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)
				tr = spatial.New(x)
				runtime.ReadMemStats(&mid)
				tr.NewLive()
				runtime.ReadMemStats(&after)
				newBytes = min(newBytes, int64(mid.TotalAlloc-before.TotalAlloc))
				liveBytes = min(liveBytes, int64(after.TotalAlloc-mid.TotalAlloc))
			}
			if int64(tr.Nodes()) > spatial.MaxNodes(n) {
				t.Errorf("n=%d: %d nodes, MaxNodes %d", n, tr.Nodes(), spatial.MaxNodes(n))
			}
			if got, est := newBytes, spatial.Bytes(n, d); got > est {
				t.Errorf("n=%d d=%d: New allocated %d bytes, Bytes %d", n, d, got, est)
			}
			if got, est := liveBytes, spatial.LiveBytes(n); got > est {
				t.Errorf("n=%d d=%d: NewLive allocated %d bytes, LiveBytes %d", n, d, got, est)
			}
		}
	}
}
