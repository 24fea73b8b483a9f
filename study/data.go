package study

import (
	"context"
	"fmt"
	"slices"

	"github.com/safegp/safegp/internal/plural"
	"github.com/safegp/safegp/store"
	"github.com/safegp/safegp/study/api"

	"github.com/safegp/safegp/bandit"
	"github.com/safegp/safegp/internal/memlimit"
	"github.com/safegp/safegp/problem"
)

// Import adds earlier measurements (warm start) to a study, before or
// during it, in one transaction: all rows or none. Each row is a tell
// outside the loop at its point (a point of the decision set counts as
// that action), with its own noise_std if given: an observation, not an
// ask. Like any tell outside the loop, they count against the horizon: an
// import that would take the study's observations and pending ask past it
// is refused with ErrHorizon and the numbers, and one whose rows outside
// the decision set would take the memory estimate past the service's
// limit with ErrBadImport. A bad row is named (row k, as given, or the
// line of the file ParseImportCSV read it from) and changes nothing. Imports
// get no typo warnings: they are data, not values typed one at a time.
//
// The rows are recorded with their digest (store.ImportDigest): the same rows
// imported again — a client retrying an import whose answer it lost — are
// refused with a *DuplicateImportError naming the observations they
// became, unless opt.Repeat. An import whose estimated time exceeds the
// service's MaxImportSeconds is refused up front (ErrImportTooLarge),
// saying how many rows fit in one request. Its cost is linear in its rows:
// the policy takes one update per row, O(N·t), or O(N²) once its GPs keep
// their covariance (from 2N observations).
func (v *Service) Import(ctx context.Context, name string, rows []api.TellRequest) (*api.ImportAnswer, error) {
	return v.ImportWith(ctx, name, rows, api.ImportOptions{})
}

// ImportWith is Import with options.
func (v *Service) ImportWith(ctx context.Context, name string, rows []api.TellRequest, opt api.ImportOptions) (*api.ImportAnswer, error) {
	if len(rows) == 0 {
		return nil, fmt.Errorf("%w: no rows to import", api.ErrBadImport)
	}
	var ans *api.ImportAnswer
	err := v.write(ctx, name, func(s *Study) error {
		evs, outside, err := s.decideImport(rows, v.opt.MaxImportSeconds)
		if err != nil {
			return err
		}
		digest := ""
		if !opt.Repeat {
			digest = store.ImportDigest(evs)
			if err := v.store.ImportMade(ctx, name, digest); err != nil {
				return err // a repeat, refused before the work
			}
		}
		// The rows are applied first and written after, the slow part
		// (a policy update per row) before anything is stored: an import
		// whose client went away, or whose deadline passed, stores
		// nothing (issue 40, item 6: one admitted by its estimate ran
		// 68 s under load, past the server's write timeout, and its rows
		// were stored unanswered). Until the write, the study in memory
		// holds what the records do not: dirty, it is dropped on any
		// failure and loaded again from them (with).
		s.dirty = true
		for k, e := range evs {
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("import cancelled after %d of %d rows, nothing recorded: %w", k, len(evs), err)
			}
			if err := s.apply(e); err != nil {
				return err
			}
		}
		if err := v.store.AppendImport(ctx, name, evs, digest); err != nil {
			return err
		}
		s.dirty = false
		ans = &api.ImportAnswer{Imported: len(evs), First: evs[0].Seq, Last: evs[len(evs)-1].Seq, Outside: outside, Rounds: s.nObs}
		return nil
	})
	return ans, err
}

// decideImport makes the tell events of an import's rows, checked against
// the study and its limits: its horizon, the observations it may hold
// outside its decision set, and the time the import would take (within
// maxSeconds when > 0). It returns them and how many are outside.
func (s *Study) decideImport(rows []api.TellRequest, maxSeconds float64) ([]store.Event, int, error) {
	held := s.nObs + len(s.pending)
	if held+len(rows) > s.res.Spec.Horizon {
		return nil, 0, fmt.Errorf("%w: study %q has %s and %s for a horizon of %d; importing %s would exceed it by %d", api.ErrHorizon, s.name, plural.Count(s.nObs, "observation"), plural.Count(len(s.pending), "pending ask"), s.res.Spec.Horizon, plural.Count(len(rows), "row"), held+len(rows)-s.res.Spec.Horizon)
	}
	if len(rows) > 1 && int64(len(rows))*int64(len(s.res.X)) > 1<<20 {
		s.lookup = s.res.actionIndex()
		defer func() { s.lookup = nil }()
	}
	evs := make([]store.Event, len(rows))
	outside := 0
	for k := range rows {
		t := &rows[k]
		where := fmt.Sprintf("row %d", k+1)
		if t.Line > 0 {
			where = fmt.Sprintf("line %d", t.Line)
		}
		if t.Ask != nil {
			return nil, 0, fmt.Errorf("%w: %s: an import holds measurements made outside the loop, not asks", api.ErrBadImport, where)
		}
		e, err := s.validateAt(t, len(s.events)+1+k, false)
		if err != nil {
			return nil, 0, fmt.Errorf("%w: %s: %w", api.ErrBadImport, where, err)
		}
		s.violated(&e)
		if e.Index < 0 {
			outside++
		}
		evs[k] = e
	}
	if err := s.checkOutside(outside); err != nil {
		return nil, 0, fmt.Errorf("%w: %w", api.ErrBadImport, err)
	}
	out := make([]bool, len(evs))
	for k := range evs {
		out[k] = evs[k].Index < 0
	}
	if err := s.checkImportWork(out, maxSeconds); err != nil {
		return nil, 0, err
	}
	return evs, outside, nil
}

