package main

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/safegp/safegp/study/api"
)

// startServerLog starts `safegp serve` like startServer and also hands
// back its log lines (JSON, one a line) as they come.
func startServerLog(t *testing.T, db string) (string, *exec.Cmd, <-chan string) {
	t.Helper()
	cmd := exec.Command(binary, "serve", "--db", db, "--addr", "127.0.0.1:0")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	lines := make(chan string, 1000)
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		var line struct {
			Msg  string `json:"msg"`
			Addr string `json:"addr"`
		}
		if json.Unmarshal(sc.Bytes(), &line) == nil && line.Msg == "listening" {
			go func() {
				for sc.Scan() {
					select {
					case lines <- sc.Text():
					default: // nobody reads: drop rather than block the server
					}
				}
				close(lines)
			}()
			return "http://" + line.Addr, cmd, lines
		}
	}
	t.Fatal("server did not report its address")
	return "", nil, nil
}

// crashSpec is a study with room for many tells.
const crashSpec = `{"decision_set": {"grid": {"bounds": [[0, 4]], "points": [41]}}, "seed_actions": [10, 12], "thresholds": [0.0],
 "model": {"objective": {"kernel": "se", "lengthscale": 1}, "constraints": [{"kernel": "se", "lengthscale": 1}], "noise_std": 0.05, "delta": 0.01},
 "algorithm": {"name": "sgp-ucb", "phase1": "uniform", "exploration": {"fixed": 6}}, "horizon": 100000, "seed": 9}`

// sentTell is a tell the client sent: its values, and the observation
// number the server acknowledged (0 if no answer came; −1 if none came
// but a restart found it stored, committed just before the kill).
type sentTell struct {
	ask   int
	f, g  float64
	acked int
}

// tellLoop asks and tells as fast as the server answers until a request
// fails (the server was killed). Each f carries a unique offset, so that
// a stored value can be matched to the request that sent it. It returns
// the tells sent, and whether the failing request was a tell.
func tellLoop(url string, next *int) (sent []sentTell, diedInTell bool) {
	client := &http.Client{Timeout: 10 * time.Second}
	postJSON := func(path, body string, out any) error {
		resp, err := client.Post(url+path, "application/json", strings.NewReader(body))
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		if resp.StatusCode != 200 {
			b, _ := io.ReadAll(resp.Body)
			return fmt.Errorf("%s: %d %s", path, resp.StatusCode, b)
		}
		return json.NewDecoder(resp.Body).Decode(out)
	}
	for {
		var a api.AskAnswer
		if err := postJSON("/v1/studies/s/ask", "", &a); err != nil {
			return sent, false
		}
		*next++
		f, g := problem1D(a.X[0])
		st := sentTell{ask: a.Ask, f: f + float64(*next)*1e-7, g: g}
		sent = append(sent, st)
		var ans api.TellAnswer
		err := postJSON("/v1/studies/s/tell", fmt.Sprintf(`{"ask": %d, "f": %v, "g": [%v]}`, st.ask, st.f, st.g), &ans)
		if err != nil {
			return sent, true
		}
		sent[len(sent)-1].acked = ans.Observation
	}
}

