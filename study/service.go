package study

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/safegp/safegp/internal/memlimit"
	"github.com/safegp/safegp/internal/opencache"
	"github.com/safegp/safegp/internal/plural"
	"github.com/safegp/safegp/internal/quote"
	"github.com/safegp/safegp/space"
	"github.com/safegp/safegp/store"
	"github.com/safegp/safegp/study/api"
)

// ServiceOptions configure a Service.
type ServiceOptions struct {
	// MaxOpen bounds the studies kept in memory (0: DefaultMaxOpen). When
	// another is needed, the least recently used study not in use is
	// dropped (it is rebuilt by replay on its next use); while every one
	// is in use, a request for another study waits.
	MaxOpen int
	// MaxMemory, if not zero, refuses to create or load a study whose
	// memory estimate exceeds it, in bytes (Resolved.CheckMemory), and
	// bounds the estimates of the studies held open together: least
	// recently used ones are dropped to make room, and while the studies in
	// use fill it, loading another fails with ErrOverloaded.
	MaxMemory int64
	// Now is the clock of the leases (AskOptions.LeaseSeconds):
	// time.Now when nil. Tests give a fake one.
	Now func() time.Time
	// MaxImportSeconds, if > 0, refuses an import whose estimated time
	// (at ImportRate) exceeds it, before anything is done
	// (ErrImportTooLarge): the HTTP service sets it well within its write
	// timeout, so that every import it takes is answered.
	MaxImportSeconds float64
}

// DefaultMaxOpen is the default of ServiceOptions.MaxOpen.
const DefaultMaxOpen = 16

// Service gives access to the studies of one store. Every call that
// changes a study runs the same steps on it, loaded and locked: decide
// (the study's checks, and the policy's choices, which change nothing
// the study keeps), write the events (and leases) in one transaction,
// then apply them — the only way a study changes. A write that fails
// leaves the study as it was: the asks its policy chose are taken back
// (bandit.Rollback). Studies are kept in memory (the cache, at most
// MaxOpen of them, least recently used out first); calls on one study
// are serialized, calls on different studies proceed in parallel.
type Service struct {
	store *store.Store
	opt   ServiceOptions
	cache *opencache.Cache[Study]
}

// NewService serves the studies of st.
func NewService(st *store.Store, opt ServiceOptions) *Service {
	if opt.MaxOpen <= 0 {
		opt.MaxOpen = DefaultMaxOpen
	}
	return &Service{store: st, opt: opt, cache: opencache.New(opt.MaxOpen, opt.MaxMemory, (*Study).bytes)}
}

func (v *Service) now() time.Time {
	if v.opt.Now != nil {
		return v.opt.Now()
	}
	return time.Now()
}

// write is with for a call that records events: a write that lost the
// race to another process (store.ErrStale: it wrote between with's look
// at the records and our insert) is tried once more on the study
// reloaded, so that a client sees the conflict only when the study
// changed under it twice in a row. fn runs again from the start, on the
// fresh state: a tell whose ask the other process told fails then as
// already told, and one whose study another caller renamed or deleted
// meanwhile as store.ErrGone (a conflict, where a study never there is
// not found).
func (v *Service) write(ctx context.Context, name string, fn func(s *Study) error) error {
	err := v.with(ctx, name, fn)
	if errors.Is(err, store.ErrStale) {
		again := v.with(ctx, name, fn)
		if errors.Is(err, store.ErrGone) && errors.Is(again, store.ErrNotFound) {
			return err // renamed or deleted meanwhile: the conflict says so
		}
		err = again
	}
	return err
}

// testAfterCheck, when set by a test, runs in with after the look at the
// records and before fn: where another process's write makes ours stale.
var testAfterCheck func(name string)

