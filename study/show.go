package study

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/safegp/safegp/bandit"
)

// Summary is what show returns.
type Summary struct {
	Study       string    `json:"study"`
	Algorithm   string    `json:"algorithm"`
	Actions     int       `json:"actions"`
	Dim         int       `json:"d"`
	Constraints int       `json:"constraints"`
	Horizon     int       `json:"horizon"`
	Rounds      int       `json:"rounds"`  // observations so far
	Pending     *int      `json:"pending"` // the ask awaiting its tell
	SafeSetSize int       `json:"safe_set_size"`
	Best        *Best     `json:"best"` // nil while the safe set is empty
	Violations  int       `json:"violations"`
	Created     time.Time `json:"created"`
}

// Best is the best safe action so far: argmax over the policy's safe set of
// the lower confidence bound ℓ_f.
type Best struct {
	Index  int       `json:"index"`
	X      []float64 `json:"x"`
	LowerF float64   `json:"lower_f"`
	MeanF  float64   `json:"mean_f"`
}

// Observation is one tell, as exported.
type Observation struct {
	Seq       int       `json:"seq"`
	Ask       int       `json:"ask,omitempty"`
	Index     int       `json:"index"`
	X         []float64 `json:"x"`
	F         float64   `json:"f"`
	G         []float64 `json:"g"`
	Violation bool      `json:"violation"`
	Created   time.Time `json:"created"`
}

// Show summarizes a study. It inspects the policy without asking, so it
// never changes the next suggestion.
func (v *Service) Show(ctx context.Context, name string) (*Summary, error) {
	var sum *Summary
	err := v.with(ctx, name, func(s *Study) error {
		snap := s.pol.Inspect()
		a := s.res.Spec.Algorithm
		sum = &Summary{
			Study: s.name, Algorithm: a.DisplayLabel(), Actions: len(s.res.X), Dim: len(s.res.X[0]),
			Constraints: len(s.res.Spec.Thresholds), Horizon: s.res.Spec.Horizon,
			Rounds: s.nObs, Violations: s.viol, Created: s.created,
		}
		if s.pending != 0 {
			p := s.pending
			sum.Pending = &p
		}
		best := -1
		for i, in := range snap.Safe {
			if !in {
				continue
			}
			sum.SafeSetSize++
			if best < 0 || snap.LowerF[i] > snap.LowerF[best] {
				best = i
			}
		}
		if best >= 0 {
			sum.Best = &Best{Index: best, X: s.res.X[best], LowerF: snap.LowerF[best], MeanF: snap.F.Mean[best]}
		}
		return nil
	})
	return sum, err
}

// Observations lists a study's tells in order.
func (v *Service) Observations(ctx context.Context, name string) ([]Observation, error) {
	var obs []Observation
	err := v.with(ctx, name, func(s *Study) error {
		obs = s.observations()
		return nil
	})
	return obs, err
}

func (s *Study) observations() []Observation {
	obs := []Observation{}
	for _, e := range s.events {
		if e.Kind == "tell" {
			obs = append(obs, Observation{Seq: e.Seq, Ask: e.Ask, Index: e.Index, X: s.res.X[e.Index], F: e.F, G: e.G, Violation: e.Violation, Created: e.Created})
		}
	}
	return obs
}

// Inspect returns the study's decision set, thresholds, observations and
// the policy's view of the coming round (for plots).
func (v *Service) Inspect(ctx context.Context, name string) (x [][]float64, h []float64, obs []Observation, snap bandit.Snapshot, err error) {
	err = v.with(ctx, name, func(s *Study) error {
		x, h, obs, snap = s.res.X, s.res.Spec.Thresholds, s.observations(), s.pol.Inspect()
		return nil
	})
	return
}

// ExportCSV renders observations as CSV: seq, ask, index, x1…xd, f,
// g1…gm, violation, created.
func ExportCSV(obs []Observation, d, m int) []byte {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	head := []string{"seq", "ask", "index"}
	for j := 1; j <= d; j++ {
		head = append(head, "x"+strconv.Itoa(j))
	}
	head = append(head, "f")
	for i := 1; i <= m; i++ {
		head = append(head, "g"+strconv.Itoa(i))
	}
	w.Write(append(head, "violation", "created"))
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	for _, o := range obs {
		row := []string{strconv.Itoa(o.Seq), strconv.Itoa(o.Ask), strconv.Itoa(o.Index)}
		for _, x := range o.X {
			row = append(row, f(x))
		}
		row = append(row, f(o.F))
		for _, g := range o.G {
			row = append(row, f(g))
		}
		w.Write(append(row, strconv.FormatBool(o.Violation), o.Created.Format(time.RFC3339Nano)))
	}
	w.Flush()
	return b.Bytes()
}

// ExportJSON renders observations as a JSON array.
func ExportJSON(obs []Observation) ([]byte, error) {
	b, err := json.MarshalIndent(obs, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	return append(b, '\n'), nil
}