// TestCrashDuringWrites kills the server with SIGKILL at random moments
// while a client asks and tells in a loop, restarts it on the same file,
// and checks: every acknowledged tell is there with its values; a tell
// whose answer never came is either wholly there (committed just before
// the kill) or not at all; nothing else is there; the study replays; and
// the database passes SQLite's integrity check. It goes on until kills
// have struck during several tells and enough were acknowledged (at most
// 40 kills). A kill cannot tell synchronous(FULL) from OFF — the page cache
// outlives the process — so TestOpenKeepsPragmasWithURICharacters checks
// the pragma itself.
func TestCrashDuringWrites(t *testing.T) {
	db := filepath.Join(t.TempDir(), "crash.db")
	url, cmd, _ := startServerLog(t, db)
	if code := post(t, url+"/v1/studies", `{"name": "s", "spec": `+crashSpec+`}`, nil); code != 201 {
		t.Fatalf("create: %d", code)
	}
	rng := rand.New(rand.NewPCG(4, 2))
	var all []sentTell
	counter, inTell, acked := 0, 0, 0
	for kill := 1; kill <= 40 && (inTell < 3 || acked < 20 || kill <= 6); kill++ {
		done := make(chan struct{})
		var sent []sentTell
		var died bool
		go func() { sent, died = tellLoop(url, &counter); close(done) }()
		time.Sleep(time.Duration(5+rng.IntN(60)) * time.Millisecond)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		<-done
		if died {
			inTell++
		}
		all = append(all, sent...)
		url, cmd, _ = startServerLog(t, db)

		// What the restarted server holds.
		var obs []api.Observation
		resp, err := http.Get(url + "/v1/studies/s/observations")
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != 200 {
			t.Fatalf("kill %d: observations: %d (the study does not replay?)", kill, resp.StatusCode)
		}
		json.NewDecoder(resp.Body).Decode(&obs)
		resp.Body.Close()
		stored := map[int]api.Observation{} // by ask
		for _, o := range obs {
			stored[o.Ask] = o
		}
		if len(stored) != len(obs) {
			t.Fatalf("kill %d: two observations of one ask", kill)
		}
		acked = 0
		for i, s := range all {
			o, ok := stored[s.ask]
			switch {
			case s.acked != 0 && !ok:
				t.Fatalf("kill %d: acknowledged tell (ask %d, observation %d) lost", kill, s.ask, s.acked)
			case ok && (o.F != s.f || len(o.G) != 1 || o.G[0] != s.g):
				t.Fatalf("kill %d: ask %d stored as f %v, g %v; sent f %v, g %v", kill, s.ask, o.F, o.G, s.f, s.g)
			case s.acked > 0 && o.Seq != s.acked:
				t.Fatalf("kill %d: ask %d stored as observation %d, acknowledged as %d", kill, s.ask, o.Seq, s.acked)
			case s.acked == 0 && i != len(all)-1:
				t.Fatalf("kill %d: a tell other than the last one sent has no answer", kill)
			}
			if ok {
				delete(stored, s.ask)
			}
			if s.acked > 0 {
				acked++
			}
		}
		if len(stored) != 0 {
			t.Fatalf("kill %d: %d observations nobody sent: %v", kill, len(stored), stored)
		}
		if len(all) > 0 && all[len(all)-1].acked == 0 {
			// Its fate is settled now: stored (committed before the kill)
			// or not. Either way it is no longer in flight.
			if _, ok := mapOf(obs)[all[len(all)-1].ask]; ok {
				all[len(all)-1].acked = -1 // present, never acknowledged
			} else {
				all = all[:len(all)-1]
			}
		}
	}
	if inTell < 3 || acked < 20 {
		t.Fatalf("test premise: %d kills struck during a tell and %d tells were acknowledged; want ≥ 3 and ≥ 20", inTell, acked)
	}
	t.Logf("%d tells acknowledged, %d kills during a tell", acked, inTell)
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	conn, err := sql.Open("sqlite", "file:"+db+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var check string
	if err := conn.QueryRow(`PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
		t.Errorf("integrity check: %q, %v", check, err)
	}
}

func mapOf(obs []api.Observation) map[int]api.Observation {
	m := map[int]api.Observation{}
	for _, o := range obs {
		m[o.Ask] = o
	}
	return m
}

// TestServeDrainsOnSIGTERM: a tell whose body is still arriving
// when SIGTERM comes is read to its end, recorded and answered before the
// server exits with status 0; the restarted server has it.
func TestServeDrainsOnSIGTERM(t *testing.T) {
	db := filepath.Join(t.TempDir(), "d.db")
	url, cmd, lines := startServerLog(t, db)
	if code := post(t, url+"/v1/studies", `{"name": "s", "spec": `+crashSpec+`}`, nil); code != 201 {
		t.Fatalf("create: %d", code)
	}
	var a api.AskAnswer
	if code := post(t, url+"/v1/studies/s/ask", "", &a); code != 200 {
		t.Fatalf("ask: %d", code)
	}
	f, g := problem1D(a.X[0])
	body := fmt.Sprintf(`{"ask": %d, "f": %v, "g": [%v]}`, a.Ask, f, g)
	conn, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// The headers, asking to continue: the server answers "100
	// Continue" when the handler begins to read the body, so that the
	// request is known to be in the handler, not in a queue, before the
	// signal (no sleep to guess it).
	fmt.Fprintf(conn, "POST /v1/studies/s/tell HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: %d\r\n\r\n", len(body))
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	rd := bufio.NewReader(conn)
	if status, err := rd.ReadString('\n'); err != nil || !strings.HasPrefix(status, "HTTP/1.1 100 ") {
		t.Fatalf("want 100 Continue, got %q (%v)", status, err)
	}
	if blank, err := rd.ReadString('\n'); err != nil || blank != "\r\n" {
		t.Fatalf("100 Continue ends in %q (%v)", blank, err)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	// Wait until the server says it drains: the request is in flight
	// through the shutdown, not finished before it.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for draining := false; !draining; {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatal("the server exited before the request was finished")
			}
			draining = strings.Contains(l, "shutting down")
		case <-ctx.Done():
			t.Fatal("no shutdown message within 10 s of SIGTERM")
		}
	}
	// The body, after the shutdown began: the request is in flight
	// through it.
	if _, err := io.WriteString(conn, body); err != nil {
		t.Fatalf("the body: %v", err)
	}
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(rd, nil)
	if err != nil {
		t.Fatalf("no answer to the request in flight: %v", err)
	}
	var ans api.TellAnswer
	json.NewDecoder(resp.Body).Decode(&ans)
	resp.Body.Close()
	if resp.StatusCode != 200 || ans.Ask != a.Ask || ans.Rounds != 1 {
		t.Fatalf("the request in flight got %d %+v", resp.StatusCode, ans)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("exit after SIGTERM: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("server did not stop within 20 s of SIGTERM")
	}
	url, _, _ = startServerLog(t, db)
	var sum api.Summary
	resp2, err := http.Get(url + "/v1/studies/s")
	if err != nil {
		t.Fatal(err)
	}
	json.NewDecoder(resp2.Body).Decode(&sum)
	resp2.Body.Close()
	if sum.Rounds != 1 || sum.Pending != nil {
		t.Errorf("after the restart: %+v, want the drained tell recorded", sum)
	}
}
