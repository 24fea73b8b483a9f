package study

import (
	"context"
	"fmt"
	"sync"

	"github.com/safegp/safegp/internal/memlimit"
)

// cache holds the studies open in memory: at most maxOpen of them, whose
// memory estimates (Study.bytes) add up to at most maxMemory when it is
// set; the least recently used study not in use goes first. It knows
// nothing of how a study is loaded or changed: Service.with loads into an
// entry and tells the cache its size.
type cache struct {
	maxOpen   int
	maxMemory int64
	mu        sync.Mutex
	entries   map[string]*entry // at most maxOpen
	clock     uint64            // counts uses, for least recently used
	bytes     int64             // memory estimates of the loaded studies
	freed     chan struct{}     // closed and replaced when an entry falls out of use
}

// entry is one study's place in the cache.
type entry struct {
	refs  int    // calls using or waiting for the entry; guarded by cache.mu
	used  uint64 // cache.clock at the last use; guarded by cache.mu
	bytes int64  // the loaded study's memory estimate; guarded by cache.mu
	mu    sync.Mutex
	st    *Study // nil until loaded; guarded by mu
}

func newCache(maxOpen int, maxMemory int64) *cache {
	return &cache{maxOpen: maxOpen, maxMemory: maxMemory, entries: map[string]*entry{}, freed: make(chan struct{})}
}

// acquire returns the named study's entry, counted as in use, making room
// for it if needed; while every place is in use it waits, until ctx ends.
func (c *cache) acquire(ctx context.Context, name string) (*entry, error) {
	for {
		c.mu.Lock()
		e, ok := c.entries[name]
		if !ok && (len(c.entries) < c.maxOpen || c.evict()) {
			e, ok = &entry{}, true
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
			return nil, fmt.Errorf("study %q: waiting for one of the %d open studies to be free: %w", name, c.maxOpen, ctx.Err())
		}
	}
}

// evict drops the least recently used entry not in use, if there is one.
// Call with c.mu held.
func (c *cache) evict() bool {
	var name string
	var lru *entry
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

// admit counts e's freshly loaded study against maxMemory, dropping least
// recently used studies not in use to make room. Call with e.mu held.
func (c *cache) admit(e *entry) error {
	b := e.st.bytes()
	c.mu.Lock()
	defer c.mu.Unlock()
	for c.maxMemory > 0 && c.bytes+b > c.maxMemory {
		if !c.evict() {
			return fmt.Errorf("%w: the studies in use hold %s of the %s memory limit and study %q needs %s more; retry shortly", ErrOverloaded, memlimit.Format(c.bytes), memlimit.Format(c.maxMemory), e.st.name, memlimit.Format(b))
		}
	}
	c.bytes += b
	e.bytes = b
	return nil
}

// resize recounts e's study, whose estimate grows with the observations
// it holds outside its decision set. Call with e.mu held.
func (c *cache) resize(e *entry) {
	b := e.st.bytes()
	c.mu.Lock()
	c.bytes += b - e.bytes
	e.bytes = b
	c.mu.Unlock()
}

// unload empties e: its study is loaded again on its next use. Call with
// e.mu held.
func (c *cache) unload(e *entry) {
	c.mu.Lock()
	c.bytes -= e.bytes
	e.bytes = 0
	c.mu.Unlock()
	e.st = nil
}

// release ends a use of e; loaded says whether it holds a study. An entry
// left unused and empty (the study is unknown, or must be reloaded) is
// dropped at once rather than hold a place.
func (c *cache) release(name string, e *entry, loaded bool) {
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

// forget drops the named study's entry once no call uses it: the study
// was deleted or renamed, and its name must load afresh. A call using it
// meanwhile releases it as usual; the next one loads it from the store.
func (c *cache) forget(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.entries[name]; ok && e.refs == 0 {
		delete(c.entries, name)
		c.bytes -= e.bytes
	}
}
