package study

import (
	"context"

	"github.com/safegp/safegp/bandit"
	"github.com/safegp/safegp/space"
	"github.com/safegp/safegp/store"
	"github.com/safegp/safegp/study/api"
)

// The dashboard's reads (server's GET /v1/studies and
// GET /v1/studies/{name}/view). Neither asks, tells, fits nor draws a
// random number: they read the records and inspect the policy
// (bandit.Policy.Inspect, which never changes what the policy will ask).

// List returns every study of the store with its counts, by name. It reads
// the records and loads no study, so listing leaves the studies held open
// as they were. The counts follow the rules a loaded study keeps
// (Study.apply): a retraction takes its observation out of the rounds and
// the violations and withdraws every ask pending at the time, so the
// pending asks are the asks after the last retraction that no tell
// answers.
func (v *Service) List(ctx context.Context) ([]api.StudyInfo, error) {
	ls, err := v.store.List(ctx)
	if err != nil {
		return nil, err
	}
	list := make([]api.StudyInfo, len(ls))
	for i, l := range ls {
		list[i] = api.StudyInfo(l)
	}
	return list, nil
}

// Version returns the number of events a study has recorded, the
// Version of its View now: it grows with every ask, tell, retraction and
// fit. Like every call, it first reloads a study another process wrote to.
func (v *Service) Version(ctx context.Context, name string) (int, error) {
	n := 0
	err := v.with(ctx, name, func(s *Study) error { n = len(s.events); return nil })
	return n, err
}

// LeaseStamp returns a digest of a study's leases, the LeaseStamp of its
// View now: it changes when a lease is set, renewed or dropped, which
// records no event and so leaves Version as it was. One indexed read;
// a name that is no study has no leases (0).
func (v *Service) LeaseStamp(ctx context.Context, name string) (uint64, error) {
	if err := api.CheckName(name); err != nil {
		return 0, err
	}
	_, stamp, err := v.store.ViewLeases(ctx, name)
	return stamp, err
}

// Reader reads one study at one moment, under the service's hold of it:
// what the read-only views (the dashboard's, study/view) draw from.
// Nothing it offers changes the study or draws a random number: the
// policy is only inspected (bandit.Policy.Inspect) and predicted from
// (bandit.Predict).
type Reader struct{ s *Study }

// Read runs fn on a Reader of the named study, loaded and held: every
// read fn makes is of one state.
func (v *Service) Read(ctx context.Context, name string, fn func(r Reader) error) error {
	return v.with(ctx, name, func(s *Study) error { return fn(Reader{s}) })
}

// Version is the number of events the study has recorded.
func (r Reader) Version() int { return len(r.s.events) }

// Summary is Show's summary.
func (r Reader) Summary() *api.Summary { return r.s.summary() }

// Observations are the tells in order, retracted ones flagged.
func (r Reader) Observations() []api.Observation { return r.s.observations() }

// Resolved is the study's specification, resolved: its decision set, its
// seeds, its thresholds.
func (r Reader) Resolved() *Resolved { return r.s.res }

// Policy is the study's policy, to inspect and predict from only.
func (r Reader) Policy() bandit.Policy { return r.s.pol }

// Space is a study stated in parameters' space; nil for another.
func (r Reader) Space() *space.Space { return r.s.u.paramSpace() }

// RawObjective maps a value of the policy's f back to the objective's
// units, and Scale is the transform's scale (σ's factor), of a study
// stated in parameters.
func (r Reader) RawObjective(f float64) float64 { return r.s.res.Named.outcomes.Raw(&r.s.tr, f) }

// Failures are the failed trials in order, retracted ones flagged.
func (r Reader) Failures() []api.Failure { return r.s.failuresIn(0, len(r.s.events), len(r.s.events)) }

// Outcomes are a study stated in parameters' outcomes, Conditions its
// safety conditions in the policy's order of the g_i.
func (r Reader) Outcomes() space.Outcomes      { return *r.s.res.Named.outcomes }
func (r Reader) Conditions() []space.Condition { return r.s.res.Named.conds }

// Candidates are a study stated in parameters' candidate settings, in
// the order of its decision set; nil on a box.
func (r Reader) Candidates() []space.Setting { return r.s.res.Named.settings }

// Raw maps a value v of the policy's GP gpj (0: f, 1+i: g_i) to its
// outcome's units, and Scale is that GP's factor (a standard deviation's
// in the outcome's units), of a study stated in parameters.
func (r Reader) Raw(gpj int, v float64) float64 { return r.s.u.raw(r.s)(gpj, v) }
func (r Reader) Scale(gpj int) float64 {
	if gpj == 0 {
		return r.s.tr.Scale
	}
	return r.s.tr.Scales[gpj-1]
}

// ObjectiveScale is the factor from the policy's f to the objective's
// units of a study stated in parameters (a standard deviation's).
func (r Reader) ObjectiveScale() float64 { return r.s.tr.Scale }

// Pending are the asks handed out and not yet told, oldest first, with
// the leases given, ask → end in Unix milliseconds (store.ViewLeases).
func (r Reader) Pending(leases map[int]int64) []api.PendingAsk {
	s := r.s
	out := []api.PendingAsk{}
	for _, p := range s.pending {
		e := &s.events[s.asks[p.ask]]
		pa := api.PendingAsk{Ask: e.Ask, Index: e.Index, X: e.X, Context: s.res.contextMap(e.Context), Created: e.Created}
		// The table may still hold the lease of an ask told or
		// withdrawn (the next ask call drops it): only the pending
		// asks' are read.
		if until, ok := leases[e.Ask]; ok {
			pa.LeaseUntil = store.LeaseTime(until)
		}
		s.u.pending(s, &pa, e)
		out = append(out, pa)
	}
	return out
}

// ViewLeases reads the study's leases for a view: ask → end in Unix
// milliseconds, and their digest (LeaseStamp).
func (v *Service) ViewLeases(ctx context.Context, name string) (map[int]int64, uint64, error) {
	return v.store.ViewLeases(ctx, name)
}