// Posterior returns the posterior mean and standard deviation of f and
// every g_i at each of the points — another finite set, anywhere — and the
// bounds with the study's current √β_t, computed from all its observations
// in force, without changing the study. The points must be of the study's
// dimension, finite and at most MaxPoints; their scratch (O(P·t) floats,
// bandit.PredictBytes) must fit in the service's memory limit, else the
// request is refused with the estimate. Errors wrap ErrBadPoints.
func (v *Service) Posterior(ctx context.Context, name string, points [][]float64) (*api.PosteriorAnswer, error) {
	return v.PosteriorIn(ctx, name, points, nil)
}

// PosteriorIn is Posterior for a study with a context: the points are
// actions x (of the decision set's dimension), and values are the context
// they are taken in, the value of every context variable (Posterior gives
// none). The answer names the context.
func (v *Service) PosteriorIn(ctx context.Context, name string, points [][]float64, values map[string]float64) (*api.PosteriorAnswer, error) {
	if len(points) == 0 {
		return nil, fmt.Errorf("%w: no points", api.ErrBadPoints)
	}
	if len(points) > api.MaxPoints {
		return nil, fmt.Errorf("%w: %d points, at most %d at a time", api.ErrBadPoints, len(points), api.MaxPoints)
	}
	var ans *api.PosteriorAnswer
	err := v.with(ctx, name, func(s *Study) error {
		d, m := s.res.Dim(), len(s.res.Spec.Thresholds)
		for k, p := range points {
			if len(p) != d {
				return fmt.Errorf("%w: point %d has %s, the study's actions have %d", api.ErrBadPoints, k+1, plural.Count(len(p), "coordinate"), d)
			}
			for j, c := range p {
				if !problem.InRange(c) {
					return fmt.Errorf("%w: point %d: x%d = %v is not a finite number within ±1e100", api.ErrBadPoints, k+1, j+1, c)
				}
			}
		}
		// The answer (P points with 4(m+1) numbers each) and the
		// scratch of one GP's prediction at a time.
		est := memlimit.Add(bandit.PredictBytes(m, len(points), s.nObs), memlimit.Mul(int64(len(points)), 8*int64(4*(m+1)+d)+80))
		if dc := len(s.res.contextNames()); dc > 0 {
			// The points (x, c) the policy takes.
			est = memlimit.Add(est, memlimit.Mul(int64(len(points)), 8*int64(d+dc)+24))
		}
		if v.opt.MaxMemory != 0 {
			what := fmt.Sprintf("the posterior of study %q at %d points (t = %d observations)", s.name, len(points), s.nObs)
			if err := memlimit.Check(est, v.opt.MaxMemory, what); err != nil {
				return fmt.Errorf("%w: %w; ask for fewer points at a time", api.ErrBadPoints, err)
			}
		}
		c, err := s.contextValues(values, "the posterior")
		if err != nil {
			return err
		}
		at := points
		if c != nil {
			at = make([][]float64, len(points))
			for k, p := range points {
				at[k] = append(slices.Clip(p), c...)
			}
		}
		var pr bandit.Prediction
		if err := bandit.Predict(s.pol, &pr, at); err != nil {
			return fmt.Errorf("%w: %w", api.ErrBadPoints, err)
		}
		bound := func(p *bandit.Posterior, k int) api.Bound {
			mu, sd := p.Mean[k], p.Std[k]
			return api.Bound{Mean: mu, Std: sd, Lower: mu - pr.SqrtBeta*sd, Upper: mu + pr.SqrtBeta*sd}
		}
		ans = &api.PosteriorAnswer{Round: s.nObs + 1, SqrtBeta: pr.SqrtBeta, Context: s.res.contextMap(c), Points: make([]api.PointPosterior, len(points))}
		for k, p := range points {
			pp := api.PointPosterior{X: p, F: bound(&pr.F, k), G: make([]api.Bound, len(pr.G))}
			for i := range pr.G {
				pp.G[i] = bound(&pr.G[i], k)
			}
			ans.Points[k] = pp
		}
		return nil
	})
	return ans, err
}
