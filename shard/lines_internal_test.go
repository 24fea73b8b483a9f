package shard

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/safegp/safegp/internal/readlimit"
)

// TestLineReader: lines come back without their newline, a line longer
// than the buffer joined whole from its pieces, then io.EOF; a last line
// without its newline, a line over the limit (ErrTooLarge, found before
// it is held) and the reader's own error are errors. The pieces a line
// of more than maxSpare buffers needed are let go after it.
func TestLineReader(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 3*BufSize+17)
	lr := NewLineReader(strings.NewReader("a\n\n"+long+"\nbb\n"), 0)
	for _, want := range []string{"a", "", long, "bb"} {
		got, err := lr.Next()
		if err != nil || string(got) != want {
			t.Fatalf("line of %d bytes: got %d bytes, %v", len(want), len(got), err)
		}
	}
	if _, err := lr.Next(); err != io.EOF {
		t.Errorf("after the last line: %v, want io.EOF", err)
	}
	for _, c := range []struct {
		name, in string
		max      int64
		want     []string // the lines before the error
		is       error
		msg      string
	}{
		{"truncated", "a\nb", 0, []string{"a"}, nil, "a truncated last line"},
		{"truncated long", strings.Repeat("y", BufSize+1), 0, nil, nil, "a truncated last line"},
		{"at the limit", "abcd\nabcde\n", 4, []string{"abcd"}, readlimit.ErrTooLarge, "a line longer than"},
		{"long over the limit", "ab\n" + long + "\n", int64(2 * BufSize), []string{"ab"}, readlimit.ErrTooLarge, "raise --max-memory"},
	} {
		lr := NewLineReader(strings.NewReader(c.in), c.max)
		for _, want := range c.want {
			if got, err := lr.Next(); err != nil || string(got) != want {
				t.Fatalf("%s: got %q, %v; want %q", c.name, got, err, want)
			}
		}
		_, err := lr.Next()
		if err == nil || (c.is != nil && !errors.Is(err, c.is)) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: %v, want an error saying %q", c.name, err, c.msg)
		}
	}
	boom := errors.New("boom")
	if _, err := NewLineReader(iotest.ErrReader(boom), 0).Next(); !errors.Is(err, boom) {
		t.Errorf("the reader's error: %v, want boom", err)
	}
	// A line of maxSpare+2 buffers, then a short one: the spare pieces
	// are trimmed to maxSpare, and the short line reads as it is.
	huge := bytes.Repeat([]byte{'z'}, (maxSpare+2)*BufSize)
	lr = NewLineReader(io.MultiReader(bytes.NewReader(huge), strings.NewReader("\nq\n")), 0)
	if got, err := lr.Next(); err != nil || len(got) != len(huge) {
		t.Fatalf("a line of %d bytes: got %d bytes, %v", len(huge), len(got), err)
	}
	if len(lr.pieces) > maxSpare {
		t.Errorf("%d spare pieces kept, want at most %d", len(lr.pieces), maxSpare)
	}
	if got, err := lr.Next(); err != nil || string(got) != "q" {
		t.Errorf("after the long line: %q, %v", got, err)
	}
}
