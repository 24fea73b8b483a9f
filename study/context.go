package study

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/safegp/safegp/internal/quote"
	"github.com/safegp/safegp/internal/vec"
	"github.com/safegp/safegp/store"
	"github.com/safegp/safegp/study/api"

	"github.com/safegp/safegp/bandit"
	"github.com/safegp/safegp/config"
	"github.com/safegp/safegp/internal/fielderr"
	"github.com/safegp/safegp/internal/memlimit"
	"github.com/safegp/safegp/kernel"
	"github.com/safegp/safegp/problem"
)

// resolveContext checks a spec's context block and builds k_c and the
// product kernels k_x·k_c on (x, c). A context needs a finite decision
// set (line-bo has no contextual form), configured kernels (model.fit
// would have to fit k_c too, which it does not) and an exploration rule
// other than theory (Theorems 2 and 4 are for a constraint on D).
func (r *Resolved) resolveContext() error {
	s := r.Spec
	c := s.Context
	if c == nil {
		return nil
	}
	if err := c.Check(); err != nil {
		return fielderr.Recast(api.ErrSpec, "context", err)
	}
	switch {
	case r.Box != nil:
		return fielderr.New(api.ErrSpec, "context", "not offered on a box decision set: line-bo has no contextual form; give a finite decision set (grid, actions or file)")
	case s.Model.Fit.Active():
		return fielderr.New(api.ErrSpec, "model.fit", "not offered with a context: a fit would have to estimate the context kernel too, which it does not; leave model.fit out (or when: never)")
	case s.Algorithm.Exploration.Theory:
		return fielderr.New(api.ErrSpec, "algorithm.exploration", "theory is not offered with a context: Theorems 2 and 4 bound T' (and Berkenkamp et al.'s Theorem 1 SafeOpt-MC's t*) for constraints on D, not on D × contexts; give {fixed: n} or {plateau: …}")
	}
	kc, _ := kernel.NewContext(c.Kernel, len(c.Names))
	r.ContextKernel = kc
	r.Kernels.F, r.Kernels.G = config.Products(r.Kernels.F, r.Kernels.G, kc, r.Dim())
	return nil
}

// contextBytes is Bytes for a study with a context: the decision set, the
// contextual policy (bandit.ContextualBytes: the current context's inner
// policy, the next one, and one for each of up to MaxPendingContexts other
// contexts holding asks pending; the global GPs holding every observation
// at its point (x, c)), the events
// with their contexts and one Inspect snapshot.
func (r *Resolved) contextBytes() int64 {
	n, d, dc := len(r.X), r.Dim(), len(r.Spec.Context.Names)
	m, T := len(r.Spec.Thresholds), r.Spec.Horizon
	x := memlimit.Mul(int64(n), 8*int64(d)+24)
	pol := bandit.ContextualBytes(&r.Spec.Algorithm, n, len(r.Seed), d, dc, m, r.Spec.ObjectiveThreshold != nil, T, 1+bandit.MaxPendingContexts)
	events := memlimit.Mul(2*int64(T), 184+8*int64(m+dc))
	points := memlimit.Mul(int64(T), 8*int64(d)+24)
	snap := memlimit.Mul(int64(n), 8*(2*int64(m+1)+1)+1)
	return memlimit.Add(x, pol, events, points, snap)
}

// contextNames is the study's context variables, nil without a context.
func (r *Resolved) contextNames() []string {
	if r.Spec.Context == nil {
		return nil
	}
	return r.Spec.Context.Names
}

// contextValues checks the context values given to the study for what
// (an ask, a tell, the posterior) and returns them in the order of the
// spec's names; nil for a study without a context, which refuses any.
// Errors wrap ErrBadContext and name the variable.
func (s *Study) contextValues(given map[string]float64, what string) ([]float64, error) {
	names := s.res.contextNames()
	switch {
	case names == nil && given != nil:
		return nil, fmt.Errorf("%w: context: study %q has no context: leave it out", api.ErrBadContext, s.name)
	case names == nil:
		return nil, nil
	case given == nil:
		return nil, fmt.Errorf("%w: context is missing: %s of study %q takes the value of every context variable (%s)", api.ErrBadContext, what, s.name, strings.Join(names, ", "))
	}
	// A name the study does not have first: a misspelt variable
	// (temp=20) is then named as such, not only as the one missing.
	var extra []string
	for n := range given {
		if !slices.Contains(names, n) {
			extra = append(extra, n)
		}
	}
	if extra != nil {
		sort.Strings(extra)
		return nil, fmt.Errorf("%w: context.%s is not a context variable of study %q (%s)", api.ErrBadContext, quote.Prefix(extra[0]), s.name, strings.Join(names, ", "))
	}
	c := make([]float64, len(names))
	for j, n := range names {
		v, ok := given[n]
		if !ok {
			return nil, fmt.Errorf("%w: context.%s is missing: %s of study %q takes the value of every context variable (%s)", api.ErrBadContext, n, what, s.name, strings.Join(names, ", "))
		}
		if !problem.InRange(v) {
			return nil, fmt.Errorf("%w: context.%s = %v is not a finite number within ±1e100", api.ErrBadContext, n, v)
		}
		c[j] = vec.PlusZero(v)
	}
	return c, nil
}

// contextMap is a study's context values by name, nil for none.
func (r *Resolved) contextMap(c []float64) map[string]float64 {
	if c == nil {
		return nil
	}
	m := make(map[string]float64, len(c))
	for j, n := range r.contextNames() {
		m[n] = c[j]
	}
	return m
}

// pointOf is the point the policy takes for event e: its x, or (x, c)
// with its context.
func pointOf(e *store.Event) []float64 {
	if e.Context == nil {
		return e.X
	}
	return append(slices.Clip(e.X), e.Context...)
}

// AskIn is Ask for a study with a context: the values of every context
// variable measured now (Ask gives none). The ask is chosen from the
// decision set in that context, D × {c}, with what every context taught
// the model (the product kernel k_x·k_c), and is recorded with its context.
// The seed set is assumed safe in every context. An ask pending in the
// same context (the same values, bit for bit) is returned again; asks
// pending in other contexts stay pending — each told when its measurement
// comes, in its own context — unless they are pending in
// bandit.MaxPendingContexts other contexts already: then AskIn fails with
// ErrContextPending, naming the oldest.
func (v *Service) AskIn(ctx context.Context, name string, values map[string]float64) (*api.AskAnswer, error) {
	as, err := v.AskBatch(ctx, name, api.AskOptions{Count: 1, Context: values})
	if err != nil {
		return nil, err
	}
	return as[0], nil
}

// setContext tells the policy the context c of the coming ask (nil:
// none, a study without a context).
func (s *Study) setContext(c []float64) error {
	if c == nil {
		return nil
	}
	if err := bandit.SetContext(s.pol, c); errors.Is(err, bandit.ErrPending) {
		return fmt.Errorf("%w: study %q: %w", api.ErrContextPending, s.name, err)
	} else if err != nil {
		return fmt.Errorf("%w: %w", api.ErrReplay, err)
	}
	return nil
}

// inContext records context c (nil: none) in ask event e, whose X is then
// the action (the policy's ask is at (x, c)).
func (s *Study) inContext(e *store.Event, c []float64) {
	if c != nil {
		e.Context, e.X = c, s.res.X[e.Index]
	}
}

// jsonText is v as JSON, for messages.
func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
