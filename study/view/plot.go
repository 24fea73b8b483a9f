package view

import (
	"context"
	"errors"
	"slices"

	"github.com/safegp/safegp/bandit"
	"github.com/safegp/safegp/space"
	"github.com/safegp/safegp/study"
)

// Plot is a study stated in parameters, in its user's units, for the
// pictures of study plot (issue 44): every candidate's setting and the
// model's posterior of each outcome there, as measured (a minimized
// objective as minimized, a limit as its value), the safe set, and the
// measurements.
type Plot struct {
	// Params are the study's parameters, Settings every candidate's
	// setting, in the policy's order.
	Params   []space.Param
	Settings []space.Setting
	// Safe is the policy's safe set over the candidates.
	Safe []bool
	// Outcomes are the objective, then each constraint: the posterior
	// mean and √β_t·σ over the candidates, in the outcome's units.
	Outcomes []Outcome
	// Trials are the measurements in force, failed trials among them.
	Trials []Trial
}

// Outcome is one outcome's model over the candidates.
type Outcome struct {
	Name, Unit string
	Goal       string   // the objective's: minimize or maximize; "" for a constraint
	Min, Max   *float64 // its limits
	Mean, Band []float64
}

// Trial is one measurement: its setting, its values by outcome (none
// for a failed trial), and whether it broke a limit or failed.
type Trial struct {
	Setting   space.Setting
	Values    map[string]float64
	Violation bool
	Failed    bool
}

// ErrNotPlottable: the study is not stated in parameters.
var ErrNotPlottable = errors.New("not a study stated in parameters")

// PlotOf returns a study stated in parameters in its user's units
// (Plot): on a box, its outcomes and trials only (Settings, Safe and the
// posteriors are a candidate grid's); ErrNotPlottable for another. Like
// Of, it only reads the study.
func PlotOf(ctx context.Context, v *study.Service, name string) (*Plot, error) {
	var d *Plot
	err := v.Read(ctx, name, func(r study.Reader) error {
		sp := r.Space()
		if sp == nil {
			return ErrNotPlottable
		}
		d = &Plot{Params: slices.Clone(sp.Params()), Trials: trials(r)}
		out := r.Outcomes()
		ob := out.Objective
		obj := Outcome{Name: ob.Name, Unit: ob.Unit, Goal: ob.Goal, Min: ob.Min, Max: ob.Max}
		if r.Resolved().Box != nil {
			// A box has no candidates to map: the outcomes' names and
			// limits, and the trials.
			d.Outcomes = append(d.Outcomes, obj)
			for _, c := range out.Constraints {
				d.Outcomes = append(d.Outcomes, Outcome{Name: c.Name, Unit: c.Unit, Min: c.Min, Max: c.Max})
			}
			return nil
		}
		d.Settings = r.Candidates()
		var snap bandit.Snapshot
		r.Policy().Inspect(&snap, bandit.Full)
		d.Safe = snap.Safe
		posterior := func(o *Outcome, gpj int, p bandit.Posterior) {
			for i := range p.Mean {
				o.Mean = append(o.Mean, r.Raw(gpj, p.Mean[i]))
				o.Band = append(o.Band, snap.SqrtBeta*p.Std[i]*r.Scale(gpj))
			}
		}
		posterior(&obj, 0, snap.F)
		d.Outcomes = append(d.Outcomes, obj)
		// One panel per constraint: its first condition's GP (a min and
		// a max of one outcome share the outcome; their GPs mirror).
		conds := r.Conditions()
		for k, c := range out.Constraints {
			j := slices.IndexFunc(conds, func(cd space.Condition) bool { return cd.Outcome == 1+k })
			o := Outcome{Name: c.Name, Unit: c.Unit, Min: c.Min, Max: c.Max}
			posterior(&o, 1+j, snap.G[j])
			d.Outcomes = append(d.Outcomes, o)
		}
		return nil
	})
	return d, err
}

// trials are the measurements in force and the failed trials, in the
// order they were told.
func trials(r study.Reader) []Trial {
	type told struct {
		seq int
		t   Trial
	}
	var all []told
	for _, o := range r.Observations() {
		if !o.Retracted {
			all = append(all, told{o.Seq, Trial{Setting: o.Params, Values: o.Values, Violation: o.Violation}})
		}
	}
	for _, f := range r.Failures() {
		if !f.Retracted {
			all = append(all, told{f.Seq, Trial{Setting: f.Params, Failed: true}})
		}
	}
	slices.SortFunc(all, func(a, b told) int { return a.seq - b.seq })
	out := make([]Trial, len(all))
	for k, a := range all {
		out[k] = a.t
	}
	return out
}
