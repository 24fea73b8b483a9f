package server

import (
	"fmt"
	"strings"
	"testing"
)

// TestViewCache: a view is kept by version, the least recently used study
// goes first beyond viewCacheStudies, an answer above viewCacheBody is
// not kept, and ETags carry the cache's nonce and the version.
func TestViewCache(t *testing.T) {
	c := newViewCache()
	for i := range viewCacheStudies {
		c.put(fmt.Sprint("s", i), 3, []byte{byte(i)})
	}
	if _, ok := c.get("s0", 3); !ok { // s0 used again: s1 is now the oldest
		t.Fatal("s0 not kept")
	}
	if _, ok := c.get("s0", 4); ok {
		t.Error("s0 answered for another version")
	}
	c.put("new", 1, []byte("x"))
	for _, tc := range []struct {
		name    string
		version int
		kept    bool
	}{{"s0", 3, true}, {"s1", 3, false}, {"s2", 3, true}, {"new", 1, true}} {
		if _, ok := c.get(tc.name, tc.version); ok != tc.kept {
			t.Errorf("%s kept: %v, want %v", tc.name, ok, tc.kept)
		}
	}
	if len(c.entries) != viewCacheStudies {
		t.Errorf("%d entries, want %d", len(c.entries), viewCacheStudies)
	}
	c.put("big", 1, make([]byte, viewCacheBody+1))
	if _, ok := c.get("big", 1); ok {
		t.Error("an answer above viewCacheBody was kept")
	}
	if e, o := c.etag(7), newViewCache().etag(7); !strings.HasSuffix(e, `-7"`) || !strings.HasPrefix(e, `"`+c.nonce) || e == o {
		t.Errorf("ETags %s and %s (another server's)", e, o)
	}
}
