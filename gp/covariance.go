package gp

import "github.com/safegp/safegp/kernel"

// CovarianceAt writes the posterior covariance between action i and the
// actions idx into dst (length len(idx)) and returns it: entry k is
// Covariance's entry idx[k], the same float. Cost O(len(idx)·t), so a
// caller that needs the row at a few actions (SafeOpt's expander test
// reads it only at the actions outside S_t that could still become safe)
// pays for those alone, without the N×N covariance.
//
// Covariance's Gemv (gonum, transposed, unit strides) adds the rows of V
// one at a time, y_j += (−l_s)·V[s, j] for s = 0 … t−1; KeepCovariance's
// rank-one updates add the same products in the same order. The loop below
// does too, so the three agree to the bit (TestCovarianceAtIsCovariance).
func (m *Model) CovarianceAt(dst []float64, i int, idx []int) []float64 {
	n, t := len(m.x), len(m.a)
	if len(dst) != len(idx) {
		panic("gp: CovarianceAt: dst and idx differ in length")
	}
	if m.sigma != nil {
		row := m.sigma[i*n : (i+1)*n]
		for k, j := range idx {
			dst[k] = row[j]
		}
		return dst
	}
	if 4*len(idx) >= n {
		// Most of the row is read: the whole row by Gemv (vectorized
		// Axpy over contiguous rows of V) is faster than gathering.
		m.cov = m.Covariance(m.cov, i)
		for k, j := range idx {
			dst[k] = m.cov[j]
		}
		return dst
	}
	x := m.x[i]
	// kernel.Row on the chosen points computes each entry as it does on
	// all of D.
	m.pscr = m.pscr[:0]
	for _, j := range idx {
		m.pscr = append(m.pscr, m.x[j])
	}
	kernel.Row(m.k, dst, x, m.pscr)
	if m.vt != nil {
		m.gatherTransposed(dst, i, idx)
		return dst
	}
	for s := range t {
		row := m.v[s*n : (s+1)*n]
		l := -row[i]
		for k, j := range idx {
			dst[k] += l * row[j]
		}
	}
	return dst
}

// CovarianceKept reports whether the model holds the full N×N covariance
// (KeepCovariance), so that a covariance entry is an O(1) read.
func (m *Model) CovarianceKept() bool { return m.sigma != nil }
