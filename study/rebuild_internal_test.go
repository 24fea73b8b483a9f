package study

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/safegp/safegp/bandit"
	"github.com/safegp/safegp/store"
	"github.com/safegp/safegp/study/api"
)

// TestFailedWriteChangesNothing: a write that fails after the policy was
// consulted (here its context is cancelled when the events are stored)
// leaves the study as it was — the asks its policy chose taken back, with
// their random draws (bandit.Rollback) — kept in memory, not thrown away
// and replayed; it goes on as one that never saw the failure, asking what
// that one asks.
func TestFailedWriteChangesNothing(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	r := func() *Resolved {
		s, err := ParseSpec(fmt.Appendf(nil, lruSpec, 4))
		if err != nil {
			t.Fatal(err)
		}
		res, err := s.Resolve("")
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	v := lruService(t, filepath.Join(dir, "f.db"), 4)
	ref := lruService(t, filepath.Join(dir, "ref.db"), 4)
	for _, s := range []*Service{v, ref} {
		if err := s.Create(ctx, "s", r()); err != nil {
			t.Fatal(err)
		}
		round(t, s, "s")
	}
	idx, f := 5, -1.0
	for _, c := range []struct {
		name string
		op   func(context.Context) error
	}{
		{"ask", func(c context.Context) error { _, err := v.Ask(c, "s"); return err }},
		{"batch", func(c context.Context) error {
			_, err := v.AskBatch(c, "s", api.AskOptions{Count: 3, LeaseSeconds: 60})
			return err
		}},
		{"tell", func(c context.Context) error {
			_, err := v.Tell(c, "s", &api.TellRequest{Index: &idx, F: &f, G: []float64{0.5}})
			return err
		}},
		{"retract", func(c context.Context) error { _, err := v.Retract(c, "s", 2); return err }},
	} {
		var before *Study
		if err := v.with(ctx, "s", func(s *Study) error { before = s; return nil }); err != nil {
			t.Fatal(err)
		}
		events, draws := len(before.events), *before.src
		// Cancelled once the study is loaded and checked against the
		// records: the write itself fails.
		cancelled, cancel := context.WithCancel(ctx)
		testAfterCheck = func(string) { cancel() }
		err := c.op(cancelled)
		testAfterCheck = nil
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("%s with a cancelled context: %v, want a failed write", c.name, err)
		}
		var after *Study
		if err := v.with(ctx, "s", func(s *Study) error { after = s; return nil }); err != nil {
			t.Fatal(err)
		}
		if after != before || len(after.events) != events || *after.src != draws || len(bandit.Pending(after.pol)) != len(after.pending) {
			t.Errorf("after a failed %s: the study was replaced, or holds %d events (%d before), its stream moved, or its policy holds %d asks for %d pending", c.name, len(after.events), events, len(bandit.Pending(after.pol)), len(after.pending))
		}
	}
	for range 3 {
		if got, want := round(t, v, "s"), round(t, ref, "s"); got != want {
			t.Fatalf("after failed writes the study plays %d, one that never saw them %d", got, want)
		}
	}
}

// TestStaleWriteRetriedOnce is issue 24, item 8: a write that loses the
// race to another process (it writes between our look at the records and
// our insert) is retried once on the study reloaded, instead of handing
// every client a 409; only a second loss in a row is store.ErrStale.
func TestStaleWriteRetriedOnce(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "race.db")
	one, two := lruService(t, path, 4), lruService(t, path, 4)
	r, err := ParseSpec(fmt.Appendf(nil, lruSpec, 4))
	if err != nil {
		t.Fatal(err)
	}
	res, err := r.Resolve("")
	if err != nil {
		t.Fatal(err)
	}
	if err := one.Create(ctx, "s", res); err != nil {
		t.Fatal(err)
	}
	round(t, one, "s")
	if _, err := two.Show(ctx, "s"); err != nil { // loaded
		t.Fatal(err)
	}
	// The other process tells at every look two takes, up to races of
	// its writes.
	races := 0
	var other func(n int) func(string)
	other = func(n int) func(string) {
		return func(string) {
			if races >= n {
				return
			}
			races++
			testAfterCheck = nil // one's own calls
			idx, f := 3+races, -1.0
			if _, err := one.Tell(ctx, "s", &api.TellRequest{Index: &idx, F: &f, G: []float64{0.5}}); err != nil {
				t.Error(err)
			}
			testAfterCheck = other(n)
		}
	}
	idx, f := 9, -2.0
	testAfterCheck = other(1)
	ans, err := two.Tell(ctx, "s", &api.TellRequest{Index: &idx, F: &f, G: []float64{0.5}})
	testAfterCheck = nil
	if err != nil || races != 1 {
		t.Fatalf("a tell that lost one race: %+v, %v after %d races; want it retried", ans, err, races)
	}
	// A round's ask and tell (events 1, 2), the other's tell (3), then
	// ours (4).
	if ans.Observation != 4 || ans.Rounds != 3 {
		t.Errorf("the retried tell: %+v, want observation 4 and 3 rounds", ans)
	}
	races = 0
	testAfterCheck = other(2)
	_, err = two.Tell(ctx, "s", &api.TellRequest{Index: &idx, F: &f, G: []float64{0.5}})
	testAfterCheck = nil
	if !errors.Is(err, store.ErrStale) || races != 2 {
		t.Errorf("a tell that lost two races: %v after %d, want store.ErrStale", err, races)
	}
	obs, err := one.Observations(ctx, "s")
	if err != nil || len(obs) != 1+1+1+2 {
		t.Errorf("the records hold %d observations (%v), want 5: one round's, ours once, the other's three", len(obs), err)
	}
}
