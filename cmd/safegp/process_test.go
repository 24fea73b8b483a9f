package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/safegp/safegp/study"
)

var binary string // the safegp binary, built once by TestMain

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "safegp-bin-*")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "safegp")
	if out, err := exec.Command("go", "build", "-o", binary, ".").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build safegp: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func safegp(t *testing.T, args ...string) string {
	t.Helper()
	out, err := exec.Command(binary, args...).Output()
	if err != nil {
		msg := ""
		if ee, ok := err.(*exec.ExitError); ok {
			msg = string(ee.Stderr)
		}
		t.Fatalf("safegp %v: %v\n%s", args, err, msg)
	}
	return string(out)
}

// problem1D is a 1-D problem: f peaks at x = 3, g ≥ 0 up to x = 3.5.
func problem1D(x float64) (f, g float64) { return -(x - 3) * (x - 3), 1 - math.Pow(x/3.5, 4) }

const studyModel = `thresholds: [0.0]
model:
  objective: {kernel: se, lengthscale: 1}
  constraints: [{kernel: se, lengthscale: 1}]
  noise_std: 0.05
  delta: 0.01
  beta: paper
`

// TestStudyProcessesMatchRun drives a study through separate `safegp study`
// processes, answering each ask with the exact f and g, and compares the
// actions with `safegp run` on the same problem with exact observations.
// Both algorithms make no random choices.
func TestStudyProcessesMatchRun(t *testing.T) {
	const T = 12
	for _, alg := range []string{
		"{name: sgp-ucb, phase1: uncertainty, exploration: {fixed: 4}}",
		"{name: safeopt, safe_set: gp}",
	} {
		t.Run(alg, func(t *testing.T) {
			dir := t.TempDir()
			var problemCSV, actionsCSV strings.Builder
			problemCSV.WriteString("x1,f,g1,seed\n")
			actionsCSV.WriteString("x1,seed\n")
			for i := 0; i <= 40; i++ {
				x := float64(i) / 10
				f, g := problem1D(x)
				seed := 0
				if i == 10 || i == 12 {
					seed = 1
				}
				fmt.Fprintf(&problemCSV, "%v,%v,%v,%d\n", x, f, g, seed)
				fmt.Fprintf(&actionsCSV, "%v,%d\n", x, seed)
			}
			write := func(name, content string) string {
				p := filepath.Join(dir, name)
				if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
				return p
			}
			write("problem.csv", problemCSV.String())
			write("actions.csv", actionsCSV.String())
			cfg := write("run.yaml", fmt.Sprintf("seed: 1\nrealizations: 1\nhorizon: %d\nproblem:\n  file: problem.csv\n  thresholds: [0.0]\n  epsilon: 0.01\n  noise_std: 0\n%salgorithms:\n  - %s\n",
				T, studyModel[strings.Index(studyModel, "model:"):], alg))
			spec := write("spec.yaml", fmt.Sprintf("decision_set: {file: actions.csv}\n%salgorithm: %s\nhorizon: %d\nseed: 1\n", studyModel, alg, T))
			safegp(t, "run", cfg, "--out", filepath.Join(dir, "out"), "--quiet")
			raw, err := os.ReadFile(filepath.Join(dir, "out", "results.json"))
			if err != nil {
				t.Fatal(err)
			}
			var res struct {
				Runs []struct {
					Actions []int `json:"actions"`
				} `json:"runs"`
			}
			if err := json.Unmarshal(raw, &res); err != nil {
				t.Fatal(err)
			}
			want := res.Runs[0].Actions

			db := filepath.Join(dir, "s.db")
			safegp(t, "study", "create", spec, "--db", db)
			var got []int
			for round := 0; round < T; round++ {
				var a study.AskAnswer
				if err := json.Unmarshal([]byte(safegp(t, "study", "ask", "--db", db)), &a); err != nil {
					t.Fatal(err)
				}
				got = append(got, a.Index)
				f, g := problem1D(a.X[0])
				safegp(t, "study", "tell", "--db", db, "--ask", strconv.Itoa(a.Ask),
					"--f", strconv.FormatFloat(f, 'g', -1, 64), "--g", strconv.FormatFloat(g, 'g', -1, 64))
			}
			t.Logf("played %v", got)
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("study played %v, run played %v", got, want)
			}
		})
	}
}

