package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/safegp/safegp/internal/memlimit"
	"github.com/safegp/safegp/internal/quote"
	"github.com/safegp/safegp/store"
	"github.com/safegp/safegp/study"
)

// The resident study server. Every study command replays its study from
// the recorded events, which costs O(t²·N) at t observations on N
// actions: 0.8 s at t = 1 000 on a grid of 1 000, where the HTTP server,
// which keeps studies in memory, answers in milliseconds (issue 29, item
// 4). So the commands of a scripted loop — ask, tell, heartbeat and
// retract — hand themselves to a resident: a `safegp study resident`
// process started by the first of them for the database (keyed by its
// absolute path and by this binary), which runs the very same command
// code on a study.Service it keeps open, and ends after an idle time.
// Its answers are the bytes the command would have printed, in the order
// it printed them; its studies are replayed from the records like a
// server's, and replayed again whenever the records changed under them
// (study.ServiceOptions.Recheck reads them before every call), so nothing
// about a study depends on whether a resident served it. The resident
// opens the database for each command and closes it after, as a process
// of its own would: the file is complete (its write-ahead log emptied)
// between commands, ready to be copied, restored or deleted. show and list use a resident already running, never start one: a
// database opened for writing may have its schema upgraded, which a read
// must not do.
//
// SAFEGP_RESIDENT=off runs every command in its own process, as before;
// SAFEGP_RESIDENT_IDLE (a Go duration, default residentIdle) is how long
// a resident waits for the next command. Test binaries run commands in
// their own process unless SAFEGP_RESIDENT=on.

// residentIdle is a resident's default idle time: a scripted loop's
// commands come milliseconds to seconds apart; a study measured by hand,
// minutes apart, replays at each command as without a resident, which
// costs little beside the measurement.
const residentIdle = time.Minute

// residentStarts are the commands that start a resident; residentUses
// those that use one already running.
var (
	residentStarts = []string{"ask", "tell", "heartbeat", "retract"}
	residentUses   = []string{"ask", "tell", "heartbeat", "retract", "show", "list"}
)

// maxResidentMessage bounds a request (the command's arguments) and an
// answer read over the socket.
const maxResidentMessage = 64 << 20

type residentRequest struct {
	Args []string `json:"args"` // after "study", --db made absolute
	// Deadline (Unix nanoseconds) is when the client stops waiting for
	// the acknowledgement and runs the command itself: the resident does
	// not acknowledge a request past it (a resident stopped for a while,
	// SIGSTOP or swapped out, finds its requests stale). That the command
	// runs in one place only is the "go" handshake's doing (residentGo).
	Deadline int64 `json:"deadline"`
}

// residentAckWait is how long a client waits for a resident to take its
// request.
const residentAckWait = 10 * time.Second

// testResidentHook, when a test sets it, runs before each command a
// resident takes, with the command's context.
var testResidentHook func(ctx context.Context)

// residentAck is the byte a resident sends when it has taken a request,
// and residentGo the client's answer to it: the resident runs the command
// only after it, and the client sends it only while it still waits, so a
// command runs in exactly one place — in the resident after "go", else
// in the client.
const (
	residentAck = '+'
	residentGo  = '!'
)

var errNotTaken = errors.New("the resident did not take the command")

type residentAnswer struct {
	Output []chunk `json:"output"` // what the command wrote, in order
	Code   int     `json:"code"`
}

// A chunk is one write of a command: to stderr if Err, else stdout.
type chunk struct {
	Err  bool   `json:"err,omitempty"`
	Data []byte `json:"data"`
}

// transcript records a command's writes to both streams in order.
type transcript struct {
	mu     sync.Mutex
	chunks []chunk
}

func (t *transcript) stream(toErr bool) io.Writer {
	return writerFunc(func(p []byte) (int, error) {
		t.mu.Lock()
		defer t.mu.Unlock()
		t.chunks = append(t.chunks, chunk{Err: toErr, Data: slices.Clone(p)})
		return len(p), nil
	})
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// errRelayed is the exit status of a command a resident ran, whose
// output (its error message too) the client has already written.
type errRelayed struct{ code int }

func (e errRelayed) Error() string { return fmt.Sprintf("exit status %d", e.code) }

// residentMode reports whether study commands may use a resident, and a
// bad SAFEGP_RESIDENT_IDLE (an idle time of 0 means no resident).
func residentMode() (bool, error) {
	switch os.Getenv("SAFEGP_RESIDENT") {
	case "off", "0", "false", "no":
		return false, nil
	case "on", "1", "true", "yes":
	default:
		if testing.Testing() {
			return false, nil
		}
	}
	idle, err := residentIdleTime()
	return residentSupported && idle > 0, err
}

// dbArg finds the value of --db in a study command's arguments, the last
// one given as the flag package takes it, and its position (the index of
// the value, joined when it is --db=FILE), or −1.
func dbArg(args []string) (db string, at int, joined bool) {
	at = -1
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		for _, p := range []string{"--db", "-db"} {
			if a == p && i+1 < len(args) {
				db, at, joined = args[i+1], i+1, false
				i++
			} else if v, ok := strings.CutPrefix(a, p+"="); ok {
				db, at, joined = v, i, true
			}
		}
	}
	return db, at, joined
}

