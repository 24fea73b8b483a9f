package readlimit

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/safegp/safegp/internal/memlimit"
)

// ErrTooLarge marks a file, or a line of it, beyond its limit.
var ErrTooLarge = errors.New("input too large")

const (
	// MaxDocument bounds a YAML or JSON document read whole.
	MaxDocument = 16 << 20
	// MaxLine bounds a line of a CSV file: a row of a few thousand
	// numbers is far below it.
	MaxLine = 1 << 20
)

// For is the most one file (or one line of runs.jsonl) may hold under the
// memory limit maxMemory (0: memlimit.Default; negative: none): an eighth
// of it, 1 GiB by default, as reading and decoding hold up to about four
// times the bytes read (the bytes, the fields cut from them, their values).
func For(maxMemory int64) int64 {
	switch {
	case maxMemory < 0:
		return math.MaxInt64 - 1
	case maxMemory == 0:
		maxMemory = memlimit.Default
	}
	return max(maxMemory/8, 1)
}

// tooLarge is the error for name beyond limit bytes.
func tooLarge(name string, limit int64, what string) error {
	return fmt.Errorf("%w: %s is larger than %s, the most %s; raise --max-memory (a file may hold an eighth of it), or give a smaller file", ErrTooLarge, name, memlimit.Format(limit), what)
}

// ReadDocument reads the YAML or JSON document at path whole: at most
// MaxDocument bytes. A regular file's size is checked before reading;
// anything else (a pipe, a device) is read up to the limit.
func ReadDocument(path string) ([]byte, error) {
	return ReadFile(path, MaxDocument, "a configuration or specification may hold")
}

// ReadFile reads path whole, at most limit bytes; what names the limit
// in the error ("a shard.json may hold").
func ReadFile(path string, limit int64, what string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() && st.Size() > limit {
		return nil, fmt.Errorf("%w: %s has %s, more than %s, the most %s", ErrTooLarge, path, memlimit.Format(st.Size()), memlimit.Format(limit), what)
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%w: %s is larger than %s, the most %s", ErrTooLarge, path, memlimit.Format(limit), what)
	}
	return b, nil
}

// Reader reads at most Total bytes of a file, and lines of at most Line
// bytes (0: any length), failing with ErrTooLarge and the file's name
// beyond either, before the bytes reach the caller: a parser above it
// never holds more.
type Reader struct {
	r     io.Reader
	name  string
	total int64 // limit on all the bytes
	line  int64 // limit on a line, 0 for none
	read  int64 // bytes read so far
	run   int64 // bytes since the last newline
	lines int   // newlines so far
	err   error
}

// NewReader limits r, the file name, to total bytes and lines of line
// bytes (0: no line limit).
func NewReader(r io.Reader, name string, total int64, line int) *Reader {
	return &Reader{r: r, name: name, total: total, line: int64(line)}
}

func (l *Reader) Read(p []byte) (int, error) {
	if l.err != nil {
		return 0, l.err
	}
	// One byte beyond the limit tells a file of exactly the limit from a
	// longer one.
	if rest := l.total - l.read + 1; int64(len(p)) > rest {
		p = p[:rest]
	}
	n, err := l.r.Read(p)
	l.read += int64(n)
	if l.read > l.total {
		l.err = tooLarge(l.name, l.total, "a file may hold under --max-memory")
		return 0, l.err
	}
	if l.line > 0 {
		for chunk := p[:n]; ; {
			k := bytes.IndexByte(chunk, '\n')
			if k < 0 {
				l.run += int64(len(chunk))
				break
			}
			if l.run+int64(k) > l.line {
				l.run += int64(k)
				break
			}
			l.lines++
			l.run, chunk = 0, chunk[k+1:]
		}
		if l.run > l.line {
			l.err = fmt.Errorf("%w: %s: line %d is longer than %s, more than any line of this kind of file should be (is it the file you meant?)", ErrTooLarge, l.name, l.lines+1, memlimit.Format(l.line))
			return 0, l.err
		}
	}
	return n, err
}

// File opens path for reading through a Reader.
type File struct {
	*Reader
	f *os.File
}

// Open opens path, limited to total bytes (refused before reading when a
// regular file is larger) and lines of line bytes (0: any).
func Open(path string, total int64, line int) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() && st.Size() > total {
		f.Close()
		return nil, fmt.Errorf("%w: %s has %s, more than %s, the most a file may hold under --max-memory; raise --max-memory (a file may hold an eighth of it), or give a smaller file", ErrTooLarge, path, memlimit.Format(st.Size()), memlimit.Format(total))
	}
	return &File{Reader: NewReader(f, path, total, line), f: f}, nil
}

// Close closes the file.
func (f *File) Close() error { return f.f.Close() }
