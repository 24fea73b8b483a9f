package study_test

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/safegp/safegp/store"
	"github.com/safegp/safegp/study"
	"github.com/safegp/safegp/study/api"
)

// benchSpec is a 2-D grid of n×n actions on [0,1]².
func benchSpec(n int) string {
	return fmt.Sprintf(`decision_set: {grid: {bounds: [[0, 1], [0, 1]], points: [%d, %d]}}
seed_actions: [%d]
thresholds: [0.0]
model:
  objective: {kernel: se, lengthscale: 0.2}
  constraints: [{kernel: se, lengthscale: 0.2}]
  noise_std: 0.05
  delta: 0.01
algorithm: {name: sgp-ucb, phase1: uniform, exploration: {fixed: 50}}
horizon: 100000
seed: 1
`, n, n, n*n/2+n/2)
}

func benchTruth(x []float64) (float64, []float64) {
	return math.Sin(3*x[0]) + math.Cos(2*x[1]), []float64{0.3 - (x[0]-0.5)*(x[0]-0.5) - (x[1]-0.5)*(x[1]-0.5)}
}

// fill runs t ask/tell cycles.
func fill(b *testing.B, v *study.Service, t int) {
	ctx := context.Background()
	for i := 0; i < t; i++ {
		a, err := v.Ask(ctx, "s")
		if err != nil {
			b.Fatal(err)
		}
		f, g := benchTruth(a.X)
		id := a.Ask
		if _, err := v.Tell(ctx, "s", &api.TellRequest{Ask: &id, F: &f, G: g}); err != nil {
			b.Fatal(err)
		}
	}
}

func setup(b *testing.B, n, t int) (string, *study.Service) {
	return setupSpec(b, benchSpec(n), t)
}

func setupSpec(b *testing.B, spec string, t int) (string, *study.Service) {
	path := filepath.Join(b.TempDir(), "bench.db")
	st, err := store.Open(path, store.OpenOptions{Create: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	v := study.NewService(st, study.ServiceOptions{})
	s, err := study.ParseSpec([]byte(spec))
	if err != nil {
		b.Fatal(err)
	}
	r, err := s.Resolve(".")
	if err != nil {
		b.Fatal(err)
	}
	if err := v.Create(context.Background(), "s", r); err != nil {
		b.Fatal(err)
	}
	fill(b, v, t)
	return path, v
}

// BenchmarkAsk times one ask (the policy's choice and the durable record of
// the ask) with the study in memory after t = 500 observations (target at
// N = 10 000: ≤ 5 ms). The tell that must follow is outside the timer.
func BenchmarkAsk(b *testing.B) {
	for _, n := range []int{32, 100} { // N = 1 024 and 10 000
		b.Run(fmt.Sprintf("N=%d/t=500", n*n), func(b *testing.B) {
			_, v := setup(b, n, 500)
			ctx := context.Background()
			for b.Loop() {
				a, err := v.Ask(ctx, "s")
				if err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				f, g := benchTruth(a.X)
				id := a.Ask
				if _, err := v.Tell(ctx, "s", &api.TellRequest{Ask: &id, F: &f, G: g}); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
		})
	}
}

// BenchmarkAskFit times an ask that fits the model first (model.fit,
// every: 1 from min_points = t: the t observations are told without fits,
// then every ask fits on all of them, one fit per GP — f and g — with the
// default 5 restarts on GOMAXPROCS workers), on N = 1 024 actions. The
// tell that follows is outside the timer; each ask fits on one more
// observation than the last, a difference within the noise at these t.
func BenchmarkAskFit(b *testing.B) {
	for _, t := range []int{50, 200} {
		b.Run(fmt.Sprintf("N=1024/t=%d", t), func(b *testing.B) {
			spec := strings.Replace(benchSpec(32), "  delta: 0.01\n", fmt.Sprintf("  delta: 0.01\n  fit: {when: {every: 1}, min_points: %d}\n", t), 1)
			_, v := setupSpec(b, spec, t)
			ctx := context.Background()
			for b.Loop() {
				a, err := v.Ask(ctx, "s")
				if err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				f, g := benchTruth(a.X)
				id := a.Ask
				if _, err := v.Tell(ctx, "s", &api.TellRequest{Ask: &id, F: &f, G: g}); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
		})
	}
}

// BenchmarkReopen times opening the database and rebuilding a study with
// t = 500 observations by replay (target ≤ 1 s).
func BenchmarkReopen(b *testing.B) {
	for _, n := range []int{32, 100} {
		b.Run(fmt.Sprintf("N=%d/t=500", n*n), func(b *testing.B) {
			path, _ := setup(b, n, 500)
			ctx := context.Background()
			for b.Loop() {
				st, err := store.Open(path, store.OpenOptions{})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := study.NewService(st, study.ServiceOptions{}).Show(ctx, "s"); err != nil {
					b.Fatal(err)
				}
				st.Close()
			}
		})
	}
}
