package exchange_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/safegp/safegp/study"
	"github.com/safegp/safegp/study/api"
	"github.com/safegp/safegp/study/exchange"
)

// FuzzImportCSV: ParseImportCSV never panics; every error is ErrBadImport,
// and what it accepts for a study's columns has its shape — d coordinates,
// m constraint values, a value of every context variable, all finite, and
// a noise ≥ 0 when given.
func FuzzImportCSV(f *testing.F) {
	for _, seed := range []string{
		"x1,temperature,load,f,g1\n1,20,0.1,-4,0.9\n",
		"x1,load,temperature,f,g1,noise_std\n1,0.1,20,-4,0.9,\n",
		"seq,kind,ask,index,x1,temperature,load,f,g1,noise_std,violation,retracted_by,retracts,created\n2,tell,1,3,0.3,20,0.1,-4,0.9,,false,,,t\n3,retract,,3,,,,,,,,,2,t\n",
		"x1,f,g1\n1,-4,0.9\n", "x1,Temperature,load,f,g1\n", "\ufeffx1,temperature,load,f,g1\n1,2,3,4,5\n",
		"x1,temperature,load,f,g1\n1,NaN,0,1,1\n", "", "x1\n", "seq,kind\n",
	} {
		f.Add(seed)
	}
	cols := &study.Columns{Dim: 1, Context: []string{"temperature", "load"}, Constraints: 1}
	f.Fuzz(func(t *testing.T, text string) {
		rows, err := exchange.ParseImportCSV(strings.NewReader(text), cols)
		if err != nil {
			if !errors.Is(err, api.ErrBadImport) {
				t.Fatalf("error %v is not ErrBadImport", err)
			}
			return
		}
		if len(rows) == 0 {
			t.Fatal("no rows and no error")
		}
		finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
		for k, r := range rows {
			if len(r.X) != 1 || len(r.G) != 1 || r.F == nil || len(r.Context) != 2 || r.Ask != nil || r.Index != nil {
				t.Fatalf("row %d: %+v", k, r)
			}
			if !finite(r.X[0]) || !finite(*r.F) || !finite(r.G[0]) || !finite(r.Context["temperature"]) || !finite(r.Context["load"]) || r.NoiseStd != nil && !(*r.NoiseStd >= 0) {
				t.Fatalf("row %d: a value out of range: %+v", k, r)
			}
		}
	})
}
