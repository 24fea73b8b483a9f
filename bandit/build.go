package bandit

import (
	"errors"
	"fmt"
)

// Domain is where a policy acts, and what a simulation knows of it.
type Domain struct {
	// Set is a finite decision set D: its actions and seed set. With
	// ContextDim, the actions x of each round's D × {c}.
	Set DecisionSet
	// Box, if not nil, is a box domain instead of Set (line-bo, the
	// algorithms with Algorithm.Box).
	Box *Box
	// ContextDim > 0: each round comes with a context of that many values,
	// which the caller sets (SetContext) before asking; the GPs model f
	// and the g_i on (x, c) with the model's product kernels.
	ContextDim int
	// Truth is what a simulation knows of the true functions on Set, for
	// the algorithms that read it (Spec.NeedsTruth); ContextTruth the
	// same for each context. Nil for a real system.
	Truth        *Truth
	ContextTruth ContextTruth
}

// Build is the package's one constructor: the policy spec s names, with
// the GP model, on domain d, with opt. The spec must pass Check; Build
// checks the rest — the algorithm runs on this kind of domain, the model
// fits it, what the algorithm reads of the truth is there — and returns
// errors wrapping ErrConfig.
//
// On a finite set, asks are actions of D (Index, and X the set's own
// point); on a box, points of the box (Index −1, X the policy's copy);
// with contexts, actions of D in the context set last. What a policy can
// do beyond Policy is checked with the functions of capability.go
// (Predict, AskNew, SetContext, …), which refuse with ErrUnsupported.
func Build(s *Spec, model Model, d Domain, opt Options) (Policy, error) {
	if err := s.CheckObjectiveBeta(&model); err != nil {
		return nil, err
	}
	switch box := d.Box != nil; {
	case box && d.ContextDim > 0:
		return nil, fmt.Errorf("%w: a box domain with contexts: line-bo has no contextual form", ErrConfig)
	case box && (d.Set.X != nil || d.Truth != nil):
		return nil, fmt.Errorf("%w: a domain is a finite set or a box, not both", ErrConfig)
	case box:
		if f := model.Beta.Freq; f != nil && f.Bound != "" {
			return nil, fmt.Errorf("%w: beta: bound %s needs a finite decision set (its information-gain bound counts the actions); on a box, use the default bound (fiedler)", ErrConfig, f.Bound)
		}
		return newBox(s, model, *d.Box, opt)
	case d.ContextDim > 0:
		return newContextual(s, model, d.Set, d.ContextDim, opt, d.ContextTruth)
	case d.ContextTruth != nil:
		return nil, fmt.Errorf("%w: a context truth without contexts (ContextDim)", ErrConfig)
	}
	l, err := newFinite(s, model, d.Set, d.Truth, opt, nil)
	if err != nil {
		return nil, err // not a nil *loop in a Policy
	}
	return l, nil
}

// ErrUnsupported marks what a policy cannot do: a context for a policy
// built without one, the line of a policy that has none. The functions
// below check a capability with a type assertion's ok, and refuse with it.
var ErrUnsupported = errors.New("not supported by this policy")

// Predict writes p's posteriors at the points x into dst (Predictor).
func Predict(p Policy, dst *Prediction, x [][]float64) error {
	pr, ok := p.(Predictor)
	if !ok {
		return fmt.Errorf("%w: predictions away from the decision set", ErrUnsupported)
	}
	return pr.Predict(dst, x)
}

// AskNew hands out a new ask of a batch (Batcher.AskNew).
func AskNew(p Policy) (Ask, bool, error) {
	b, ok := p.(Batcher)
	if !ok {
		return Ask{}, false, fmt.Errorf("%w: batches of asks", ErrUnsupported)
	}
	return b.AskNew()
}

// Pending returns p's pending asks, oldest first (Batcher.Pending); nil
// for a policy without batches.
func Pending(p Policy) []Ask {
	if b, ok := p.(Batcher); ok {
		return b.Pending()
	}
	return nil
}

// Carrier is a policy that can take over the search state of the policy
// it replaces when a study rebuilds its policy (a refit of the model, a
// retraction): where its search was — line-bo's line in progress and the
// count of its lines — not the model or the observations, which the new
// policy is told again. A study calls it on the live path and on replay
// alike, at the same event, so the replayed state is the recorded one.
type Carrier interface {
	Carry(prev Policy)
}

// Carry lets p take over prev's search state if p is a Carrier; a
// no-op otherwise.
func Carry(p, prev Policy) {
	if c, ok := p.(Carrier); ok && prev != nil {
		c.Carry(prev)
	}
}

// SetContext sets the context of p's coming rounds (Contextual).
func SetContext(p Policy, c []float64) error {
	cp, ok := p.(Contextual)
	if !ok {
		return fmt.Errorf("%w: contexts (build the policy with Domain.ContextDim)", ErrUnsupported)
	}
	return cp.SetContext(c)
}

// Context returns p's current context, nil before the first SetContext
// or for a policy without contexts.
func Context(p Policy) []float64 {
	if cp, ok := p.(Contextual); ok {
		return cp.Context()
	}
	return nil
}

// releaser, liner and bester are the capabilities Release, LinePoints and
// Best read.
type (
	releaser interface{ release() }
	liner    interface{ linePoints() [][]float64 }
	bester   interface {
		best() ([]float64, float64)
	}
)

// Release hands the arrays of p's GPs to the policies made after it
// (gp.Model.Release) when p is done with: p must not be used again. An
// experiment releases each run's policy when the run ends, so that runs
// of one size reuse one set of O(N·T) arrays. A policy that moves its
// GPs from set to set (line and context policies) keeps its own, for the
// collector: releasing it does nothing.
func Release(p Policy) {
	if r, ok := p.(releaser); ok {
		r.release()
	}
}

// LinePoints returns the points of the line p is on (line-bo), nil
// between lines or for a policy without lines.
func LinePoints(p Policy) [][]float64 {
	if l, ok := p.(liner); ok {
		return l.linePoints()
	}
	return nil
}

// Best returns the best safe point of a policy that keeps one (line-bo):
// the candidate — a seed or an observed point — known to be safe with the
// highest ℓ_f, and that ℓ_f; ok is false for a policy that keeps none.
func Best(p Policy) (x []float64, lowerF float64, ok bool) {
	b, ok := p.(bester)
	if !ok {
		return nil, 0, false
	}
	x, lowerF = b.best()
	return x, lowerF, true
}
