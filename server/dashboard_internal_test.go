package server

import (
	"fmt"
	"strings"
	"testing"
)

// TestViewCache: a view is kept by version (events and leases), the least
// recently used study goes first beyond viewCacheStudies, an answer above
// viewCacheBody is not kept, and ETags carry the cache's nonce, the
// number of events and the leases' digest.
func TestViewCache(t *testing.T) {
	c := newViewCache()
	v := func(events int) viewVersion { return viewVersion{events: events} }
	for i := range viewCacheStudies {
		c.put(fmt.Sprint("s", i), v(3), []byte{byte(i)})
	}
	if _, ok := c.get("s0", v(3)); !ok { // s0 used again: s1 is now the oldest
		t.Fatal("s0 not kept")
	}
	if _, ok := c.get("s0", v(4)); ok {
		t.Error("s0 answered for another version")
	}
	if _, ok := c.get("s0", viewVersion{3, 0xbeef}); ok {
		t.Error("s0 answered for other leases")
	}
	c.put("new", v(1), []byte("x"))
	for _, tc := range []struct {
		name    string
		version int
		kept    bool
	}{{"s0", 3, true}, {"s1", 3, false}, {"s2", 3, true}, {"new", 1, true}} {
		if _, ok := c.get(tc.name, v(tc.version)); ok != tc.kept {
			t.Errorf("%s kept: %v, want %v", tc.name, ok, tc.kept)
		}
	}
	if len(c.entries) != viewCacheStudies {
		t.Errorf("%d entries, want %d", len(c.entries), viewCacheStudies)
	}
	c.put("big", v(1), make([]byte, viewCacheBody+1))
	if _, ok := c.get("big", v(1)); ok {
		t.Error("an answer above viewCacheBody was kept")
	}
	if e, o := c.etag(v(7)), newViewCache().etag(v(7)); !strings.HasSuffix(e, `-7"`) || !strings.HasPrefix(e, `"`+c.nonce) || e == o {
		t.Errorf("ETags %s and %s (another server's)", e, o)
	}
	if e := c.etag(viewVersion{7, 0xbeef}); !strings.HasSuffix(e, `-7-beef"`) {
		t.Errorf("ETag with leases %s, want it to end -7-beef", e)
	}
}
