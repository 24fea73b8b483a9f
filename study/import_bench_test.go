package study_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/safegp/safegp/store"
	"github.com/safegp/safegp/study"
	"github.com/safegp/safegp/study/api"
)

// BenchmarkImport times an import of rows measurements at the actions of
// a 1-D study of N actions with one constraint, into a fresh study: one
// policy update per row and one transaction (issue 24, item 2). The time
// per row (ns/row) stays flat as rows grow — linear — once the GPs keep
// their covariance from 2N observations; before, 45 000 rows took 90 s
// (quadratic). The work estimate that bounds an import over HTTP
// (ImportRate) is checked against it: est-s/op is the estimate.
func BenchmarkImport(b *testing.B) {
	for _, c := range []struct{ n, rows int }{
		{100, 10_000}, {100, 20_000}, {100, 40_000}, {1000, 4000},
	} {
		b.Run(fmt.Sprintf("N=%d/rows=%d", c.n, c.rows), func(b *testing.B) {
			rows := make([]api.TellRequest, c.rows)
			for k := range rows {
				i := (k * 37) % c.n
				f, g := float64(k%97)/97, float64(k%89)/89
				rows[k] = api.TellRequest{Index: &i, F: &f, G: []float64{g}}
			}
			spec := fmt.Sprintf(`{"decision_set": {"grid": {"bounds": [[0, 2]], "points": [%d]}}, "seed_actions": [1, 2], "thresholds": [0.0],
			 "model": {"objective": {"kernel": "se", "lengthscale": 0.2}, "constraints": [{"kernel": "se", "lengthscale": 0.2}], "noise_std": 0.1, "delta": 0.01},
			 "algorithm": {"name": "sgp-ucb", "phase1": "uniform", "exploration": {"fixed": 10}}, "horizon": %d, "seed": 1}`, c.n, c.rows)
			ctx := context.Background()
			k := 0
			for b.Loop() {
				b.StopTimer()
				st, err := store.Open(filepath.Join(b.TempDir(), fmt.Sprintf("i%d.db", k)), store.OpenOptions{Create: true})
				if err != nil {
					b.Fatal(err)
				}
				k++
				v := study.NewService(st, study.ServiceOptions{})
				s, err := study.ParseSpec([]byte(spec))
				if err != nil {
					b.Fatal(err)
				}
				r, err := s.Resolve("")
				if err != nil {
					b.Fatal(err)
				}
				if err := v.Create(ctx, "s", r); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				if _, err := v.Import(ctx, "s", rows); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				st.Close()
				b.StartTimer()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*c.rows), "ns/row")
		})
	}
}
