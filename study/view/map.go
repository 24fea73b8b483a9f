package view

import (
	"context"
	"fmt"
	"slices"

	"github.com/safegp/safegp/bandit"
	"github.com/safegp/safegp/space"
	"github.com/safegp/safegp/study"
	"github.com/safegp/safegp/study/api"
)

// MapPoints is the map's grid size along each of its two parameters:
// MapPoints² predictions, O(t²) each, per study version drawn.
const MapPoints = 31

// Map is a study stated in parameters seen over two of its numeric
// parameters X and Y, the others held at the setting At (the best safe
// trial's, the first seed's before one): the model's posterior mean of
// the objective in its units on a MapPoints × MapPoints grid (XS, YS in
// the parameters' units, evenly in their unit coordinates, so a log
// scale evenly in its logarithm), and where every limit's lower
// confidence bound holds there (Safe), as the policies judge safety.
// Mean[iy][ix] and Safe[iy][ix] are at (XS[ix], YS[iy]).
type Map struct {
	X         string        `json:"x"`
	Y         string        `json:"y"`
	XS        []float64     `json:"xs"`
	YS        []float64     `json:"ys"`
	Objective OutcomeInfo   `json:"objective"`
	Mean      [][]float64   `json:"mean"`
	Safe      [][]bool      `json:"safe"`
	At        space.Setting `json:"at"`
}

// ErrNoMap: the map asked for cannot be drawn (api.ErrBadPoints: a 400).
var ErrNoMap = fmt.Errorf("%w: no map", api.ErrBadPoints)

// MapOf returns the Map of study name over the numeric parameters x and
// y. A study not stated in parameters, a name that is no numeric
// parameter, x = y, or a study with no setting to draw it through yet
// is ErrNoMap. Like Of, it only reads the study.
func MapOf(ctx context.Context, v *study.Service, name, x, y string) (*Map, error) {
	var m *Map
	err := v.Read(ctx, name, func(r study.Reader) error {
		sp := r.Space()
		if sp == nil {
			return fmt.Errorf("%w: study %q is not stated in parameters", ErrNoMap, name)
		}
		param := func(n string) (int, error) {
			i := slices.IndexFunc(sp.Params(), func(p space.Param) bool { return p.Name == n })
			if i < 0 || sp.Params()[i].Type == space.Choice {
				return 0, fmt.Errorf("%w: %.40q is no numeric parameter of study %q", ErrNoMap, n, name)
			}
			return i, nil
		}
		ix, err := param(x)
		if err != nil {
			return err
		}
		iy, err := param(y)
		if err != nil {
			return err
		}
		if ix == iy {
			return fmt.Errorf("%w: x and y are both %q", ErrNoMap, x)
		}
		s := reader{r, r.Resolved()}
		at := s.namedAt(r.Summary())
		if at == nil {
			return fmt.Errorf("%w: study %q has no trial or seed to draw it through", ErrNoMap, name)
		}
		cx, cy := sp.Coordinate(ix), sp.Coordinate(iy)
		points := make([][]float64, 0, MapPoints*MapPoints)
		for ky := range MapPoints {
			for kx := range MapPoints {
				p := slices.Clone(at)
				p[cx], p[cy] = float64(kx)/(MapPoints-1), float64(ky)/(MapPoints-1)
				points = append(points, p)
			}
		}
		var pr bandit.Prediction
		if err := bandit.Predict(r.Policy(), &pr, points); err != nil {
			return fmt.Errorf("study %q: the map's posterior: %w", name, err)
		}
		if !viewFinite(pr.SqrtBeta) || !viewFinitePosteriors(pr.F) || !viewFinitePosteriors(pr.G...) {
			return fmt.Errorf("%w: study %q: the posterior holds a value that is not a finite number", ErrNoMap, name)
		}
		ob := r.Outcomes().Objective
		m = &Map{X: x, Y: y, XS: make([]float64, MapPoints), YS: make([]float64, MapPoints), At: sp.Decode(at),
			Objective: OutcomeInfo{Name: ob.Name, Unit: ob.Unit, Min: ob.Min, Max: ob.Max}}
		for k := range MapPoints {
			u := float64(k) / (MapPoints - 1)
			m.XS[k], m.YS[k] = sp.Relaxed(ix, u), sp.Relaxed(iy, u)
		}
		// Safe as Slice.Safe: the policies' lower bounds, in their units.
		sl := Slice{X: make([]float64, len(points)), F: pr.F, G: pr.G}
		safe := s.sliceSafe(&sl, pr.SqrtBeta)
		f := s.rawPosterior(0, pr.F)
		for ky := range MapPoints {
			row := ky * MapPoints
			m.Mean = append(m.Mean, f.Mean[row:row+MapPoints])
			m.Safe = append(m.Safe, safe[row:row+MapPoints])
		}
		return nil
	})
	return m, err
}
