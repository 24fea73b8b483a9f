package study

import (
	"context"
	"fmt"

	"github.com/safegp/safegp/bandit"
	"github.com/safegp/safegp/internal/argmax"
	"github.com/safegp/safegp/internal/vec"
	"github.com/safegp/safegp/store"
	"github.com/safegp/safegp/study/api"
)

// Show summarizes a study. It inspects the policy without asking, so it
// never changes the next suggestion.
func (v *Service) Show(ctx context.Context, name string) (*api.Summary, error) {
	var sum *api.Summary
	err := v.with(ctx, name, func(s *Study) error {
		sum = s.summary()
		return nil
	})
	return sum, err
}

// summary is Show's summary of s.
func (s *Study) summary() *api.Summary {
	var snap bandit.Snapshot
	s.pol.Inspect(&snap, bandit.Full)
	a := s.res.Spec.Algorithm
	sum := &api.Summary{
		Study: s.name, Algorithm: a.DisplayLabel(), Actions: len(s.res.X), Dim: s.res.Dim(),
		Constraints: len(s.res.Spec.Thresholds), ObjectiveThreshold: s.res.Spec.ObjectiveThreshold, Horizon: s.res.Spec.Horizon,
		Rounds: s.nObs, Retracted: len(s.retracted), Violations: s.viol, Failures: s.nFail, Created: s.created,
	}
	if p := s.firstPending(); p != 0 {
		sum.Pending = &p
	}
	for _, p := range s.pending {
		sum.PendingAsks = append(sum.PendingAsks, p.ask)
	}
	sum.Model = s.modelInfo()
	sum.SafeSetSize, sum.KnownSafe = snap.SafeSetSize, snap.SafeSetSize
	if s.res.Box == nil && s.res.ContextKernel == nil {
		sum.KnownSafe = s.knownSafeIn(&snap) // Full holds the safe set: no second pass
	}
	sum.Notes = s.notes()
	sum.Calibration = s.calibration()
	for _, e := range s.events {
		if e.Kind == "tell" && s.retracted[e.Seq] == 0 {
			sum.OwnNoise += btoi(e.NoiseStd != nil)
			// On a box every point is one: no action to count apart.
			sum.Outside += btoi(e.Index < 0 && s.res.Box == nil)
		}
	}
	var current []float64 // the context of the policy's view
	if names := s.res.contextNames(); names != nil {
		sum.ContextNames = names
		current = bandit.Context(s.pol)
		sum.Context = s.res.contextMap(current)
		if current == nil {
			return sum // no ask yet: no context, no safe set to choose from
		}
	}
	if s.res.Box != nil {
		sum.Box = s.res.Box.Bounds // a named study's: the unit cube, its parameters' box
	}
	if s.u.summary(s, sum) {
		return sum // in the user's terms: the best trial measured safe
	}
	if s.res.Box != nil {
		// A box: the safe set is the current line's (0 between
		// lines), and the best safe point line-bo's, argmax ℓ_f
		// over the seeds and the observed points safe under the
		// model (bandit.Best), at index −1.
		if x, lf, ok := bandit.Best(s.pol); ok {
			var pr bandit.Prediction
			mean := 0.0 // Predict takes every observed point
			if bandit.Predict(s.pol, &pr, [][]float64{x}) == nil {
				mean = pr.F.Mean[0]
			}
			sum.Best = &api.Best{Index: -1, X: x, LowerF: lf, MeanF: mean}
		}
		return sum
	}
	// Known safe: the policy's safe set, which SGP-UCB's D^s_t may
	// leave empty early on, plus the seed set and the actions
	// measured safe.
	safe := append([]bool(nil), snap.Safe...)
	for _, i := range s.res.Seed {
		safe[i] = true
	}
	for _, e := range s.events {
		// A point outside the decision set is no action to choose;
		// with a context, an action measured safe is safe in its own.
		if e.Kind == "tell" && s.retracted[e.Seq] == 0 && e.Index >= 0 && !e.Violation && vec.SameBits(e.Context, current) {
			safe[e.Index] = true
		}
	}
	if best := argmax.Mask(snap.LowerF, safe); best >= 0 {
		sum.Best = &api.Best{Index: best, X: s.res.X[best], LowerF: snap.LowerF[best], MeanF: snap.F.Mean[best]}
	}
	return sum
}

// Observations lists a study's tells in order, retracted ones flagged.
func (v *Service) Observations(ctx context.Context, name string) ([]api.Observation, error) {
	var obs []api.Observation
	err := v.with(ctx, name, func(s *Study) error {
		obs = s.observations()
		return nil
	})
	return obs, err
}

func (s *Study) observations() []api.Observation {
	return s.observationsIn(0, len(s.events), len(s.events))
}

// observationsIn lists the tells among events [i, j) of a study read as
// its first n events: a retraction after them does not flag a tell.
func (s *Study) observationsIn(i, j, n int) []api.Observation {
	obs := []api.Observation{}
	for k := i; k < j; k++ {
		// By reference: a copy would escape through the units.
		if e := &s.events[k]; e.Kind == "tell" {
			r := s.retracted[e.Seq]
			if r > n {
				r = 0
			}
			o := api.Observation{Seq: e.Seq, Ask: e.Ask, Index: e.Index, X: e.X, Context: s.res.contextMap(e.Context), F: e.F, G: e.G, NoiseStd: e.NoiseStd, Violation: e.Violation,
				Retracted: r != 0, RetractedBy: r, Created: e.Created}
			s.u.observation(s, &o, e)
			obs = append(obs, o)
		}
	}
	return obs
}

