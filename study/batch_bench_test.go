package study_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/safegp/safegp/study/api"
)

// BenchmarkAskBatch is the performance case: `ask --count 8` (one
// AskBatch of 8, from 0 pending: the policy's 8 choices, their events
// and leases in one transaction) at N = 10 000 after t = 500 observations
// (target ≤ 20 ms); k = 1 is a plain ask's path. The study is
// BenchmarkAsk's with β = 4, under which its safe set grows to about 1 300
// actions by t = 500 (with the paper's β_t, √β_t ≈ 7, it stays empty and
// every ask falls back to the one seed: no batch to speak of). The tells
// of the batch are outside the timer, so t grows by k per op: run it with
// a fixed count (-benchtime 10x: t = 500 … 572). bandit.BenchmarkAskBatch
// times the policy's part at a fixed t.
func BenchmarkAskBatch(b *testing.B) {
	spec := strings.Replace(benchSpec(100), "  delta: 0.01\n", "  delta: 0.01\n  beta: 4\n", 1)
	for _, k := range []int{1, 8} {
		b.Run(fmt.Sprintf("N=10000/t=500/k=%d", k), func(b *testing.B) {
			_, v := setupSpec(b, spec, 500)
			ctx := context.Background()
			if sum, err := v.Show(ctx, "s"); err != nil {
				b.Fatal(err)
			} else {
				b.Logf("safe set: %d actions", sum.SafeSetSize)
			}
			for b.Loop() {
				as, err := v.AskBatch(ctx, "s", api.AskOptions{Count: k, LeaseSeconds: 60})
				if err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				if len(as) != k {
					b.Fatalf("a batch of %d asks, want %d", len(as), k)
				}
				for _, a := range as {
					f, g := benchTruth(a.X)
					id := a.Ask
					if _, err := v.Tell(ctx, "s", &api.TellRequest{Ask: &id, F: &f, G: g}); err != nil {
						b.Fatal(err)
					}
				}
				b.StartTimer()
			}
		})
	}
}
