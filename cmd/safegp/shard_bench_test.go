package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// cpu runs the built safegp with args and returns the user + system CPU
// time of the process.
func cpu(b *testing.B, args ...string) time.Duration {
	b.Helper()
	cmd := exec.Command(binary, args...)
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("safegp %v: %v\n%s", args, err, out)
	}
	return cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
}

// BenchmarkShardOverhead measures issue 14's target, 7 shards plus
// `safegp merge` against the unsharded command, in user + system CPU time
// of the processes (each with one worker, so that the sum does not count
// idle parallelism), for `safegp run examples/regime-1-10.yaml` (≈ 1 CPU-s:
// eight process starts are ≈ 7 % of it) and for a sweep of 28 cells of
// it over the constraint's lengthscale (≈ 30 CPU-s, dealt by cell: 4
// cells a shard). It reports both and the overhead in percent. The
// target, ≤ 10 %, is the for its sweep benchmark (100 cells; the
// 28-cell sweep stands in for it at a quarter of the time); the run's
// fixed costs, eight process starts against one, put it above.
//
//	go test -run '^$' -bench ShardOverhead -benchtime 1x -count 3 ./cmd/safegp/
func BenchmarkShardOverhead(b *testing.B) {
	const n = 7
	cfg, err := filepath.Abs("../../examples/regime-1-10.yaml")
	if err != nil {
		b.Fatal(err)
	}
	ls := make([]string, 28)
	for k := range ls {
		ls[k] = fmt.Sprintf("%.2f", 0.05+0.01*float64(k))
	}
	sw := filepath.Join(b.TempDir(), "sweep28.yaml")
	text := fmt.Sprintf("base_file: %s\naxes:\n  problem.generate.constraints[0].lengthscale: [%s]\nfigure:\n  x: problem.generate.constraints[0].lengthscale\n", cfg, strings.Join(ls, ", "))
	if err := os.WriteFile(sw, []byte(text), 0o644); err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct{ name, cmd, file string }{{"run", "run", cfg}, {"sweep28", "sweep", sw}} {
		b.Run(c.name, func(b *testing.B) {
			var whole, sharded time.Duration
			for it := 0; it < b.N; it++ {
				dir := b.TempDir()
				whole += cpu(b, c.cmd, c.file, "--quiet", "--workers", "1", "--out", filepath.Join(dir, "whole"))
				var shards []string
				for i := 1; i <= n; i++ {
					d := filepath.Join(dir, fmt.Sprintf("shard-%d", i))
					sharded += cpu(b, c.cmd, c.file, "--quiet", "--workers", "1", "--out", d, "--shard", fmt.Sprintf("%d/%d", i, n))
					shards = append(shards, d)
				}
				sharded += cpu(b, append([]string{"merge", "--out", filepath.Join(dir, "merged")}, shards...)...)
			}
			b.ReportMetric(whole.Seconds()/float64(b.N), "cpu-s-whole")
			b.ReportMetric(sharded.Seconds()/float64(b.N), "cpu-s-7shards+merge")
			b.ReportMetric(100*(sharded.Seconds()/whole.Seconds()-1), "overhead-%")
		})
	}
}
