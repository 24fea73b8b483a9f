package store_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/safegp/safegp/store"
)

// TestLoadRefusesDamage: records that break the rules every safegp writes
// them by — a gap in the numbering, a tell without f or g or with a value
// out of range, an ask numbered apart from its event, a noise_std
// out of range — are ErrDamaged naming the event; records that cannot be
// read at all (bad JSON, an action outside the decision set) are errors
// naming it too. Load reads the undamaged study again after each repair.
func TestLoadRefusesDamage(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, err := store.Open(filepath.Join(t.TempDir(), "d.db"), store.OpenOptions{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	actions := [][]float64{{0}, {1}, {2}}
	if err := st.Create(ctx, "s", []byte(`{}`), actions, []int{0}); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	evs := []store.Event{
		{Seq: 1, Kind: "ask", Ask: 1, Index: 1, X: actions[1], Created: now},
		{Seq: 2, Kind: "tell", Ask: 1, Index: 1, X: actions[1], F: 0.5, G: []float64{1}, Created: now},
		{Seq: 3, Kind: "tell", Index: -1, X: []float64{1.5}, F: 0.2, G: []float64{0.3}, Context: []float64{4}, Created: now},
	}
	if err := st.AppendAll(ctx, "s", evs); err != nil {
		t.Fatal(err)
	}
	if got, err := st.Events(ctx, "s"); err != nil || len(got) != 3 || got[2].X[0] != 1.5 || got[2].Context[0] != 4 {
		t.Fatalf("undamaged: %+v, %v", got, err)
	}
	db := store.DB(st)
	for _, c := range []struct {
		name, damage, repair, want string
		damaged                    bool
	}{
		{"gap", `UPDATE events SET seq = 4 WHERE seq = 3`, `UPDATE events SET seq = 3 WHERE seq = 4`, "events 3…3 are missing", true},
		{"f null", `UPDATE events SET f = NULL WHERE seq = 2`, `UPDATE events SET f = 0.5 WHERE seq = 2`, "a tell without its f", true},
		{"f huge", `UPDATE events SET f = 1e300 WHERE seq = 2`, `UPDATE events SET f = 0.5 WHERE seq = 2`, "not a finite number", true},
		{"g null", `UPDATE events SET g = NULL WHERE seq = 2`, `UPDATE events SET g = '[1]' WHERE seq = 2`, "a tell without its g", true},
		{"g text", `UPDATE events SET g = 'one' WHERE seq = 2`, `UPDATE events SET g = '[1]' WHERE seq = 2`, "want a JSON array of numbers", true},
		{"g huge", `UPDATE events SET g = '[1e300]' WHERE seq = 2`, `UPDATE events SET g = '[1]' WHERE seq = 2`, "a value 1e+300", true},
		{"ask number", `UPDATE events SET ask = 7 WHERE seq = 1`, `UPDATE events SET ask = 1 WHERE seq = 1`, "an ask numbered 7", true},
		{"noise", `UPDATE events SET noise_std = 1e300 WHERE seq = 2`, `UPDATE events SET noise_std = NULL WHERE seq = 2`, "noise_std = 1e+300", true},
		{"action", `UPDATE events SET idx = 9 WHERE seq = 1`, `UPDATE events SET idx = 1 WHERE seq = 1`, "action 9 outside the stored decision set", false},
		{"point", `UPDATE events SET x = 'x' WHERE seq = 3`, `UPDATE events SET x = '[1.5]' WHERE seq = 3`, "event 3: point", false},
		{"context", `UPDATE events SET context = '{}' WHERE seq = 3`, `UPDATE events SET context = '[4]' WHERE seq = 3`, "event 3: context", false},
		// Issue 40, item 8: an event whose x disagrees with its index, and
		// an edited seed set, decision set or spec, replayed silently.
		{"x of an action", `UPDATE events SET x = '[2]' WHERE seq = 1`, `UPDATE events SET x = '[1]' WHERE seq = 1`, "event 1: x = [2] is not action 1", true},
		{"seeds", `UPDATE studies SET seeds = '[0,1]'`, `UPDATE studies SET seeds = '[0]'`, "seed set is not what it was created with", true},
		{"actions", `UPDATE studies SET actions = '[[0],[1],[2.5]]'`, `UPDATE studies SET actions = '[[0],[1],[2]]'`, "decision set or seed set is not what it was created with", true},
		{"spec", `UPDATE studies SET spec = '{"horizon":9}'`, `UPDATE studies SET spec = '{}'`, "specification, decision set or seed set", true},
		{"neither", `UPDATE events SET x = NULL WHERE seq = 3`, `UPDATE events SET x = '[1.5]' WHERE seq = 3`, "neither an action nor a point", false},
	} {
		if c.name == "neither" {
			// x is NOT NULL in the schema: the row is refused, as it should be.
			if _, err := db.Exec(c.damage); err == nil {
				t.Errorf("%s: the schema took it", c.name)
			}
			continue
		}
		if _, err := db.Exec(c.damage); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		_, err := st.Events(ctx, "s")
		if err == nil || errors.Is(err, store.ErrDamaged) != c.damaged || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q (ErrDamaged: %v)", c.name, err, c.want, c.damaged)
		}
		if _, err := db.Exec(c.repair); err != nil {
			t.Fatalf("%s: repair: %v", c.name, err)
		}
		if _, err := st.Events(ctx, "s"); err != nil {
			t.Fatalf("%s: after the repair: %v", c.name, err)
		}
	}
	// An action's x written as the same numbers another way (an older
	// safegp's migration) is no damage; a study made before record_sum
	// has none to check.
	for _, q := range []string{`UPDATE events SET x = '[1.0]' WHERE seq = 1`, `UPDATE studies SET record_sum = NULL, seeds = '[0,1]'`} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
		if _, err := st.Events(ctx, "s"); err != nil {
			t.Errorf("after %s: %v", q, err)
		}
	}
	if _, _, err := st.Load(ctx, "nobody"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("an unknown study: %v, want ErrNotFound", err)
	}
	if err := st.Create(ctx, "s", []byte(`{}`), actions, []int{0}); !errors.Is(err, store.ErrExists) {
		t.Errorf("a second study s: %v, want ErrExists", err)
	}
}
