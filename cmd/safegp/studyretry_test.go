package main

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/safegp/safegp/store"
	"github.com/safegp/safegp/study/api"
)

func newCLIStudy(t *testing.T, horizon int) string {
	t.Helper()
	dir := t.TempDir()
	spec := filepath.Join(dir, "spec.yaml")
	if err := os.WriteFile(spec, []byte(strings.Replace(studySpec, "horizon: 30", fmt.Sprintf("horizon: %d", horizon), 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "s.db")
	var stdout, stderr bytes.Buffer
	if err := run([]string{"study", "create", spec, "--db", db}, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	return db
}

// TestConcurrentCLITells: tells from many processes at once (here
// goroutines, each with its own connection, as separate processes have)
// all get recorded: a tell that lost the race to another writer is
// retried, after reloading and checking it again.
func TestConcurrentCLITells(t *testing.T) {
	db := newCLIStudy(t, 100)
	const n = 12
	var wg sync.WaitGroup
	errs := make([]error, n)
	for k := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var stdout, stderr bytes.Buffer
			errs[k] = run([]string{"study", "tell", "--db", db, "--index", fmt.Sprint(k), "--f", "0.1", "--g", "0.5"}, &stdout, &stderr)
		}()
	}
	wg.Wait()
	for k, err := range errs {
		if err != nil {
			t.Errorf("tell %d: %v (exit %d)", k, err, exitCode(err))
		}
	}
	st, err := store.Open(db, store.OpenOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if evs, _ := st.Events(context.Background(), "default"); len(evs) != n {
		t.Errorf("%d events stored, want %d", len(evs), n)
	}
}

// TestConcurrentTellsOfOneAsk: when several processes tell the same ask,
// one wins and the others fail properly (already told, exit 1), not as a
// busy database.
func TestConcurrentTellsOfOneAsk(t *testing.T) {
	db := newCLIStudy(t, 100)
	var stdout, stderr bytes.Buffer
	if err := run([]string{"study", "ask", "--db", db}, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	const n = 6
	var wg sync.WaitGroup
	errs := make([]error, n)
	for k := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var stdout, stderr bytes.Buffer
			errs[k] = run([]string{"study", "tell", "--db", db, "--ask", "1", "--f", "0.1", "--g", "0.5"}, &stdout, &stderr)
		}()
	}
	wg.Wait()
	ok := 0
	for _, err := range errs {
		switch {
		case err == nil:
			ok++
		case !errors.Is(err, api.ErrAlreadyTold) || exitCode(err) != 1:
			t.Errorf("losing tell: %v (exit %d), want already told (exit 1)", err, exitCode(err))
		}
	}
	if ok != 1 {
		t.Errorf("%d tells of ask 1 succeeded, want 1", ok)
	}
}

// TestBusyDatabaseExitCode: a database held by another writer through
// every attempt gives exit code 75 and says the database is busy; nothing
// is recorded, and the same tell succeeds once the writer is done.
func TestBusyDatabaseExitCode(t *testing.T) {
	db := newCLIStudy(t, 100)
	defer func(b time.Duration, r time.Duration) { busyTimeout, retryBase = b, r }(busyTimeout, retryBase)
	busyTimeout, retryBase = 20*time.Millisecond, time.Millisecond
	holder, err := sql.Open("sqlite", "file:"+db)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	conn, err := holder.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(context.Background(), "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	tell := []string{"study", "tell", "--db", db, "--index", "3", "--f", "0.1", "--g", "0.5"}
	var stdout, stderr bytes.Buffer
	err = run(tell, &stdout, &stderr)
	if exitCode(err) != 75 || !strings.Contains(fmt.Sprint(err), "database is busy") {
		t.Errorf("tell on a locked database: %v (exit %d), want exit 75 saying the database is busy", err, exitCode(err))
	}
	if _, err := conn.ExecContext(context.Background(), "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	conn.Close()
	if err := run(tell, &stdout, &stderr); err != nil {
		t.Fatalf("tell after the lock was released: %v", err)
	}
	stdout.Reset()
	if err := run([]string{"study", "show", "--db", db, "--json"}, &stdout, &stderr); err != nil || !strings.Contains(stdout.String(), `"rounds": 1`) {
		t.Errorf("show: %v\n%s", err, stdout.String())
	}
}

// TestStudyUsageDocumentsExitCodes: the exit codes are in the help.
func TestStudyUsageDocumentsExitCodes(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if err := run([]string{"study", "--help"}, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Exit codes", "75", "retract --observation", "horizon"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("study usage lacks %q", want)
		}
	}
}

// TestServeMaxOpenFlag: --max-open below 1 is a usage error, found before
// the database is touched.
func TestServeMaxOpenFlag(t *testing.T) {
	db := filepath.Join(t.TempDir(), "s.db")
	var stdout, stderr bytes.Buffer
	err := run([]string{"serve", "--db", db, "--max-open", "0"}, &stdout, &stderr)
	if exitCode(err) != 2 || !strings.Contains(stderr.String(), "--max-open") {
		t.Errorf("--max-open 0: %v (exit %d), %q", err, exitCode(err), stderr.String())
	}
	if _, err := os.Stat(db); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the database was created: %v", err)
	}
}
