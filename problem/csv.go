package problem

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/safegp/safegp/internal/number"
	"github.com/safegp/safegp/internal/quote"
)

// MaxValues bounds the numbers a problem or decision-set file may hold
// (N × columns): 5·10⁷, 400 MB as float64 before any model is built, so
// that a file too large for memory is refused while it is read.
const MaxValues = 50_000_000

// ReadCSV reads a user's problem (SPEC §9): a header row naming the columns
// x1 … xd, f, g1 … gm (m ≥ 0), optionally seed and optionally noise_std,
// then one row per action in index order. Thresholds, ε and the noise are
// not in the file; the caller sets them, except that a noise_std column
// gives each action's own noise standard deviation (NoiseStds), ≥ 0.
// Without a seed column, Seed is nil for the caller to fill; with one it is
// non-nil, possibly empty.
func ReadCSV(r io.Reader) (*Problem, error) {
	tb, err := readTable(r, ErrInvalid, "x1…xd,f[,g1…gm][,seed][,noise_std]")
	if err != nil {
		return nil, err
	}
	d, m := tb.d, tb.m
	p := &Problem{G: make([][]float64, m), NoiseStds: tb.noise}
	if tb.seed {
		p.Seed = []int{} // the column exists, even if it marks no action
	}
	for idx, vals := range tb.rows {
		p.X = append(p.X, vals[:d:d])
		p.F = append(p.F, vals[d])
		for c := 0; c < m; c++ {
			p.G[c] = append(p.G[c], vals[d+1+c])
		}
		if tb.seed && vals[d+1+m] == 1 {
			p.Seed = append(p.Seed, idx)
		}
	}
	if len(p.X) < 2 {
		return nil, fmt.Errorf("%w: needs at least 2 rows below the header (actions of a problem, points of a fit), got %d", ErrInvalid, len(p.X))
	}
	return p, nil
}

// table is a file in the problem-file format, read and checked cell by
// cell: what ReadCSV and ReadData share.
type table struct {
	d, m  int
	seed  bool        // a seed column, every value 0 or 1
	noise []float64   // the noise_std column, every value ≥ 0; nil without one
	rows  [][]float64 // one per data row, every column
}

// readTable reads a header row (parseHeader) and the rows below it: every
// cell a finite number within ±1e100, seed cells 0 or 1, noise_std cells
// ≥ 0, and at most MaxValues numbers in all, refused while reading so that
// a file too large for memory never is held. Errors wrap sentinel, name the
// line and column, and say which header format (want) is expected.
func readTable(r io.Reader, sentinel error, want string) (*table, error) {
	cr := csv.NewReader(r)
	cr.TrimLeadingSpace = true
	cr.Comment = '#'
	header, err := cr.Read()
	if err == io.EOF {
		return nil, fmt.Errorf("%w: empty file, want a header row %s", sentinel, want)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w", sentinel, err)
	}
	for i := range header {
		header[i] = strings.TrimSpace(header[i])
	}
	header[0] = strings.TrimPrefix(header[0], "\ufeff") // spreadsheet byte-order mark
	tb := &table{}
	var hasNoise bool
	tb.d, tb.m, tb.seed, hasNoise, err = parseHeader(header)
	if err != nil {
		// parseHeader's errors wrap ErrInvalid: keep the message, mark it
		// as the caller's.
		return nil, fmt.Errorf("%w: %s", sentinel, strings.TrimPrefix(err.Error(), ErrInvalid.Error()+": "))
	}
	for row := 2; ; row++ {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %w", sentinel, err)
		}
		if (len(tb.rows)+1)*len(rec) > MaxValues {
			return nil, fmt.Errorf("%w: line %d: more than %d values in the file (%d rows × %d columns so far); a file this large does not fit in memory", sentinel, row, MaxValues, len(tb.rows)+1, len(rec))
		}
		vals := make([]float64, len(rec))
		for c, s := range rec {
			v, err := number.Parse(strings.TrimSpace(s))
			if err != nil {
				return nil, fmt.Errorf("%w: line %d, column %s: %w", sentinel, row, quote.Prefix(header[c]), err)
			}
			if !finite(v) {
				return nil, fmt.Errorf("%w: line %d, column %s: %v is not finite or beyond ±1e100", sentinel, row, header[c], v)
			}
			vals[c] = v
		}
		if tb.seed {
			if v := vals[tb.d+1+tb.m]; v != 0 && v != 1 {
				return nil, fmt.Errorf("%w: line %d, column seed: %v is neither 0 nor 1", sentinel, row, v)
			}
		}
		if hasNoise {
			v := vals[len(vals)-1]
			if !(v >= 0) {
				return nil, fmt.Errorf("%w: line %d, column noise_std: %v is negative; want the standard deviation of the measurement noise, ≥ 0", sentinel, row, v)
			}
			tb.noise = append(tb.noise, v)
		}
		tb.rows = append(tb.rows, vals)
	}
	return tb, nil
}

