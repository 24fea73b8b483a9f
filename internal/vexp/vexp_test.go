package vexp_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/safegp/safegp/internal/vexp"
)

// TestSameAsMath holds Exp to math.Exp bit for bit (the tolerance is
// zero: the kernel runs math/exp_amd64.s's own operations) on every class
// of input: the kernel rows' range (−50 … 0), the whole normal range,
// both sides of each limit where Exp hands a block to math.Exp, the
// subnormal and zero results, overflow, ±Inf, NaN, signed zeros, and
// random bit patterns; in slices of every length up to 13 and at every
// offset, so each block mixes classes.
func TestSameAsMath(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	classes := []struct {
		name string
		draw func() float64
	}{
		{"kernel rows", func() float64 { return -50 * rng.Float64() }},
		{"near zero", func() float64 { return (rng.Float64() - 0.5) * 1e-3 }},
		{"normal range", func() float64 { return (rng.Float64()*2 - 1) * 700 }},
		{"limit 700", func() float64 { return 700 + (rng.Float64()-0.5)*1e-9 }},
		{"limit -700", func() float64 { return -700 + (rng.Float64()-0.5)*1e-9 }},
		{"limit -746", func() float64 { return -746 + (rng.Float64()-0.5)*1e-9 }},
		{"subnormal results", func() float64 { return -708 - 38*rng.Float64() }},
		{"zero results", func() float64 { return -746 - 1e6*rng.Float64() }},
		{"overflow", func() float64 { return 709 + 10*rng.Float64() }},
		{"multiples of ln2", func() float64 { return float64(rng.IntN(2000)-1000) * math.Ln2 }},
		{"integers", func() float64 { return float64(rng.IntN(1400) - 700) }},
		{"bits", func() float64 { return math.Float64frombits(rng.Uint64()) }},
		{"specials", func() float64 {
			s := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1), math.SmallestNonzeroFloat64, -math.SmallestNonzeroFloat64, math.MaxFloat64, -math.MaxFloat64, 1, -1}
			return s[rng.IntN(len(s))]
		}},
	}
	mixed := func() float64 { return classes[rng.IntN(len(classes))].draw() }
	check := func(t *testing.T, x []float64) {
		t.Helper()
		got := append([]float64(nil), x...)
		vexp.Exp(got)
		for i, xi := range x {
			want := math.Exp(xi)
			if math.Float64bits(got[i]) != math.Float64bits(want) && !(math.IsNaN(got[i]) && math.IsNaN(want)) {
				t.Fatalf("Exp(%v) at %d of %d = %v (%#x), math.Exp = %v (%#x)", xi, i, len(x), got[i], math.Float64bits(got[i]), want, math.Float64bits(want))
			}
		}
	}
	for _, c := range classes {
		t.Run(c.name, func(t *testing.T) {
			x := make([]float64, 1<<16)
			for i := range x {
				x[i] = c.draw()
			}
			check(t, x)
		})
	}
	t.Run("mixed lengths and offsets", func(t *testing.T) {
		for n := 0; n <= 13; n++ {
			for range 2000 {
				x := make([]float64, n)
				for i := range x {
					if rng.IntN(3) == 0 {
						x[i] = mixed()
					} else {
						x[i] = -50 * rng.Float64()
					}
				}
				check(t, x)
			}
		}
	})
}

func BenchmarkExp(b *testing.B) {
	x := make([]float64, 1000)
	src := make([]float64, len(x))
	for i := range src {
		src[i] = -20 * float64(i) / float64(len(src))
	}
	b.Run("vexp", func(b *testing.B) {
		for b.Loop() {
			copy(x, src)
			vexp.Exp(x)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(x)), "ns/exp")
	})
	b.Run("math", func(b *testing.B) {
		for b.Loop() {
			copy(x, src)
			for i, v := range x {
				x[i] = math.Exp(v)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(x)), "ns/exp")
	})
}

func ExampleExp() {
	x := []float64{0, 1, -1, -800, math.Inf(1)}
	vexp.Exp(x)
	fmt.Println(x)
	fmt.Println(x[1] == math.Exp(1), x[2] == math.Exp(-1))
	// Output:
	// [1 2.718281828459045 0.36787944117144233 0 +Inf]
	// true true
}

// TestSERow2 holds SERow2 to its Go expression bit for bit: points near
// and far (exponentials that underflow to subnormals and zero), NaN and
// infinite coordinates, lengthscales from tiny to huge, slices of every
// length up to 13.
func TestSERow2(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 6))
	coord := func() float64 {
		switch rng.IntN(12) {
		case 0:
			return math.NaN()
		case 1:
			return math.Inf(1 - 2*rng.IntN(2))
		case 2, 3:
			return 60 * rng.NormFloat64() // far: zero and subnormal results
		}
		return rng.NormFloat64()
	}
	for n := 0; n <= 13; n++ {
		for range 3000 {
			pts := make([]float64, 2*n)
			for i := range pts {
				pts[i] = coord()
				if rng.IntN(2) == 0 {
					pts[i] = rng.Float64()
				}
			}
			x0, x1 := rng.Float64(), rng.Float64()
			l := math.Exp(rng.NormFloat64() * 2)
			c, v := 2*l*l, 0.1+rng.Float64()
			got := make([]float64, n)
			vexp.SERow2(got, x0, x1, pts, c, v)
			for j := range got {
				a, b := x0-pts[2*j], x1-pts[2*j+1]
				var s float64
				s += a * a
				s += b * b
				want := v * math.Exp(-s/c)
				if math.Float64bits(got[j]) != math.Float64bits(want) && !(math.IsNaN(got[j]) && math.IsNaN(want)) {
					t.Fatalf("n = %d, point %d (%v, %v), x (%v, %v), c %v: SERow2 %v, Go %v", n, j, pts[2*j], pts[2*j+1], x0, x1, c, got[j], want)
				}
			}
		}
	}
}
