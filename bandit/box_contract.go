package bandit

// PLACEHOLDER FOR THE MERGE. This file declares the box-domain API that
// the line-bo policy provides (issue 11), so that experiment code can be
// written and run end to end before that policy lands. NewBox here is NOT
// LineBO: it asks uniformly random points in the box, ignoring the model
// and every safety condition. Delete this file when merging the real
// implementation (which defines the same names), and with it the
// Spec fields and the "line-bo" case marked PLACEHOLDER in spec.go.

import (
	"fmt"
	"math"

	"github.com/safegp/safegp/internal/fielderr"
)

// BoxPlaceholder reports that NewBox is this file's placeholder: tests
// that need the real policy (safety with exact observations) skip on it.
const BoxPlaceholder = true

// Box is a box domain: Bounds[j] = [lo_j, hi_j], and the seed points,
// known to be safe, in it.
type Box struct {
	Bounds [][2]float64
	Seeds  [][]float64
}

// NewBox builds a policy of spec s (line-bo) on a box. PLACEHOLDER: it
// asks uniformly random points of the box from opt.Rand.
func NewBox(s *Spec, model Model, box Box, opt Options) (Policy, error) {
	if s.Name != "line-bo" {
		return nil, fmt.Errorf("%w: %s is an algorithm on a finite decision set, not on a box", ErrConfig, s.Name)
	}
	if len(box.Bounds) == 0 {
		return nil, fmt.Errorf("%w: empty box", ErrConfig)
	}
	for j, b := range box.Bounds {
		if !(b[0] < b[1]) || math.IsInf(b[0], 0) || math.IsInf(b[1], 0) {
			return nil, fmt.Errorf("%w: box bounds[%d] = %v: want finite lo < hi", ErrConfig, j, b)
		}
	}
	if len(box.Seeds) == 0 {
		return nil, fmt.Errorf("%w: no seed point", ErrConfig)
	}
	if opt.Rand == nil {
		return nil, fmt.Errorf("%w: the placeholder line-bo needs opt.Rand", ErrConfig)
	}
	return &randomBox{box: box, opt: opt, x: make([]float64, len(box.Bounds))}, nil
}

// BoxBytes estimates the memory of a line-bo policy in d dimensions with
// m constraints (and an objective threshold when hf) over horizon rounds.
// PLACEHOLDER: the GPs of the real policy (m+1 of horizon rows each, on
// a line of a few hundred points) and the data.
func BoxBytes(s *Spec, d, m, horizon int, hf bool) int64 {
	gps := int64(m + 1)
	const line = 1000 // points on a line, an upper estimate
	return gps*(8*int64(horizon)*int64(horizon)/2+8*int64(horizon)*line) + 8*int64(horizon)*int64(d+m+2) + 16<<10
}

// randomBox is the placeholder policy.
type randomBox struct {
	box     Box
	opt     Options
	x       []float64
	last    int
	pending bool
	told    int
}

func (p *randomBox) Ask() (Ask, error) {
	if !p.pending {
		p.last++
		for j, b := range p.box.Bounds {
			p.x[j] = b[0] + (b[1]-b[0])*p.opt.Rand.Float64()
		}
		p.pending = true
	}
	return Ask{ID: p.last, X: p.x, Index: -1}, nil
}

func (p *randomBox) Tell(id int, o Observation) error {
	if id != 0 && (!p.pending || id != p.last) {
		return fmt.Errorf("%w %d", ErrUnknownAsk, id)
	}
	if math.IsNaN(o.F) || math.IsInf(o.F, 0) {
		return fmt.Errorf("%w: f = %v", ErrObservation, o.F)
	}
	if id != 0 {
		p.pending = false
	}
	p.told++
	return nil
}

func (p *randomBox) Inspect(dst *Snapshot, d Detail) {
	dst.Round = p.told + 1
}

// checkLineBO checks the line-bo keys. PLACEHOLDER: the real policy's
// checks replace it.
func (s *Spec) checkLineBO() error {
	bad := func(key, format string, args ...any) error {
		return fielderr.New(ErrConfig, key, format, args...)
	}
	switch s.Inner {
	case "", "safeopt", "sgp-ucb", "stageopt", "safeopt-mc":
	default:
		return bad("inner", "unknown algorithm %q (safeopt, sgp-ucb, stageopt, safeopt-mc)", s.Inner)
	}
	switch s.Direction {
	case "", "coordinate", "random", "ascent":
	default:
		return bad("direction", "unknown rule %q (coordinate, random, ascent)", s.Direction)
	}
	if s.Points < 0 {
		return bad("points", "must be ≥ 0, got %d", s.Points)
	}
	if s.PerLine < 0 {
		return bad("per_line", "must be ≥ 0, got %d", s.PerLine)
	}
	if !(s.Tolerance >= 0) || math.IsInf(s.Tolerance, 0) {
		return bad("tolerance", "must be a finite number ≥ 0, got %v", s.Tolerance)
	}
	switch s.SafeSet {
	case "", "gp", "lipschitz":
	default:
		return bad("safe_set", "unknown mode %q (lipschitz, gp)", s.SafeSet)
	}
	return nil
}

// hasBoxKeys reports whether a line-bo key is set.
func (s *Spec) hasBoxKeys() string {
	switch {
	case s.Inner != "":
		return "inner"
	case s.Direction != "":
		return "direction"
	case s.Points != 0:
		return "points"
	case s.PerLine != 0:
		return "per_line"
	case s.Tolerance != 0:
		return "tolerance"
	}
	return ""
}
