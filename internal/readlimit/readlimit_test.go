package readlimit

import (
	"bytes"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"
)

func TestReader(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name        string
		in          string
		total, line int
		err         string // "" for none
	}{
		{"within", "a,b\n1,2\n", 100, 10, ""},
		{"exactly the total", "a,b\n1,2\n", 8, 10, ""},
		{"one byte over", "a,b\n1,2\n!", 8, 10, "f.csv is larger than 8 B"},
		{"a line at its limit", "0123456789\nx\n", 100, 10, ""},
		{"a line over", "ok\n0123456789A\n", 100, 10, "f.csv: line 2 is longer than 10 B"},
		{"a last line over, no newline", "ok\nok\n0123456789AB", 100, 10, "f.csv: line 3 is longer"},
		{"no line limit", strings.Repeat("x", 50), 100, 0, ""},
	} {
		for _, one := range []bool{false, true} {
			var r io.Reader = strings.NewReader(c.in)
			if one {
				r = iotest.OneByteReader(r) // lines cut across reads
			}
			b, err := io.ReadAll(NewReader(r, "f.csv", int64(c.total), c.line))
			switch {
			case c.err == "" && (err != nil || string(b) != c.in):
				t.Errorf("%s (one byte a read: %v): %q, %v", c.name, one, b, err)
			case c.err != "" && (!errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), c.err)):
				t.Errorf("%s (one byte a read: %v): %v, want ErrTooLarge with %q", c.name, one, err, c.err)
			}
		}
	}
}

// TestEndless: /dev/zero, endless, is refused after the limit, having
// read at most one byte more.
func TestEndless(t *testing.T) {
	t.Parallel()
	f, err := os.Open("/dev/zero")
	if err != nil {
		t.Skip("no /dev/zero here")
	}
	defer f.Close()
	r := NewReader(f, "/dev/zero", 1<<20, 0)
	n, err := io.Copy(io.Discard, r)
	if !errors.Is(err, ErrTooLarge) || n > 1<<20 {
		t.Errorf("%d bytes, %v", n, err)
	}
	lines := NewReader(f, "/dev/zero", 1<<30, MaxLine)
	n, err = io.Copy(io.Discard, lines)
	if !errors.Is(err, ErrTooLarge) || n > MaxLine+32<<10 || !strings.Contains(err.Error(), "line 1 is longer than 1 MiB") {
		t.Errorf("%d bytes, %v", n, err)
	}
	if _, err := ReadDocument("/dev/zero"); !errors.Is(err, ErrTooLarge) {
		t.Errorf("ReadDocument(/dev/zero): %v", err)
	}
}

func TestOpenChecksTheSize(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, "big.csv")
	os.WriteFile(p, bytes.Repeat([]byte("1\n"), 600), 0o644)
	if _, err := Open(p, 1000, MaxLine); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "big.csv has 1.17 KiB, more than 1000 B") || !strings.Contains(err.Error(), "--max-memory") {
		t.Errorf("Open: %v", err)
	}
	f, err := Open(p, 2000, MaxLine)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if b, err := io.ReadAll(f); err != nil || len(b) != 1200 {
		t.Errorf("%d bytes, %v", len(b), err)
	}
	doc := filepath.Join(dir, "spec.yaml")
	os.WriteFile(doc, make([]byte, MaxDocument+1), 0o644)
	if _, err := ReadDocument(doc); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "16 MiB") {
		t.Errorf("ReadDocument: %v", err)
	}
	if got := For(0); got != 1<<30 {
		t.Errorf("For(0) = %d, want 1 GiB", got)
	}
	// A negative limit is none; a positive one gives an eighth, at least 1.
	for _, c := range []struct{ in, want int64 }{{-1, math.MaxInt64 - 1}, {8 << 20, 1 << 20}, {7, 1}} {
		if got := For(c.in); got != c.want {
			t.Errorf("For(%d) = %d, want %d", c.in, got, c.want)
		}
	}
}