// residentSocket is the socket of the resident for database db (an
// absolute path) and binary exe: a binary rebuilt or upgraded starts its
// own.
func residentSocket(db, exe string) (string, error) {
	fi, err := os.Stat(exe)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%d\x00%d", db, exe, fi.Size(), fi.ModTime().UnixNano())
	dir := os.Getenv("XDG_RUNTIME_DIR")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "safegp-"+strconv.Itoa(os.Getuid()))
	} else {
		dir = filepath.Join(dir, "safegp")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	// Only this user may reach the socket, which runs commands on the
	// user's databases: the directory must be this user's own and shut
	// to others (privateDir).
	if err := privateDir(dir); err != nil {
		return "", err
	}
	sock := filepath.Join(dir, hex.EncodeToString(h.Sum(nil)[:12])+".sock")
	if len(sock) > maxSocketPath {
		return "", fmt.Errorf("resident: socket path %s is longer than a socket's %d bytes", sock, maxSocketPath)
	}
	return sock, nil
}

// maxSocketPath is the longest socket path every Unix takes (sun_path is
// 104 bytes on the BSDs and macOS, 108 on Linux, with the NUL).
const maxSocketPath = 103

// viaResident runs study command args through the database's resident,
// starting one if the command may: handled is false when the command
// should run here (no resident, or none could be reached before the
// request was sent), and then nothing was done.
func viaResident(ctx context.Context, args []string, stdout, stderr io.Writer) (handled bool, err error) {
	if len(args) == 0 || !slices.Contains(residentUses, args[0]) {
		return false, nil
	}
	if ok, err := residentMode(); err != nil || !ok {
		return err != nil, err
	}
	if slices.ContainsFunc(args, func(a string) bool {
		return a == "--max-memory" || a == "-max-memory" || strings.HasPrefix(a, "--max-memory=") || strings.HasPrefix(a, "-max-memory=") || a == "-h" || a == "--help" || a == "-help"
	}) {
		return false, nil // a limit of its own, or help: here
	}
	db, at, joined := dbArg(args)
	if at < 0 || db == "" {
		return false, nil
	}
	abs, err := filepath.Abs(db)
	if err != nil {
		return false, nil
	}
	if fi, err := os.Stat(abs); err != nil || !fi.Mode().IsRegular() {
		return false, nil // the command here says what is wrong
	}
	exe, err := os.Executable()
	if err != nil {
		return false, nil
	}
	sock, err := residentSocket(abs, exe)
	if err != nil {
		return false, nil
	}
	conn, err := net.Dial("unix", sock)
	if err != nil {
		if !slices.Contains(residentStarts, args[0]) {
			return false, nil
		}
		if conn, err = startResident(exe, abs, sock); err != nil {
			return false, nil
		}
	}
	defer conn.Close()
	req := residentRequest{Args: slices.Clone(args)}
	if joined {
		req.Args[at] = args[at][:strings.Index(args[at], "=")+1] + abs
	} else {
		req.Args[at] = abs
	}
	return relay(ctx, conn, req, stdout, stderr)
}

