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
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	idx, f := 5, -1.0
	for name, op := range map[string]func() error{
		"ask": func() error { _, err := v.Ask(cancelled, "s"); return err },
		"tell": func() error {
			_, err := v.Tell(cancelled, "s", &TellRequest{Index: &idx, F: &f, G: []float64{0.5}})
			return err
		},
		"retract": func() error { _, err := v.Retract(cancelled, "s", 2); return err },
	} {
		if _, err := v.Show(ctx, "s"); err != nil { // loaded
			t.Fatal(err)
		}
		if err := op(); !errors.Is(err, errWrite) || !errors.Is(err, context.Canceled) {
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
