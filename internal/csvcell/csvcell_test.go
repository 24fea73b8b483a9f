package csvcell

import (
	"bytes"
	"encoding/csv"
	"testing"

	"github.com/safegp/safegp/internal/number"
)

// TestEscape: every text a spreadsheet takes for a formula is written
// behind an apostrophe (OWASP's CSV injection list: =, +, -, @, tab,
// carriage return), numbers and other text as they are; Unescape gives
// back every one exactly.
func TestEscape(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, out string }{
		{"=1+1", "'=1+1"},
		{"@SUM(A1)", "'@SUM(A1)"},
		{`=HYPERLINK("http://x","y")`, `'=HYPERLINK("http://x","y")`},
		{"+cmd", "'+cmd"},
		{"-2+3", "'-2+3"},
		{"\t=1", "'\t=1"},
		{"\r=1", "'\r=1"},
		{"'=1", "''=1"},
		{"''@x", "'''@x"},
		{"-1.5", "-1.5"},
		{"+2e-3", "+2e-3"},
		{"-.5", "-.5"},
		{"3", "3"},
		{"pid", "pid"},
		{"'quoted", "'quoted"},
		{"'", "'"},
		{"", ""},
		{"-", "'-"},
		{"a=b", "a=b"},
	} {
		if got := Escape(c.in); got != c.out {
			t.Errorf("Escape(%q) = %q, want %q", c.in, got, c.out)
		}
		if back := Unescape(Escape(c.in)); back != c.in {
			t.Errorf("Unescape(Escape(%q)) = %q", c.in, back)
		}
	}
}

// TestWriter: the Writer escapes every cell of every record, and csv
// reads the cells back as written.
func TestWriter(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	w := NewWriter(&b)
	for _, r := range [][]string{{"choice", "f"}, {"=1+1", "-0.5"}, {"@SUM(A1)", "2"}} {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	w.Flush()
	recs, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if recs[1][0] != "'=1+1" || recs[1][1] != "-0.5" || recs[2][0] != "'@SUM(A1)" {
		t.Errorf("written %q", recs)
	}
}

func FuzzEscape(f *testing.F) {
	for _, s := range []string{"=1", "'=1", "-1", "@", "'", "''-x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e := Escape(s)
		if Unescape(e) != s {
			t.Errorf("Unescape(Escape(%q)) = %q", s, Unescape(e))
		}
		if len(e) > 0 && !risky(s) && e != s {
			t.Errorf("Escape changed a safe %q to %q", s, e)
		}
		if e != "" {
			switch e[0] {
			case '=', '+', '-', '@', '\t', '\r':
				if !number.Decimal(e) {
					t.Errorf("Escape(%q) = %q begins a formula", s, e)
				}
			}
		}
	})
}