// server starts `safegp serve` on a free loopback port and returns its
// address and process.
func startServer(t *testing.T, db string) (string, *exec.Cmd) {
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
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		var line struct {
			Msg  string `json:"msg"`
			Addr string `json:"addr"`
		}
		if json.Unmarshal(sc.Bytes(), &line) == nil && line.Msg == "listening" {
			go io.Copy(io.Discard, stderr)
			return "http://" + line.Addr, cmd
		}
	}
	t.Fatal("server did not report its address")
	return "", nil
}

func post(t *testing.T, url, body string, out any) int {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if out != nil {
		json.NewDecoder(resp.Body).Decode(out)
	}
	return resp.StatusCode
}

// TestCrashSafety kills the serving binary with SIGKILL right after a tell,
// restarts it on the same database and checks that no observation was lost
// and that the next suggestion is the one an uninterrupted server gives.
func TestCrashSafety(t *testing.T) {
	dir := t.TempDir()
	spec := `{"decision_set": {"grid": {"bounds": [[0, 4]], "points": [41]}}, "seed_actions": [10, 12], "thresholds": [0.0],
	 "model": {"objective": {"kernel": "se", "lengthscale": 1}, "constraints": [{"kernel": "se", "lengthscale": 1}], "noise_std": 0.05, "delta": 0.01},
	 "algorithm": {"name": "sgp-ucb", "phase1": "uniform", "exploration": {"fixed": 6}}, "horizon": 50, "seed": 9}`
	session := func(url string, rounds int) {
		for r := 0; r < rounds; r++ {
			var a study.AskAnswer
			if code := post(t, url+"/v1/studies/s/ask", "", &a); code != 200 {
				t.Fatalf("ask: %d", code)
			}
			f, g := problem1D(a.X[0])
			if code := post(t, url+"/v1/studies/s/tell", fmt.Sprintf(`{"ask": %d, "f": %v, "g": [%v]}`, a.Ask, f, g), nil); code != 200 {
				t.Fatalf("tell: %d", code)
			}
		}
	}
	// Reference: an uninterrupted server, 9 rounds, then the next ask.
	refURL, _ := startServer(t, filepath.Join(dir, "ref.db"))
	post(t, refURL+"/v1/studies", `{"name": "s", "spec": `+spec+`}`, nil)
	session(refURL, 9)
	var want study.AskAnswer
	post(t, refURL+"/v1/studies/s/ask", "", &want)

	db := filepath.Join(dir, "crash.db")
	url, cmd := startServer(t, db)
	post(t, url+"/v1/studies", `{"name": "s", "spec": `+spec+`}`, nil)
	session(url, 9)
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	url, _ = startServer(t, db)
	var obs []study.Observation
	resp, err := http.Get(url + "/v1/studies/s/observations")
	if err != nil {
		t.Fatal(err)
	}
	json.NewDecoder(resp.Body).Decode(&obs)
	resp.Body.Close()
	if len(obs) != 9 {
		t.Errorf("%d observations after the crash, want 9", len(obs))
	}
	var got study.AskAnswer
	post(t, url+"/v1/studies/s/ask", "", &got)
	if got.Index != want.Index || got.Ask != want.Ask {
		t.Errorf("after the crash the next ask is %+v, without it %+v", got, want)
	}
}

// TestServeDrainsOnSIGTERM: SIGTERM stops the server cleanly (exit 0).
func TestServeDrainsOnSIGTERM(t *testing.T) {
	_, cmd := startServer(t, filepath.Join(t.TempDir(), "d.db"))
	cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("exit after SIGTERM: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("server did not stop within 20 s of SIGTERM")
	}
}
