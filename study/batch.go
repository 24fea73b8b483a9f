package study

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/safegp/safegp/internal/errclass"
	"github.com/safegp/safegp/internal/plural"
	"github.com/safegp/safegp/store"

	"github.com/safegp/safegp/bandit"
	"github.com/safegp/safegp/internal/vec"
)

// Errors of batches and leases.
var (
	ErrBadAsk = errclass.New(errclass.ErrInvalid, "invalid ask request")
	// ErrBadHeartbeat marks a heartbeat request out of range or
	// malformed.
	ErrBadHeartbeat = errclass.New(errclass.ErrInvalid, "invalid heartbeat")
	// ErrNoAsk: an ask call could hand out nothing — every pending ask is
	// leased to another caller, and the horizon or the policy leaves no
	// room for a new one. Retry when the leases end.
	ErrNoAsk = errclass.New(errclass.ErrConflict, "no ask available")
)

// MaxBatch is the most asks one ask call hands out, and the most a study
// holds pending: the policy's bound (bandit.MaxBatch), whose scratch the
// study's memory estimate counts.
const MaxBatch = bandit.MaxBatch

// MaxLeaseSeconds bounds a lease: a week. A worker that needs longer
// sends heartbeats; a lease beyond it is a unit mistake (milliseconds for
// seconds) that would lock an ask away for good.
const MaxLeaseSeconds = 7 * 24 * 3600

// AskOptions are the options of an ask call.
type AskOptions struct {
	// Count is the most asks to hand out, 1 … MaxBatch (0: 1).
	Count int
	// LeaseSeconds, if not 0, leases every ask handed out for that long
	// (0 < LeaseSeconds ≤ MaxLeaseSeconds): until it ends, or a tell, no
	// other ask call hands the ask out again. 0: no lease.
	LeaseSeconds float64
	// Context is the context measured now, for a study with a context
	// (every variable, nothing else; nil for a study without one): the
	// asks are chosen from D × {c} (AskIn).
	Context map[string]float64
}

// Check validates the options: errors wrap ErrBadAsk and name the field.
func (o *AskOptions) Check() error {
	if o.Count == 0 {
		o.Count = 1
	}
	if o.Count < 1 || o.Count > MaxBatch {
		return fmt.Errorf("%w: count = %d: want 1 … %d asks", ErrBadAsk, o.Count, MaxBatch)
	}
	return CheckLease(ErrBadAsk, "lease_seconds", o.LeaseSeconds, true)
}

// CheckLease accepts a lease length in seconds: a finite number in
// (0, MaxLeaseSeconds], or 0 when zero (no lease) is allowed. Errors wrap
// bad (ErrBadAsk, ErrBadHeartbeat) and name the field (an HTTP field,
// or a command-line flag).
func CheckLease(bad error, field string, v float64, zero bool) error {
	if v == 0 && zero {
		return nil
	}
	if !(v > 0) || v > MaxLeaseSeconds || math.IsInf(v, 0) {
		want := "a number of seconds > 0"
		if zero {
			want = "a number of seconds ≥ 0 (0: no lease)"
		}
		named := field + " = " // "lease_seconds = 5", "--lease 5"
		if strings.HasPrefix(field, "-") {
			named = field + " "
		}
		return fmt.Errorf("%w: %s%v: want %s, at most %d (a week; renew a longer lease with heartbeats)", bad, named, v, want, MaxLeaseSeconds)
	}
	return nil
}

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
func (v *Service) AskBatch(ctx context.Context, name string, opt AskOptions) ([]*AskAnswer, error) {
	if err := opt.Check(); err != nil {
		return nil, err
	}
	var out []*AskAnswer
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
				return fmt.Errorf("%w: %w (and taking the asks back: %w)", ErrReplay, err, uerr)
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
				return fmt.Errorf("%w: %w", ErrReplay, err)
			}
			b.mark, b.src, b.marked = m, *s.src, true
		}
		a, ok, err := bandit.AskNew(s.pol)
		if err != nil {
			return fmt.Errorf("%w: %w", ErrReplay, err)
		}
		if !ok {
			break
		}
		seq := len(s.events) + len(b.events) + 1
		id := s.askBase + seq
		b.events = append(b.events, store.Event{Seq: seq, Kind: "ask", Ask: id, Index: a.Index, X: a.X, Created: created})
		s.inContext(&b.events[len(b.events)-1], b.context)
		b.hand = append(b.hand, id)
	}
	if len(b.events) == 0 {
		// Nothing asked: the view goes back to the last ask's context.
		if err := b.undo(); err != nil {
			return fmt.Errorf("%w: %w", ErrReplay, err)
		}
	}
	if len(b.hand) > 0 {
		return nil
	}
	if s.nObs >= s.res.Spec.Horizon {
		return fmt.Errorf("%w: study %q has its %d observations (retract one to free a round, or create a new study to go on)", ErrHorizon, s.name, s.res.Spec.Horizon)
	}
	why := "the policy has no further distinct action to suggest beside them"
	if room <= 0 {
		why = fmt.Sprintf("with the %d observations they fill the horizon of %d", s.nObs, s.res.Spec.Horizon)
	}
	return fmt.Errorf("%w: study %q: its %s leased, the first until %s, and %s; retry when a lease ends (or tell one)", ErrNoAsk, s.name, plural.Count(len(s.pending), "pending ask")+" "+plural.Of(len(s.pending), "is"), store.LeaseTime(b.held), why)
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
	if p := bandit.Pending(s.pol); len(p) > len(s.pending) {
		return p[len(s.pending)], nil
	}
	a, ok, err := bandit.AskNew(s.pol)
	if err == nil && !ok {
		err = fmt.Errorf("the policy has no further distinct action beside the %d pending", len(s.pending))
	}
	return a, err
}

