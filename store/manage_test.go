package store_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/safegp/safegp/store"
)

// TestDeleteRename: a deleted study is gone with its events, leases and
// imports, and every other study untouched; a renamed one loads under
// its new name with the same events, its old name unknown; renaming
// onto an existing study or from an unknown one changes nothing.
func TestDeleteRename(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, err := store.Open(filepath.Join(t.TempDir(), "s.db"), store.OpenOptions{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, name := range []string{"a", "b", "c"} {
		if err := st.Create(ctx, name, []byte(`{}`), [][]float64{{0}, {1}}, []int{0}); err != nil {
			t.Fatal(err)
		}
		ask := store.Event{Seq: 1, Kind: "ask", Ask: 1, Index: 0, X: []float64{0}, Created: now}
		if err := st.Append(ctx, name, &ask); err != nil {
			t.Fatal(err)
		}
		if err := st.InLeaseTx(ctx, name, 1, func(lt *store.LeaseTx) error { _, err := lt.Lease(1, now.Add(time.Hour).UnixMilli(), now); return err }); err != nil {
			t.Fatal(err)
		}
		tell := store.Event{Seq: 2, Kind: "tell", Ask: 1, Index: 0, X: []float64{0}, F: 1, G: []float64{}, Created: now}
		if err := st.AppendImport(ctx, name, []store.Event{tell}, "digest-"+name); err != nil {
			t.Fatal(err)
		}
	}
	// A check that refuses deletes nothing.
	refuse := errors.New("refused")
	if err := st.Delete(ctx, "a", 2, func(leases map[int]int64) error {
		if len(leases) != 1 {
			t.Errorf("leases %v, want the one of ask 1", leases)
		}
		return refuse
	}); !errors.Is(err, refuse) {
		t.Fatalf("delete refused by its check: %v", err)
	}
	// A study written to since is stale.
	if err := st.Delete(ctx, "a", 1, func(map[int]int64) error { return nil }); !errors.Is(err, store.ErrStale) {
		t.Fatalf("delete with a stale count: %v, want ErrStale", err)
	}
	if err := st.Delete(ctx, "a", 2, func(map[int]int64) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if _, _, err := st.Load(ctx, "a"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("load after delete: %v, want ErrNotFound", err)
	}
	for _, q := range []string{`SELECT COUNT(*) FROM events WHERE study = 'a'`, `SELECT COUNT(*) FROM leases WHERE study = 'a'`, `SELECT COUNT(*) FROM imports WHERE study = 'a'`} {
		var n int
		if err := store.DB(st).QueryRow(q).Scan(&n); err != nil || n != 0 {
			t.Errorf("%s: %d rows (%v) after the delete", q, n, err)
		}
	}
	if err := st.Rename(ctx, "b", "c"); !errors.Is(err, store.ErrExists) {
		t.Errorf("rename onto an existing study: %v, want ErrExists", err)
	}
	if err := st.Rename(ctx, "zz", "d"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("rename of an unknown study: %v, want ErrNotFound", err)
	}
	if err := st.Rename(ctx, "b", "d"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := st.Load(ctx, "b"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("load of the old name: %v, want ErrNotFound", err)
	}
	_, evs, err := st.Load(ctx, "d")
	if err != nil || len(evs) != 2 {
		t.Fatalf("the renamed study: %d events, %v", len(evs), err)
	}
	l, err := st.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range l {
		names = append(names, s.Study)
		if s.Rounds != 1 {
			t.Errorf("%s: %d rounds, want 1", s.Study, s.Rounds)
		}
	}
	if len(names) != 2 || names[0] != "c" || names[1] != "d" {
		t.Errorf("studies %v, want [c d]", names)
	}
	var n int
	store.DB(st).QueryRow(`SELECT COUNT(*) FROM imports WHERE study = 'd'`).Scan(&n)
	if n != 1 {
		t.Errorf("the renamed study's imports: %d, want 1", n)
	}
}