// failuresIn lists the failed trials among events [i, j) of a study read
// as its first n events.
func (s *Study) failuresIn(i, j, n int) []api.Failure {
	var out []api.Failure
	for k := i; k < j; k++ {
		if e := &s.events[k]; e.Kind == "fail" {
			r := s.retracted[e.Seq]
			if r > n {
				r = 0
			}
			f := api.Failure{Seq: e.Seq, Ask: e.Ask, Index: e.Index, X: e.X, Context: s.res.contextMap(e.Context), Retracted: r != 0, RetractedBy: r, Created: e.Created}
			if s.res.Named != nil {
				trial := s.tellTrial[e.Seq]
				f.Trial, f.Params, f.X, f.Index = &trial, s.settingOf(e), nil, 0
			}
			out = append(out, f)
		}
	}
	return out
}

// retractionsIn lists the retractions among events [i, j).
func (s *Study) retractionsIn(i, j int) []api.Retraction {
	rets := []api.Retraction{}
	for _, e := range s.events[i:j] {
		if e.Kind == "retract" {
			rets = append(rets, api.Retraction{Seq: e.Seq, Observation: e.Ref, Index: e.Index, Created: e.Created})
		}
	}
	return rets
}

// Export returns a study's record.
func (v *Service) Export(ctx context.Context, name string) (*api.Export, error) {
	var x *api.Export
	err := v.with(ctx, name, func(s *Study) error {
		x = s.exportIn(0, len(s.events), len(s.events))
		x.Fits = s.fitInfos()
		return nil
	})
	return x, err
}

// exportIn is the study's record of events [i, j), the study read as its
// first n events.
func (s *Study) exportIn(i, j, n int) *api.Export {
	x := &api.Export{Dim: s.res.Dim(), Constraints: len(s.res.Spec.Thresholds), ContextNames: s.res.contextNames(), Observations: s.observationsIn(i, j, n), Retractions: s.retractionsIn(i, j), Failures: s.failuresIn(i, j, n)}
	x.ParamNames, x.OutcomeNames = s.u.names()
	return x
}

// ExportChunk is the most events an export holds at once (ExportChunks).
const ExportChunk = 4096

// ExportChunks hands fn the study's record a chunk at a time, in order:
// the observations and retractions among at most ExportChunk events,
// each chunk built under the study's lock and handed to fn outside it
// (without its fits). An export of any length then holds one chunk, not
// the whole record — 24 exports at once of a study of 185 000
// observations held 2.2 GB, outside --max-memory (issue 40, item 7) —
// and writers of the study wait for a chunk, not for a slow reader. The
// record is that of the events the study had when the call began: a
// later event is left out, and a later retraction does not flag its
// observation.
func (v *Service) ExportChunks(ctx context.Context, name string, fn func(x *api.Export) error) error {
	n := -1 // the events when the export began, read with the first chunk
	for i := 0; ; i += ExportChunk {
		var x *api.Export
		err := v.with(ctx, name, func(s *Study) error {
			if n < 0 {
				n = len(s.events)
			}
			if len(s.events) < n {
				return fmt.Errorf("%w: study %q: its records were replaced during the export (%d events, %d when it began)", store.ErrStale, name, len(s.events), n)
			}
			x = s.exportIn(i, min(i+ExportChunk, n), n)
			return nil
		})
		if err != nil {
			return err
		}
		if err := fn(x); err != nil {
			return err
		}
		if i+ExportChunk >= n {
			return nil
		}
	}
}

// Inspect returns the study's decision set, thresholds, observations
// (retracted ones flagged) and the policy's view of the coming round (for
// plots). For a study with a context these are the view and the
// observations of the context of its last ask; before the first ask it
// fails with ErrBadContext.
func (v *Service) Inspect(ctx context.Context, name string) (x [][]float64, h []float64, obs []api.Observation, snap bandit.Snapshot, err error) {
	err = v.with(ctx, name, func(s *Study) error {
		x, h, obs = s.res.X, s.res.Spec.Thresholds, s.observations()
		if s.res.ContextKernel != nil {
			current := bandit.Context(s.pol)
			if current == nil {
				return fmt.Errorf("%w: study %q has no context yet: its view is that of the context of its last ask (ask first)", api.ErrBadContext, s.name)
			}
			kept := obs[:0]
			for k, e := range s.tellEvents() {
				if vec.SameBits(e.Context, current) {
					kept = append(kept, obs[k])
				}
			}
			obs = kept
		}
		s.pol.Inspect(&snap, bandit.Full)
		return nil
	})
	return
}

// tellEvents lists the study's tell events, in the order of observations.
func (s *Study) tellEvents() []*store.Event {
	var out []*store.Event
	for k := range s.events {
		if s.events[k].Kind == "tell" {
			out = append(out, &s.events[k])
		}
	}
	return out
}

// Safety returns a study's safety conditions: the thresholds h_i, one per
// constraint, and the objective threshold h_f, nil when f ≥ h_f is not one
// of them (SPEC §5, "Safe objective").
func (v *Service) Safety(ctx context.Context, name string) (h []float64, hf *float64, err error) {
	err = v.with(ctx, name, func(s *Study) error {
		h, hf = s.res.Spec.Thresholds, s.res.Spec.ObjectiveThreshold
		return nil
	})
	return h, hf, err
}
