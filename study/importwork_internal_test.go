package study

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/safegp/safegp/study/api"
)

// TestImportWork: the work estimate of an import is its closed form —
// per row and GP, N·t multiply-adds for a row at an action and t²/2 more
// for one outside the set, plus rowOverhead — and an import over the
// time limit is refused up front with ErrImportTooLarge, saying how many
// rows fit, while one within it is taken.
func TestImportWork(t *testing.T) {
	ctx := context.Background()
	v := lruService(t, filepath.Join(t.TempDir(), "w.db"), 4)
	s, _ := ParseSpec([]byte(strings.Replace(fmt.Sprintf(lruSpec, 2), `"horizon": 100`, `"horizon": 30000`, 1)))
	r, err := s.Resolve("")
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Create(ctx, "s", r); err != nil {
		t.Fatal(err)
	}
	round(t, v, "s")
	round(t, v, "s") // t = 2 observations
	var st *Study
	if err := v.with(ctx, "s", func(s *Study) error { st = s; return nil }); err != nil {
		t.Fatal(err)
	}
	const n, gps, t0 = 21.0, 2.0, 2
	outside := []bool{false, true, false}
	cum := st.importWork(outside)
	want, w := make([]float64, len(outside)), 0.0
	for k, out := range outside {
		tk := float64(t0 + k)
		row := n * tk
		if out {
			row += tk * tk / 2
		}
		w += gps*row + rowOverhead
		want[k] = w
	}
	for k := range want {
		if cum[k] != want[k] {
			t.Errorf("row %d: cumulative work %g, want %g", k+1, cum[k], want[k])
		}
	}

	// 20 000 rows at actions: once the GPs keep their covariance (from
	// 2N = 42 observations) about 20 000·(2·21² + 90 000) / 2.5e9 ≈ 0.73 s;
	// a limit of 0.1 s takes about 2 700 of them.
	rows := make([]api.TellRequest, 20_000)
	for k := range rows {
		i, f := k%21, -1.0
		rows[k] = api.TellRequest{Index: &i, F: &f, G: []float64{0.5}}
	}
	v.opt.MaxImportSeconds = 0.1
	_, err = v.Import(ctx, "s", rows)
	if !errors.Is(err, api.ErrImportTooLarge) || !strings.Contains(err.Error(), "import at most") {
		t.Fatalf("a 20 000-row import under a 0.1 s limit: %v, want api.ErrImportTooLarge saying how many rows fit", err)
	}
	if n, _ := v.store.LastSeq(ctx, "s"); n != 4 {
		t.Errorf("the refused import left %d events, want the 4 before it", n)
	}
	if ans, err := v.Import(ctx, "s", rows[:100]); err != nil || ans.Imported != 100 {
		t.Errorf("100 rows under the limit: %+v, %v", ans, err)
	}
}