// relay sends req on conn to a resident and writes its answer: handled
// is false when the resident did not take the request, so that nothing
// ran and the command may run here.
func relay(ctx context.Context, conn net.Conn, req residentRequest, stdout, stderr io.Writer) (handled bool, err error) {
	ackBy := time.Now().Add(residentAckWait)
	req.Deadline = ackBy.UnixNano()
	b, _ := json.Marshal(req)
	if _, err := conn.Write(append(b, '\n')); err != nil {
		return false, nil // not sent: run here
	}
	// From here on the resident has the command: running it here too
	// could record it twice. A signal closes the connection, and the
	// resident stops the command (a fit records nothing).
	type result struct {
		a   residentAnswer
		err error
	}
	done := make(chan result, 1)
	go func() {
		var a residentAnswer
		// The resident acknowledges a request it took before it runs it:
		// without the acknowledgement (a resident that stopped at its idle
		// time as the request came), nothing ran, and the command runs here.
		// Past the deadline the resident runs nothing: a second more
		// covers the clocks' reading on either side.
		rd := io.LimitReader(conn, maxResidentMessage)
		var ack [1]byte
		conn.SetReadDeadline(ackBy.Add(time.Second))
		if _, err := io.ReadFull(rd, ack[:]); err != nil || ack[0] != residentAck {
			done <- result{err: errNotTaken}
			return
		}
		conn.SetReadDeadline(time.Time{}) // a fit may take long
		if _, err := conn.Write([]byte{residentGo}); err != nil {
			done <- result{err: errNotTaken} // no "go": it runs nothing
			return
		}
		err := json.NewDecoder(rd).Decode(&a)
		done <- result{a, err}
	}()
	select {
	case <-ctx.Done():
		conn.Close()
		return true, stopped(ctx, ctx.Err())
	case r := <-done:
		if r.err == errNotTaken {
			return false, nil
		}
		if r.err != nil {
			return true, fmt.Errorf("the resident study server went away before it answered (%v): whether the command was recorded is unknown; see safegp study show, or set SAFEGP_RESIDENT=off", r.err)
		}
		for _, c := range r.a.Output {
			w := stdout
			if c.Err {
				w = stderr
			}
			if _, err := w.Write(c.Data); err != nil {
				// As the command itself fails on a full disk or a closed
				// pipe: what it recorded stays recorded.
				return true, err
			}
		}
		if r.a.Code != 0 {
			return true, errRelayed{r.a.Code}
		}
		return true, nil
	}
}

// residentIdleTime is SAFEGP_RESIDENT_IDLE, or residentIdle.
func residentIdleTime() (time.Duration, error) {
	e := os.Getenv("SAFEGP_RESIDENT_IDLE")
	if e == "" {
		return residentIdle, nil
	}
	d, err := time.ParseDuration(e)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("SAFEGP_RESIDENT_IDLE: want a duration such as 30s or 5m (0: no resident), got %s", quote.Short(e))
	}
	return d, nil
}

// startResident starts the resident of database db on socket sock, by
// running exe (this binary), and connects to it. The resident says "ready" on its standard output once it
// has opened the database and listens, and closes it either way: a
// resident that cannot serve (a database it cannot open for writing,
// another resident starting at the same moment) costs no wait, and the
// command runs here — or through the other resident.
func startResident(exe, db, sock string) (net.Conn, error) {
	out, err := spawnDetached(exe, "study", "resident", "--db", db, "--socket", sock)
	if err != nil {
		return nil, err
	}
	defer out.Close()
	// Whether it says "ready" or not, the socket is then listening or
	// will not be: dialling tells which.
	closed := make(chan struct{})
	go func() {
		io.Copy(io.Discard, io.LimitReader(out, 64))
		close(closed)
	}()
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
	}
	return net.Dial("unix", sock)
}

// residentReady is what a resident prints once it serves.
const residentReady = "ready\n"

// residentCmd is `safegp study resident --db FILE --socket PATH`: the
// resident itself, started by a study command (viaResident). It runs
// until it has been idle for SAFEGP_RESIDENT_IDLE.
func residentCmd(args []string, stdout, stderr io.Writer) error {
	var db, sock string
	for i := 0; i+1 < len(args); i += 2 {
		switch args[i] {
		case "--db":
			db = args[i+1]
		case "--socket":
			sock = args[i+1]
		}
	}
	if db == "" || sock == "" || !filepath.IsAbs(db) {
		fmt.Fprintln(stderr, "safegp study resident: started by the study commands, with --db ABSOLUTE_FILE --socket PATH")
		return errUsage
	}
	idle, err := residentIdleTime()
	if err != nil {
		return err
	}
	unlock, err := lockResident(sock + ".lock")
	if err != nil {
		return err // another resident holds it
	}
	defer unlock()
	_ = os.Remove(sock) // a socket left by a resident that died
	ln, err := net.Listen("unix", sock)
	if err != nil {
		return err
	}
	r := newResident(db, idle, ln)
	defer r.stop()
	// A database it cannot open (another application's file, a newer
	// schema) is said by the command in its own process.
	_, done, err := r.service()
	if err != nil {
		return err
	}
	done()
	// SIGTERM, SIGINT, SIGHUP end it as its idle time does: the commands
	// it took are answered, and the socket file removed.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, stopSignals...)
	defer signal.Stop(sigs)
	go func() {
		if _, ok := <-sigs; ok {
			r.stop()
		}
	}()
	stdout.Write([]byte(residentReady))
	if c, ok := stdout.(io.Closer); ok {
		c.Close() // the command that started it reads to the end
	}
	return r.serve()
}