// with runs fn on the named study, loaded and locked. A study another
// process wrote to since it was loaded is loaded again first; one whose
// policy could not follow its events (ErrReplay) is dropped after fn.
func (v *Service) with(ctx context.Context, name string, fn func(s *Study) error) error {
	if err := api.CheckName(name); err != nil {
		return err
	}
	e, err := v.cache.Acquire(ctx, name)
	if err != nil {
		return fmt.Errorf("study %q: waiting for one of the %d open studies to be free: %w", name, v.opt.MaxOpen, err)
	}
	e.Mu.Lock()
	defer func() {
		loaded := e.Val != nil
		e.Mu.Unlock()
		v.cache.Release(name, e, loaded)
	}()
	if e.Val != nil {
		// Another process may have written since the study was loaded
		// (the CLI, a second server on the file): every call, a read
		// above all, sees what the records hold. One indexed read.
		last, err := v.store.LastSeq(ctx, name)
		if err != nil {
			return err
		}
		if last != len(e.Val.events) {
			v.cache.Unload(e)
		}
	}
	if e.Val == nil {
		rec, events, err := v.store.Load(ctx, name)
		if errors.Is(err, store.ErrNotFound) {
			return v.unknown(ctx, err)
		}
		if err != nil {
			return err
		}
		if e.Val, err = newStudy(name, rec, events, v.opt.MaxMemory); err != nil {
			return err
		}
		if full, ok := v.cache.Admit(e); !ok {
			e.Val = nil
			return fmt.Errorf("%w: the studies in use hold %s of the %s memory limit and study %q needs %s more; retry shortly", api.ErrOverloaded, memlimit.Format(full.Held), memlimit.Format(full.Limit), name, memlimit.Format(full.Need))
		}
	}
	if testAfterCheck != nil {
		testAfterCheck(name)
	}
	err = fn(e.Val)
	if e.Val != nil && e.Val.dirty {
		// fn applied events it could not record (an import cancelled or
		// refused at its write): memory must never hold what the records
		// do not, so the study is loaded again on its next use.
		v.cache.Unload(e)
		return err
	}
	if errors.Is(err, api.ErrReplay) {
		// The policy could not follow a recorded event: memory must never
		// hold what the records do not, so the study is loaded again on
		// its next use (and fails there, naming the event).
		v.cache.Unload(e)
		return err
	}
	// Observations outside the decision set raise the estimate.
	v.cache.Resize(e)
	return err
}

// Create stores a new study.
func (v *Service) Create(ctx context.Context, name string, r *Resolved) error {
	if err := api.CheckName(name); err != nil {
		return err
	}
	if v.opt.MaxMemory != 0 {
		if err := r.CheckMemory(v.opt.MaxMemory); err != nil {
			return err
		}
	}
	var tr *space.Transform
	if r.Named != nil {
		t := r.Named.outcomes.Identity()
		tr = &t
	}
	if _, _, err := newPolicy(r, &r.Spec.Model, tr, 0, 0, false); err != nil {
		return fmt.Errorf("%w: %v", api.ErrSpec, err)
	}
	// Defaults recorded explicitly, so that a later default cannot
	// change how the study replays (the algorithm's row says which).
	r.Spec.Algorithm.PinDefaults()
	js, err := r.units().storedSpec(r)
	if err != nil {
		return err
	}
	return v.store.Create(ctx, name, js, r.X, r.Seed)
}

// Ask returns the oldest pending ask, or records and returns a new one: an
// AskBatch of one ask without a lease. A study takes at most its
// horizon's worth of observations: once it has them, Ask fails with
// ErrHorizon. A pending ask leased by another caller (AskBatch with a
// lease) is not returned: Ask hands out a new one beside it.
func (v *Service) Ask(ctx context.Context, name string) (*api.AskAnswer, error) {
	as, err := v.AskBatch(ctx, name, api.AskOptions{Count: 1})
	if err != nil {
		return nil, err
	}
	return as[0], nil
}

// Tell records an observation in one transaction and feeds it to the
// policy. Bad input changes nothing. An observation made outside the loop
// (by index) is refused with ErrHorizon when it would take the study past
// its horizon, counting the pending ask.
func (v *Service) Tell(ctx context.Context, name string, t *api.TellRequest) (*api.TellAnswer, error) {
	var ans *api.TellAnswer
	err := v.write(ctx, name, func(s *Study) error {
		e, err := s.decideTell(t)
		if err != nil {
			return err
		}
		ans = &api.TellAnswer{Observation: e.Seq, Ask: e.Ask, Index: e.Index, Failed: e.Kind == "fail"}
		if !ans.Failed {
			ans.Violated, ans.ViolatedObjective = s.violated(&e)
		}
		ans.Violation = e.Violation
		if err := v.store.Append(ctx, name, &e); err != nil {
			return err
		}
		if err := s.apply(e); err != nil {
			return err
		}
		ans.Rounds, ans.Warnings = s.nObs, s.tellWarnings
		if n := s.calibrationNote(); n != nil {
			ans.Calibration = n[0]
		}
		s.u.tellAnswer(s, ans, e.Seq)
		return nil
	})
	return ans, err
}

