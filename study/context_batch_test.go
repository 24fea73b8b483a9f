package study_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/safegp/safegp/study"
)

// TestContextBatch: batches in a study with a context. A batch is chosen in
// the context asked, every ask of it distinct and recorded with that
// context; another context waits until the batch is told (409); a study
// reopened from its records hands out the same next batch; and in one
// context throughout, the batches are those of the same study without a
// context.
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
				as, err := live.AskBatch(ctx, "s", study.AskOptions{Count: 3, Context: c})
				if err != nil {
					t.Fatal(err)
				}
				again, err := reopened.AskBatch(ctx, "s", study.AskOptions{Count: 3, Context: c})
				if err != nil {
					t.Fatal(err)
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
				other := contexts[(round+1)%len(contexts)]
				if _, err := live.AskBatch(ctx, "s", study.AskOptions{Count: 2, Context: other}); !errors.Is(err, study.ErrContextPending) {
					t.Fatalf("round %d: a batch in another context with %d asks pending: %v, want ErrContextPending", round, len(as), err)
				}
				// Told last first: any order.
				for k := len(as) - 1; k >= 0; k-- {
					f, g := ctxTruth(as[k].X[0], c)
					if _, err := live.Tell(ctx, "s", &study.TellRequest{Ask: &as[k].Ask, F: &f, G: g}); err != nil {
						t.Fatal(err)
					}
				}
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
				want, err := plain.AskBatch(ctx, "s", study.AskOptions{Count: k})
				if err != nil {
					t.Fatal(err)
				}
				got, err := with.AskBatch(ctx, "s", study.AskOptions{Count: k, Context: temp})
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
						if _, err := v.Tell(ctx, "s", &study.TellRequest{Ask: &want[j].Ask, F: &f, G: g}); err != nil {
							t.Fatal(err)
						}
					}
				}
			}
		})
	}
}
