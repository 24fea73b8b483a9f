// Package opencache holds the values a service keeps open in memory, by
// name: at most a number of them, whose memory estimates add up to at
// most a limit when one is set; the least recently used value not in use
// goes first. It knows nothing of how a value is loaded or changed: the
// caller loads into an entry under its lock and tells the cache its size.
// Package study keeps its open studies in one.
//
// Layer 0 (docs/layout.md): it imports only the standard library.
package opencache

import (
	"context"
	"sync"
)

// Cache holds at most maxOpen values, whose estimates (size) add up to at
// most maxMemory when it is set. Safe for concurrent use.
type Cache[T any] struct {
	maxOpen   int
	maxMemory int64
	mu        sync.Mutex
	size      func(*T) int64
	entries   map[string]*Entry[T] // at most maxOpen
	clock     uint64               // counts uses, for least recently used
	bytes     int64                // memory estimates of the loaded studies
	freed     chan struct{}        // closed and replaced when an entry falls out of use
}

// Entry is one value's place in the cache. Its holder locks Mu while it
// loads, reads or changes Val.
type Entry[T any] struct {
	refs  int    // calls using or waiting for the entry; guarded by cache.mu
	used  uint64 // cache.clock at the last use; guarded by cache.mu
	bytes int64  // the loaded study's memory estimate; guarded by cache.mu
	Mu    sync.Mutex
	Val   *T // nil until loaded; guarded by Mu
}

// New makes a cache of at most maxOpen values within maxMemory (0: no
// limit), size estimating a loaded value's memory.
func New[T any](maxOpen int, maxMemory int64, size func(*T) int64) *Cache[T] {
	return &Cache[T]{maxOpen: maxOpen, maxMemory: maxMemory, size: size, entries: map[string]*Entry[T]{}, freed: make(chan struct{})}
}

// Acquire returns the named value's entry, counted as in use, making room
// for it if needed; while every place is in use it waits, until ctx ends
// (its error).
func (c *Cache[T]) Acquire(ctx context.Context, name string) (*Entry[T], error) {
	for {
		c.mu.Lock()
		e, ok := c.entries[name]
		if !ok && (len(c.entries) < c.maxOpen || c.evict()) {
			e, ok = &Entry[T]{}, true
			c.entries[name] = e
		}
		if ok {
			e.refs++
			c.clock++
			e.used = c.clock
			c.mu.Unlock()
			return e, nil
		}
		wait := c.freed
		c.mu.Unlock()
		select {
		case <-wait:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// evict drops the least recently used entry not in use, if there is one.
// Call with c.mu held.
func (c *Cache[T]) evict() bool {
	var name string
	var lru *Entry[T]
	for n, e := range c.entries {
		if e.refs == 0 && (lru == nil || e.used < lru.used) {
			name, lru = n, e
		}
	}
	if lru == nil {
		return false
	}
	delete(c.entries, name)
	c.bytes -= lru.bytes
	return true
}

// Full is Admit's refusal: the values in use hold Held of the Limit and
// the new one needs Need more.
type Full struct{ Held, Limit, Need int64 }

// Admit counts e's freshly loaded value against maxMemory, dropping least
// recently used values not in use to make room; when the values in use
// leave no room it counts nothing and says how full the cache is. Call
// with e.Mu held.
func (c *Cache[T]) Admit(e *Entry[T]) (Full, bool) {
	b := c.size(e.Val)
	c.mu.Lock()
	defer c.mu.Unlock()
	for c.maxMemory > 0 && c.bytes+b > c.maxMemory {
		if !c.evict() {
			return Full{c.bytes, c.maxMemory, b}, false
		}
	}
	c.bytes += b
	e.bytes = b
	return Full{}, true
}

// Resize recounts e's value, whose estimate may have grown. Call with
// e.Mu held.
func (c *Cache[T]) Resize(e *Entry[T]) {
	b := c.size(e.Val)
	c.mu.Lock()
	c.bytes += b - e.bytes
	e.bytes = b
	c.mu.Unlock()
}

// Unload empties e: its value is loaded again on its next use. Call with
// e.Mu held.
func (c *Cache[T]) Unload(e *Entry[T]) {
	c.mu.Lock()
	c.bytes -= e.bytes
	e.bytes = 0
	c.mu.Unlock()
	e.Val = nil
}

// Release ends a use of e; loaded says whether it holds a value. An entry
// left unused and empty (the name is unknown, or must be reloaded) is
// dropped at once rather than hold a place.
func (c *Cache[T]) Release(name string, e *Entry[T], loaded bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e.refs--
	if e.refs > 0 {
		return
	}
	if !loaded && c.entries[name] == e {
		delete(c.entries, name)
		c.bytes -= e.bytes
		e.bytes = 0
	}
	close(c.freed)
	c.freed = make(chan struct{})
}

// Forget drops the named entry if no call uses it: the value was deleted
// or renamed, and its name must load afresh. A call using it meanwhile
// releases it as usual; the next one loads it again.
func (c *Cache[T]) Forget(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.entries[name]; ok && e.refs == 0 {
		delete(c.entries, name)
		c.bytes -= e.bytes
	}
}

// Len is the number of entries, loaded or being loaded.
func (c *Cache[T]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}

// Lookup returns the named entry, nil when there is none, without
// using it: for tests that look at what a service holds.
func (c *Cache[T]) Lookup(name string) *Entry[T] {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.entries[name]
}
