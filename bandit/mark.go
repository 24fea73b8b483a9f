package bandit

import (
	"errors"
	"fmt"
	"slices"
)

// ErrMark: Rollback was given a mark of another policy, or the policy
// was told an observation since the mark.
var ErrMark = errors.New("bandit: mark does not apply")

// A Mark is a policy's asks at one moment: Rollback takes back every ask
// handed out since, as if they had never been asked. A caller that
// records its asks before it acts on them (a study: decide, write,
// apply) marks the policy, has it choose, and rolls back when the write
// fails, so that the policy never holds an ask the records do not and
// nothing has to be rebuilt.
//
// Only asks may come between a mark and its rollback: no Tell, no
// SetContext. The random stream (Options.Rand) belongs to the caller,
// who restores it too: a phase-1 draw or a random line direction is
// taken back only with it.
type Mark struct {
	p     Policy
	state any
}

// marker is the capability MarkAsks and Rollback use: every policy Build
// makes has it.
type marker interface {
	mark() any
	rollback(state any) error
}

// MarkAsks marks p's asks (Mark).
func MarkAsks(p Policy) (Mark, error) {
	m, ok := p.(marker)
	if !ok {
		return Mark{}, fmt.Errorf("%w: taking asks back (MarkAsks)", ErrUnsupported)
	}
	return Mark{p: p, state: m.mark()}, nil
}

// Rollback takes back the asks p handed out since mark m: p's pending
// asks, its ask IDs and its exploration phase are as they were at m.
func Rollback(p Policy, m Mark) error {
	mk, ok := p.(marker)
	switch {
	case !ok:
		return fmt.Errorf("%w: taking asks back (Rollback)", ErrUnsupported)
	case m.p != p:
		return fmt.Errorf("%w: a mark of another policy", ErrMark)
	}
	return mk.rollback(m.state)
}

// loopMark is a loop's mark: the last ask ID, the asks pending, the
// observations told, and the rule's exploration phase, which StageOpt's
// choice may end (its stage 1 ends at the round whose choice finds every
// expander within ε: a round whose ask is taken back has not chosen).
type loopMark struct {
	last, pending, told int
	phase               phase
	hasPhase            bool
}

// phased is a rule with an exploration phase.
type phased interface{ phaseRule() *phase }

func (s *sgpUCB) phaseRule() *phase  { return &s.phase }
func (o *safeOpt) phaseRule() *phase { return &o.phase }

func (l *loop) mark() any {
	m := loopMark{last: l.last, pending: len(l.pending), told: l.m.t}
	if p, ok := l.rule.(phased); ok {
		m.phase, m.hasPhase = *p.phaseRule(), true
	}
	return m
}

func (l *loop) rollback(state any) error {
	m, ok := state.(loopMark)
	if !ok || m.told != l.m.t || m.pending > len(l.pending) || m.last > l.last {
		return fmt.Errorf("%w: the policy was told observations since", ErrMark)
	}
	// The asks made since are the tail: asks only append. The batch
	// state sees fewer pending asks than it holds and starts over
	// (models.sync).
	clear(l.pending[m.pending:])
	l.pending, l.last = l.pending[:m.pending], m.last
	if m.hasPhase {
		*l.rule.(phased).phaseRule() = m.phase
	}
	return nil
}

// lineMark is line-bo's mark: its own asks, the current line (a line
// started since is dropped, and with it the draws of its direction and
// its inner policy) and that line's policy's mark.
type lineMark struct {
	last, pending int
	inner         *loop
	innerMark     any
	lineX         [][]float64
	evals, lines  int
	prevBest      []float64
	// The current line's direction, and a line carried over (Carry)
	// that an ask since may have started: rolled back, it is carried
	// again.
	dir    []float64
	resume *resumedLine
}

func (b *lineBO) mark() any {
	m := lineMark{last: b.last, pending: len(b.pending), inner: b.inner, lineX: b.lineX,
		evals: b.evals, lines: b.lines, prevBest: slices.Clone(b.prevBest),
		dir: b.dir, resume: b.resume}
	if b.inner != nil {
		m.innerMark = b.inner.mark()
	}
	return m
}

func (b *lineBO) rollback(state any) error {
	m, ok := state.(lineMark)
	if !ok || m.pending > len(b.pending) || m.last > b.last {
		return fmt.Errorf("%w: the policy was told observations since", ErrMark)
	}
	b.inner, b.lineX, b.evals, b.lines = m.inner, m.lineX, m.evals, m.lines
	b.prevBest = append(b.prevBest[:0], m.prevBest...)
	b.dir, b.resume = m.dir, m.resume
	if b.inner != nil {
		if err := b.inner.rollback(m.innerMark); err != nil {
			return err
		}
	}
	clear(b.pending[m.pending:])
	b.pending, b.innerAsk, b.last = b.pending[:m.pending], b.innerAsk[:m.pending], m.last
	return nil
}

// ctxMark is the contextual policy's mark: its own asks, and the mark of
// the current context's policy, which asks (SetContext is not allowed
// between a mark and its rollback).
type ctxMark struct {
	last, pending int
	cur           *inner
	innerMark     any
}

func (c *contextual) mark() any {
	m := ctxMark{last: c.last, pending: len(c.pending), cur: c.cur}
	if c.cur != nil {
		m.innerMark = c.cur.pol.mark()
	}
	return m
}

func (c *contextual) rollback(state any) error {
	m, ok := state.(ctxMark)
	if !ok || m.cur != c.cur || m.pending > len(c.pending) || m.last > c.last {
		return fmt.Errorf("%w: the policy was told observations, or its context set, since", ErrMark)
	}
	if c.cur != nil {
		if err := c.cur.pol.rollback(m.innerMark); err != nil {
			return err
		}
		for id := m.last + 1; id <= c.last; id++ {
			delete(c.cur.asks, id)
		}
	}
	clear(c.pending[m.pending:])
	clear(c.owner[m.pending:])
	c.pending, c.owner, c.last = c.pending[:m.pending], c.owner[:m.pending], m.last
	return nil
}
