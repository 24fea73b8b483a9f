package quote

import (
	"strings"
	"testing"
)

func TestShort(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("a", 16<<20)
	for _, c := range []struct {
		name, in, want string
	}{
		{"empty", "", `""`},
		{"short", "1_0", `"1_0"`},
		{"64 bytes", strings.Repeat("b", 64), `"` + strings.Repeat("b", 64) + `"`},
		{"65 bytes", strings.Repeat("b", 65), `"` + strings.Repeat("b", 64) + `"… (65 bytes)`},
		{"16 MB", long, `"` + strings.Repeat("a", 64) + `"… (16777216 bytes)`},
		// 63 ASCII bytes then é (2 bytes): byte 64 is é's second byte, so
		// the prefix stops before é.
		{"cut in a character", strings.Repeat("c", 63) + "é" + "dd", `"` + strings.Repeat("c", 63) + `"… (67 bytes)`},
		{"NUL bytes", strings.Repeat("\x00", 5<<20), `"` + strings.Repeat(`\x00`, 64) + `"… (5242880 bytes)`},
	} {
		if got := Short(c.in); got != c.want {
			t.Errorf("%s: Short = %.120q, want %.120q", c.name, got, c.want)
		}
		if got := Bytes([]byte(c.in)); got != c.want {
			t.Errorf("%s: Bytes = %.120q, want %.120q", c.name, got, c.want)
		}
		if len(Short(c.in)) > 4*Max+40 {
			t.Errorf("%s: %d bytes quoted", c.name, len(Short(c.in)))
		}
	}
	if got := Prefix(strings.Repeat("x", 70)); got != strings.Repeat("x", 64)+"…" {
		t.Errorf("Prefix = %q", got)
	}
	// Not UTF-8 where Max cuts (continuation bytes with no start): cut at
	// Max, quoted as bytes.
	bad := strings.Repeat("\x80", 70)
	if got, want := Short(bad), `"`+strings.Repeat(`\x80`, 64)+`"… (70 bytes)`; got != want {
		t.Errorf("Short of continuation bytes = %q, want %q", got, want)
	}
	if got := Prefix(bad); got != bad[:64]+"…" {
		t.Errorf("Prefix of continuation bytes = %q", got)
	}
}

// TestRaw: a JSON token up to Max bytes as written, a longer one cut at
// Max with its length.
func TestRaw(t *testing.T) {
	t.Parallel()
	if got := Raw([]byte("-1.5e3")); got != "-1.5e3" {
		t.Errorf("Raw = %q", got)
	}
	long := "1" + strings.Repeat("0", 99)
	if got, want := Raw([]byte(long)), long[:64]+"… (100 bytes)"; got != want {
		t.Errorf("Raw of 100 bytes = %q, want %q", got, want)
	}
}
