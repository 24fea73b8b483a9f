package study

import (
	"github.com/safegp/safegp/study/calib"
)

// The calibration check (package calib, issue 28): each tell's check is
// recorded as it is applied, before the policy learns it; show, the ask
// answers (a note) and the tell answers report the check over the last
// calib.Window tells in force.

// calibrate records the check of tell seq from its residuals rs (nothing
// when there are none).
func (s *Study) calibrate(seq int, rs *residuals) {
	if rs == nil {
		return
	}
	r := make([]calib.Residual, len(rs.rs))
	for i, x := range rs.rs {
		r[i] = calib.Residual{GP: x.gpj, V: x.v, Mean: x.mean, SD: x.sd}
	}
	s.calib[seq] = calib.Check(r, rs.sqrtBeta)
}

// calibration returns the check over the last calib.Window tells in force
// that have one, nil for fewer than calib.MinTells.
func (s *Study) calibration() *calib.Calibration { return s.calibrationOf(s.gpNames()) }

// calibrationOf is calibration for the GPs' names.
func (s *Study) calibrationOf(names []string) *calib.Calibration {
	var points []calib.Point
	for k := len(s.events) - 1; k >= 0 && len(points) < calib.Window; k-- {
		e := &s.events[k]
		if e.Kind != "tell" || s.retracted[e.Seq] != 0 {
			continue
		}
		if c, ok := s.calib[e.Seq]; ok {
			points = append(points, c)
		}
	}
	return calib.Of(points, names)
}

// calibrationNote is the note of an implausible check, nil otherwise.
func (s *Study) calibrationNote() []string {
	names := s.gpNames()
	safety, alg := s.res.Spec.Algorithm.Safety()
	if n := calib.Note(s.calibrationOf(names), safety, alg, names[0], s.res.Spec.ObjectiveThreshold != nil); n != "" {
		return []string{n}
	}
	return nil
}
