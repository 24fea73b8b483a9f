package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/safegp/safegp/internal/racetest"
)

// TestSafetyCmd: safegp safety writes its report into --out, refuses
// bad flags with the usage exit, and refuses an existing folder without
// --force.
func TestSafetyCmd(t *testing.T) {
	racetest.Long(t, "every scenario takes 15 s")
	if testing.Short() {
		t.Skip("runs every scenario once")
	}
	out := filepath.Join(t.TempDir(), "s")
	var stdout, stderr bytes.Buffer
	if err := run([]string{"safety", "--out", out, "--realizations", "1"}, &stdout, &stderr); err != nil {
		t.Fatalf("safety: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(stdout.String(), "the report is "+filepath.Join(out, "REPORT.md")) {
		t.Errorf("stdout %q", stdout.String())
	}
	if _, err := os.Stat(filepath.Join(out, "REPORT.md")); err != nil {
		t.Error(err)
	}
	for _, args := range [][]string{{"safety", "--workers", "0"}, {"safety", "--realizations", "-1"}, {"safety", "extra"}} {
		stderr.Reset()
		if err := run(args, &stdout, &stderr); exitCode(err) != 2 {
			t.Errorf("%v: exit %d (%v), want 2", args, exitCode(err), err)
		}
	}
	stderr.Reset()
	if err := run([]string{"safety", "--out", out, "--realizations", "1"}, &stdout, &stderr); err == nil {
		t.Error("safety into a written folder without --force: no error")
	}
}

// TestSafetySuiteCmd: safegp safety --suite losbo prints its table (a row
// per scenario and algorithm), writes the CSV and report, and refuses the
// flags of the other mode and bad counts with the usage exit.
func TestSafetySuiteCmd(t *testing.T) {
	out := filepath.Join(t.TempDir(), "l")
	var stdout, stderr bytes.Buffer
	if err := run([]string{"safety", "--suite", "losbo", "--runs", "2", "--functions", "1", "--out", out}, &stdout, &stderr); err != nil {
		t.Fatalf("safety --suite losbo: %v\n%s", err, stderr.String())
	}
	table := bytes.NewBufferString(stdout.String())
	if got := strings.Count(stdout.String(), "\n| "); got < 20 {
		t.Errorf("%d table rows printed, want a row per scenario and algorithm:\n%s", got, stdout.String())
	}
	for _, f := range []string{"losbo.csv", "REPORT.md", "losbo.png"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
	for _, args := range [][]string{
		{"safety", "--suite", "bench"}, {"safety", "--runs", "3"}, {"safety", "--shard", "1/2"}, {"safety", "--suite", "losbo", "--realizations", "2"},
		{"safety", "--suite", "losbo", "--runs", "0"}, {"safety", "--suite", "losbo", "--functions", "101"},
	} {
		stderr.Reset()
		if err := run(args, &stdout, &stderr); exitCode(err) != 2 {
			t.Errorf("%v: exit %d (%v), want 2", args, exitCode(err), err)
		}
	}
	// Two shards and their merge: the CSV and table the whole run wrote.
	var shards []string
	for _, i := range []string{"1", "2"} {
		d := filepath.Join(t.TempDir(), "s"+i)
		if err := run([]string{"safety", "--suite", "losbo", "--runs", "2", "--functions", "1", "--shard", i + "/2", "--out", d}, &bytes.Buffer{}, &stderr); err != nil {
			t.Fatalf("shard %s: %v\n%s", i, err, stderr.String())
		}
		shards = append(shards, d)
	}
	m := filepath.Join(t.TempDir(), "m")
	var merged bytes.Buffer
	if err := run(append([]string{"merge", "--out", m}, shards...), &merged, &stderr); err != nil {
		t.Fatalf("merge: %v\n%s", err, stderr.String())
	}
	a, _ := os.ReadFile(filepath.Join(out, "losbo.csv"))
	b, err := os.ReadFile(filepath.Join(m, "losbo.csv"))
	if err != nil || !bytes.Equal(a, b) {
		t.Errorf("merged losbo.csv differs from the whole run's (%v)", err)
	}
	if tbl := table.String(); !strings.HasPrefix(merged.String(), tbl[:strings.LastIndex(tbl, "|\n")+2]) {
		t.Errorf("merge printed\n%s\nwant the whole run's table\n%s", merged.String(), tbl)
	}
}
