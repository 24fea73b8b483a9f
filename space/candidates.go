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
	// values of one numeric parameter, 100 × 100 of two, shared among
	// the combinations of the choices, an int with fewer values leaving
	// the rest to the floats (perAxis). The grid is fine because a safe
	// set grows from its seed one certified step at a time: with β_t's
	// √β ≈ 6 and a seed at the standardized distance 1 from its limit
	// (space.Transform), a step certifies only if it is below about 0.13
	// lengthscales (Matérn 5/2: k(r) ≥ √β·√(1−k(r)²) at r ≈ 0.128), that
	// is 0.013 of the cube under the fitted lengthscale's floor of 0.1
	// (study/defaults' baseRangeFloor). On 51 × 51, steps of 0.02, the PI
	// controller of study's BenchmarkTuneControllers came within 25 % of
	// its optimum in 25 of 48 noise realizations, and issue 26's example
	// (kp, an int filter, a choice: 36 values of kp) in none, stalled at
	// the seed; on 100 × 100 in 31 (of a better optimum) and 48
	// (docs/fitting.md has the table).
	gridPoints1, gridPoints2 = 201, 10_000
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
	per := s.perAxis(q)
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
		switch {
		case p.kind() == Choice:
			for k, v := range p.Values {
				u := make([]float64, len(p.Values))
				u[k] = 1
				a.unit, a.val = append(a.unit, u), append(a.val, String(v))
			}
		case p.ordinal():
			var vs []float64
			if n := p.count(); n <= float64(per) {
				for k := range int(n) {
					vs = append(vs, p.value(float64(k)))
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

// perAxis is the number of values of each numeric parameter of the
// grid (an int with fewer integers takes all of them): the grid's points
// for q numeric parameters (gridPoints1, gridPoints2) over the choices'
// combinations, shared evenly among the numeric parameters, where an int
// with fewer integers than its share takes them all and leaves the rest
// of the budget to the others — so that an int filter of 8 values next
// to a float gives the float 1 250 values, not 100. At least 5.
func (s *Space) perAxis(q int) int {
	budget := float64(gridPoints1)
	if q == 2 {
		budget = gridPoints2
	}
	for i := range s.params {
		if s.params[i].kind() == Choice {
			budget /= float64(len(s.params[i].Values))
		}
	}
	fixed := make([]bool, len(s.params))
	most := 5 // the most integers of an int that takes all of them
	for {
		k := 0
		for i := range s.params {
			if s.params[i].kind() != Choice && !fixed[i] {
				k++
			}
		}
		if k == 0 {
			// Every numeric parameter is an int that takes all its
			// integers: a share of at least each's count keeps them.
			return most
		}
		per := max(5, int(math.Pow(budget, 1/float64(k))+1e-9))
		changed := false
		for i := range s.params {
			p := &s.params[i]
			if p.ordinal() && !fixed[i] {
				if n := p.count(); n < float64(per) {
					fixed[i], changed = true, true
					budget /= n
					most = max(most, int(n))
				}
			}
		}
		if !changed {
			return per
		}
	}
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
