package argmax

// beats reports whether score v, met after the best so far bv, replaces
// it: only when strictly greater, so that a tie keeps the earlier, lower
// index; and any number beats NaN, so that a NaN wins only when every
// candidate is NaN (then the lowest index, by the same rule).
func beats(v, bv float64) bool { return v > bv || (bv != bv && v == v) }

// Mask returns the index of the largest v[i] over the i with in[i], the
// lowest index on ties, or −1 when no i is in. len(in) must be at least
// len(v).
func Mask(v []float64, in []bool) int {
	best, bv := -1, 0.0
	for i, vi := range v {
		if in[i] && (best < 0 || beats(vi, bv)) {
			best, bv = i, vi
		}
	}
	return best
}

// Func returns the i in 0…n−1 with in(i) of largest score(i), the lowest
// index on ties, or −1 when none is in. score is called only for the
// members, once each, in increasing order.
func Func(n int, in func(i int) bool, score func(i int) float64) int {
	best, bv := -1, 0.0
	for i := 0; i < n; i++ {
		if !in(i) {
			continue
		}
		if v := score(i); best < 0 || beats(v, bv) {
			best, bv = i, v
		}
	}
	return best
}

// List returns the member of idx of largest score, the earliest listed on
// ties — the lowest index when idx is ascending, as a seed set is — or −1
// when idx is empty.
func List(idx []int, score func(i int) float64) int {
	best, bv := -1, 0.0
	for _, i := range idx {
		if v := score(i); best < 0 || beats(v, bv) {
			best, bv = i, v
		}
	}
	return best
}
