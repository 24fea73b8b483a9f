package study

import (
	"context"
	"fmt"
	"time"

	"github.com/safegp/safegp/internal/plural"
	"github.com/safegp/safegp/store"
	"github.com/safegp/safegp/study/api"
)

// ExtendAnswer is what extend returns.
type ExtendAnswer struct {
	Extension int `json:"extension"` // the event's sequence number
	Horizon   int `json:"horizon"`   // the new horizon
	Rounds    int `json:"rounds"`    // observations so far
}

// Extend raises a study's horizon to horizon, recorded as an event of
// kind extend (no export and import): the policy is rebuilt for the new
// horizon (its exploration phase and β_t count rounds, not the horizon,
// and stay as they were). Refused with ErrBadExtend for a horizon not
// above the current one or above api.MaxHorizon, or while asks are
// pending (tell or retract them first: the rebuilt policy would not hold
// them), and with the memory errors of a study that would exceed the
// service's limit at its new horizon.
func (v *Service) Extend(ctx context.Context, name string, horizon int) (*ExtendAnswer, error) {
	var ans *ExtendAnswer
	err := v.write(ctx, name, func(s *Study) error {
		e, err := s.decideExtend(horizon)
		if err != nil {
			return err
		}
		if err := v.store.Append(ctx, name, &e); err != nil {
			return err
		}
		if err := s.apply(e); err != nil {
			return err
		}
		ans = &ExtendAnswer{Extension: e.Seq, Horizon: s.res.Spec.Horizon, Rounds: s.nObs}
		return nil
	})
	return ans, err
}

// decideExtend makes the event extending the study's horizon to h.
func (s *Study) decideExtend(h int) (store.Event, error) {
	old := s.res.Spec.Horizon
	switch {
	case h <= old || h > api.MaxHorizon:
		return store.Event{}, fmt.Errorf("%w: horizon %d: want more than the study's %d, at most %d", api.ErrBadExtend, h, old, api.MaxHorizon)
	case len(s.pending) > 0:
		return store.Event{}, fmt.Errorf("%w: study %q has %s: tell %s first (its measurement, or --failed for one that was not run) before extending its horizon", api.ErrBadExtend, s.name, plural.Count(len(s.pending), "pending ask"), map[bool]string{true: "it", false: "them"}[len(s.pending) == 1])
	}
	if s.maxMemory != 0 {
		s.res.Spec.Horizon = h
		err := s.res.CheckMemoryWith(s.maxMemory, s.outside)
		s.res.Spec.Horizon = old
		if err != nil {
			return store.Event{}, fmt.Errorf("study %q: extending to horizon %d: %w", s.name, h, err)
		}
	}
	return store.Event{Seq: len(s.events) + 1, Kind: "extend", Index: -1, Horizon: h, Created: time.Now().UTC()}, nil
}

// applyExtend puts extension e's horizon in force and rebuilds the policy
// for it.
func (s *Study) applyExtend(e store.Event) error {
	if len(s.pending) > 0 || e.Horizon <= s.res.Spec.Horizon {
		return fmt.Errorf("%w: event %d: an extension to horizon %d of a study at %d, or with asks pending", api.ErrReplay, e.Seq, e.Horizon, s.res.Spec.Horizon)
	}
	s.res.Spec.Horizon = e.Horizon
	s.extensions++
	s.events = append(s.events, e)
	return s.rebuild()
}