// RetractAnswer is what retract returns.
type RetractAnswer struct {
	Retraction  int `json:"retraction"`  // the retraction's sequence number
	Observation int `json:"observation"` // the observation retracted
	Index       int `json:"index"`       // its action
	Rounds      int `json:"rounds"`      // observations in force after the retraction
	// WithdrawnAsks are the asks that were pending, oldest first, now
	// withdrawn: they were chosen with the retracted value.
	WithdrawnAsks []int `json:"withdrawn_asks,omitempty"`
	// WithdrawnAsk is the first of WithdrawnAsks, kept for clients of
	// the time when a study held one pending ask at most.
	WithdrawnAsk int `json:"withdrawn_ask,omitempty"`
	// Trial is the trial retracted, and Best the best safe trial after
	// the retraction, in a study stated in parameters.
	Trial *int      `json:"trial,omitempty"`
	Best  *api.Best `json:"best,omitempty"`
}

// Retract records that an observation (a tell's sequence number) must no
// longer count — a mistyped measurement — and rebuilds the policy without
// it. The observation stays in the records, flagged. The pending asks are
// withdrawn, since they were chosen with the retracted value, and their
// leases dropped. Retracting an unknown observation, an ask, or an
// observation retracted already is an error that changes nothing.
func (v *Service) Retract(ctx context.Context, name string, observation int) (*RetractAnswer, error) {
	return v.retract(ctx, name, func(*Study) (int, error) { return observation, nil })
}

// RetractTrial retracts a trial's observation, in a study stated in
// parameters (Retract).
func (v *Service) RetractTrial(ctx context.Context, name string, trial int) (*RetractAnswer, error) {
	return v.retract(ctx, name, func(s *Study) (int, error) {
		seq, err := s.u.trialTell(s, trial)
		if err != nil {
			return 0, err
		}
		if r := s.retracted[seq]; r != 0 {
			return 0, fmt.Errorf("%w: trial %d of study %q was retracted by event %d", api.ErrAlreadyRetracted, trial, s.name, r)
		}
		return seq, nil
	})
}

func (v *Service) retract(ctx context.Context, name string, which func(*Study) (int, error)) (*RetractAnswer, error) {
	var ans *RetractAnswer
	err := v.write(ctx, name, func(s *Study) error {
		observation, err := which(s)
		if err != nil {
			return err
		}
		e, err := s.decideRetract(observation)
		if err != nil {
			return err
		}
		// Every pending ask is withdrawn (apply): name them all.
		var withdrawn []int
		for _, p := range s.pending {
			withdrawn = append(withdrawn, p.ask)
		}
		first := s.firstPending()
		if err := v.store.AppendRetraction(ctx, name, &e); err != nil {
			return err
		}
		if err := s.apply(e); err != nil {
			return err
		}
		ans = &RetractAnswer{Retraction: e.Seq, Observation: observation, Index: e.Index, Rounds: s.nObs, WithdrawnAsks: withdrawn, WithdrawnAsk: first}
		s.u.retractAnswer(s, ans, observation)
		return nil
	})
	return ans, err
}

// unknown is the error of a study the file does not hold: err, with the
// names it does hold (the first 10), so that a typo or a default name
// ("default") is seen at once.
func (v *Service) unknown(ctx context.Context, err error) error {
	names, nerr := v.store.Names(ctx)
	switch {
	case nerr != nil:
		return err
	case len(names) == 0:
		return fmt.Errorf("%w; the file holds no study yet (study create)", err)
	case len(names) > 10:
		return fmt.Errorf("%w; the file holds %d studies: %s, … (study list)", err, len(names), quoteNames(names[:10]))
	}
	return fmt.Errorf("%w; the file holds %s: %s (give --study NAME)", err, plural.Count(len(names), "study"), quoteNames(names))
}

// quoteNames lists names quoted and shortened, comma-separated.
func quoteNames(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = quote.Short(n)
	}
	return strings.Join(q, ", ")
}