// BatchAnswer is the answer of an ask call that names a count: the asks
// handed out.
type BatchAnswer struct {
	Asks []*AskAnswer `json:"asks"`
	// Notes are the asks' notes, the same for every ask of a call: why
	// the study may not be making progress, and why the batch is
	// smaller than asked for.
	Notes []string `json:"notes,omitempty"`
}

// NewBatchAnswer is the answer of a batch ask call: the asks, with their
// notes once for the batch.
func NewBatchAnswer(as []*AskAnswer) BatchAnswer {
	b := BatchAnswer{Asks: as}
	if len(as) > 0 {
		b.Notes = as[0].Notes
		for _, a := range as {
			a.Notes = nil
		}
	}
	return b
}

// LeaseAnswer is what a heartbeat returns: the lease's new end and its
// token (the one the heartbeat named, kept; a new one for an ask that had
// no holder's token).
type LeaseAnswer struct {
	Ask        int    `json:"ask"`
	LeaseUntil string `json:"lease_until"`
	Lease      string `json:"lease"`
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
func (v *Service) Heartbeat(ctx context.Context, name string, r *HeartbeatRequest) (*LeaseAnswer, error) {
	if err := r.Check(); err != nil {
		return nil, err
	}
	var ans *LeaseAnswer
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
		ans = &LeaseAnswer{Ask: r.Ask, LeaseUntil: store.LeaseTime(until), Lease: token}
		return nil
	})
	return ans, err
}

// checkPending accepts an ask that is pending: errors wrap ErrUnknownAsk,
// ErrAlreadyTold or ErrWithdrawn, as a tell's would.
func (s *Study) checkPending(ask int) error {
	if _, ok := s.asks[ask]; !ok {
		return fmt.Errorf("%w: %d is not an ask of study %q", ErrUnknownAsk, ask, s.name)
	}
	if s.told[ask] {
		return fmt.Errorf("%w: ask %d of study %q", ErrAlreadyTold, ask, s.name)
	}
	if r := s.withdrawn[ask]; r != 0 {
		return fmt.Errorf("%w: ask %d of study %q was withdrawn by retraction %d, since it was chosen with the retracted value", ErrWithdrawn, ask, s.name, r)
	}
	return nil
}

// HeartbeatRequest is a heartbeat: the ask and the new lease's length,
// both required, and optionally the lease token the ask was handed out
// with.
type HeartbeatRequest struct {
	Ask          int     `json:"ask"`
	LeaseSeconds float64 `json:"lease_seconds"`
	// Lease is the token of the ask answer ("lease"): given, only its
	// holder renews the lease (ErrLeaseLost once the ask went to another
	// caller); "" renews it whoever holds it.
	Lease string `json:"lease,omitempty"`
}

// Check validates the request's length and token: errors wrap
// ErrBadHeartbeat and name the field.
func (r *HeartbeatRequest) Check() error {
	if err := CheckLease(ErrBadHeartbeat, "lease_seconds", r.LeaseSeconds, false); err != nil {
		return err
	}
	if r.Lease != "" {
		if !store.ValidLeaseToken(r.Lease) {
			return fmt.Errorf("%w: lease token %.40q: want the token of the ask answer (its \"lease\", %d hex digits), or none", ErrBadHeartbeat, r.Lease, store.LeaseTokenLen)
		}
	}
	return nil
}
