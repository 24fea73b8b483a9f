package study

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
)

// BenchmarkLastSeq times the look at the records every call of the
// service takes first (Service.with): one indexed read of the last
// sequence number, here of a study with 200 events (its horizon's 100 rounds).
func BenchmarkLastSeq(b *testing.B) {
	v := lruService(b, filepath.Join(b.TempDir(), "l.db"), 4)
	s, err := ParseSpec(fmt.Appendf(nil, lruSpec, 4))
	if err != nil {
		b.Fatal(err)
	}
	r, err := s.Resolve("")
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	if err := v.Create(ctx, "s", r); err != nil {
		b.Fatal(err)
	}
	for range 100 {
		round(b, v, "s")
	}
	for b.Loop() {
		if _, err := v.store.LastSeq(ctx, "s"); err != nil {
			b.Fatal(err)
		}
	}
}
