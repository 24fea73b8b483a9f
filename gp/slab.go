package gp

import "sync"

// slab names one of a model's large arrays, which Release hands on to
// the models made after it.
type slab int

const (
	slabV     slab = iota // V, t×N (reserve)
	slabRows              // the kept prior rows, min(N, t)×N (reservePriorRows)
	slabSigma             // the kept N×N covariance (KeepCovariance)
	slabVT                // the kept Vᵀ, N×stride (KeepTransposed)
	slabKinds
)

// slabs hold released arrays, one pool per kind, so that a model takes
// the kind of array it needs: its V from another model's V, not from a
// covariance it would cut short or from kept rows too small to use.
var slabs [slabKinds]sync.Pool

// takeSlab returns a slice of length n and capacity at least c: an array
// of kind that a released model gave back, when one is that large (its
// contents are stale: every use writes a row before reading it), else a
// new one.
func takeSlab(kind slab, n, c int) []float64 {
	if p, ok := slabs[kind].Get().(*[]float64); ok && cap(*p) >= c {
		return (*p)[:n]
	}
	// None, or one too small for this model: the collector takes it.
	return make([]float64, n, c)
}

// giveSlab hands s back to kind's pool.
func giveSlab(kind slab, s []float64) {
	if cap(s) > 0 {
		slabs[kind].Put(&s)
	}
}

// Release hands the model's large arrays — V (t×N floats), the kept prior
// rows, the kept covariance and Vᵀ — to the models made after it, in any
// goroutine, and empties m, which must not be used again. A process that
// builds many models of one size one after another, as an experiment
// builds each run's, then reuses the arrays of a finished run instead of
// allocating O(N·T) new floats per run, which the garbage collector would
// reclaim every few runs and the kernel would fault in page by page
// (BENCHMARKS.md, "slabs").
func (m *Model) Release() {
	giveSlab(slabV, m.v)
	giveSlab(slabRows, m.krows)
	giveSlab(slabSigma, m.sigma)
	giveSlab(slabVT, m.vt)
	*m = Model{}
}
