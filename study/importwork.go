package study

import (
	"encoding/binary"
	"fmt"
	"math"
	"sort"

	"github.com/safegp/safegp/internal/plural"
	"github.com/safegp/safegp/internal/vec"
	"github.com/safegp/safegp/study/api"
)

// ImportRate is the multiply-adds per second the work estimate of an
// import (importWork) assumes: half what the project's 2-core machine
// does on a study's GP updates (BenchmarkImport: 5·10⁹ at N = 1 000), so
// that an import admitted under a time limit meets it on a slower
// machine too.
const ImportRate = 2.5e9

// rowOverhead is a row's cost beyond its GP updates, in multiply-adds at
// ImportRate: its validation, its insert and the policy's own bookkeeping,
// about 18 µs measured (BenchmarkImport at N = 100), counted twice.
const rowOverhead = 90_000

// importWork estimates the multiply-adds of feeding n rows to study s
// (at actions, or outside points where outside[k]) on top of its t
// observations: per row and GP, the update over the N actions — O(N·t),
// or O(N²) once the GP keeps its covariance (at 2N observations, after an
// O(N³) switch) — and for a point outside the set
// the forward substitution through the observations before it, O(t²).
// It returns the work of the first k rows for every k, so that a refusal
// can say how many rows fit.
func (s *Study) importWork(outside []bool) []float64 {
	n := float64(len(s.res.X))
	if s.res.Box != nil {
		n = 0 // a line's points: few, and not a fixed set
	}
	gps := float64(len(s.res.Spec.Thresholds) + 1)
	switchAt := -1
	if s.covSwitch {
		switchAt = 2 * len(s.res.X)
	}
	t := s.nObs
	cum := make([]float64, len(outside))
	var w float64
	for k, out := range outside {
		tf := float64(t)
		var row float64
		switch {
		case switchAt >= 0 && t >= switchAt:
			row = n * n
		default:
			row = n * tf
		}
		if t == switchAt {
			row += n * n * tf / 2 // KeepCovariance's one pass
		}
		if out || s.res.ContextKernel != nil {
			row += tf * tf / 2
		}
		w += gps*row + rowOverhead
		cum[k] = w
		t++
	}
	return cum
}

// checkImportWork refuses an import whose estimated time at ImportRate
// exceeds maxSeconds (≤ 0: no limit), saying how long it would take and
// how many of its rows fit in one request.
func (s *Study) checkImportWork(outside []bool, maxSeconds float64) error {
	if maxSeconds <= 0 || len(outside) == 0 {
		return nil
	}
	cum := s.importWork(outside)
	total := cum[len(cum)-1] / ImportRate
	if total <= maxSeconds {
		return nil
	}
	fit := sort.SearchFloat64s(cum, maxSeconds*ImportRate+1) // rows whose work fits
	return fmt.Errorf("%w: importing %s into study %q (N = %d actions, %s so far) would take about %.0f s, and one request may take %.0f s: import at most %s at a time, each part in its own request (the study's GPs cost more per row as they grow)",
		api.ErrImportTooLarge, plural.Count(len(outside), "row"), s.name, len(s.res.X), plural.Count(s.nObs, "observation"), total, maxSeconds, plural.Count(max(fit, 1), "row"))
}

// actionIndex returns a lookup of the decision set's actions by their
// coordinates' bits, for an import of many rows at points: slices.Index
// over N actions per row would make it O(rows·N).
func (r *Resolved) actionIndex() map[string]int {
	idx := make(map[string]int, len(r.X))
	for i, x := range r.X {
		k := pointKey(x)
		if _, dup := idx[k]; !dup {
			idx[k] = i // the first, as slices.IndexFunc finds it
		}
	}
	return idx
}

// pointKey is a point's coordinates as a map key: their bits, with −0 as
// 0, as slices.Equal compares them (−0 == 0).
func pointKey(x []float64) string {
	b := make([]byte, 0, 8*len(x))
	for _, v := range x {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(vec.PlusZero(v)))
	}
	return string(b)
}
