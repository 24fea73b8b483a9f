package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// runRSS runs the binary under GNU time and returns its stderr, exit
// code and peak resident memory in bytes. The peak is measured by time,
// a small process that forks the binary: the rusage of a child of the
// test itself would start from the test binary's own peak (the memory
// map a fork shares until exec).
func runRSS(t *testing.T, args ...string) (string, int, int64) {
	t.Helper()
	gnuTime, err := exec.LookPath("/usr/bin/time")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("/usr/bin/time (Debian's time) is needed to measure peak memory; .ci/run installs it")
		}
		t.Skip("no /usr/bin/time here to measure peak memory")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	report := filepath.Join(t.TempDir(), "rss")
	cmd := exec.CommandContext(ctx, gnuTime, append([]string{"-f", "%M", "-o", report, binary}, args...)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err = cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("safegp %.80q: %v", args, err)
	}
	b, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	// time writes "Command exited with non-zero status N" before the
	// number when the command fails.
	lines := strings.Fields(strings.TrimSpace(string(b)))
	kib, err := strconv.ParseInt(lines[len(lines)-1], 10, 64)
	if err != nil {
		t.Fatalf("time wrote %q", b)
	}
	return stderr.String(), code, kib << 10
}

// TestReadsAreBounded is issue 24, item 4: run, sweep, bound, fit, study
// create, import and posterior on /dev/zero grew past 0.9 GB, and merge
// of a runs.jsonl with no newline used 4 times its size. Every read is
// bounded — documents by 16 MiB, CSV lines by 1 MiB, files and runs.jsonl
// lines by an eighth of --max-memory — and refused naming the file, the
// limit and the flag, at a small peak memory.
func TestReadsAreBounded(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero here")
	}
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	db := filepath.Join(dir, "s.db")
	safegp(t, "study", "create", writeSpec(t, dir), "--db", db)
	cfg, _ := os.ReadFile("../../examples/regime-1-10.yaml")
	fileProblem := write("file-problem.yaml", `{"seed": 1, "realizations": 1, "horizon": 10,
 "problem": {"thresholds": [0], "noise_std": 0, "file": "/dev/zero"},
 "model": {"objective": {"kernel": "se", "lengthscale": 0.5}, "constraints": [{"kernel": "se", "lengthscale": 0.5}], "noise_std": 0.05, "delta": 0.01},
 "algorithms": [{"name": "sgp-ucb", "exploration": {"fixed": 3}}]}`)
	zeroSpec := write("zero-spec.yaml", "decision_set: {file: /dev/zero}\nseed_actions: [0]\nthresholds: [0]\nmodel: {objective: {kernel: se}, constraints: [{kernel: se}]}\nalgorithm: {name: sgp-ucb}\nhorizon: 10\n")
	var big bytes.Buffer
	big.WriteString("x1,f\n")
	for big.Len() < 2<<20 {
		big.WriteString("0.123456,0.654321\n")
	}
	bigCSV := write("big.csv", big.String())
	// A shard whose runs.jsonl is one 40 MB line.
	shards := filepath.Join(dir, "shards")
	small := write("small.yaml", strings.Replace(strings.Replace(string(cfg), "realizations: 30", "realizations: 2", 1), "horizon: 500", "horizon: 20", 1))
	for i := 1; i <= 2; i++ {
		safegp(t, "run", small, "--out", filepath.Join(shards, itoa(i)), "--shard", itoa(i)+"/2", "--quiet")
	}
	os.WriteFile(filepath.Join(shards, "1", "runs.jsonl"), bytes.Repeat([]byte("x"), 40<<20), 0o644)
	// A shard whose runs.jsonl is /dev/zero: one endless line, refused at
	// the limit, 100 MiB under --max-memory 800MiB, holding about that
	// (issue 40, item 7: a buffer grown by doubling held 4 times it).
	zeroShards := filepath.Join(dir, "zero-shards")
	for i := 1; i <= 2; i++ {
		if err := os.CopyFS(filepath.Join(zeroShards, itoa(i)), os.DirFS(filepath.Join(shards, itoa(i)))); err != nil {
			t.Fatal(err)
		}
	}
	os.Remove(filepath.Join(zeroShards, "1", "runs.jsonl"))
	if err := os.Symlink("/dev/zero", filepath.Join(zeroShards, "1", "runs.jsonl")); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		args []string
		msg  []string
		rss  int64 // the peak memory allowed; 0: 100 MiB
	}{
		{"run", []string{"run", "/dev/zero", "--out", filepath.Join(dir, "o1")}, []string{"/dev/zero", "16 MiB"}, 0},
		{"sweep", []string{"sweep", "/dev/zero", "--out", filepath.Join(dir, "o2")}, []string{"/dev/zero", "16 MiB"}, 0},
		{"bound", []string{"bound", "/dev/zero"}, []string{"/dev/zero", "16 MiB"}, 0},
		{"fit", []string{"fit", "/dev/zero"}, []string{"/dev/zero", "line 1 is longer than 1 MiB"}, 0},
		{"fit, a file beyond --max-memory/8", []string{"fit", bigCSV, "--max-memory", "8MiB"}, []string{"big.csv", "more than 1 MiB", "--max-memory"}, 0},
		{"study create", []string{"study", "create", "/dev/zero", "--db", filepath.Join(dir, "c.db")}, []string{"/dev/zero", "16 MiB"}, 0},
		{"study create, decision_set.file", []string{"study", "create", zeroSpec, "--db", filepath.Join(dir, "c2.db")}, []string{"decision_set.file", "/dev/zero", "line 1 is longer than 1 MiB"}, 0},
		{"study import", []string{"study", "import", "--db", db, "/dev/zero"}, []string{"/dev/zero", "line 1 is longer than 1 MiB"}, 0},
		{"study posterior", []string{"study", "posterior", "--db", db, "/dev/zero"}, []string{"/dev/zero", "line 1 is longer than 1 MiB"}, 0},
		{"run, problem.file", []string{"run", fileProblem, "--out", filepath.Join(dir, "o3")}, []string{"/dev/zero", "line 1 is longer than 1 MiB"}, 0},
		{"merge, a 40 MB line", []string{"merge", "--out", filepath.Join(dir, "m"), "--max-memory", "64MiB", filepath.Join(shards, "1"), filepath.Join(shards, "2")}, []string{"runs.jsonl", "longer than 8 MiB", "--max-memory"}, 0},
		{"merge, /dev/zero as runs.jsonl", []string{"merge", "--out", filepath.Join(dir, "mz"), "--max-memory", "800MiB", filepath.Join(zeroShards, "1"), filepath.Join(zeroShards, "2")}, []string{"runs.jsonl", "longer than 100 MiB", "--max-memory"}, 160 << 20},
	} {
		stderr, code, rss := runRSS(t, c.args...)
		if code != 1 || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
			t.Errorf("%s: exit %d, %q; want exit 1 and one line", c.name, code, stderr)
		}
		for _, m := range c.msg {
			if !strings.Contains(stderr, m) {
				t.Errorf("%s: %q does not mention %q", c.name, stderr, m)
			}
		}
		if c.rss == 0 {
			c.rss = 100 << 20
		}
		if rss > c.rss {
			t.Errorf("%s: peak memory %d MiB, want at most %d MiB", c.name, rss>>20, c.rss>>20)
		}
	}
}
