package main

import (
	"database/sql"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestTamperedDatabaseRefused is issue 24, item 10: an event with f = NULL
// replayed as f = 0, and a gap in the event numbers made ask retry for
// 5.5 s and then blame another process. Every stored event is checked on
// replay, and a damaged one refused at once, naming it.
func TestTamperedDatabaseRefused(t *testing.T) {
	for _, c := range []struct {
		name, sql, msg string
	}{
		{"f NULL", `UPDATE events SET f = NULL WHERE seq = 2`, "event 2: a tell without its f (NULL)"},
		{"g NULL", `UPDATE events SET g = NULL WHERE seq = 4`, "event 4: a tell without its g (NULL)"},
		{"g not numbers", `UPDATE events SET g = '["x"]' WHERE seq = 4`, "event 4: g"},
		{"a gap", `DELETE FROM events WHERE seq = 3`, "event 4: the events before it end at 2: events 3…3 are missing"},
		{"f infinite", `UPDATE events SET f = 1e999 WHERE seq = 2`, "event 2: a tell's f = +Inf"},
		{"g of another length", `UPDATE events SET g = '[]' WHERE seq = 2`, "event 2"},
		{"an ask renumbered", `UPDATE events SET ask = 7 WHERE seq = 3`, "event 3: an ask numbered 7"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			db := filepath.Join(dir, "s.db")
			safegp(t, "study", "create", writeSpec(t, dir), "--db", db)
			for range 2 {
				a := safegp(t, "study", "ask", "--db", db)
				id := a[strings.Index(a, ":")+1 : strings.Index(a, ",")]
				safegp(t, "study", "tell", "--db", db, "--ask", id, "--f", "0.5", "--g", "0.5")
			}
			h, err := sql.Open("sqlite", db)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := h.Exec(c.sql); err != nil {
				t.Fatal(err)
			}
			h.Close()
			for _, args := range [][]string{{"study", "ask", "--db", db}, {"study", "show", "--db", db}} {
				start := time.Now()
				_, stderr, code := runBinary(t, args...)
				if code != 1 || !strings.Contains(stderr, "study database damaged") || !strings.Contains(stderr, c.msg) {
					t.Errorf("%v: exit %d, %q; want exit 1 naming %q", args[1], code, stderr, c.msg)
				}
				if d := time.Since(start); d > 2*time.Second {
					t.Errorf("%v took %v: refused after retries, not at once", args[1], d)
				}
			}
		})
	}
}
