package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
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
		// One buffer for both streams, as 2>&1 gives: the order of a
		// tell's answer and its warnings must be kept too.
		var both bytes.Buffer
		cmd.Stdout, cmd.Stderr = &both, &both
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		s := "$ " + strings.Join(args[:len(args)-2], " ") + "\n" + both.String() + "exit " + string(rune('0'+code)) + "\n"
		// list's last change is the database's own time.
		return stamp.ReplaceAllString(strings.ReplaceAll(s, db, "DB"), "TIME")
	}
	transcripts := map[string]string{}
	for _, mode := range []string{"off", "on"} {
		var w strings.Builder
		for k := range 8 {
			a := run(mode, "study", "ask")
			w.WriteString(a)
			if !strings.Contains(a, `,"index"`) {
				t.Fatalf("%s: ask %d: %s", mode, k, a)
			}
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
	// Between commands the file is whole, as a process of its own leaves
	// it: its write-ahead log empty or gone, so that a copy of the file
	// alone is the study.
	if fi, err := os.Stat(dbs["on"] + "-wal"); err == nil && fi.Size() > 0 {
		t.Errorf("the write-ahead log holds %d bytes between commands", fi.Size())
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
	r := newResident(db, time.Minute, ln)
	defer r.stop()
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
	// The memory limit of a command without --max-memory holds in the
	// resident too: a study made with a higher one is refused.
	big := filepath.Join(dir, "big.db")
	bigSpec := filepath.Join(dir, "big.yaml")
	if err := os.WriteFile(bigSpec, []byte("decision_set: {grid: {bounds: [[0, 4]], points: [40000]}}\nseed_actions: [10]\n"+studyModel+
		"algorithm: {name: sgp-ucb, exploration: {fixed: 3}}\nhorizon: 40000\nseed: 4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := run([]string{"study", "create", bigSpec, "--db", big, "--max-memory", "1TiB"}, &out, &errb); err != nil {
		t.Fatal(err, errb.String())
	}
	rb := newResident(big, time.Minute, mustListen(t, filepath.Join(dir, "b.sock")))
	defer rb.stop()
	go rb.serve()
	conn, err = net.Dial("unix", filepath.Join(dir, "b.sock"))
	if err != nil {
		t.Fatal(err)
	}
	var bo, be bytes.Buffer
	if handled, err := relay(context.Background(), conn, residentRequest{Args: []string{"ask", "--db", big}}, &bo, &be); !handled || exitCode(err) != 1 || !strings.Contains(be.String(), "more than the limit") {
		t.Errorf("an ask of a study above the memory limit: handled %v, %v, %q; want exit 1 naming the limit", handled, err, be.String())
	}
	// A request past its deadline (its client gave up waiting) is neither
	// acknowledged nor run.
	conn, err = net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(residentRequest{Args: []string{"tell", "--index", "10", "--f", "0.5", "--g", "0.5", "--db", db}, Deadline: time.Now().Add(-time.Second).UnixNano()})
	conn.Write(append(b, '\n'))
	if rest, _ := io.ReadAll(conn); len(rest) != 0 {
		t.Errorf("a late request was answered %q, want nothing", rest)
	}
	conn.Close()
	if a := ask(); !strings.HasPrefix(a, `{"ask":1,`) {
		t.Errorf("the ask after a late tell: %s, want ask 1 (nothing recorded)", a)
	}
	// Acknowledged, but the client gave up before its "go" (it then runs
	// the command itself): the resident runs nothing.
	conn, err = net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	b, _ = json.Marshal(residentRequest{Args: []string{"tell", "--index", "10", "--f", "0.5", "--g", "0.5", "--db", db}, Deadline: time.Now().Add(time.Minute).UnixNano()})
	conn.Write(append(b, '\n'))
	var ack [1]byte
	if _, err := io.ReadFull(conn, ack[:]); err != nil || ack[0] != residentAck {
		t.Fatalf("no acknowledgement: %q, %v", ack, err)
	}
	conn.Close()
	time.Sleep(100 * time.Millisecond)
	if a := ask(); !strings.HasPrefix(a, `{"ask":1,`) {
		t.Errorf("the ask after a tell without its go: %s, want ask 1 (nothing recorded)", a)
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

func mustListen(t *testing.T, path string) net.Listener {
	t.Helper()
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	return ln
}

// TestDBArg: the database a command names is the last --db, as the flag
// package takes it, in any of the flag's forms.
func TestDBArg(t *testing.T) {
	for _, c := range []struct {
		args   []string
		db     string
		at     int
		joined bool
	}{
		{[]string{"ask", "--db", "a.db"}, "a.db", 2, false},
		{[]string{"ask", "--db", "a.db", "--study", "s", "--db", "b.db"}, "b.db", 6, false},
		{[]string{"ask", "--db=a.db", "-db", "b.db"}, "b.db", 3, false},
		{[]string{"ask", "-db", "a.db", "--db=b.db"}, "b.db", 3, true},
		{[]string{"ask", "-db=x.db"}, "x.db", 1, true},
		{[]string{"ask", "--", "--db", "y.db"}, "", -1, false},
		{[]string{"ask", "--db"}, "", -1, false},
		{[]string{"tell", "--db", "--db"}, "--db", 2, false},
	} {
		db, at, joined := dbArg(c.args)
		if db != c.db || at != c.at || joined != c.joined {
			t.Errorf("dbArg(%q) = %q, %d, %v; want %q, %d, %v", c.args, db, at, joined, c.db, c.at, c.joined)
		}
	}
}

// TestPrivateDir: the resident's socket directory must be this user's,
// a directory and not a link, shut to others.
func TestPrivateDir(t *testing.T) {
	if !residentSupported {
		t.Skip("no resident here")
	}
	root := t.TempDir()
	mk := func(name string, mode os.FileMode) string {
		p := filepath.Join(root, name)
		if err := os.Mkdir(p, mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	own := mk("own", 0o700)
	if err := privateDir(own); err != nil {
		t.Errorf("a directory of ours, 0700: %v", err)
	}
	if err := privateDir(mk("open", 0o755)); err == nil {
		t.Error("a directory others may enter: accepted")
	}
	link := filepath.Join(root, "link")
	if err := os.Symlink(own, link); err != nil {
		t.Fatal(err)
	}
	if err := privateDir(link); err == nil {
		t.Error("a link to a private directory: accepted")
	}
	if os.Getuid() == 0 {
		other := mk("other", 0o700)
		if err := os.Chown(other, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		if err := privateDir(other); err == nil {
			t.Error("another user's directory, 0700: accepted")
		}
	}
}
