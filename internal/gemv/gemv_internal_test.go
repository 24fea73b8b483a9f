package gemv

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestFallback: without AVX2 (haveAVX2 off here, as on other CPUs)
// AddNegT is y[j] += (−l[s])·V[s, j] over s in order, computed here from
// scratch: bit for bit, as the doc promises and the AVX2 kernel gives
// (TestSameAsGonum). Empty inputs change nothing; a stride shorter than a
// row panics, with AddNegT's message (not gonum's). Not parallel: it switches the package's haveAVX2.
func TestFallback(t *testing.T) {
	saved := haveAVX2
	haveAVX2 = false
	defer func() { haveAVX2 = saved }()
	rng := rand.New(rand.NewPCG(7, 11))
	for _, n := range []int{1, 3, 16, 17} {
		for _, rows := range []int{1, 2, 9} {
			stride := n + 2
			v := make([]float64, rows*stride)
			for i := range v {
				v[i] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(7)-3))
			}
			l := make([]float64, rows)
			for i := range l {
				l[i] = rng.NormFloat64()
			}
			y := make([]float64, n)
			for i := range y {
				y[i] = rng.NormFloat64()
			}
			want := append([]float64(nil), y...)
			for s := range rows {
				for j := range want {
					want[j] += -l[s] * v[s*stride+j]
				}
			}
			AddNegT(y, v, stride, l)
			for j := range want {
				if math.Float64bits(y[j]) != math.Float64bits(want[j]) {
					t.Fatalf("n=%d t=%d: y[%d] = %v, from scratch %v", n, rows, j, y[j], want[j])
				}
			}
		}
	}
	y := []float64{1, 2}
	AddNegT(y, nil, 0, nil)
	AddNegT(nil, []float64{1}, 1, []float64{1})
	if y[0] != 1 || y[1] != 2 {
		t.Errorf("empty inputs changed y to %v", y)
	}
	defer func() {
		if r := recover(); r != "gemv: AddNegT: stride shorter than a row" {
			t.Errorf("a stride shorter than a row: panic %v, want AddNegT's own", r)
		}
	}()
	AddNegT(make([]float64, 3), make([]float64, 6), 2, []float64{1, 1})
}
