package problem

import (
	"errors"
	"fmt"
	"io"
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
	tb, err := readTable(r, ErrData, "x1…xd,f[,g1…gm][,noise_std]")
	if err != nil {
		return nil, 0, 0, err
	}
	if tb.seed {
		return nil, 0, 0, fmt.Errorf("%w: header: a seed column marks known-safe actions of a decision set; measurements have none: drop the column", ErrData)
	}
	d, m = tb.d, tb.m
	data = &Data{NoiseStds: tb.noise}
	for _, vals := range tb.rows {
		data.X = append(data.X, vals[:d:d])
		data.F = append(data.F, vals[d])
		data.G = append(data.G, vals[d+1:d+1+m:d+1+m])
	}
	if len(data.X) == 0 {
		return nil, 0, 0, fmt.Errorf("%w: no rows below the header", ErrData)
	}
	return data, d, m, nil
}
