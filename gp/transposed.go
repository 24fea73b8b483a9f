package gp

// The transposed copy of V (KeepTransposed) serves CovarianceAt's gathered
// entries: entry j of a covariance row is k(x_i, x_j) − Σ_s V[s,i]·V[s,j],
// and in V's own layout (t rows of N) each of its t terms sits in another
// row, so a gathered entry touches t cache lines and waits on memory for
// each. Transposed, V[:, j] is t floats back to back: an entry reads t/8
// lines, in order, which the prefetcher streams. SafeOpt's expander test
// in gp mode gathers hundreds of thousands of such entries a run
// (safeopt_gp.go), the case this is for.

// KeepTransposed makes the model hold Vᵀ beside V from now on: N rows of
// at least t floats, row j holding V[0 … t−1, j]. It costs N·T floats (as
// much again as V) and an O(N) strided write per observation, and makes
// each entry CovarianceAt gathers a contiguous O(t) dot product. The
// entries are the same floats either way: the sum runs over s in the same
// order, each term the same product (TestTransposedSameEntries).
// DropTransposed frees it.
func (m *Model) KeepTransposed() {
	if m.vt != nil {
		return
	}
	m.relayout(max(m.rows, len(m.a), 8))
}

// DropTransposed stops keeping Vᵀ and frees it (a model that keeps the
// covariance reads entries from it instead).
func (m *Model) DropTransposed() {
	giveSlab(slabVT, m.vt)
	m.vt, m.vtStride = nil, 0
}

// TransposedKept reports whether the model keeps Vᵀ (KeepTransposed).
func (m *Model) TransposedKept() bool { return m.vt != nil }

// TransposedBytes is the memory KeepTransposed takes on a model over n
// actions with room for rows observations (its rows are as long as the
// model's: Reserve's, or GrowTo's doubling, during which the old and the
// new copy are both alive, as V's are).
func TransposedBytes(n, rows int) int64 { return 8 * int64(n) * int64(max(rows, 8)) }

// relayout builds Vᵀ with rows of stride floats, stride ≥ t.
func (m *Model) relayout(stride int) {
	n, t := len(m.x), len(m.a)
	old := m.vt
	// Entries past t are stale in a reused slab: each is written before
	// it is read (appendTransposed).
	vt := takeSlab(slabVT, n*stride, n*stride)
	for s := range t {
		row := m.v[s*n : (s+1)*n]
		for j, v := range row {
			vt[j*stride+s] = v
		}
	}
	m.vt, m.vtStride = vt, stride
	giveSlab(slabVT, old)
}

// gatherTransposed is CovarianceAt's gathered product on Vᵀ: dst[k] holds
// k(x_i, x_j) for j = idx[k] on entry and k(x_i, x_j) − Σ_s V[s,i]·V[s,j]
// on return, the terms added in s order as the product over V's rows adds
// them. Four entries run side by side, each its own sum in s order (the
// same floats): one entry's sum is a chain of dependent additions, bound
// by the adder's latency, and four chains fill its pipeline.
func (m *Model) gatherTransposed(dst []float64, i int, idx []int) {
	t, stride := len(m.a), m.vtStride
	vi := m.vt[i*stride : i*stride+t]
	k := 0
	for ; k+4 <= len(idx); k += 4 {
		v0 := m.vt[idx[k]*stride:][:len(vi)]
		v1 := m.vt[idx[k+1]*stride:][:len(vi)]
		v2 := m.vt[idx[k+2]*stride:][:len(vi)]
		v3 := m.vt[idx[k+3]*stride:][:len(vi)]
		a0, a1, a2, a3 := dst[k], dst[k+1], dst[k+2], dst[k+3]
		for s, a := range vi {
			a0 += -a * v0[s]
			a1 += -a * v1[s]
			a2 += -a * v2[s]
			a3 += -a * v3[s]
		}
		dst[k], dst[k+1], dst[k+2], dst[k+3] = a0, a1, a2, a3
	}
	for ; k < len(idx); k++ {
		vj := m.vt[idx[k]*stride:][:len(vi)]
		acc := dst[k]
		for s, a := range vi {
			acc += -a * vj[s]
		}
		dst[k] = acc
	}
}
