package problem_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/safegp/safegp/problem"
)

// TestReadData: measurements in the problem-file format, one row or many,
// with and without constraints and a noise_std column; every bad file
// gets one error wrapping ErrData that names what is wrong and where.
func TestReadData(t *testing.T) {
	t.Parallel()
	good := []struct {
		name, csv string
		d, m      int
		data      problem.Data
	}{
		{"one row", "x1,f,g1\n0.5,1,2\n", 1, 1, problem.Data{X: [][]float64{{0.5}}, F: []float64{1}, G: [][]float64{{2}}}},
		{"no constraints, repeated point", "x1,x2,f\n0,1,3\n0,1,4\n", 2, 0,
			problem.Data{X: [][]float64{{0, 1}, {0, 1}}, F: []float64{3, 4}, G: [][]float64{{}, {}}}},
		{"noise_std", "x1,f,g1,g2,noise_std\n# a comment\n1,2,3,4,0.1\n-1,0,0,0,0\n", 1, 2,
			problem.Data{X: [][]float64{{1}, {-1}}, F: []float64{2, 0}, G: [][]float64{{3, 4}, {0, 0}}, NoiseStds: []float64{0.1, 0}}},
	}
	for _, c := range good {
		got, d, m, err := problem.ReadData(strings.NewReader(c.csv))
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if d != c.d || m != c.m || !slices.EqualFunc(got.X, c.data.X, slices.Equal) || !slices.Equal(got.F, c.data.F) ||
			!slices.EqualFunc(got.G, c.data.G, slices.Equal) || !slices.Equal(got.NoiseStds, c.data.NoiseStds) {
			t.Errorf("%s: d %d, m %d, %+v; want %d, %d, %+v", c.name, d, m, got, c.d, c.m, c.data)
		}
	}
	bad := []struct{ name, csv, want string }{
		{"empty", "", "empty file"},
		{"header only", "x1,f\n", "no rows"},
		{"seed column", "x1,f,g1,seed\n0,1,1,1\n", "seed column"},
		{"negative noise", "x1,f,noise_std\n0,1,0.1\n1,1,-0.2\n", "line 3, column noise_std: -0.2 is negative"},
		{"NaN noise", "x1,f,noise_std\n0,1,NaN\n", `line 2, column noise_std: "NaN" is not a finite number`},
		{"NaN f", "x1,f\n0,NaN\n", "line 2, column f"},
		{"text", "x1,f\n0,abc\n", `line 2, column f: "abc" is not a decimal number`},
		{"short row", "x1,x2,f\n0,1,2\n0,1\n", "line 3"},
		{"long row", "x1,f,g1\n0,1,2,3\n", "line 2"},
		{"bad header", "x1,y\n0,1\n", "column 2 must be x2 or f"},
	}
	for _, c := range bad {
		_, _, _, err := problem.ReadData(strings.NewReader(c.csv))
		if !errors.Is(err, problem.ErrData) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want ErrData mentioning %q", c.name, err, c.want)
		}
	}
}
