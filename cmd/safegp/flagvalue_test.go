package main

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestBadFlagValue: a bad flag value on any command is its message and one
// line pointing to --help, exit status 2, no usage; an unknown flag still
// prints the usage, which lists the flags there are; --help prints it and
// succeeds.
func TestBadFlagValue(t *testing.T) {
	for _, cmd := range []string{"run", "reproduce", "sweep"} {
		pos := map[string][]string{"run": {"x.yaml"}, "sweep": {"x.yaml"}}[cmd]
		for _, c := range []struct {
			args []string
			want string // in the first line
		}{
			{[]string{"--shard", "3/2"}, `invalid value "3/2" for flag --shard: want i/n with 1 ≤ i ≤ n`},
			{[]string{"--shard", "x"}, `invalid value "x" for flag --shard`},
			{[]string{"--shard", "0/2"}, `invalid value "0/2" for flag --shard`},
			{[]string{"--workers", "many"}, `invalid value "many" for flag --workers`},
			{[]string{"--max-memory", "lots"}, `invalid value "lots" for flag --max-memory`},
			{[]string{"--force=maybe"}, `invalid boolean value "maybe" for --force`},
			{[]string{"--shard"}, "flag needs an argument: --shard"}, // the last argument
		} {
			args := append(append([]string{cmd}, pos...), append([]string{"--out", "o"}, c.args...)...)
			var stdout, stderr bytes.Buffer
			err := run(args, &stdout, &stderr)
			if err != errUsage {
				t.Errorf("%v: %v, want a usage error", args, err)
			}
			lines := strings.Split(strings.TrimSuffix(stderr.String(), "\n"), "\n")
			wantHint := fmt.Sprintf("Run 'safegp %s --help' for usage.", cmd)
			if len(lines) != 2 || !strings.HasPrefix(lines[0], "safegp "+cmd+": ") || !strings.Contains(lines[0], c.want) || lines[1] != wantHint {
				t.Errorf("%v: stderr\n%s\nwant two lines, %q in the first after \"safegp %s: \", then %q", args, stderr.String(), c.want, cmd, wantHint)
			}
		}
		// An unknown flag: its message, the nearest flag, and the hint
		// (issue 24, item 13: not the usage, which buries the message).
		var stdout, stderr bytes.Buffer
		args := append(append([]string{cmd}, pos...), "--nope")
		if err := run(args, &stdout, &stderr); err != errUsage {
			t.Errorf("%v: %v, want a usage error", args, err)
		}
		if s, want := stderr.String(), fmt.Sprintf("safegp %s: flag provided but not defined: --nope\nRun 'safegp %s --help' for usage.\n", cmd, cmd); s != want {
			t.Errorf("%v: stderr %q, want %q", args, s, want)
		}
		stderr.Reset()
		args = append(append([]string{cmd}, pos...), "--shrad", "1/2")
		if run(args, &stdout, &stderr); !strings.Contains(stderr.String(), "--shrad (did you mean --shard?)") {
			t.Errorf("%v: stderr %q, want the nearest flag", args, stderr.String())
		}
		stderr.Reset()
		if err := run([]string{cmd, "--help"}, &stdout, &stderr); err != nil || !strings.HasPrefix(stderr.String(), "Usage: safegp "+cmd) {
			t.Errorf("%s --help: %v, %q", cmd, err, stderr.String())
		}
	}
	// The other commands answer a bad value the same way.
	for _, args := range [][]string{
		{"merge", "--force=maybe", "--out", "o", "a"},
		{"serve", "--db"},
		{"study", "ask", "--db"},
	} {
		var stdout, stderr bytes.Buffer
		if err := run(args, &stdout, &stderr); err != errUsage {
			t.Errorf("%v: %v, want a usage error", args, err)
		}
		lines := strings.Split(strings.TrimSuffix(stderr.String(), "\n"), "\n")
		if len(lines) != 2 || !strings.HasSuffix(lines[1], "--help' for usage.") {
			t.Errorf("%v: stderr\n%s\nwant the message and one line pointing to --help", args, stderr.String())
		}
	}
}

// TestShardWording: one shard is "1 shard", not "the 1 shards", in what
// run --shard 1/1 and merge print; n of them are "n shards".
func TestShardWording(t *testing.T) {
	dir := t.TempDir()
	cfg := shardConfig(t, dir)
	say := func(args ...string) string {
		t.Helper()
		var stdout, stderr bytes.Buffer
		if err := run(args, &stdout, &stderr); err != nil {
			t.Fatalf("%v: %v: %s", args, err, stderr.String())
		}
		return stdout.String()
	}
	one := filepath.Join(dir, "one")
	for _, c := range []struct {
		got, want, not string
	}{
		{say("run", cfg, "--quiet", "--workers", "1", "--out", one, "--shard", "1/1"), "this one shard", "shards"},
		{say("merge", "--out", filepath.Join(dir, "m1"), one), "25 runs merged from 1 shard\n", "shards"},
		{say("run", cfg, "--quiet", "--workers", "1", "--out", filepath.Join(dir, "a"), "--shard", "1/2"), "merge the 2 shards", ""},
	} {
		if !strings.Contains(c.got, c.want) || (c.not != "" && strings.Contains(c.got, c.not)) {
			t.Errorf("printed %q, want %q in it and no %q", c.got, c.want, c.not)
		}
	}
	// More shards than realizations: a shard with no runs is written (the
	// merge wants all n) with a note saying why it is empty.
	var stdout, stderr bytes.Buffer
	if err := run([]string{"run", cfg, "--quiet", "--workers", "1", "--out", filepath.Join(dir, "empty"), "--shard", "99/99"}, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout.String(), "0 of ") || !strings.Contains(stderr.String(), "holds no runs") {
		t.Errorf("an empty shard printed %q and %q, want 0 runs and a note", stdout.String(), stderr.String())
	}
	if got, want := count(1, "run"), "1 run"; got != want {
		t.Errorf("count(1, run) = %q, want %q", got, want)
	}
	if got, want := count(0, "cell"), "0 cells"; got != want {
		t.Errorf("count(0, cell) = %q, want %q", got, want)
	}
}
