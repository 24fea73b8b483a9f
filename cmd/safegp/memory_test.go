package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// TestMaxMemory: run and reproduce take --max-memory; a configuration
// above it is refused at once, naming the keys, the estimate and the flag,
// with no output folder; a bad size is a usage error.
func TestMaxMemory(t *testing.T) {
	cfg, out := setup(t, goodConfig, goodCSV)
	var stdout, stderr bytes.Buffer
	err := run([]string{"run", cfg, "--out", out, "--max-memory", "16KiB"}, &stdout, &stderr)
	if err == nil || exitCode(err) != 1 {
		t.Fatalf("got %v, want a refusal", err)
	}
	for _, w := range []string{"horizon (T = 20)", "N = 4", "16 KiB", "--max-memory"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q lacks %q", err, w)
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Error("output folder written for a refused configuration")
	}
	if err := run([]string{"run", cfg, "--out", out, "--max-memory", "1GiB", "--quiet"}, &stdout, &stderr); err != nil {
		t.Errorf("within the limit: %v", err)
	}
	for _, args := range [][]string{
		{"run", cfg, "--out", out + "2", "--max-memory", "lots"},
		{"reproduce", "--out", out + "3", "--max-memory", "-1"},
	} {
		stderr.Reset()
		if err := run(args, &stdout, &stderr); exitCode(err) != 2 || !strings.Contains(stderr.String(), "max-memory") {
			t.Errorf("%v: got %v, stderr %q; want a usage error", args, err, stderr.String())
		}
	}
}
