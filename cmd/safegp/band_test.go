package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunBand: --band states its choice in the figure's title (the SVG
// holds the title's text), se by default; an unknown band is a usage
// error before anything runs.
func TestRunBand(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{nil, "mean ± 1 SE over"},
		{[]string{"--band", "std"}, "mean ± 1 std over"},
		{[]string{"--band", "se"}, "mean ± 1 SE over"},
		{[]string{"--band", "none"}, "c: mean over"},
	}
	for _, c := range cases {
		cfg, out := setup(t, goodConfig, goodCSV)
		var stdout, stderr bytes.Buffer
		if err := run(append([]string{"run", cfg, "--out", out, "--workers", "1"}, c.args...), &stdout, &stderr); err != nil {
			t.Fatalf("%v: %v\n%s", c.args, err, stderr.String())
		}
		svg, err := os.ReadFile(filepath.Join(out, "regret.svg"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(svg), c.want) {
			t.Errorf("%v: the figure's title does not say %q", c.args, c.want)
		}
	}
	cfg, out := setup(t, goodConfig, goodCSV)
	var stdout, stderr bytes.Buffer
	err := run([]string{"run", cfg, "--out", out, "--band", "sd"}, &stdout, &stderr)
	if !errors.Is(err, errUsage) || !strings.Contains(stderr.String(), "--band") {
		t.Errorf("--band sd: %v, %q", err, stderr.String())
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Error("--band sd wrote output")
	}
}
