package study

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"testing"
)

// TestFailedWriteDropsTheStudy: a write that fails after the policy was
// consulted (here its context is cancelled when the event is stored) must
// leave no study in memory, so that the next call rebuilds it from the
// records (Service.with); the failure changes nothing and the study goes
// on as one that never saw it.
func TestFailedWriteDropsTheStudy(t *testing.T) {
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
	for name, op := range map[string]func(context.Context) error{
		"ask": func(c context.Context) error { _, err := v.Ask(c, "s"); return err },
		"tell": func(c context.Context) error {
			_, err := v.Tell(c, "s", &TellRequest{Index: &idx, F: &f, G: []float64{0.5}})
			return err
		},
		"retract": func(c context.Context) error { _, err := v.Retract(c, "s", 2); return err },
	} {
		if _, err := v.Show(ctx, "s"); err != nil { // loaded
			t.Fatal(err)
		}
		// Cancelled once the study is loaded and checked against the
		// records: the write itself fails.
		cancelled, cancel := context.WithCancel(ctx)
		testAfterCheck = func(string) { cancel() }
		err := op(cancelled)
		testAfterCheck = nil
		if !errors.Is(err, errWrite) || !errors.Is(err, context.Canceled) {
			t.Fatalf("%s with a cancelled context: %v, want a failed write", name, err)
		}
		if n := v.loaded(); n != 0 {
			t.Errorf("after a failed %s the service still holds %d studies: memory could differ from the records", name, n)
		}
	}
	for range 3 {
		if got, want := round(t, v, "s"), round(t, ref, "s"); got != want {
			t.Fatalf("after failed writes the study plays %d, one that never saw them %d", got, want)
		}
	}
}

// TestMigrateRefusesNewerSchema: the schema check inside the migration's
// transaction (another process may have upgraded the file since Open
// inspected it) refuses a newer version and leaves it alone.
func TestMigrateRefusesNewerSchema(t *testing.T) {
	st, err := Open(filepath.Join(t.TempDir(), "n.db"), OpenOptions{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	newer := len(migrations) + 1
	if _, err := st.db.Exec(`UPDATE schema_version SET version = ?`, newer); err != nil {
		t.Fatal(err)
	}
	if err := st.migrate(); !errors.Is(err, ErrNewerSchema) {
		t.Errorf("migrate over schema %d: %v, want ErrNewerSchema", newer, err)
	}
	var v int
	if err := st.db.QueryRow(`SELECT version FROM schema_version`).Scan(&v); err != nil || v != newer {
		t.Errorf("schema version now %d (%v), want %d untouched", v, err, newer)
	}
}

// TestStaleWriteRetriedOnce is issue 24, item 8: a write that loses the
// race to another process (it writes between our look at the records and
// our insert) is retried once on the study reloaded, instead of handing
// every client a 409; only a second loss in a row is ErrStale.
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
			if _, err := one.Tell(ctx, "s", &TellRequest{Index: &idx, F: &f, G: []float64{0.5}}); err != nil {
				t.Error(err)
			}
			testAfterCheck = other(n)
		}
	}
	idx, f := 9, -2.0
	testAfterCheck = other(1)
	ans, err := two.Tell(ctx, "s", &TellRequest{Index: &idx, F: &f, G: []float64{0.5}})
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
	_, err = two.Tell(ctx, "s", &TellRequest{Index: &idx, F: &f, G: []float64{0.5}})
	testAfterCheck = nil
	if !errors.Is(err, ErrStale) || races != 2 {
		t.Errorf("a tell that lost two races: %v after %d, want ErrStale", err, races)
	}
	obs, err := one.Observations(ctx, "s")
	if err != nil || len(obs) != 1+1+1+2 {
		t.Errorf("the records hold %d observations (%v), want 5: one round's, ours once, the other's three", len(obs), err)
	}
}