// parseHeader checks the column names and returns d, m and whether the
// seed and noise_std columns are present.
func parseHeader(h []string) (d, m int, seed, noise bool, err error) {
	fail := func(format string, args ...any) (int, int, bool, bool, error) {
		return 0, 0, false, false, fmt.Errorf("%w: header: "+format, append([]any{ErrInvalid}, args...)...)
	}
	i := 0
	for i < len(h) && h[i] == "x"+strconv.Itoa(i+1) {
		i++
	}
	d = i
	if d == 0 {
		return fail("first column must be x1, got %s", quote.Short(first(h)))
	}
	if i >= len(h) || h[i] != "f" {
		return fail("column %d must be x%d or f, got %s", i+1, d+1, quote.Short(at(h, i)))
	}
	i++
	for i < len(h) && h[i] == "g"+strconv.Itoa(m+1) {
		i++
		m++
	}
	if i < len(h) && h[i] == "seed" {
		seed = true
		i++
	}
	if i < len(h) && h[i] == "noise_std" {
		noise = true
		i++
	}
	if i != len(h) {
		return fail("unexpected column %s (want x1…xd,f[,g1…gm][,seed][,noise_std])", quote.Short(h[i]))
	}
	return d, m, seed, noise, nil
}

func first(h []string) string { return at(h, 0) }

func at(h []string, i int) string {
	if i < len(h) {
		return h[i]
	}
	return ""
}

// ReadActions reads a decision set without function values: a header row
// x1 … xd and optionally seed (1 = known safe), then one row per action.
// Seed is nil when the file has no seed column.
func ReadActions(r io.Reader) (x [][]float64, seed []int, err error) {
	cr := csv.NewReader(r)
	cr.TrimLeadingSpace = true
	cr.Comment = '#'
	header, err := cr.Read()
	if err == io.EOF {
		return nil, nil, fmt.Errorf("%w: empty file, want a header row x1…xd[,seed]", ErrInvalid)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	for i := range header {
		header[i] = strings.TrimSpace(header[i])
	}
	header[0] = strings.TrimPrefix(header[0], "\ufeff")
	d := 0
	for d < len(header) && header[d] == "x"+strconv.Itoa(d+1) {
		d++
	}
	if d == 0 {
		return nil, nil, fmt.Errorf("%w: header: first column must be x1, got %s", ErrInvalid, quote.Short(header[0]))
	}
	hasSeed := d < len(header) && header[d] == "seed"
	if want := d + map[bool]int{true: 1, false: 0}[hasSeed]; want != len(header) {
		return nil, nil, fmt.Errorf("%w: header: unexpected column %s (want x1…xd[,seed])", ErrInvalid, quote.Short(header[want]))
	}
	if hasSeed {
		seed = []int{}
	}
	for row := 2; ; row++ {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, fmt.Errorf("%w: %w", ErrInvalid, err)
		}
		p := make([]float64, d)
		for c, s := range rec {
			v, err := number.Parse(strings.TrimSpace(s))
			if err != nil {
				return nil, nil, fmt.Errorf("%w: line %d, column %s: %w", ErrInvalid, row, quote.Prefix(header[c]), err)
			}
			if !finite(v) {
				return nil, nil, fmt.Errorf("%w: line %d, column %s: %v is not a finite number within ±1e100", ErrInvalid, row, quote.Prefix(header[c]), v)
			}
			if c < d {
				p[c] = v
				continue
			}
			switch v {
			case 1:
				seed = append(seed, len(x))
			case 0:
			default:
				return nil, nil, fmt.Errorf("%w: line %d, column seed: %v is neither 0 nor 1", ErrInvalid, row, v)
			}
		}
		if (len(x)+1)*d > MaxValues {
			return nil, nil, fmt.Errorf("%w: line %d: more than %d coordinates in the file (%d actions × %d dimensions so far); a decision set this large does not fit in memory", ErrInvalid, row, MaxValues, len(x)+1, d)
		}
		x = append(x, p)
	}
	return x, seed, nil
}
