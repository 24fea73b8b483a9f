package problem

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// ErrData marks a file of earlier measurements that cannot be used.
var ErrData = errors.New("invalid data file")

// Data are measurements made at arbitrary points — earlier experiments,
// another system's logs — to start a study or an experiment from (warm
// start). Row k is one measurement: f and every g_i at X[k].
type Data struct {
	X [][]float64 // the points, each of dimension d
	F []float64   // f at each point
	G [][]float64 // G[k] = (g_1 … g_m) at X[k]
	// NoiseStds, if not nil, is each measurement's own noise standard
	// deviation (the noise_std column), ≥ 0.
	NoiseStds []float64
}

// Dim is the dimension d of the points, 0 for no rows.
func (d *Data) Dim() int {
	if len(d.X) == 0 {
		return 0
	}
	return len(d.X[0])
}

// ReadData reads measurements in the problem-file format (ReadCSV): a
// header row x1 … xd, f, g1 … gm (m ≥ 0), optionally noise_std, then one row
// per measurement, at least one. Points need not be distinct, nor lie in
// any decision set. A seed column is refused: it marks the known-safe
// actions of a decision set, and measurements are no decision set. It
// returns d and m from the header. Errors wrap ErrData and name the line
// and column.
func ReadData(r io.Reader) (data *Data, d, m int, err error) {
	cr := csv.NewReader(r)
	cr.TrimLeadingSpace = true
	cr.Comment = '#'
	header, err := cr.Read()
	if err == io.EOF {
		return nil, 0, 0, fmt.Errorf("%w: empty file, want a header row x1…xd,f[,g1…gm][,noise_std]", ErrData)
	}
	if err != nil {
		return nil, 0, 0, fmt.Errorf("%w: %w", ErrData, err)
	}
	for i := range header {
		header[i] = strings.TrimSpace(header[i])
	}
	header[0] = strings.TrimPrefix(header[0], "\ufeff") // spreadsheet byte-order mark
	d, m, hasSeed, hasNoise, err := parseHeader(header)
	if err != nil {
		// parseHeader's errors wrap ErrInvalid, a problem's: keep the
		// message, mark it as the data file's.
		return nil, 0, 0, fmt.Errorf("%w: %s", ErrData, strings.TrimPrefix(err.Error(), ErrInvalid.Error()+": "))
	}
	if hasSeed {
		return nil, 0, 0, fmt.Errorf("%w: header: a seed column marks known-safe actions of a decision set; measurements have none: drop the column", ErrData)
	}
	data = &Data{}
	for row := 2; ; row++ {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, 0, 0, fmt.Errorf("%w: %w", ErrData, err)
		}
		if (len(data.X)+1)*len(rec) > MaxValues {
			return nil, 0, 0, fmt.Errorf("%w: line %d: more than %d values in the file (%d rows × %d columns so far); split it", ErrData, row, MaxValues, len(data.X)+1, len(rec))
		}
		vals := make([]float64, len(rec))
		for c, s := range rec {
			v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
			if err != nil {
				return nil, 0, 0, fmt.Errorf("%w: line %d, column %s: %q is not a number", ErrData, row, header[c], s)
			}
			if !finite(v) {
				return nil, 0, 0, fmt.Errorf("%w: line %d, column %s: %v is not finite or beyond ±1e100", ErrData, row, header[c], v)
			}
			vals[c] = v
		}
		if hasNoise {
			if v := vals[len(vals)-1]; !(v >= 0) {
				return nil, 0, 0, fmt.Errorf("%w: line %d, column noise_std: %v is negative; want the measurement's noise standard deviation, ≥ 0", ErrData, row, v)
			}
			data.NoiseStds = append(data.NoiseStds, vals[len(vals)-1])
		}
		data.X = append(data.X, vals[:d:d])
		data.F = append(data.F, vals[d])
		data.G = append(data.G, vals[d+1:d+1+m:d+1+m])
	}
	if len(data.X) == 0 {
		return nil, 0, 0, fmt.Errorf("%w: no rows below the header", ErrData)
	}
	return data, d, m, nil
}