// resident serves one database's study commands.
type resident struct {
	db   string
	idle time.Duration
	ln   net.Listener
	base *study.Service // holds the studies; each command gets it over its own store

	mu      sync.Mutex
	busy    int       // commands taken and not yet answered
	last    time.Time // when the last command ended
	closing bool      // the idle time is up: take no more commands
	wg      sync.WaitGroup
}

func newResident(db string, idle time.Duration, ln net.Listener) *resident {
	// The memory limit of a command without --max-memory (those with one
	// run in their own process), over the studies held together too.
	var lim memlimit.Flag
	return &resident{db: db, idle: idle, ln: ln, base: study.NewService(nil, study.ServiceOptions{Recheck: true, MaxMemory: lim.Limit()})}
}

// stop takes no more commands: the listener closes, and with it the
// socket file.
func (r *resident) stop() {
	r.mu.Lock()
	r.closing = true
	r.mu.Unlock()
	r.ln.Close()
}

// serve accepts commands until the resident has been idle for r.idle (or
// stop), then waits for the commands it took.
func (r *resident) serve() error {
	r.last = time.Now()
	go func() {
		for {
			time.Sleep(min(r.idle/4, time.Second))
			r.mu.Lock()
			quit := r.busy == 0 && time.Since(r.last) >= r.idle
			if quit {
				r.closing = true
			}
			r.mu.Unlock()
			if quit {
				r.ln.Close()
				return
			}
		}
	}()
	defer r.wg.Wait()
	for {
		conn, err := r.ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return nil
			}
			return err
		}
		r.mu.Lock()
		if r.closing {
			// Taken as the idle time ran out: not acknowledged, so the
			// client runs the command itself.
			r.mu.Unlock()
			conn.Close()
			continue
		}
		r.busy++
		r.wg.Add(1)
		r.mu.Unlock()
		go func() {
			defer func() {
				r.mu.Lock()
				r.busy--
				r.last = time.Now()
				r.mu.Unlock()
				r.wg.Done()
			}()
			r.handle(conn)
		}()
	}
}

// service opens the database for one command and returns the service
// over it that shares the resident's studies, and the function that
// closes it: the last connection's close checkpoints the write-ahead log
// into the file, as a process of its own leaves it.
func (r *resident) service() (*study.Service, func(), error) {
	st, err := store.Open(r.db, store.OpenOptions{BusyTimeout: busyTimeout})
	if contended(err) {
		return nil, nil, fmt.Errorf("%w (%w)", errTempFail, err)
	}
	if err != nil {
		return nil, nil, err
	}
	return r.base.WithStore(st), func() { st.Close() }, nil
}

// handle runs one command: its request, then its answer, on conn. The
// client closing the connection stops the command.
func (r *resident) handle(conn net.Conn) {
	defer conn.Close()
	var req residentRequest
	dec := json.NewDecoder(io.LimitReader(conn, maxResidentMessage))
	if err := dec.Decode(&req); err != nil {
		return
	}
	if time.Now().UnixNano() > req.Deadline {
		return // the client runs it
	}
	var goByte [1]byte
	if _, err := conn.Write([]byte{residentAck}); err != nil {
		return
	}
	// The client's "go", or its giving up (it closes, and runs the
	// command itself); the request's newline may come first.
	rest := io.MultiReader(dec.Buffered(), conn)
	for {
		if _, err := io.ReadFull(rest, goByte[:]); err != nil {
			return
		}
		if goByte[0] != '\n' {
			break
		}
	}
	if goByte[0] != residentGo {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		// The client sends nothing more: a read ends when it goes away.
		var b [1]byte
		conn.Read(b[:])
		cancel()
	}()
	if testResidentHook != nil {
		testResidentHook(ctx)
	}
	if ctx.Err() != nil {
		return // the client went away: the command is not run
	}
	var out transcript
	code := 0
	if err := studyRun(ctx, req.Args, out.stream(false), out.stream(true), func(s *studySession) (*study.Service, func(), error) {
		if s.db != r.db {
			return nil, nil, fmt.Errorf("this resident serves %s, not %s", quote.Short(r.db), quote.Short(s.db))
		}
		return r.service()
	}); err != nil {
		printError(out.stream(true), err)
		code = exitCode(err)
	}
	b, _ := json.Marshal(residentAnswer{Output: out.chunks, Code: code})
	conn.Write(append(b, '\n'))
}
