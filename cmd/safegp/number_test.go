package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGoSyntaxNumbersRefused is issue 24, item 6: numbers in Go's syntax
// — digit separators, hexadecimal floats and integers, NaN — were taken
// from flags and CSV cells (--f 1_0 stored 10, --f 0x1p-3 0.125, a cell
// 1_0 was 10). Each is refused naming the value, and changes nothing.
func TestGoSyntaxNumbersRefused(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "s.db")
	safegp(t, "study", "create", writeSpec(t, dir), "--db", db)
	ask := safegp(t, "study", "ask", "--db", db)
	id := ask[strings.Index(ask, ":")+1 : strings.Index(ask, ",")]
	before := safegp(t, "study", "export", "--db", db, "--format", "csv")
	csv := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, c := range []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"f 1_0", []string{"tell", "--ask", id, "--f", "1_0", "--g", "1"}, 2, `invalid value "1_0" for flag --f: not a decimal number`},
		{"f hex float", []string{"tell", "--ask", id, "--f", "0x1p-3", "--g", "1"}, 2, `invalid value "0x1p-3" for flag --f`},
		{"f NaN", []string{"tell", "--ask", id, "--f", "NaN", "--g", "1"}, 2, `invalid value "NaN" for flag --f: not a finite number`},
		{"noise Inf", []string{"tell", "--ask", id, "--f", "1", "--g", "1", "--noise-std", "Inf"}, 2, `flag --noise-std: not a finite number`},
		{"x 1_0e-1", []string{"tell", "--x", "1_0e-1", "--f", "1", "--g", "1"}, 1, `--x: coordinate 1: "1_0e-1" is not a decimal number`},
		{"g 1_0", []string{"tell", "--ask", id, "--f", "1", "--g", "1_0"}, 1, `--g: g1: "1_0" is not a decimal number`},
		{"ask hex", []string{"tell", "--ask", "0x" + id, "--f", "1", "--g", "1"}, 2, `invalid value "0x` + id + `" for flag --ask: not an integer`},
		{"index 1_0", []string{"tell", "--index", "1_0", "--f", "1", "--g", "1"}, 2, `invalid value "1_0" for flag --index`},
		{"csv 1_0", []string{"import", csv("sep.csv", "x1,f,g1\n1,1_0,1\n")}, 1, `line 2, column f: "1_0" is not a decimal number`},
		{"csv hex", []string{"import", csv("hex.csv", "x1,f,g1\n0x1p-3,1,1\n")}, 1, `line 2, column x1: "0x1p-3" is not a decimal number`},
		{"csv Inf", []string{"import", csv("inf.csv", "x1,f,g1\n1,1,-Inf\n")}, 1, `line 2, column g1: "-Inf" is not a finite number`},
	} {
		args := append([]string{"study", c.args[0], "--db", db}, c.args[1:]...)
		if _, stderr, code := runBinary(t, args...); code != c.code || !strings.Contains(stderr, c.msg) {
			t.Errorf("%s: exit %d, %q; want exit %d mentioning %q", c.name, code, stderr, c.code, c.msg)
		}
	}
	// The decimal notation users mean is taken: +1, .5, 1.5E+00.
	safegp(t, "study", "tell", "--db", db, "--ask", "+"+id, "--f", ".5", "--g", "1.5E+00")
	after := safegp(t, "study", "export", "--db", db, "--format", "csv")
	if !strings.HasPrefix(after, before) || !strings.Contains(after[len(before):], ",0.5,1.5,") {
		t.Errorf("export after the one good tell:\n%s\nbefore:\n%s", after, before)
	}
}
