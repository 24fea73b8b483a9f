package study

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/safegp/safegp/internal/plural"
	"github.com/safegp/safegp/store"
	"github.com/safegp/safegp/study/api"

	"github.com/safegp/safegp/bandit"
	"github.com/safegp/safegp/internal/vec"
)

// AskBatch hands out up to opt.Count asks: first the pending asks that are
// available — never leased, or whose lease has ended (released) — oldest
// first, then new ones chosen by the policy as a batch (bandit.Batcher:
// every one in the safe set of the real observations, spread by the
// hallucinated variance of the asks pending), until Count, the horizon
// (observations + pending asks ≤ horizon) or the policy has no further
// distinct action. Every ask returned gets this call's lease, with a new
// lease token (none when opt.LeaseSeconds is 0, which also takes a
// released lease from its former holder: its token no longer renews it);
// a pending ask whose lease is running is never returned. Without leases this is Ask's
// behaviour: asking again returns the same pending asks (idempotent
// retries); with leases, parallel workers each get their own.
//
// The new asks are recorded, and the leases written, in one transaction:
// all or none; when it fails, the policy takes its new asks back
// (batchCall.undo) and the study is as it was. The model is fitted (model.fit) only at an ask call that
// finds no ask pending, as before. It fails with ErrHorizon once the
// study has its horizon's observations, with ErrNoAsk when it could hand
// out nothing else, and with ErrBadAsk for options out of range.
func (v *Service) AskBatch(ctx context.Context, name string, opt api.AskOptions) ([]*api.AskAnswer, error) {
	if err := opt.Check(); err != nil {
		return nil, err
	}
	var out []*api.AskAnswer
	err := v.write(ctx, name, func(s *Study) error {
		out = out[:0] // write may run this twice
		c, err := s.contextValues(opt.Context, "an ask")
		if err != nil {
			return err
		}
		if len(s.pending) == 0 && s.nObs < s.res.Spec.Horizon {
			if err := v.fitIfDue(ctx, s); err != nil {
				return err
			}
		}
		b := &batchCall{s: s, count: opt.Count, context: c}
		now := v.now()
		if opt.LeaseSeconds > 0 {
			b.until = store.LeaseEnd(now, opt.LeaseSeconds)
		}
		if len(s.pending) == 0 && b.until == 0 {
			// Nothing pending and no lease to give: no lease to read
			// or honour (leases hold pending asks only), and a conflict
			// on the new events' sequence numbers detects another
			// process's writes, as for any append. A plain ask after a
			// tell is then one insert, as it always was.
			if err = b.askNew(); err == nil && len(b.events) == 1 {
				err = v.store.Append(ctx, name, &b.events[0])
			} else if err == nil {
				err = v.store.AppendAll(ctx, name, b.events)
			}
		} else {
			err = v.store.InLeaseTx(ctx, name, len(s.events), func(lt *store.LeaseTx) error { return b.leased(lt, now) })
		}
		if err != nil {
			// Nothing was written: the policy takes back what it
			// chose.
			if uerr := b.undo(); uerr != nil {
				return fmt.Errorf("%w: %w (and taking the asks back: %w)", api.ErrReplay, err, uerr)
			}
			return err
		}
		for _, e := range b.events {
			if err := s.apply(e); err != nil {
				return err
			}
		}
		var short string
		if len(b.hand) < opt.Count {
			short = s.shortBatch(opt.Count, len(b.hand), b.leasedOut, b.room)
		}
		for k, ask := range b.hand {
			a := s.answer(ask)
			if b.until > 0 {
				a.LeaseUntil, a.Lease = store.LeaseTime(b.until), b.tokens[k]
			}
			if short != "" {
				a.Notes = append(a.Notes, short)
			}
			out = append(out, a)
		}
		return nil
	})
	return out, err
}

// batchCall is one AskBatch on a study.
type batchCall struct {
	s       *Study
	count   int
	context []float64     // the asks' context (nil: none)
	until   int64         // the lease's end, Unix ms (0: none)
	hand    []int         // the asks to hand out: pending ones, then new ones
	tokens  []string      // their lease tokens, when until is set
	events  []store.Event // the new asks' events
	held    int64         // the first running lease's end, for ErrNoAsk
	// leasedOut counts the pending asks held by other workers' leases,
	// room what the horizon left for new asks (for the notes).
	leasedOut, room int
	// mark is the policy's state before its first new ask, and src its
	// random stream's (marked says whether they are set), to take the
	// asks back when they are not written (undo); switched says that the
	// policy's context was set for them.
	mark     bandit.Mark
	src      rand.PCG
	marked   bool
	switched bool
}

