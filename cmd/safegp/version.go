package main

import (
	"fmt"
	"io"
	"runtime/debug"
	"strings"

	"github.com/safegp/safegp/internal/quote"
)

// versionText is what safegp --version prints: the module version (a
// tag, a pseudo-version, or "(devel)" for a build from a working tree),
// the VCS revision and time the binary was built from, whether the tree
// had uncommitted changes, and the Go version — read from the build
// information the Go toolchain stamps into every binary (go build; go run
// stamps no VCS information).
func versionText(info *debug.BuildInfo, ok bool) string {
	if !ok {
		return "safegp (no build information)\n"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "safegp %s", info.Main.Version)
	set := map[string]string{}
	for _, s := range info.Settings {
		set[s.Key] = s.Value
	}
	if rev := set["vcs.revision"]; rev != "" {
		fmt.Fprintf(&b, " (%s %s", set["vcs"], rev)
		if t := set["vcs.time"]; t != "" {
			fmt.Fprintf(&b, ", %s", t)
		}
		if set["vcs.modified"] == "true" {
			b.WriteString(", with uncommitted changes")
		}
		b.WriteString(")")
	}
	fmt.Fprintf(&b, ", built with %s\n", info.GoVersion)
	return b.String()
}

func versionCmd(stdout io.Writer) error {
	info, ok := debug.ReadBuildInfo()
	fmt.Fprint(stdout, versionText(info, ok))
	return nil
}

// unknownCommand tells stderr that cmd is not one of known, naming the
// nearest one when it looks like a typo of it, and where to find the
// list: one line, not the whole help, which would push the error off the
// screen.
func unknownCommand(stderr io.Writer, prefix, cmd, help string, known []string) error {
	fmt.Fprintf(stderr, "%s: unknown command %s%s; run '%s' for the list\n", prefix, quote.Short(cmd), didYouMean(cmd, known), help)
	return errUsage
}

// nearest is the known name nearest to s when it is within two edits (a
// typo, a letter missing or doubled), else "".
func nearest(s string, known []string) string {
	best, bestD := "", 3
	if len(s) > 64 {
		return ""
	}
	for _, k := range known {
		if d := editDistance(s, k); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

// didYouMean is " (did you mean \"run\"?)" for the command nearest to s,
// or "".
func didYouMean(s string, known []string) string {
	if best := nearest(s, known); best != "" {
		return fmt.Sprintf(" (did you mean %q?)", best)
	}
	return ""
}

// editDistance is the Levenshtein distance between a and b, by bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
