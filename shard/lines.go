package shard

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/safegp/safegp/internal/memlimit"
	"github.com/safegp/safegp/internal/readlimit"
)

// BufSize is the buffer of each file of runs read or written: a line
// longer than it is read in pieces (LineReader). Small, because a shard
// opens one part per algorithm and is a short process: clearing
// megabytes of buffers was a measurable part of its time.
const BufSize = 64 << 10

// LineReader reads newline-terminated lines of any length, reusing one
// buffer: the returned line is valid until the next call.
type LineReader struct {
	r   *bufio.Reader
	buf []byte
	max int64 // the longest line taken; 0 for any
}

// NewLineReader reads r a line at a time; a line longer than max bytes
// (0: any) is an error wrapping readlimit.ErrTooLarge, found before the
// line is held (a shard's runs with no newline were read whole).
func NewLineReader(r io.Reader, max int64) *LineReader {
	return &LineReader{r: bufio.NewReaderSize(r, BufSize), max: max}
}

// Next returns the next line without its newline, io.EOF after the last.
func (lr *LineReader) Next() ([]byte, error) {
	lr.buf = lr.buf[:0]
	for {
		s, err := lr.r.ReadSlice('\n')
		lr.buf = append(lr.buf, s...)
		if lr.max > 0 && int64(len(lr.buf)) > lr.max+1 {
			return nil, fmt.Errorf("%w: a line longer than %s, the most a line may hold under --max-memory (an eighth of it): raise --max-memory, or check the file", readlimit.ErrTooLarge, memlimit.Format(lr.max))
		}
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case err == io.EOF && len(lr.buf) == 0:
			return nil, io.EOF
		case err == io.EOF:
			return nil, errors.New("a truncated last line")
		case err != nil:
			return nil, err
		}
		return lr.buf[:len(lr.buf)-1], nil
	}
}

// Lines reads the runs of a set of shards (Check's folders and owner)
// back in unit order: unit u's line from the file of the shard holding
// it, each file read once, front to back, one line at a time.
type Lines struct {
	files   []*os.File
	readers []*LineReader
	owner   []int
	u       int
	unit    func(line []byte) (int, error)
}

// OpenLines opens the file name in every folder of dirs, whose shards'
// units are owner (Check). unit reads a line's unit, which must be the
// one owner puts there; a line longer than max bytes (0: any) is an
// error. Close the Lines when done.
func OpenLines(dirs []string, owner []int, name string, max int64, unit func(line []byte) (int, error)) (*Lines, error) {
	l := &Lines{owner: owner, unit: unit}
	for _, d := range dirs {
		f, err := os.Open(filepath.Join(d, name))
		if err != nil {
			l.Close()
			return nil, fmt.Errorf("%w: %w", ErrShards, err)
		}
		l.files = append(l.files, f)
		l.readers = append(l.readers, NewLineReader(f, max))
	}
	return l, nil
}

// Next returns the next unit's line, valid until the next call, and
// io.EOF after the last, once every file has been read to its end. It
// stops with ctx's error when ctx is done. Errors of the files wrap
// ErrShards and name the file.
func (l *Lines) Next(ctx context.Context) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if l.u == len(l.owner) {
		// Every shard read to its end: no line left over.
		for k, lr := range l.readers {
			if _, err := lr.Next(); err != io.EOF {
				return nil, fmt.Errorf("%w: %s has more runs than its %s lists", ErrShards, l.files[k].Name(), File)
			}
		}
		return nil, io.EOF
	}
	k := l.owner[l.u]
	line, err := l.readers[k].Next()
	if err == io.EOF {
		return nil, fmt.Errorf("%w: %s ends before unit %d, which its %s lists", ErrShards, l.files[k].Name(), l.u, File)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrShards, l.files[k].Name(), err)
	}
	if u, err := l.unit(line); err != nil || u != l.u {
		return nil, fmt.Errorf("%w: %s: the run of unit %d is not where its %s puts it (%v)", ErrShards, l.files[k].Name(), l.u, File, err)
	}
	l.u++
	return line, nil
}

// Close closes the files.
func (l *Lines) Close() {
	for _, f := range l.files {
		f.Close()
	}
}
