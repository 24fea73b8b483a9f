package study_test

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"testing"

	"github.com/safegp/safegp/store"
	"github.com/safegp/safegp/study"
)

// TestRecheck: a study edited behind a service without adding an event
// (its f set to NULL, then a value changed) is noticed by a service with
// ServiceOptions.Recheck — the damage refused as a fresh process refuses
// it, the edited value in force once repaired — and not by one without,
// which reads only the last event's number and answers from memory.
func TestRecheck(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "r.db")
	st, err := store.Open(path, store.OpenOptions{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	re := study.NewService(st, study.ServiceOptions{Recheck: true})
	plain := study.NewService(st, study.ServiceOptions{})
	if err := re.Create(ctx, "s", resolved(t, specYAML)); err != nil {
		t.Fatal(err)
	}
	got := drive(t, re, "s", 4)
	for _, v := range []*study.Service{re, plain} {
		if _, err := v.Show(ctx, "s"); err != nil {
			t.Fatal(err)
		}
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`UPDATE events SET f = NULL WHERE seq = 2`); err != nil {
		t.Fatal(err)
	}
	if _, err := re.Show(ctx, "s"); !errors.Is(err, store.ErrDamaged) {
		t.Errorf("with Recheck, show of the damaged study: %v, want ErrDamaged", err)
	}
	if _, err := plain.Show(ctx, "s"); err != nil {
		t.Errorf("without Recheck, show answers from memory: %v", err)
	}
	// Repaired with another value: the rechecking service replays it.
	if _, err := db.Exec(`UPDATE events SET f = 123 WHERE seq = 2`); err != nil {
		t.Fatal(err)
	}
	sum, err := re.Show(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	if sum.Rounds != 4 || sum.Best.Index != got[0] {
		t.Errorf("after the repair: %d rounds, best action %d; want 4, and action %d, where f is now 123", sum.Rounds, sum.Best.Index, got[0])
	}
}
