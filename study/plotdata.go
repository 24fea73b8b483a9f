package study

import (
	"context"
	"errors"
	"slices"

	"github.com/safegp/safegp/bandit"
	"github.com/safegp/safegp/space"
	"github.com/safegp/safegp/store"
)

// PlotData is a study stated in parameters, in its user's units, for the
// pictures of study plot (issue 44): every candidate's setting and the
// model's posterior of each outcome there, as measured (a minimized
// objective as minimized, a limit as its value), the safe set, and the
// measurements.
type PlotData struct {
	// Params are the study's parameters, Settings every candidate's
	// setting, in the policy's order.
	Params   []space.Param
	Settings []space.Setting
	// Safe is the policy's safe set over the candidates.
	Safe []bool
	// Outcomes are the objective, then each constraint: the posterior
	// mean and √β_t·σ over the candidates, in the outcome's units.
	Outcomes []PlotOutcome
	// Trials are the measurements in force, failed trials among them.
	Trials []PlotTrial
}

// PlotOutcome is one outcome's model over the candidates.
type PlotOutcome struct {
	Name, Unit string
	Goal       string   // the objective's: minimize or maximize; "" for a constraint
	Min, Max   *float64 // its limits
	Mean, Band []float64
}

// PlotTrial is one measurement: its setting, its values by outcome (none
// for a failed trial), and whether it broke a limit or failed.
type PlotTrial struct {
	Setting   space.Setting
	Values    map[string]float64
	Violation bool
	Failed    bool
}

// ErrNotPlottable: the study is not stated in parameters.
var ErrNotPlottable = errors.New("not a study stated in parameters")

// Plot returns a study stated in parameters in its user's units
// (PlotData): on a box, its outcomes and trials only (Settings, Safe and
// the posteriors are a candidate grid's); ErrNotPlottable for another.
func (v *Service) Plot(ctx context.Context, name string) (*PlotData, error) {
	var d *PlotData
	err := v.with(ctx, name, func(s *Study) error {
		nm := s.res.Named
		if nm == nil {
			return ErrNotPlottable
		}
		d = &PlotData{Params: slices.Clone(nm.space.Params())}
		d.Trials = s.plotTrials()
		if s.res.Box != nil {
			// A box has no candidates to map: the outcomes' names and
			// limits, and the trials.
			ob := nm.outcomes.Objective
			d.Outcomes = append(d.Outcomes, PlotOutcome{Name: ob.Name, Unit: ob.Unit, Goal: ob.Goal, Min: ob.Min, Max: ob.Max})
			for _, c := range nm.outcomes.Constraints {
				d.Outcomes = append(d.Outcomes, PlotOutcome{Name: c.Name, Unit: c.Unit, Min: c.Min, Max: c.Max})
			}
			return nil
		}
		for i := range s.res.X {
			d.Settings = append(d.Settings, s.settingOf(&store.Event{Index: i, X: s.res.X[i]}))
		}
		var snap bandit.Snapshot
		s.pol.Inspect(&snap, bandit.Full)
		d.Safe = snap.Safe
		raw := s.u.raw(s)
		sp := s.tr.Scale
		ob := nm.outcomes.Objective
		o := PlotOutcome{Name: ob.Name, Unit: ob.Unit, Goal: ob.Goal, Min: ob.Min, Max: ob.Max}
		for i := range snap.F.Mean {
			o.Mean = append(o.Mean, raw(0, snap.F.Mean[i]))
			o.Band = append(o.Band, snap.SqrtBeta*snap.F.Std[i]*sp)
		}
		d.Outcomes = append(d.Outcomes, o)
		// One panel per constraint: its first condition's GP (a min and
		// a max of one outcome share the outcome; their GPs mirror).
		for k, c := range nm.outcomes.Constraints {
			j := slices.IndexFunc(nm.conds, func(cd space.Condition) bool { return cd.Outcome == 1+k })
			o := PlotOutcome{Name: c.Name, Unit: c.Unit, Min: c.Min, Max: c.Max}
			g := snap.G[j]
			for i := range g.Mean {
				o.Mean = append(o.Mean, raw(1+j, g.Mean[i]))
				o.Band = append(o.Band, snap.SqrtBeta*g.Std[i]*s.tr.Scales[j])
			}
			d.Outcomes = append(d.Outcomes, o)
		}
		return nil
	})
	return d, err
}

// plotTrials are the measurements in force, in order, failures among
// them.
func (s *Study) plotTrials() []PlotTrial {
	var out []PlotTrial
	for k := range s.events {
		e := &s.events[k]
		if (e.Kind != "tell" && e.Kind != "fail") || s.retracted[e.Seq] != 0 {
			continue
		}
		t := PlotTrial{Setting: s.settingOf(e), Violation: e.Violation, Failed: e.Kind == "fail"}
		if !t.Failed {
			t.Values = s.valueMap(e)
		}
		out = append(out, t)
	}
	return out
}
