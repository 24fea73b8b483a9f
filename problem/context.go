package problem

import (
	"fmt"
	"math/rand/v2"

	"github.com/safegp/safegp/internal/fielderr"
	"github.com/safegp/safegp/internal/memlimit"
	"github.com/safegp/safegp/kernel"
)

// Contextual is a problem whose functions depend on a context c the
// learner observes each round and does not choose: f(x, c) and g_i(x, c)
// on D × C for a finite set C of contexts. Problems[k] is the problem in
// context Contexts[k] — f(·, c_k) and g_i(·, c_k) over D — and all share
// the decision set, the thresholds and the seed set, which is safe in
// every context.
type Contextual struct {
	Contexts [][]float64
	Problems []*Problem
}

// ContextDrawBytes estimates the memory one draw of GenerateContext holds
// at its peak for nc contexts of dc coordinates: DrawBytes for the N·nc
// points (x, c).
func (s *GenerateSpec) ContextDrawBytes(nc, dc int) int64 {
	n, d := int64(s.size())*int64(nc), int64(s.Dim()+dc)
	return memlimit.Add(memlimit.Mul(n, 8*d+24), memlimit.Mul(24, n, n), memlimit.Mul(8*n, int64(len(s.Constraints)+1)))
}

// GenerateContext draws a contextual problem (Contextual): the decision
// set as Generate does, then f and each g_i jointly on the N·|C| points
// (x, c) from GP priors with the product kernels k·kc (kernel.Product, kc
// the context kernel: stationary, variance 1), and the seed set from the
// actions safe in every context (the seed set is assumed safe in every
// context). It redraws, up to MaxDraws times, while some context has an
// empty ε-safe set D^s_ε(c) or too few actions are safe in every context
// for the seed set. All randomness comes from rng; with one context the
// problem is Generate's to the bit. N·|C| must be at most MaxDrawnActions.
func GenerateContext(s *GenerateSpec, contexts [][]float64, kc kernel.Kernel, h []float64, hf *float64, eps, noiseStd float64, rng *rand.Rand) (*Contextual, error) {
	if len(contexts) == 0 {
		return nil, fielderr.New(ErrInvalid, "contexts", "none given")
	}
	if err := s.Check(); err != nil {
		return nil, err
	}
	if n := s.size() * len(contexts); n > MaxDrawnActions {
		return nil, fielderr.New(ErrInvalid, "contexts", "%d actions × %d contexts = %d points (x, c), at most %d%s", s.size(), len(contexts), n, MaxDrawnActions, drawnWhy)
	}
	for k, c := range contexts {
		if len(c) != len(contexts[0]) || len(c) == 0 {
			return nil, fielderr.New(ErrInvalid, fmt.Sprintf("contexts[%d]", k), "%d values, contexts[0] has %d", len(c), len(contexts[0]))
		}
	}
	ps, err := generate(s, h, hf, eps, noiseStd, contexts, kc, rng)
	if err != nil {
		return nil, err
	}
	return &Contextual{Contexts: contexts, Problems: ps}, nil
}

// atContexts returns the points (x, c) for every context c and action x,
// context by context.
func atContexts(x [][]float64, cs [][]float64) [][]float64 {
	pts := make([][]float64, 0, len(x)*len(cs))
	for _, c := range cs {
		for _, xi := range x {
			p := make([]float64, 0, len(xi)+len(c))
			pts = append(pts, append(append(p, xi...), c...))
		}
	}
	return pts
}
