package problem

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"
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
	cr := csv.NewReader(r)
	cr.TrimLeadingSpace = true
	cr.Comment = '#'
	header, err := cr.Read()
	if err == io.EOF {
		return nil, fmt.Errorf("%w: empty file, want a header row x1…xd,f[,g1…gm][,seed][,noise_std]", ErrInvalid)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	for i := range header {
		header[i] = strings.TrimSpace(header[i])
	}
	if len(header) > 0 {
		header[0] = strings.TrimPrefix(header[0], "\ufeff") // spreadsheet byte-order mark
	}
	d, m, hasSeed, hasNoise, err := parseHeader(header)
	if err != nil {
		return nil, err
	}
	p := &Problem{G: make([][]float64, m)}
	if hasSeed {
		p.Seed = []int{} // the column exists, even if it marks no action
	}
	for row := 2; ; row++ {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
		}
		vals := make([]float64, len(rec))
		for c, s := range rec {
			v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
			if err != nil {
				return nil, fmt.Errorf("%w: line %d, column %s: %q is not a number", ErrInvalid, row, header[c], s)
			}
			if !finite(v) {
				return nil, fmt.Errorf("%w: line %d, column %s: %v is not finite or beyond ±1e100", ErrInvalid, row, header[c], v)
			}
			vals[c] = v
		}
		idx := len(p.X)
		if (idx+1)*len(vals) > MaxValues {
			return nil, fmt.Errorf("%w: line %d: more than %d values in the file (%d actions × %d columns so far); a decision set this large does not fit in memory", ErrInvalid, row, MaxValues, idx+1, len(vals))
		}
		p.X = append(p.X, vals[:d:d])
		p.F = append(p.F, vals[d])
		for c := 0; c < m; c++ {
			p.G[c] = append(p.G[c], vals[d+1+c])
		}
		if hasSeed {
			switch vals[d+1+m] {
			case 1:
				p.Seed = append(p.Seed, idx)
			case 0:
			default:
				return nil, fmt.Errorf("%w: line %d, column seed: %v is neither 0 nor 1", ErrInvalid, row, vals[d+1+m])
			}
		}
		if hasNoise {
			v := vals[len(vals)-1]
			if !(v >= 0) {
				return nil, fmt.Errorf("%w: line %d, column noise_std: %v is negative; want the standard deviation of the action's measurement noise, ≥ 0", ErrInvalid, row, v)
			}
			p.NoiseStds = append(p.NoiseStds, v)
		}
	}
	if len(p.X) < 2 {
		return nil, fmt.Errorf("%w: decision set: needs at least 2 actions, got %d", ErrInvalid, len(p.X))
	}
	return p, nil
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
		return fail("first column must be x1, got %q", first(h))
	}
	if i >= len(h) || h[i] != "f" {
		return fail("column %d must be x%d or f, got %q", i+1, d+1, at(h, i))
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
		return fail("unexpected column %q (want x1…xd,f[,g1…gm][,seed][,noise_std])", h[i])
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
		return nil, nil, fmt.Errorf("%w: header: first column must be x1, got %q", ErrInvalid, header[0])
	}
	hasSeed := d < len(header) && header[d] == "seed"
	if want := d + map[bool]int{true: 1, false: 0}[hasSeed]; want != len(header) {
		return nil, nil, fmt.Errorf("%w: header: unexpected column %q (want x1…xd[,seed])", ErrInvalid, header[want])
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
			v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
			if err != nil || !finite(v) {
				return nil, nil, fmt.Errorf("%w: line %d, column %s: %q is not a finite number within ±1e100", ErrInvalid, row, header[c], s)
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
