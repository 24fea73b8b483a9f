package study_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/safegp/safegp/bandit"
	"github.com/safegp/safegp/study"
	"github.com/safegp/safegp/study/api"
)

// TestContextBatch: batches in a study with a context. A batch is chosen in
// the context asked, every ask of it distinct and recorded with that
// context; a batch in another context is handed out while the previous
// one is still pending, which is told after it; and a study reopened from
// its records hands out the same next batch.
func TestContextBatch(t *testing.T) {
	ctx := context.Background()
	contexts := []map[string]float64{{"temperature": 20, "load": 0.1}, {"temperature": 25, "load": 0.3}, {"temperature": 10, "load": 0}}
	for name, alg := range replaySpecs {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "live.db")
			live, _ := newService(t, path)
			if err := live.Create(ctx, "s", resolved(t, ctxSpec(alg, twoContext))); err != nil {
				t.Fatal(err)
			}
			asked := 0
			var last []*api.AskAnswer
			defer func() {
				if asked <= 6 {
					t.Errorf("6 batches of up to 3 handed out %d asks: no batch had more than one", asked)
				}
			}()
			for round := range 6 {
				c := contexts[round%len(contexts)]
				// Before the batch, a copy of the records: reopened, it
				// must hand out the batch the live study does.
				cp := filepath.Join(dir, fmt.Sprint("copy", round, ".db"))
				copyDB(t, path, cp)
				reopened, _ := newService(t, cp)
				as, err := live.AskBatch(ctx, "s", api.AskOptions{Count: 3, Context: c})
				again, errAgain := reopened.AskBatch(ctx, "s", api.AskOptions{Count: 3, Context: c})
				if errors.Is(err, api.ErrNoSafeSetting) && errors.Is(errAgain, api.ErrNoSafeSetting) {
					// This truth breaks the limit at the seeds in some
					// contexts: there they are never asked again, and
					// lipschitz mode certifies nothing beyond them.
					t.Logf("round %d: %v", round, err)
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				if errAgain != nil {
					t.Fatal(errAgain)
				}
				asked += len(as)
				var idx, idxAgain []int
				for k, a := range as {
					idx = append(idx, a.Index)
					idxAgain = append(idxAgain, again[k].Index)
					if a.Context["temperature"] != c["temperature"] || a.Context["load"] != c["load"] {
						t.Fatalf("round %d: ask %d has context %v, asked in %v", round, a.Ask, a.Context, c)
					}
				}
				if !slices.Equal(idx, idxAgain) {
					t.Fatalf("round %d: reopened, the batch is %v; kept in memory, %v", round, idxAgain, idx)
				}
				sorted := slices.Clone(idx)
				slices.Sort(sorted)
				if len(slices.Compact(sorted)) != len(idx) {
					t.Fatalf("round %d: batch %v has an action twice", round, idx)
				}
				// The previous round's batch, in another context, is
				// told only now, last first: any order, any context.
				for k := len(last) - 1; k >= 0; k-- {
					f, g := ctxTruth(last[k].X[0], last[k].Context)
					if _, err := live.Tell(ctx, "s", &api.TellRequest{Ask: &last[k].Ask, F: &f, G: g}); err != nil {
						t.Fatal(err)
					}
				}
				last = as
			}
		})
	}
}

// TestContextBatchOneContext: in one context throughout, a study with a
// context hands out the batches of the same study without one.
func TestContextBatchOneContext(t *testing.T) {
	ctx := context.Background()
	temp := map[string]float64{"temperature": 21.5}
	for name, alg := range replaySpecs {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			plain, _ := newService(t, filepath.Join(dir, "plain.db"))
			with, _ := newService(t, filepath.Join(dir, "context.db"))
			if err := plain.Create(ctx, "s", resolved(t, ctxSpec(alg, ""))); err != nil {
				t.Fatal(err)
			}
			if err := with.Create(ctx, "s", resolved(t, ctxSpec(alg, oneContext))); err != nil {
				t.Fatal(err)
			}
			asked := 0
			defer func() {
				if asked <= 8 {
					t.Errorf("8 batches of 1 to 4 handed out %d asks: no batch had more than one", asked)
				}
			}()
			for round := range 8 {
				k := 1 + round%4
				want, err := plain.AskBatch(ctx, "s", api.AskOptions{Count: k})
				if err != nil {
					t.Fatal(err)
				}
				got, err := with.AskBatch(ctx, "s", api.AskOptions{Count: k, Context: temp})
				if err != nil {
					t.Fatal(err)
				}
				asked += len(got)
				if len(got) != len(want) {
					t.Fatalf("round %d: %d asks with the context, %d without", round, len(got), len(want))
				}
				for j := range want {
					if got[j].Ask != want[j].Ask || got[j].Index != want[j].Index {
						t.Fatalf("round %d: ask %d is %+v with the context, %+v without", round, j, got[j], want[j])
					}
					f, g := ctxTruth(want[j].X[0], temp)
					for _, v := range []*study.Service{plain, with} {
						if _, err := v.Tell(ctx, "s", &api.TellRequest{Ask: &want[j].Ask, F: &f, G: g}); err != nil {
							t.Fatal(err)
						}
					}
				}
			}
		})
	}
}

// TestContextPendingCap: asks may be pending in at most
// bandit.MaxPendingContexts contexts besides the one asked; beyond, an ask
// fails with ErrContextPending naming the oldest and records nothing, and
// once one of them is told the new context is asked.
func TestContextPendingCap(t *testing.T) {
	ctx := context.Background()
	v, st := newService(t, filepath.Join(t.TempDir(), "s.db"))
	if err := v.Create(ctx, "s", resolved(t, ctxSpec(replaySpecs["stageopt gp"], oneContext))); err != nil {
		t.Fatal(err)
	}
	var asks []*api.AskAnswer
	for k := range bandit.MaxPendingContexts + 1 {
		a, err := v.AskIn(ctx, "s", map[string]float64{"temperature": float64(k)})
		if err != nil {
			t.Fatalf("context %d with asks pending in %d others: %v", k, k, err)
		}
		asks = append(asks, a)
	}
	before, _ := st.Events(ctx, "s")
	next := map[string]float64{"temperature": 99}
	if _, err := v.AskIn(ctx, "s", next); !errors.Is(err, api.ErrContextPending) || !strings.Contains(err.Error(), fmt.Sprint("ask ", asks[0].Ask)) {
		t.Fatalf("a context beyond %d others holding asks: %v, want api.ErrContextPending naming ask %d", bandit.MaxPendingContexts, err, asks[0].Ask)
	}
	if after, _ := st.Events(ctx, "s"); len(after) != len(before) {
		t.Errorf("the refused ask recorded %d events", len(after)-len(before))
	}
	f, g := ctxTruth(asks[2].X[0], asks[2].Context)
	if _, err := v.Tell(ctx, "s", &api.TellRequest{Ask: &asks[2].Ask, F: &f, G: g}); err != nil {
		t.Fatal(err)
	}
	if _, err := v.AskIn(ctx, "s", next); err != nil {
		t.Errorf("the new context once one of the others' asks is told: %v", err)
	}
}
