package main

import (
	"fmt"
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
// actions (sgp-ucb), each command in its own process (resident=off, a
// replay each) and through a resident (on, the default; started before
// the timing). Issue 29, item 4: a command at t = 1 000 at most 2× one at
// t = 10. ns/op is per command (half an ask/tell pair).
func BenchmarkStudyCommand(b *testing.B) {
	for _, t := range []int{10, 1000} {
		for _, mode := range []string{"off", "on"} {
			b.Run(fmt.Sprintf("t=%d/resident=%s", t, mode), func(b *testing.B) {
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
				env := append(os.Environ(), "SAFEGP_RESIDENT="+mode, "SAFEGP_RESIDENT_IDLE=5s")
				cmd := func(args ...string) string {
					c := exec.Command(binary, append(args, "--db", db)...)
					c.Env = env
					out, err := c.Output()
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
				step() // starts the resident, with mode on
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
