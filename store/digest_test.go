package store_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/safegp/safegp/store"
)

// TestDigest: the digest of a study's records is the same on every read of
// the same records, and changes with any edit of a stored column — a
// value, a NULL for a value, the spec — and with an appended event, whose
// count it also returns; another study's records do not change it.
func TestDigest(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, err := store.Open(filepath.Join(t.TempDir(), "d.db"), store.OpenOptions{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	actions := [][]float64{{0}, {1}, {2}}
	for _, name := range []string{"s", "other"} {
		if err := st.Create(ctx, name, []byte(`{}`), actions, []int{0}); err != nil {
			t.Fatal(err)
		}
	}
	now := time.Now()
	one := func(seq int) store.Event {
		return store.Event{Seq: seq, Kind: "tell", Index: 1, X: actions[1], F: 0.5, G: []float64{1}, Created: now}
	}
	if err := st.AppendAll(ctx, "s", []store.Event{one(1), one(2)}); err != nil {
		t.Fatal(err)
	}
	d0, n, err := st.Digest(ctx, "s")
	if err != nil || n != 2 {
		t.Fatalf("digest: %d events, %v; want 2", n, err)
	}
	if d, _, _ := st.Digest(ctx, "s"); d != d0 {
		t.Fatal("two reads of the same records give different digests")
	}
	db := store.DB(st)
	for _, c := range []struct{ name, edit, undo string }{
		{"f", `UPDATE events SET f = 0.25 WHERE study = 's' AND seq = 2`, `UPDATE events SET f = 0.5 WHERE study = 's' AND seq = 2`},
		{"g", `UPDATE events SET g = '[2]' WHERE study = 's' AND seq = 1`, `UPDATE events SET g = '[1]' WHERE study = 's' AND seq = 1`},
		{"noise_std NULL to 0", `UPDATE events SET noise_std = 0 WHERE study = 's' AND seq = 1`, `UPDATE events SET noise_std = NULL WHERE study = 's' AND seq = 1`},
		{"spec", `UPDATE studies SET spec = '{ }' WHERE name = 's'`, `UPDATE studies SET spec = '{}' WHERE name = 's'`},
	} {
		if _, err := db.Exec(c.edit); err != nil {
			t.Fatal(err)
		}
		if d, _, _ := st.Digest(ctx, "s"); d == d0 {
			t.Errorf("%s edited: the digest did not change", c.name)
		}
		if _, err := db.Exec(c.undo); err != nil {
			t.Fatal(err)
		}
		if d, _, _ := st.Digest(ctx, "s"); d != d0 {
			t.Errorf("%s restored: the digest is not the original", c.name)
		}
	}
	if err := st.AppendAll(ctx, "other", []store.Event{one(1)}); err != nil {
		t.Fatal(err)
	}
	if d, _, _ := st.Digest(ctx, "s"); d != d0 {
		t.Error("another study's event changed the digest")
	}
	if err := st.AppendAll(ctx, "s", []store.Event{one(3)}); err != nil {
		t.Fatal(err)
	}
	d3, n, _ := st.Digest(ctx, "s")
	if d3 == d0 || n != 3 {
		t.Errorf("after an append: %d events, digest changed %v", n, d3 != d0)
	}
	// Continued from the digest of the first two events over the third:
	// the digest of all three.
	if d, n, err := st.DigestFrom(ctx, "s", d0, 2); d != d3 || n != 3 || err != nil {
		t.Errorf("DigestFrom(d0, 2) = %x, %d, %v; want %x, 3", d, n, err, d3)
	}
	if _, _, err := st.Digest(ctx, "missing"); err == nil {
		t.Error("the digest of a study that does not exist: no error")
	}
}
