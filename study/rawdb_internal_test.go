package study

import (
	"database/sql"
	"testing"
)

// rawDB opens the service's database file directly, as another process
// would: for the tests that read what was written, or damage it.
func rawDB(t testing.TB, v *Service) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+v.store.Path()+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}
