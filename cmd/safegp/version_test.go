package main

import (
	"os/exec"
	"runtime/debug"
	"strings"
	"testing"
)

// TestVersionText is issue 24, item 13: safegp --version names the module
// version and the VCS revision the binary was built from.
func TestVersionText(t *testing.T) {
	for _, c := range []struct {
		name string
		info *debug.BuildInfo
		ok   bool
		want string
	}{
		{"tagged", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.2.0"}, Settings: []debug.BuildSetting{
			{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "856abe7a766d"}, {Key: "vcs.time", Value: "2026-11-26T06:37:00Z"}, {Key: "vcs.modified", Value: "false"}}},
			true, "safegp v1.2.0 (git 856abe7a766d, 2026-11-26T06:37:00Z), built with go1.26.8\n"},
		{"dirty tree", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.0.0-20261126063700-856abe7a766d+dirty"}, Settings: []debug.BuildSetting{
			{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "856abe7a766d"}, {Key: "vcs.modified", Value: "true"}}},
			true, "safegp v0.0.0-20261126063700-856abe7a766d+dirty (git 856abe7a766d, with uncommitted changes), built with go1.26.8\n"},
		{"go run", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}}, true, "safegp (devel), built with go1.26.8\n"},
		{"none", nil, false, "safegp (no build information)\n"},
	} {
		if got := versionText(c.info, c.ok); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// TestVersionCommand: both spellings print the version `go version -m`
// reads from the binary, and exit 0.
func TestVersionCommand(t *testing.T) {
	m, err := exec.Command("go", "version", "-m", binary).Output()
	if err != nil {
		t.Fatal(err)
	}
	var version string
	for _, line := range strings.Split(string(m), "\n") {
		if f := strings.Fields(line); len(f) >= 3 && f[0] == "mod" {
			version = f[2]
		}
	}
	for _, arg := range []string{"--version", "version"} {
		out, err := exec.Command(binary, arg).Output()
		if err != nil || !strings.HasPrefix(string(out), "safegp "+version) {
			t.Errorf("safegp %s: %q, %v; want it to start with %q", arg, out, err, "safegp "+version)
		}
	}
}

// TestUnknownCommandOneLine is item 13: a mistyped command gets one line
// — the error, the nearest command, where the list is — not the help.
func TestUnknownCommandOneLine(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"runn"}, `safegp: unknown command "runn" (did you mean "run"?); run 'safegp help' for the list` + "\n"},
		{[]string{"xyzzy"}, `safegp: unknown command "xyzzy"; run 'safegp help' for the list` + "\n"},
		{[]string{"study", "tel"}, `safegp study: unknown command "tel" (did you mean "tell"?); run 'safegp study --help' for the list` + "\n"},
		{[]string{"study", strings.Repeat("z", 5000)}, `safegp study: unknown command "` + strings.Repeat("z", 64) + `"… (5000 bytes); run 'safegp study --help' for the list` + "\n"},
	} {
		var stdout, stderr strings.Builder
		if err := run(c.args, &stdout, &stderr); err != errUsage || stderr.String() != c.want || stdout.Len() != 0 {
			t.Errorf("%.20q: %v, stderr %q, stdout %q; want errUsage and %q", c.args, err, stderr.String(), stdout.String(), c.want)
		}
	}
}
