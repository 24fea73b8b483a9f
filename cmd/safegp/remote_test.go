package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/safegp/safegp/internal/errclass"
	"github.com/safegp/safegp/server"
	"github.com/safegp/safegp/store"
	"github.com/safegp/safegp/study"
)

// cliRun runs one safegp command in this process, returning its stdout,
// its stderr and its exit code.
func cliRun(args ...string) (stdout, stderr string, code int) {
	var o, e bytes.Buffer
	if err := run(args, &o, &e); err != nil {
		printError(&e, err)
		code = exitCode(err)
	}
	return o.String(), e.String(), code
}

// serveFile serves the studies of the database at path over HTTP, as
// safegp serve does, until the test ends.
func serveFile(t *testing.T, path, token string) string {
	t.Helper()
	st, err := store.Open(path, store.OpenOptions{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(server.Handler(study.NewService(st, study.ServiceOptions{}), server.Options{Token: token}))
	t.Cleanup(func() { srv.Close(); st.Close() })
	return srv.URL
}

// TestServerAnswersAsTheFile: every study command sent to a safegp serve
// (--server) prints what it prints on the file (--db), byte for byte, on
// stdout and on stderr, with the same exit code: the same commands on two
// databases, one opened by the command, one by the server, give the same
// answers (a study is a function of its events and seed), and the reading
// commands, on the server's file through the server and directly, the same
// bytes (times included). Studies of every kind the CLI tells apart: a
// finite set, a box, a context, parameters on a finite set and on a box,
// a fitted model.
func TestServerAnswersAsTheFile(t *testing.T) {
	dir := t.TempDir()
	points := writeFile(t, dir, "points.csv", "x1\n0.1\n0.5\n")
	for _, c := range []struct {
		name, spec string
		tell       func(ask map[string]any) []string // a tell of the ask
		outside    []string                          // a tell outside the loop
		csv        string                            // rows to import, if any
		read       [][]string                        // reading commands beyond show, list and export
	}{
		{name: "grid", spec: `
decision_set: {grid: {bounds: [[0, 1]], points: [41]}}
seed_actions: [20]
thresholds: [0]
model:
  objective: {kernel: se, lengthscale: 0.2}
  constraints: [{kernel: se, lengthscale: 0.2}]
  noise_std: 0.05
  delta: 0.1
algorithm: {name: safeopt, safe_set: gp}
horizon: 30
seed: 3
`, tell: func(a map[string]any) []string {
			x := a["x"].([]any)[0].(float64)
			return []string{"--f", fmt.Sprint(1 - (x-0.7)*(x-0.7)), "--g", fmt.Sprint(0.6 - x/2)}
		}, outside: []string{"--x", "0.45", "--f", "0.9", "--g", "0.4"},
			csv:  "x1,f,g1\n0.55,0.95,0.3\n0.6,0.97,0.25\n",
			read: [][]string{{"posterior", points}, {"posterior", points, "--json"}}},
		{name: "box", spec: `
decision_set: {box: {bounds: [[0, 1], [0, 1]]}}
seed_points: [[0.5, 0.5]]
thresholds: [0]
model:
  objective: {kernel: se, lengthscale: 0.3}
  constraints: [{kernel: se, lengthscale: 0.3}]
  noise_std: 0.05
  delta: 0.1
algorithm: {name: line-bo, safe_set: gp, points: 40, per_line: 2}
horizon: 30
seed: 5
`, tell: func(a map[string]any) []string {
			x := a["x"].([]any)
			u, v := x[0].(float64), x[1].(float64)
			return []string{"--f", fmt.Sprint(u + v), "--g", fmt.Sprint(1.5 - u - v)}
		}},
		{name: "context", spec: `
decision_set: {grid: {bounds: [[0, 1]], points: [21]}}
seed_actions: [10]
thresholds: [0]
context:
  names: [temperature]
  kernel: {kernel: se, lengthscale: 5}
model:
  objective: {kernel: se, lengthscale: 0.2}
  constraints: [{kernel: se, lengthscale: 0.2}]
  noise_std: 0.05
  delta: 0.1
algorithm: {name: sgp-ucb, exploration: {fixed: 5}}
horizon: 30
seed: 2
`, tell: func(a map[string]any) []string {
			x := a["x"].([]any)[0].(float64)
			return []string{"--f", fmt.Sprint(x), "--g", fmt.Sprint(0.8 - x)}
		}},
		{name: "named", spec: `
parameters:
  - {name: kp, low: 0.05, high: 20, scale: log}
  - {name: mode, type: choice, values: [pi, pid]}
objective: {name: settle_time, goal: minimize}
constraints:
  - {name: overshoot, max: 0.05}
seeds: [{kp: 0.3, mode: pi}]
model: {fit: {when: auto}}
horizon: 30
`, tell: func(a map[string]any) []string {
			kp := a["params"].(map[string]any)["kp"].(float64)
			return []string{"--value", fmt.Sprint("settle_time=", 10/kp), "--value", fmt.Sprint("overshoot=", kp/100)}
		}, outside: []string{"--param", "kp=0.4", "--param", "mode=pid", "--value", "settle_time=20", "--value", "overshoot=0.01"}},
		{name: "namedbox", spec: `
parameters:
  - {name: kp, low: 0.05, high: 20, scale: log}
  - {name: ki, low: 0.01, high: 10, scale: log}
  - {name: kd, low: 0.001, high: 2, scale: log}
objective: {name: settle_time, goal: minimize}
constraints:
  - {name: overshoot, max: 0.05}
seeds: [{kp: 0.3, ki: 0.05, kd: 0.01}]
horizon: 30
`, tell: func(a map[string]any) []string {
			p := a["params"].(map[string]any)
			kp, ki := p["kp"].(float64), p["ki"].(float64)
			return []string{"--value", fmt.Sprint("settle_time=", 10/kp+ki), "--value", fmt.Sprint("overshoot=", kp*ki/100)}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			spec := writeFile(t, dir, c.name+".yaml", c.spec)
			fileDB := filepath.Join(dir, c.name+"-file.db")
			srvDB := filepath.Join(dir, c.name+"-server.db")
			url := serveFile(t, srvDB, "")
			ctxArgs := []string(nil)
			if c.name == "context" {
				ctxArgs = []string{"--context", "temperature=21"}
			}
			// both runs args on the file and on the server, and checks
			// that they print the same; it returns stdout.
			both := func(args ...string) string {
				t.Helper()
				fails := args[0] == "!"
				if fails {
					args = args[1:]
				}
				args = append(args, "--study", c.name)
				o1, e1, c1 := cliRun(append(append([]string{"study"}, args...), "--db", fileDB)...)
				o2, e2, c2 := cliRun(append(append([]string{"study"}, args...), "--server", url)...)
				o1 = strings.ReplaceAll(o1, fileDB, "WHERE")
				o2 = strings.ReplaceAll(o2, url, "WHERE")
				// Two databases record their own times (a refused
				// import's says when the rows came first).
				e1, e2 = stamp.ReplaceAllString(e1, "TIME"), stamp.ReplaceAllString(e2, "TIME")
				if o1 != o2 || e1 != e2 || c1 != c2 || (c1 != 0) != fails {
					t.Errorf("%v:\non the file (exit %d):\n%s%s\nthrough the server (exit %d):\n%s%s", args, c1, o1, e1, c2, o2, e2)
				}
				return o1
			}
			both("create", spec)
			for round := range 4 {
				var a map[string]any
				if err := json.Unmarshal([]byte(both(append([]string{"ask"}, ctxArgs...)...)), &a); err != nil {
					t.Fatalf("round %d: %v", round, err)
				}
				both(append([]string{"tell", "--ask", fmt.Sprint(a["ask"])}, c.tell(a)...)...)
			}
			var batch struct{ Asks []map[string]any }
			if err := json.Unmarshal([]byte(both(append([]string{"ask", "--count", "2"}, ctxArgs...)...)), &batch); err != nil {
				t.Fatal(err)
			}
			for _, a := range batch.Asks {
				both(append([]string{"tell", "--ask", fmt.Sprint(a["ask"])}, c.tell(a)...)...)
			}
			if c.outside != nil {
				both(append([]string{"tell"}, c.outside...)...)
			}
			if c.csv != "" {
				both("import", writeFile(t, dir, c.name+".csv", c.csv))
				both("!", "import", filepath.Join(dir, c.name+".csv")) // refused: a retry
			}
			if strings.HasPrefix(c.name, "named") {
				both("retract", "--trial", "1")
			} else {
				both("retract", "--observation", "2")
			}
			both("!", "tell", "--ask", "999", "--f", "1", "--g", "1")    // an error
			both("!", "tell", "--trial", "99")                           // a flag of another command
			both(append([]string{"ask"}, ctxArgs...)...)                 // pending: the same ask
			both(append([]string{"ask", "--count", "3"}, ctxArgs...)...) // it, and new ones

			// Reading commands on the server's own file: the same bytes,
			// times and all.
			reads := append([][]string{{"show"}, {"show", "--json"}, {"list"}, {"list", "--json"}, {"export", "--format", "csv"}, {"export", "--format", "json"}}, c.read...)
			for _, r := range reads {
				args := append(append([]string{"study"}, r...), "--study", c.name)
				o1, e1, c1 := cliRun(append(args, "--db", srvDB)...)
				o2, e2, c2 := cliRun(append(args, "--server", url)...)
				if o1 != o2 || e1 != e2 || c1 != c2 || c1 != 0 {
					t.Errorf("%v:\non the file (exit %d):\n%s%s\nthrough the server (exit %d):\n%s%s", r, c1, o1, e1, c2, o2, e2)
				}
				// Both read the answer's JSON back: what show says of
				// the best is read from it, and must be there.
				if r[0] == "show" && len(r) == 1 && !bestLine.MatchString(o1) {
					t.Errorf("show says no best after %s told:\n%s", c.name, o1)
				}
			}
		})
	}
}

// stamp is a time as an error message gives it.
var stamp = regexp.MustCompile(`\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC`)

// bestLine is show's line of a best found, in either form.
var bestLine = regexp.MustCompile(`(?m)^best safe (trial: \d+, params \{"|action: \d+ at \[|point: \[)`)

// TestServerFlags: where a study command goes, and what is refused before
// anything is sent: --db and --server together, a token file without a
// server, a URL that is not a server's, plot through a server; the token
// of SAFEGP_TOKEN or --token-file reaches the server, and a wrong one is
// refused by it.
func TestServerFlags(t *testing.T) {
	dir := t.TempDir()
	token := "0123456789abcdef0123"
	url := serveFile(t, filepath.Join(dir, "s.db"), token)
	tokenFile := writeFile(t, dir, "token", token+"\n")
	if err := os.Chmod(tokenFile, 0o600); err != nil {
		t.Fatal(err)
	}
	badFile := writeFile(t, dir, "bad", "fedcba9876543210fedcba\n")
	os.Chmod(badFile, 0o600)
	for _, c := range []struct {
		name  string
		env   map[string]string
		args  []string
		code  int
		inErr string
	}{
		{"both", nil, []string{"study", "list", "--db", "x.db", "--server", url}, 2, "give --db FILE or --server URL, not both"},
		{"neither", nil, []string{"study", "list"}, 2, "--db FILE is required (or --server URL"},
		{"token without server", nil, []string{"study", "list", "--db", "x.db", "--token-file", tokenFile}, 2, "--token-file goes with --server"},
		{"not a URL", nil, []string{"study", "list", "--server", "localhost:1"}, 2, "want the URL of a safegp serve"},
		{"user in URL", nil, []string{"study", "list", "--server", "http://u:p@localhost:1"}, 2, "give the server's address only"},
		{"the API's path", nil, []string{"study", "list", "--server", url + "/v1/"}, 2, "without /v1"},
		// The server's own memory limit applies, not the client's.
		{"max-memory", map[string]string{"SAFEGP_TOKEN": token}, []string{"study", "show", "--server", url, "--max-memory", "1KiB"}, 2, "--max-memory goes with --db"},
		{"no token", nil, []string{"study", "list", "--server", url}, 1, "the server refused the request: missing or wrong bearer token"},
		{"wrong token", nil, []string{"study", "list", "--server", url, "--token-file", badFile}, 1, "missing or wrong bearer token"},
		{"token file", nil, []string{"study", "list", "--server", url, "--token-file", tokenFile}, 0, ""},
		{"token env", map[string]string{"SAFEGP_TOKEN": token}, []string{"study", "list", "--server", url}, 0, ""},
		{"server env", map[string]string{"SAFEGP_TOKEN": token, "SAFEGP_SERVER": url}, []string{"study", "list"}, 0, ""},
		// --db wins over SAFEGP_SERVER: the file is opened, here a
		// missing one.
		{"db over env", map[string]string{"SAFEGP_SERVER": url}, []string{"study", "list", "--db", filepath.Join(dir, "none.db")}, 1, "no such file"},
		{"plot", map[string]string{"SAFEGP_TOKEN": token}, []string{"study", "plot", "--out", filepath.Join(dir, "p.png"), "--server", url}, 1, "plot draws from the database file"},
		{"no server there", nil, []string{"study", "list", "--server", "http://127.0.0.1:1"}, 1, "cannot reach the safegp serve at http://127.0.0.1:1 (is it running?)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, k := range []string{"SAFEGP_TOKEN", "SAFEGP_SERVER"} {
				t.Setenv(k, c.env[k])
			}
			_, stderr, code := cliRun(c.args...)
			if code != c.code || !strings.Contains(stderr, c.inErr) {
				t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", c.args, code, stderr, c.code, c.inErr)
			}
		})
	}
}

// TestRemoteErrorClasses: a server's error status reads as the class the
// server mapped it from, so that errors.Is and the exit code agree with a
// command on the file; a 503 exits as a busy database does.
func TestRemoteErrorClasses(t *testing.T) {
	for _, c := range []struct {
		status int
		class  error
		exit   int
	}{
		{400, errclass.ErrInvalid, 1},
		{404, errclass.ErrNotFound, 1},
		{409, errclass.ErrConflict, 1},
		{413, errclass.ErrTooLarge, 1},
		{503, errclass.ErrUnavailable, exitTempFail},
	} {
		rec := httptest.NewRecorder()
		rec.WriteHeader(c.status)
		err := answerError(rec.Result(), []byte(`{"error":"boom"}`))
		if err.Error() != "boom" || exitCode(err) != c.exit {
			t.Errorf("%d: %q, exit %d; want boom, exit %d", c.status, err, exitCode(err), c.exit)
		}
		if !errors.Is(err, c.class) {
			t.Errorf("%d: %v is not of %v's class", c.status, err, c.class)
		}
	}
}
