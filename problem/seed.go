package problem

import (
	"fmt"
	"slices"

	"github.com/safegp/safegp/internal/fielderr"
)

// CheckSeed checks a seed set D^w over the actions 0 … n−1 (SPEC §8): at
// least one action, each index in range and given once, in any order. A
// problem file's seed column, a configuration's seed_actions, a generated
// seed_set.indices and a study's seed_actions are all checked by it. Errors
// name the entry by its position ("[k]") for the caller to put under its
// key.
func CheckSeed(seed []int, n int) error {
	if len(seed) == 0 {
		return fielderr.New(ErrInvalid, "", "empty: mark at least one known-safe action")
	}
	for k, i := range seed {
		if i < 0 || i >= n {
			return fielderr.New(ErrInvalid, fmt.Sprintf("[%d]", k), "%d is outside the decision set's 0…%d", i, n-1)
		}
	}
	// Positions ordered by index: a repeated index sits next to its twin.
	// A problem's seed set is sorted already, and needs no copy.
	pos := func(k int) int { return k }
	if !slices.IsSorted(seed) {
		order := make([]int, len(seed))
		for k := range order {
			order[k] = k
		}
		slices.SortStableFunc(order, func(a, b int) int { return seed[a] - seed[b] })
		pos = func(k int) int { return order[k] }
	}
	first, twin := -1, -1 // report the repeat that comes first in the list
	for k := 1; k < len(seed); k++ {
		if a, b := pos(k-1), pos(k); seed[a] == seed[b] && (first < 0 || b < first) {
			first, twin = b, a
		}
	}
	if first >= 0 {
		return fielderr.New(ErrInvalid, fmt.Sprintf("[%d]", first), "%d is given twice (also at [%d])", seed[first], twin)
	}
	return nil
}

// SortedSeed returns a checked copy of seed in ascending order, the order
// a Problem keeps its seed set in.
func SortedSeed(seed []int, n int) ([]int, error) {
	if err := CheckSeed(seed, n); err != nil {
		return nil, err
	}
	s := slices.Clone(seed)
	slices.Sort(s)
	return s, nil
}
