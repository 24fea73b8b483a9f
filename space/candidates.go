package space

import (
	"fmt"
	"math"
)

// Limits of the candidate set (Candidates).
const (
	// GridDims is the most numeric (float and int) parameters whose
	// space is searched on a finite candidate set; above it a space of
	// floats only is searched on its box (line-bo).
	GridDims = 2
	// gridPoints is the candidate set's size the grid aims at: 201
	// values of one numeric parameter, 51 × 51 of two, shared among the
	// combinations of the choices.
	gridPoints1, gridPoints2 = 201, 2601
	// MaxCandidates bounds the candidate set.
	MaxCandidates = 100_000
)

// Candidates is the finite decision set of a space of at most GridDims
// numeric parameters, in the unit cube, with each candidate's setting:
// the Cartesian product, first parameter slowest, of each float's values
// evenly spaced on its scale (both bounds included), each int's integers
// (all of them, or as many evenly spaced on its scale), and each choice's
// values; the grid's resolution is shared among the choices'
// combinations. The settings are exact (a float's bounds, an int's
// integers), so that a measurement told by its setting finds its
// candidate.
func (s *Space) Candidates() ([][]float64, []Setting, error) {
	q := s.Numeric()
	if q > GridDims {
		return nil, nil, fmt.Errorf("%w: %d numeric parameters: a candidate set is made for at most %d", ErrInvalid, q, GridDims)
	}
	combos := 1.0
	for i := range s.params {
		if s.params[i].kind() == Choice {
			combos *= float64(len(s.params[i].Values))
		}
	}
	per := 0
	switch q {
	case 1:
		per = max(5, int(gridPoints1/combos))
	case 2:
		per = max(5, int(math.Sqrt(gridPoints2/combos)))
	}
	// Each parameter's values: unit coordinates and settings' values.
	type axis struct {
		unit [][]float64 // per value, the parameter's coordinates
		val  []Value
	}
	axes := make([]axis, len(s.params))
	total := 1.0
	for i := range s.params {
		p := &s.params[i]
		a := &axes[i]
		switch p.kind() {
		case Choice:
			for k, v := range p.Values {
				u := make([]float64, len(p.Values))
				u[k] = 1
				a.unit, a.val = append(a.unit, u), append(a.val, String(v))
			}
		case Int:
			lo, hi := *p.Low, *p.High
			var vs []float64
			if hi-lo+1 <= float64(per) {
				for v := lo; v <= hi; v++ {
					vs = append(vs, v)
				}
			} else {
				for k := range per {
					v := p.raw(float64(k) / float64(per-1))
					if len(vs) == 0 || v != vs[len(vs)-1] {
						vs = append(vs, v)
					}
				}
			}
			for _, v := range vs {
				a.unit, a.val = append(a.unit, []float64{p.unit(v)}), append(a.val, Number(v))
			}
		default:
			for k := range per {
				u := float64(k) / float64(per-1)
				a.unit, a.val = append(a.unit, []float64{u}), append(a.val, Number(p.raw(u)))
			}
		}
		total *= float64(len(a.val))
	}
	if total > MaxCandidates {
		return nil, nil, fmt.Errorf("%w: the choices' combinations make %.0f candidates, more than %d", ErrInvalid, total, MaxCandidates)
	}
	n := int(total)
	xs := make([][]float64, 0, n)
	sets := make([]Setting, 0, n)
	idx := make([]int, len(axes))
	for range n {
		x := make([]float64, 0, s.dim)
		set := make(Setting, len(s.params))
		for i := range axes {
			x = append(x, axes[i].unit[idx[i]]...)
			set[s.params[i].Name] = axes[i].val[idx[i]]
		}
		xs, sets = append(xs, x), append(sets, set)
		// The last parameter fastest.
		for i := len(axes) - 1; i >= 0; i-- {
			idx[i]++
			if idx[i] < len(axes[i].val) {
				break
			}
			idx[i] = 0
		}
	}
	return xs, sets, nil
}

// Key is a setting as a map key: each parameter's value in the space's
// order, numbers by their bits (−0 as 0).
func (s *Space) Key(set Setting) string {
	b := make([]byte, 0, 16*len(s.params))
	for i := range s.params {
		v := set[s.params[i].Name]
		if v.IsStr {
			b = fmt.Appendf(b, "%q;", v.Str)
			continue
		}
		n := v.Num
		if n == 0 {
			n = 0
		}
		b = fmt.Appendf(b, "%x;", math.Float64bits(n))
	}
	return string(b)
}
