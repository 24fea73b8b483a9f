package study

import (
	"context"
	"time"

	"github.com/safegp/safegp/config"
	"github.com/safegp/safegp/internal/refit"
	"github.com/safegp/safegp/kernel"
	"github.com/safegp/safegp/space"
	"github.com/safegp/safegp/store"
	"github.com/safegp/safegp/study/api"
)

// fitIfDue fits the model when model.fit says a fit is due before the
// coming ask (decideFit), records the fit as an event and applies it: the
// policy is rebuilt with the fitted kernels from the observations in
// force. Call with no ask pending.
func (v *Service) fitIfDue(ctx context.Context, s *Study) error {
	e, err := s.decideFit(ctx)
	if e == nil || err != nil {
		return err
	}
	if err := v.store.Append(ctx, s.name, e); err != nil {
		return err
	}
	return s.apply(*e)
}

// decideFit makes the event of a fit when one is due (config.Fit.Due: the
// first at min_points observations in force, then with every: k after k
// more tells), nil when none is.
//
// The fit uses every observation in force: its point, f and each g_i,
// one fit per GP. The noise is known — each observation's own noise_std —
// when every one of them carries it; otherwise it is fitted, with the
// tells' own noise_std ignored (a fit takes one noise model for all
// points). A fit that cannot be made (more than fit.MaxPoints
// observations, the memory limit, data a fit refuses) is recorded as
// skipped, with the reason, and the study goes on with the model it has.
// Stopped by ctx (the client went away, the server shuts down), the fit
// records nothing and the ask fails: it is due again next time.
func (s *Study) decideFit(ctx context.Context) (*store.Event, error) {
	f := s.res.Spec.Model.Fit
	if !f.Due(len(s.fits), s.nObs, s.sinceFit, len(s.res.Seed)) {
		return nil, nil
	}
	// A study stated in parameters fits its transform first, and the
	// kernels to the data it maps.
	tr := s.u.fitTransform(s)
	rec, err := refit.Model(ctx, &s.model, s.fitData(tr), s.res.Spec.Seed, len(s.fits)+1, 0, s.maxMemory)
	if err != nil {
		return nil, err
	}
	rec.Transform = tr
	return &store.Event{Seq: len(s.events) + 1, Kind: "fit", Index: -1, X: []float64{}, Fit: &rec, Created: time.Now().UTC()}, nil
}

// fitData gathers the observations in force for a fit.
func (s *Study) fitData(tr *space.Transform) config.FitData {
	m := len(s.res.Spec.Thresholds)
	d := config.FitData{X: make([][]float64, 0, s.nObs), Y: make([][]float64, 1+m), ObjectiveCondition: s.res.Spec.ObjectiveThreshold != nil}
	g := make([]float64, m)
	known := true
	for _, e := range s.events {
		if e.Kind != "tell" || s.retracted[e.Seq] != 0 {
			continue
		}
		d.X = append(d.X, e.X)
		f, gs := e.F, e.G
		if tr != nil {
			f, gs = s.res.Named.outcomes.Apply(tr, values(&e), g), g
		}
		d.Y[0] = append(d.Y[0], f)
		for i, g := range gs {
			d.Y[1+i] = append(d.Y[1+i], g)
		}
		known = known && e.NoiseStd != nil
		if known {
			d.NoiseVar = append(d.NoiseVar, *e.NoiseStd**e.NoiseStd)
		}
	}
	if !known {
		d.NoiseVar = nil
	}
	return d
}

// fitInfos lists the study's fits in order.
func (s *Study) fitInfos() []api.FitInfo {
	var out []api.FitInfo
	for _, seq := range s.fits {
		e := s.events[seq-1]
		out = append(out, api.FitInfo{Seq: e.Seq, FitRecord: *e.Fit, Created: e.Created})
	}
	return out
}

// modelInfo is the model in force, nil for a study without a fit block.
func (s *Study) modelInfo() *api.ModelInfo {
	f := s.res.Spec.Model.Fit
	if f == nil {
		return nil
	}
	var when config.FitWhen
	if f.When != nil {
		when = *f.When
	}
	mi := &api.ModelInfo{Fit: when, Source: "configured", Fits: len(s.fits), Objective: s.model.Objective, Constraints: s.model.Constraints, NoiseStd: *s.model.NoiseStd}
	for _, fi := range s.fitInfos() {
		if fi.Skipped == "" {
			mi.Source = "fitted"
			last := fi
			mi.Last = &last
		}
	}
	if mi.Constraints == nil {
		mi.Constraints = []kernel.Spec{}
	}
	return mi
}
