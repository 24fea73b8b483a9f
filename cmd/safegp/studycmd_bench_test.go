package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkStudyCommand times one study command of a scripted loop — an
// ask and its tell, each its own process, as examples/tune/tune.sh runs
// them — at t = 10 and t = 1 000 observations on a 1-D grid of 1 000
// actions (sgp-ucb), on the file (--db: a replay each) and through a
// safegp serve process (--server, started before the timing, which keeps
// the study in memory). A command at t = 1 000 at most 2× one at t = 10.
// ns/op is per command (half an ask/tell pair).
func BenchmarkStudyCommand(b *testing.B) {
	for _, t := range []int{10, 1000} {
		for _, mode := range []string{"db", "server"} {
			b.Run(fmt.Sprintf("t=%d/%s", t, mode), func(b *testing.B) {
				dir := b.TempDir()
				spec := filepath.Join(dir, "s.yaml")
				if err := os.WriteFile(spec, []byte(`decision_set: {grid: {bounds: [[0, 4]], points: [1000]}}
seed_actions: [250]
thresholds: [0.0]
model:
  objective: {kernel: se, lengthscale: 1}
  constraints: [{kernel: se, lengthscale: 1}]
  noise_std: 0.05
  delta: 0.01
algorithm: {name: sgp-ucb, exploration: {fixed: 20}}
horizon: 2000
seed: 5
`), 0o644); err != nil {
					b.Fatal(err)
				}
				var csv strings.Builder
				csv.WriteString("x1,f,g1\n")
				rng := rand.New(rand.NewPCG(1, 2))
				for range t {
					x := 0.5 + rng.Float64()
					d := (x - 1) * (x - 1)
					fmt.Fprintf(&csv, "%v,%v,%v\n", x, -d+0.05*rng.NormFloat64(), 1-math.Pow(d/9, 2)+0.05*rng.NormFloat64())
				}
				data := filepath.Join(dir, "d.csv")
				if err := os.WriteFile(data, []byte(csv.String()), 0o644); err != nil {
					b.Fatal(err)
				}
				db := filepath.Join(dir, "s.db")
				where := []string{"--db", db}
				if mode == "server" {
					where = []string{"--server", serveProcess(b, db)}
				}
				cmd := func(args ...string) string {
					out, err := exec.Command(binary, append(args, where...)...).Output()
					if err != nil {
						b.Fatalf("safegp %v: %v", args, err)
					}
					return string(out)
				}
				cmd("study", "create", spec)
				cmd("study", "import", data)
				step := func() {
					a := cmd("study", "ask")
					id := a[strings.Index(a, ":")+1 : strings.Index(a, ",")]
					cmd("study", "tell", "--ask", id, "--f", "-0.1", "--g", "0.9")
				}
				step() // loads the study, in the server
				b.ResetTimer()
				for range b.N {
					step()
				}
				b.StopTimer()
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(2*b.N), "ns/command")
			})
		}
	}
}

// serveProcess starts safegp serve on db, on a free loopback port, until
// the benchmark ends, and returns its URL.
func serveProcess(b *testing.B, db string) string {
	b.Helper()
	c := exec.Command(binary, "serve", "--db", db, "--addr", "127.0.0.1:0")
	logs, err := c.StderrPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := c.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Process.Signal(os.Interrupt); c.Wait() })
	sc := bufio.NewScanner(logs)
	for sc.Scan() {
		var l struct{ Msg, Addr string }
		if json.Unmarshal(sc.Bytes(), &l) == nil && l.Msg == "listening" {
			go io.Copy(io.Discard, logs)
			return "http://" + l.Addr
		}
	}
	b.Fatal("safegp serve ended without listening")
	return ""
}
