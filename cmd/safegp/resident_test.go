package main

import (
	"bytes"
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/safegp/safegp/store"
)

var stamp = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ`)

// TestResidentAnswersAsHere runs one sequence of study commands — asks
// and tells, a tell of an unknown ask (exit 1), a usage error (exit 2),
// show, a retraction, list — on two copies of a study, each command in
// its own process (SAFEGP_RESIDENT=off) and through a resident (the
// default): every command must print the same bytes and exit with the
// same status, and the studies end with the same events. The resident
// must then be running, and gone after its idle time.
func TestResidentAnswersAsHere(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the binary")
	}
	dir := t.TempDir()
	spec := writeSpec(t, dir)
	dbs := map[string]string{"off": filepath.Join(dir, "off.db"), "on": filepath.Join(dir, "on.db")}
	for _, db := range dbs {
		safegp(t, "study", "create", spec, "--db", db)
	}
	// Each mode's transcript, the database's name replaced.
	run := func(mode string, args ...string) string {
		t.Helper()
		db := dbs[mode]
		args = append(args, "--db", db)
		cmd := exec.Command(binary, args...)
		cmd.Env = append(os.Environ(), "SAFEGP_RESIDENT="+mode, "SAFEGP_RESIDENT_IDLE=2s")
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		s := "$ " + strings.Join(args[:len(args)-2], " ") + "\n" + out.String() + errb.String() + "exit " + string(rune('0'+code)) + "\n"
		// list's last change is the database's own time.
		return stamp.ReplaceAllString(strings.ReplaceAll(s, db, "DB"), "TIME")
	}
	transcripts := map[string]string{}
	for _, mode := range []string{"off", "on"} {
		var w strings.Builder
		for k := range 8 {
			a := run(mode, "study", "ask")
			w.WriteString(a)
			id := a[strings.Index(a, `{"ask":`)+7 : strings.Index(a, `,"index"`)]
			f := []string{"0.1", "0.4", "0.2", "0.9", "0.5", "0.3", "0.8", "0.6"}[k]
			w.WriteString(run(mode, "study", "tell", "--ask", id, "--f", f, "--g", "0.5"))
		}
		w.WriteString(run(mode, "study", "tell", "--ask", "999", "--f", "1", "--g", "1"))
		w.WriteString(run(mode, "study", "tell", "--ask", "1", "--bogus"))
		w.WriteString(run(mode, "study", "show"))
		w.WriteString(run(mode, "study", "retract", "--observation", "4"))
		w.WriteString(run(mode, "study", "ask"))
		w.WriteString(run(mode, "study", "list"))
		transcripts[mode] = w.String()
	}
	if on, off := strings.Split(transcripts["on"], "\n"), strings.Split(transcripts["off"], "\n"); transcripts["on"] != transcripts["off"] {
		for k := range min(len(on), len(off)) {
			if on[k] != off[k] {
				t.Errorf("line %d through a resident:\n%s\nin its own process:\n%s", k+1, on[k], off[k])
				break
			}
		}
		t.Errorf("the transcripts differ (%d and %d lines)", len(on), len(off))
	}
	if !strings.Contains(transcripts["on"], "exit 1") || !strings.Contains(transcripts["on"], "exit 2") {
		t.Errorf("the transcript lacks the failing commands' exit statuses:\n%s", transcripts["on"])
	}
	events := func(db string) string {
		st, err := store.Open(db, store.OpenOptions{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		evs, err := st.Events(context.Background(), "default")
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for _, e := range evs {
			e.Created = time.Time{}
			b.WriteString(jsonText(e))
		}
		return b.String()
	}
	if a, b := events(dbs["off"]), events(dbs["on"]); a != b {
		t.Errorf("the events differ:\n%s\n%s", a, b)
	}
	abs, _ := filepath.Abs(dbs["on"])
	sock, err := residentSocket(abs, binary)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(sock); err != nil {
		t.Fatalf("no resident's socket after the commands: %v", err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := os.Stat(sock); os.IsNotExist(err) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the resident's socket is still there 10 s after its idle time of 2 s")
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestResidentStopsWithItsClient: a command whose client goes away (a
// Ctrl-C) before the resident runs it is not run (a tell records nothing), and the resident
// serves the next; a database deleted and created anew under the same
// name is opened anew.
func TestResidentStopsWithItsClient(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "s.db")
	spec := writeSpec(t, dir)
	var out, errb bytes.Buffer
	if err := run([]string{"study", "create", spec, "--db", db}, &out, &errb); err != nil {
		t.Fatal(err, errb.String())
	}
	sock := filepath.Join(dir, "r.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Skip("no unix sockets here:", err)
	}
	r := &resident{db: db, idle: time.Minute, ln: ln}
	defer r.close()
	go r.serve()

	entered := make(chan struct{})
	saw := make(chan bool, 1)
	testResidentHook = func(ctx context.Context) {
		close(entered)
		select {
		case <-ctx.Done():
			saw <- true
		case <-time.After(5 * time.Second):
			saw <- false
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	conn, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	go func() { <-entered; cancel() }()
	handled, err := relay(ctx, conn, residentRequest{Args: []string{"tell", "--index", "10", "--f", "0.5", "--g", "0.5", "--db", db}}, &out, &errb)
	if !handled || err == nil {
		t.Errorf("relay after its context ended: handled %v, %v; want handled, an error", handled, err)
	}
	if !<-saw {
		t.Fatal("the resident's command did not see its client go away")
	}
	testResidentHook = nil
	ask := func() string {
		t.Helper()
		conn, err := net.Dial("unix", sock)
		if err != nil {
			t.Fatal(err)
		}
		var o, e bytes.Buffer
		if handled, err := relay(context.Background(), conn, residentRequest{Args: []string{"ask", "--db", db}}, &o, &e); !handled || err != nil {
			t.Fatalf("ask: handled %v, %v, %s", handled, err, e.String())
		}
		return o.String()
	}
	// The abandoned tell recorded nothing: the first ask is event 1.
	if a := ask(); !strings.HasPrefix(a, `{"ask":1,`) {
		t.Errorf("the ask after the abandoned tell: %s, want ask 1", a)
	}
	// A new database in the old one's place: its first ask is 1 again.
	for _, p := range []string{db, db + "-wal", db + "-shm"} {
		os.Remove(p)
	}
	if err := run([]string{"study", "create", spec, "--db", db}, &out, &errb); err != nil {
		t.Fatal(err, errb.String())
	}
	if a := ask(); !strings.HasPrefix(a, `{"ask":1,`) {
		t.Errorf("the first ask of the database made anew: %s, want ask 1", a)
	}
}
