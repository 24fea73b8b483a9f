package gp_test

import (
	"math"
	"runtime"
	"testing"

	"github.com/safegp/safegp/gp"
	"github.com/safegp/safegp/kernel"
)

// TestPriorRowsKeptOncePerAction checks what KeepPriorRows keeps: one row
// per distinct observed action (a repeat reuses its row; Covariance of an
// unobserved action keeps none), none above PriorRowsMaxN, and Add
// allocates nothing within Reserve while it keeps them. That the kept
// rows change no float is TestAddSameForAnyWorkers.
func TestPriorRowsKeptOncePerAction(t *testing.T) {
	line := func(n int) [][]float64 {
		x := make([][]float64, n)
		for i := range x {
			x[i] = []float64{float64(i) / float64(n)}
		}
		return x
	}
	k := kernel.SE{Variance: 1, Lengthscale: 0.2}
	for _, c := range []struct {
		n       int
		actions []int
		want    int
	}{
		{10, []int{0, 1, 0, 1, 2, 0}, 3},
		{10, []int{9, 9, 9, 9}, 1},
		{3, []int{0, 1, 2, 2, 1, 0, 1}, 3},
		{gp.PriorRowsMaxN + 1, []int{0, 0, 1}, 0},
	} {
		m := gp.New(k, line(c.n), 0.1)
		m.KeepPriorRows()
		m.Reserve(len(c.actions))
		m.Covariance(make([]float64, c.n), c.n-1)
		for _, i := range c.actions {
			m.Observe(i, 1)
		}
		if got := gp.KeptRows(m); got != c.want {
			t.Errorf("N = %d, actions %v: %d rows kept, want %d", c.n, c.actions, got, c.want)
		}
	}

	m := gp.New(k, line(200), 0.1)
	m.KeepPriorRows()
	m.Reserve(400)
	i := 0
	if a := testing.AllocsPerRun(300, func() { m.Observe(i%37, 0.5); i++ }); a != 0 {
		t.Errorf("Observe with kept rows: %v allocations, want 0", a)
	}
}

// TestPriorRowsBytes checks PriorRowsBytes against what KeepPriorRows and
// Reserve allocate beyond a model without kept rows, the least of three
// measurements (the test runner's goroutines only add to TotalAlloc).
func TestPriorRowsBytes(t *testing.T) {
	for _, c := range []struct{ n, t int }{{100, 500}, {1000, 200}, {gp.PriorRowsMaxN + 1, 10}} {
		x := make([][]float64, c.n)
		for i := range x {
			x[i] = []float64{float64(i)}
		}
		k := kernel.SE{Variance: 1, Lengthscale: 3}
		alloc := func(keep bool) int64 {
			least := int64(math.MaxInt64)
			for range 3 {
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				m := gp.New(k, x, 0.1)
				if keep {
					m.KeepPriorRows()
				}
				m.Reserve(c.t)
				runtime.ReadMemStats(&after)
				runtime.KeepAlive(m)
				least = min(least, int64(after.TotalAlloc-before.TotalAlloc))
			}
			return least
		}
		extra := alloc(true) - alloc(false)
		est := gp.PriorRowsBytes(c.n, c.t)
		if extra > est || (est > 0 && est > 2*extra) {
			t.Errorf("N = %d, t = %d: kept rows allocated %d bytes, estimate %d", c.n, c.t, extra, est)
		}
	}
}
