package experiment

import "math"

// summarizer accumulates the per-round summary of runs as they arrive, in
// O(labels × T) memory whatever the number of realizations: Welford's
// update of the mean and of the sum of squared deviations per round, so
// that no run has to be kept (and no variance is lost to cancellation, as
// Σx² − (Σx)²/n would lose it).
type summarizer struct {
	T      int
	order  []string
	labels map[string]*acc
	avg    []float64 // scratch: one run's series
	reach  []float64
	viol   []float64
	share  []float64
}

// acc holds, per round, the count, means and M2 of the three series.
type acc struct {
	n              float64
	avgM, avgQ     []float64
	avgLo, avgHi   []float64 // the range over runs
	reachM, reachQ []float64
	violM, violQ   []float64
	shareM, shareQ []float64
	function       bool // runs on a benchmark function (Run.Points)
	known          bool // with f*, so with the simple regret
	share          bool // with f* and every run's SeedBest: the share of the way
}

func newSummarizer(T int) *summarizer {
	return &summarizer{T: T, labels: map[string]*acc{}, avg: make([]float64, T), reach: make([]float64, T), viol: make([]float64, T), share: make([]float64, T)}
}

// add folds one run into its label's summary.
func (s *summarizer) add(r *Run) {
	a, ok := s.labels[r.Label]
	if !ok {
		T := s.T
		a = &acc{avgM: make([]float64, T), avgQ: make([]float64, T), avgLo: make([]float64, T), avgHi: make([]float64, T), reachM: make([]float64, T), reachQ: make([]float64, T), violM: make([]float64, T), violQ: make([]float64, T), shareM: make([]float64, T), shareQ: make([]float64, T), share: true}
		s.labels[r.Label] = a
		s.order = append(s.order, r.Label)
	}
	var cum, cumR, v float64
	next := 0 // index into r.violationRounds
	if r.Points != nil {
		// A benchmark function's run: the best safe value and the simple
		// regret take the places of the two averages.
		a.function, a.known = true, r.SimpleRegret != nil
		a.share = a.share && a.known && r.SeedBest != nil
		copy(s.avg, r.BestSafe)
		if a.known {
			copy(s.reach, r.SimpleRegret)
		}
		if a.share {
			f0 := *r.SeedBest
			for t, b := range r.BestSafe {
				if gap := b + r.SimpleRegret[t] - f0; gap > 0 {
					s.share[t] = (b - f0) / gap
				} else {
					s.share[t] = 1 // a seed is optimal
				}
			}
		}
	}
	for t := 0; t < s.T; t++ {
		if r.Points == nil {
			cum += r.Regret[t]
			cumR += r.ReachableRegret[t]
			s.avg[t] = cum / float64(t+1)
			s.reach[t] = cumR / float64(t+1)
		}
		if next < len(r.violationRounds) && r.violationRounds[next] == t {
			v++
			next++
		}
		s.viol[t] = v
	}
	a.n++
	for t, v := range s.avg {
		if a.n == 1 || v < a.avgLo[t] {
			a.avgLo[t] = v
		}
		if a.n == 1 || v > a.avgHi[t] {
			a.avgHi[t] = v
		}
	}
	welford(a.n, a.avgM, a.avgQ, s.avg)
	welford(a.n, a.reachM, a.reachQ, s.reach)
	welford(a.n, a.violM, a.violQ, s.viol)
	if a.share {
		welford(a.n, a.shareM, a.shareQ, s.share)
	}
}

func welford(n float64, mean, m2, x []float64) {
	for t, v := range x {
		d := v - mean[t]
		mean[t] += d / n
		m2[t] += d * (v - mean[t])
	}
}

// curves returns one Curve per label, in the order labels first arrived.
// The standard deviation is the sample one (n−1 denominator), 0 for a
// single realization.
func (s *summarizer) curves() []Curve {
	out := make([]Curve, 0, len(s.order))
	for _, l := range s.order {
		a := s.labels[l]
		if a.function {
			c := Curve{Label: l, Function: true, Violations: a.violM, MeanBest: a.avgM, SEBest: se(a.avgQ, a.n)}
			if a.known {
				c.MeanSimple, c.SESimple = a.reachM, se(a.reachQ, a.n)
			}
			if a.share {
				c.MeanShare, c.SEShare = a.shareM, se(a.shareQ, a.n)
			}
			out = append(out, c)
			continue
		}
		out = append(out, Curve{
			Label:   l,
			MeanAvg: a.avgM, StdAvg: std(a.avgQ, a.n), MinAvg: a.avgLo, MaxAvg: a.avgHi,
			MeanAvgReach: a.reachM, StdAvgReach: std(a.reachQ, a.n),
			Violations: a.violM, N: int(a.n),
		})
	}
	return out
}

// se is the standard error of the mean, std/√n (0 for one realization).
func se(m2 []float64, n float64) []float64 {
	s := std(m2, n)
	for t := range s {
		s[t] /= math.Sqrt(n)
	}
	return s
}

func std(m2 []float64, n float64) []float64 {
	s := make([]float64, len(m2))
	if n > 1 {
		for t, q := range m2 {
			s[t] = math.Sqrt(math.Max(q, 0) / (n - 1))
		}
	}
	return s
}
