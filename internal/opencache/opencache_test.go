package opencache

import (
	"context"
	"errors"
	"testing"
	"time"
)

type val struct{ size int64 }

func load(c *Cache[val], name string, size int64) (*Entry[val], Full, bool) {
	e, err := c.Acquire(context.Background(), name)
	if err != nil {
		panic(err)
	}
	e.Mu.Lock()
	defer e.Mu.Unlock()
	if e.Val == nil {
		e.Val = &val{size}
		if full, ok := c.Admit(e); !ok {
			e.Val = nil
			return e, full, false
		}
	}
	return e, Full{}, true
}

// TestLeastRecentlyUsedGoes: a full cache drops the value used longest
// ago that no call holds, by count and by memory; a value in use is never
// dropped, and when only such values fill the memory Admit says how full.
func TestLeastRecentlyUsedGoes(t *testing.T) {
	t.Parallel()
	c := New(2, 100, func(v *val) int64 { return v.size })
	a, _, _ := load(c, "a", 30)
	c.Release("a", a, true)
	b, _, _ := load(c, "b", 30)
	c.Release("b", b, true)
	a, _, _ = load(c, "a", 30) // a is now the more recent
	c.Release("a", a, true)
	d, _, _ := load(c, "d", 30) // by count: b goes
	if c.Lookup("b") != nil || c.Lookup("a") == nil || c.Len() != 2 {
		t.Fatalf("after a third value: b %v, a %v, %d entries; want b dropped", c.Lookup("b"), c.Lookup("a"), c.Len())
	}
	// d is held; a big value drops a but not d, and still does not fit.
	e, full, ok := load(c, "e", 80)
	if ok || full != (Full{Held: 30, Limit: 100, Need: 80}) {
		t.Fatalf("admit beside a held value: %v %+v, want refused, 30 of 100 held, 80 needed", ok, full)
	}
	c.Release("e", e, false)
	if c.Lookup("a") != nil || c.Lookup("e") != nil {
		t.Fatal("a refused value or the value dropped for it is still there")
	}
	d.Val.size = 60
	c.Resize(d)
	c.Release("d", d, true)
	if _, _, ok := load(c, "f", 50); !ok || c.Lookup("d") != nil {
		t.Fatal("a resized value not in use was not dropped to make room")
	}
}

// TestAcquireWaits: with every place in use, Acquire waits for a release,
// or returns its context's error.
func TestAcquireWaits(t *testing.T) {
	t.Parallel()
	c := New(1, 0, func(*val) int64 { return 0 })
	a, _, _ := load(c, "a", 0)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := c.Acquire(ctx, "b"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("acquire with every place held: %v, want the deadline", err)
	}
	got := make(chan error)
	go func() {
		_, err := c.Acquire(context.Background(), "b")
		got <- err
	}()
	c.Release("a", a, true)
	if err := <-got; err != nil {
		t.Fatal(err)
	}
	c.Forget("a")
	if c.Lookup("a") != nil {
		t.Fatal("a forgotten entry not in use is still there")
	}
}
