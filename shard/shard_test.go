package shard

import (
	"slices"
	"testing"
)

func TestParseShard(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		want Shard
		ok   bool
	}{
		{"1/1", Shard{I: 1, N: 1}, true},
		{"3/7", Shard{I: 3, N: 7}, true},
		{"7/7", Shard{I: 7, N: 7}, true},
		{"0/7", Shard{}, false},
		{"8/7", Shard{}, false},
		{"1/0", Shard{}, false},
		{"-1/3", Shard{}, false},
		{"3", Shard{}, false},
		{"a/b", Shard{}, false},
		{"", Shard{}, false},
	} {
		got, err := Parse(c.in)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("Parse(%q) = %v, %v; want %v, ok %t", c.in, got, err, c.want, c.ok)
		}
	}
}

// TestShardHolds: every deal belongs to exactly one of n shards, shard
// (k mod n) + 1.
func TestShardHolds(t *testing.T) {
	t.Parallel()
	for _, n := range []int{1, 2, 7} {
		for u := 0; u < 50; u++ {
			k := 0
			for i := 1; i <= n; i++ {
				if (Shard{I: i, N: n}).Holds(u) {
					k++
					if i != u%n+1 {
						t.Errorf("deal %d in shard %d/%d", u, i, n)
					}
				}
			}
			if k != 1 {
				t.Errorf("deal %d in %d of %d shards", u, k, n)
			}
		}
	}
}

// TestShardHeld: for several bases and n, the shards' Held lists
// partition the configuration's units (each exactly once, ascending), and
// every algorithm of one realization is in the same shard (so that a
// shard draws a realization's problem once).
func TestShardHeld(t *testing.T) {
	t.Parallel()
	for _, base := range []int{0, 3, 30} {
		for _, n := range []int{1, 2, 7, 40} {
			owner := map[int]int{}
			for i := 1; i <= n; i++ {
				s := Shard{I: i, N: n}
				held := Held(s.ByRealization(base), base, 5, 6)
				if !slices.IsSorted(held) {
					t.Errorf("base %d, shard %d/%d: units %v not ascending", base, i, n, held)
				}
				for _, u := range held {
					if j, ok := owner[u]; ok {
						t.Errorf("base %d: unit %d in shards %d and %d of %d", base, u, j, i, n)
					}
					owner[u] = i
				}
			}
			for a := range 5 {
				for r := range 6 {
					u := base + a*6 + r
					if owner[u] == 0 {
						t.Errorf("base %d, n %d: unit %d in no shard", base, n, u)
					}
					if owner[u] != owner[base+r] {
						t.Errorf("base %d, n %d: realization %d's algorithm %d in shard %d, algorithm 0 in %d", base, n, r, a, owner[u], owner[base+r])
					}
				}
			}
		}
	}
}
