package shard

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ErrBadShard: --shard is not i/n with 1 ≤ i ≤ n.
var ErrBadShard = errors.New("invalid shard")

// Shard is shard I of N (1 ≤ I ≤ N); the zero Shard is the whole work.
type Shard struct{ I, N int }

// Parse reads "i/n" (1 ≤ i ≤ n).
func Parse(s string) (Shard, error) {
	is, ns, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(strings.TrimSpace(is))
	n, err2 := strconv.Atoi(strings.TrimSpace(ns))
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 1 || i > n {
		return Shard{}, fmt.Errorf("%w: shard %q: want i/n with 1 ≤ i ≤ n, as 3/7", ErrBadShard, s)
	}
	return Shard{I: i, N: n}, nil
}

func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.I, s.N) }

// Sharded reports whether s is a shard rather than the whole work.
func (s Shard) Sharded() bool { return s.N > 0 }

// Holds reports whether deal k belongs to s: (k mod N) + 1 = I. The
// deal of unit (a, r) of a configuration whose units start at base is
// base + r (ByRealization).
func (s Shard) Holds(k int) bool { return !s.Sharded() || k%s.N == s.I-1 }

// ByRealization is the selection of s among the units (a, r) of a
// configuration whose units start at base in the command's order (0 for
// `run`; for `reproduce` and `sweep`, the units of the experiments or
// cells before it): unit (a, r) belongs to s when deal base + r does,
// whatever a.
func (s Shard) ByRealization(base int) func(a, r int) bool {
	return func(_, r int) bool { return s.Holds(base + r) }
}

// Held lists, ascending, the units of a configuration of algorithms ×
// realizations (numbered from base, algorithm-major: base + a·R + r) that
// the selection in takes.
func Held(in func(a, r int) bool, base, algorithms, realizations int) []int {
	var units []int
	for a := range algorithms {
		for r := range realizations {
			if in(a, r) {
				units = append(units, base+a*realizations+r)
			}
		}
	}
	return units
}
