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

// maxSpare is how many pieces of a long line a LineReader keeps for the
// next one (BufSize each, 16 MiB): the lines of runs.jsonl are of one
// size, and reusing their pieces saves an allocation each.
const maxSpare = 256

// LineReader reads newline-terminated lines of any length, reusing one
// buffer: the returned line is valid until the next call.
type LineReader struct {
	r      *bufio.Reader
	buf    []byte   // a long line, joined
	pieces [][]byte // a long line's pieces while it is read, the first kept for the next (maxSpare)
	max    int64    // the longest line taken; 0 for any
}

// NewLineReader reads r a line at a time; a line longer than max bytes
// (0: any) is an error wrapping readlimit.ErrTooLarge, found before the
// line is held (a shard's runs with no newline were read whole).
func NewLineReader(r io.Reader, max int64) *LineReader {
	return &LineReader{r: bufio.NewReaderSize(r, BufSize), max: max}
}

// Next returns the next line without its newline, io.EOF after the last.
//
// A line longer than the reader's buffer is held in pieces of that size
// until its end is found, and joined once, into a buffer of its own
// length: a line refused costs about its limit, where a buffer grown by
// doubling held 4.2 GB to refuse a line of /dev/zero at 1 GiB (issue 40,
// item 7).
func (lr *LineReader) Next() ([]byte, error) {
	k, n := 0, 0 // pieces used, bytes read
	for {
		s, err := lr.r.ReadSlice('\n')
		n += len(s)
		if lr.max > 0 && int64(n) > lr.max+1 {
			lr.trim()
			return nil, fmt.Errorf("%w: a line longer than %s, the most a line may hold under --max-memory (an eighth of it): raise --max-memory, or check the file", readlimit.ErrTooLarge, memlimit.Format(lr.max))
		}
		switch {
		case err == bufio.ErrBufferFull:
			if k == len(lr.pieces) {
				lr.pieces = append(lr.pieces, nil)
			}
			lr.pieces[k] = append(lr.pieces[k][:0], s...)
			k++
			continue
		case err == io.EOF && n == 0:
			return nil, io.EOF
		case err == io.EOF:
			return nil, errors.New("a truncated last line")
		case err != nil:
			return nil, err
		}
		if k == 0 {
			return s[:len(s)-1], nil // valid until the reader's next read, as promised
		}
		if cap(lr.buf) < n || cap(lr.buf) > 4*n+BufSize {
			lr.buf = make([]byte, 0, n)
		}
		lr.buf = lr.buf[:0]
		for _, p := range lr.pieces[:k] {
			lr.buf = append(lr.buf, p...)
		}
		lr.buf = append(lr.buf, s...)
		lr.trim()
		return lr.buf[:len(lr.buf)-1], nil
	}
}

// trim lets go of the pieces beyond the first maxSpare, which a long
// line (or one refused) needed and the next may not.
func (lr *LineReader) trim() {
	if len(lr.pieces) > maxSpare {
		clear(lr.pieces[maxSpare:])
		lr.pieces = lr.pieces[:maxSpare]
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