// leased is AskBatch within the lease transaction lt: the available
// pending asks, then new ones; the events and leases written.
func (b *batchCall) leased(lt *store.LeaseTx, now time.Time) error {
	s := b.s
	leases, err := lt.Leases()
	if err != nil {
		return err
	}
	pending := make(map[int]bool, len(s.pending))
	for _, p := range s.pending {
		pending[p.ask] = true
		if !vec.SameBits(s.events[s.asks[p.ask]].Context, b.context) {
			continue // pending in another context: not this call's
		}
		end, leased := leases[p.ask]
		if leased && end > now.UnixMilli() {
			if b.held == 0 || end < b.held {
				b.held = end
			}
			b.leasedOut++
			continue
		}
		if len(b.hand) < b.count {
			b.hand = append(b.hand, p.ask)
		}
	}
	// Leases of asks no longer pending (told, withdrawn) mean nothing:
	// drop them.
	for ask := range leases {
		if !pending[ask] {
			if err := lt.Drop(ask); err != nil {
				return err
			}
		}
	}
	if err := b.askNew(); err != nil {
		return err
	}
	for i := range b.events {
		if err := lt.Insert(&b.events[i]); err != nil {
			return err
		}
	}
	for _, ask := range b.hand {
		if b.until > 0 {
			var tok string
			tok, err = lt.Lease(ask, b.until, now)
			b.tokens = append(b.tokens, tok)
		} else if _, leased := leases[ask]; leased {
			err = lt.Disown(ask, now)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// askNew has the policy hand out new asks after the pending ones in
// hand, until count, the horizon or its last distinct candidate, and
// makes their events; it fails with ErrHorizon or ErrNoAsk when there is
// nothing at all to hand out. The policy holds the new asks beyond the
// study's pending ones until their events are applied (nextAsk), or takes
// them back (undo).
func (b *batchCall) askNew() error {
	s := b.s
	room := s.res.Spec.Horizon - s.nObs - len(s.pending)
	b.room = len(b.hand) + max(room, 0)
	created := time.Now().UTC()
	for len(b.hand) < b.count && len(b.events) < room {
		if !b.marked {
			if b.context != nil {
				// The policy asks in the context measured; only when it
				// asks, so that its view stays that of the last ask
				// event's context otherwise (show, and the view a
				// replay rebuilds).
				if err := s.setContext(b.context); err != nil {
					return err
				}
				b.switched = true
			}
			m, err := bandit.MarkAsks(s.pol)
			if err != nil {
				return fmt.Errorf("%w: %w", api.ErrReplay, err)
			}
			b.mark, b.src, b.marked = m, *s.src, true
		}
		seq := len(s.events) + len(b.events) + 1
		if s.backDue && len(b.events) == 0 {
			// after_violation: best — the way back first (applyAsk).
			if e, ok := s.backAsk(seq); ok {
				b.events = append(b.events, e)
				b.hand = append(b.hand, e.Ask)
				continue
			}
		}
		a, ok, err := bandit.AskNew(s.pol)
		if errors.Is(err, bandit.ErrNoSafeAction) {
			// Every seed excluded and nothing certified.
			if len(b.hand) == 0 {
				return s.noSafeSetting()
			}
			break // the asks so far are handed out
		}
		if err != nil {
			return fmt.Errorf("%w: %w", api.ErrReplay, err)
		}
		if !ok {
			break
		}
		id := s.askBase + seq
		b.events = append(b.events, store.Event{Seq: seq, Kind: "ask", Ask: id, Index: a.Index, X: a.X, Created: created})
		s.inContext(&b.events[len(b.events)-1], b.context)
		b.hand = append(b.hand, id)
	}
	if len(b.events) == 0 {
		// Nothing asked: the view goes back to the last ask's context.
		if err := b.undo(); err != nil {
			return fmt.Errorf("%w: %w", api.ErrReplay, err)
		}
	}
	if len(b.hand) > 0 {
		return nil
	}
	if s.nObs >= s.res.Spec.Horizon {
		return fmt.Errorf("%w: study %q has its %d observations (%w: extend its horizon with study extend, or retract one to free a round)", api.ErrHorizon, s.name, s.res.Spec.Horizon, api.ErrFinished)
	}
	why := "the policy has no further distinct action to suggest beside them"
	if room <= 0 {
		why = fmt.Sprintf("with the %d observations they fill the horizon of %d", s.nObs, s.res.Spec.Horizon)
	}
	return fmt.Errorf("%w: study %q: its %s leased, the first until %s, and %s; retry when a lease ends (or tell one)", api.ErrNoAsk, s.name, plural.Count(len(s.pending), "pending ask")+" "+plural.Of(len(s.pending), "is"), store.LeaseTime(b.held), why)
}

// undo takes back the asks askNew had the policy make, with their random
// draws, and sets the policy's view back to the last ask's context: the
// study is as before the call. It may be called more than once.
func (b *batchCall) undo() error {
	s := b.s
	if b.marked {
		if err := bandit.Rollback(s.pol, b.mark); err != nil {
			return err
		}
		*s.src = b.src
		b.marked = false
	}
	b.events = b.events[:0]
	if b.switched {
		b.switched = false
		return s.lastContext()
	}
	return nil
}

// nextAsk returns the policy's ask for the next ask event: live, the one
// AskBatch decided (askNew: pending in the policy, not yet in the study);
// on replay, a new one, chosen as a batch beside the asks pending (AskNew,
// which with none pending is the policy's Ask).
func (s *Study) nextAsk() (bandit.Ask, error) {
	if p, n := bandit.Pending(s.pol), s.policyAsks(); len(p) > n {
		return p[n], nil
	}
	a, ok, err := bandit.AskNew(s.pol)
	if err == nil && !ok {
		err = fmt.Errorf("the policy has no further distinct action beside the %d pending", len(s.pending))
	}
	return a, err
}

// Heartbeat renews the lease of pending ask r.Ask: it then ends
// r.LeaseSeconds from now (0 < LeaseSeconds ≤ MaxLeaseSeconds), whether
// it was running, had ended without the ask being handed out again, or
// the ask had none. With r.Lease, the token the ask was handed out with,
// only its holder renews: once the lease ended and the ask went to
// another caller, the heartbeat fails with ErrLeaseLost and changes
// nothing. Without a token it cannot tell holders apart and renews the
// lease whoever holds it. The lease keeps its token. Errors:
// ErrUnknownAsk, ErrAlreadyTold, ErrWithdrawn for an ask that is not
// pending, ErrLeaseLost, ErrBadHeartbeat for the length or the token.
func (v *Service) Heartbeat(ctx context.Context, name string, r *api.HeartbeatRequest) (*api.LeaseAnswer, error) {
	if err := r.Check(); err != nil {
		return nil, err
	}
	var ans *api.LeaseAnswer
	err := v.write(ctx, name, func(s *Study) error {
		if err := s.checkPending(r.Ask); err != nil {
			return err
		}
		now := v.now()
		until := store.LeaseEnd(now, r.LeaseSeconds)
		var token string
		err := v.store.InLeaseTx(ctx, name, len(s.events), func(lt *store.LeaseTx) (err error) {
			token, err = lt.Renew(r.Ask, r.Lease, until, now)
			return err
		})
		if err != nil {
			return err // nothing written, nothing changed
		}
		ans = &api.LeaseAnswer{Ask: r.Ask, LeaseUntil: store.LeaseTime(until), Lease: token}
		return nil
	})
	return ans, err
}

// checkPending accepts an ask that is pending: errors wrap ErrUnknownAsk,
// ErrAlreadyTold or ErrWithdrawn, as a tell's would.
func (s *Study) checkPending(ask int) error {
	if _, ok := s.asks[ask]; !ok {
		return fmt.Errorf("%w: %d is not an ask of study %q", api.ErrUnknownAsk, ask, s.name)
	}
	if s.told[ask] {
		return fmt.Errorf("%w: ask %d of study %q", api.ErrAlreadyTold, ask, s.name)
	}
	if r := s.withdrawn[ask]; r != 0 {
		return fmt.Errorf("%w: ask %d of study %q was withdrawn by %s", api.ErrWithdrawn, ask, s.name, s.withdrawal(r))
	}
	return nil
}
