package view

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/safegp/safegp/bandit"
	"github.com/safegp/safegp/space"
	"github.com/safegp/safegp/study"
	"github.com/safegp/safegp/study/api"
)

// MaxActions bounds the decision sets whose posterior View includes:
// each action costs the answer about a hundred bytes of JSON per GP, and
// the page an SVG element.
const MaxActions = 10_000

// View is what the dashboard draws of one study, read at one moment.
type View struct {
	// Version is the number of events the study had recorded (study.Service.
	// Version): a study's state is a function of its events, so two views
	// of one version (and one LeaseStamp) are the same. View reads it
	// with the rest in one hold of the study.
	Version int `json:"version"`
	// LeaseStamp is a digest of the study's leases when the view was
	// read (study.Service.LeaseStamp): a lease is set, renewed or dropped
	// without an event (a heartbeat, a released ask handed out again),
	// so that Version and LeaseStamp together identify a view.
	LeaseStamp uint64       `json:"-"`
	Summary    *api.Summary `json:"summary"`
	// Thresholds are the h_i, one per constraint; the objective's h_f,
	// when f ≥ h_f is a safety condition, is Summary.ObjectiveThreshold.
	Thresholds []float64 `json:"thresholds"`
	// Observations are every tell in order, retracted ones flagged.
	Observations []api.Observation `json:"observations"`
	// Failures are the failed trials (told without values), retracted
	// ones flagged: the pictures mark them apart from the observations.
	Failures []api.Failure `json:"failures,omitempty"`
	// Pending are the asks handed out and not yet told, oldest first.
	Pending []api.PendingAsk `json:"pending"`
	// Seeds are the seed points: the seed actions' points of a finite
	// decision set (D^w), a box's seed points.
	Seeds [][]float64 `json:"seeds"`
	// Posterior is the policy's view of the coming round over a finite
	// decision set of dimension 1 or 2 with at most MaxActions
	// actions; nil otherwise, and PosteriorSkipped says why.
	Posterior        *SetPosterior `json:"posterior,omitempty"`
	PosteriorSkipped string        `json:"posterior_skipped,omitempty"`
	// Slices are the posterior along lines through the best safe point,
	// one per coordinate, where no posterior over the whole set is drawn
	// (a box, or dimension above 2); nil otherwise.
	Slices *Slices `json:"slices,omitempty"`
}

// Slices is the posterior of f and each g_i at SlicePoints points along
// each of the first SliceDims coordinates through At (the best safe
// point, or the first seed before one), the others held at At's: how f
// and the limits change around the point the study would recommend. A
// study stated in parameters has them along each numeric parameter, in
// its units (Name, X), with f in the objective's units and At its
// setting (AtParams).
type Slices struct {
	At       []float64     `json:"at"`
	AtParams space.Setting `json:"at_params,omitempty"`
	SqrtBeta float64       `json:"sqrt_beta"`
	Dims     []Slice       `json:"dims"`
	// Constraints are a study stated in parameters' constraint
	// outcomes, in the order of each Slice's G (then in their units).
	Constraints []OutcomeInfo `json:"constraints,omitempty"`
}

// Slice is the posterior along coordinate Dim (0-based; a study stated
// in parameters: parameter Name) at the values X; Safe[k] is whether
// every safety condition's lower confidence bound holds at X[k].
type Slice struct {
	Dim  int                `json:"dim"`
	Name string             `json:"name,omitempty"`
	X    []float64          `json:"x"`
	F    bandit.Posterior   `json:"f"`
	G    []bandit.Posterior `json:"g,omitempty"`
	Safe []bool             `json:"safe"`
}

// SlicePoints and SliceDims bound the slices' cost: SlicePoints ×
// SliceDims predictions, O(t²) each, once per version of the view.
const (
	SlicePoints = 41
	SliceDims   = 12
)

// SetPosterior is a policy's view of the coming round over the finite
// decision set X (bandit.Snapshot with Full detail): the posteriors of f and
// of every g_i (none for gp-ucb-oracle, which models f only), √β_t, so that
// mean ± SqrtBeta·std are the confidence bounds the policy uses (SPEC §3),
// and its safe set.
type SetPosterior struct {
	Round    int                `json:"round"`
	X        [][]float64        `json:"x"`
	SqrtBeta float64            `json:"sqrt_beta"`
	F        bandit.Posterior   `json:"f"`
	G        []bandit.Posterior `json:"g"`
	Safe     []bool             `json:"safe"`
	Seed     []int              `json:"seed"` // indices of D^w in X
}

// Of returns what the dashboard draws of a study: the summary of Show,
// the thresholds, the observations, the pending asks and, for a small
// finite decision set of dimension 1 or 2, the posterior and the safe set
// over it. It asks nothing, fits nothing and draws no random number, so
// viewing a study never changes its next ask.
//
// A study another process wrote to since the service loaded it (a
// `safegp study tell` on the same file) is reloaded from the records
// first (as by every call of the service), so that a page polling View
// follows a study run from anywhere.
func Of(ctx context.Context, v *study.Service, name string) (*View, error) {
	var view *View
	// One hold of the study: the summary, the view and its version are of
	// one state.
	err := v.Read(ctx, name, func(r study.Reader) error {
		leases, stamp, err := v.ViewLeases(ctx, name)
		if err != nil {
			return err
		}
		view = build(r, r.Summary(), leases)
		view.Version, view.LeaseStamp = r.Version(), stamp
		return nil
	})
	return view, err
}

// reader is a study's Reader with its resolved specification at hand.
type reader struct {
	r   study.Reader
	res *study.Resolved
}

// build assembles the View of the study r reads, with the summary sum read
// at the same state and the leases, ask → end in Unix milliseconds
// (store.ViewLeases).
func build(r study.Reader, sum *api.Summary, leases map[int]int64) *View {
	s := reader{r, r.Resolved()}
	vw := &View{Summary: sum, Thresholds: s.res.Spec.Thresholds, Observations: r.Observations(), Failures: r.Failures(), Pending: r.Pending(leases)}
	if vw.Thresholds == nil {
		vw.Thresholds = []float64{}
	}
	if r.Space() != nil {
		// The page draws such a study in the user's units, per trial:
		// the posteriors live in the unit cube of the transform, and are
		// drawn as slices along each numeric parameter, in its units.
		vw.PosteriorSkipped = "a study stated in parameters is drawn in its own units, trial by trial, and in slices along each numeric parameter"
		vw.Slices = s.namedSlices(sum)
		return vw
	}
	if s.res.Box != nil {
		vw.Seeds = s.res.Box.Seeds
		vw.PosteriorSkipped = "a box decision set: line-bo's posteriors live on its lines; the page shows the best value, the observations and slices through the best safe point instead"
		lo, hi := make([]float64, len(s.res.Box.Bounds)), make([]float64, len(s.res.Box.Bounds))
		for j, b := range s.res.Box.Bounds {
			lo[j], hi[j] = b[0], b[1]
		}
		vw.Slices = s.slices(sum, lo, hi, vw.Seeds)
		return vw
	}
	vw.Seeds = make([][]float64, len(s.res.Seed))
	for k, i := range s.res.Seed {
		vw.Seeds[k] = s.res.X[i]
	}
	switch n, d := len(s.res.X), s.res.Dim(); {
	case d > 2:
		vw.PosteriorSkipped = fmt.Sprintf("the decision set has dimension %d: the page draws the posterior over sets of dimension 1 or 2, and slices through the best safe point above", d)
		if s.res.ContextKernel == nil {
			lo, hi := slices.Clone(s.res.X[0]), slices.Clone(s.res.X[0])
			for _, x := range s.res.X {
				for j, c := range x {
					lo[j], hi[j] = math.Min(lo[j], c), math.Max(hi[j], c)
				}
			}
			vw.Slices = s.slices(sum, lo, hi, vw.Seeds)
		}
		return vw
	case n > MaxActions:
		vw.PosteriorSkipped = fmt.Sprintf("the decision set has %d actions, more than the %d the page draws", n, MaxActions)
		return vw
	case s.res.ContextKernel != nil && bandit.Context(s.r.Policy()) == nil:
		// The contextual policy's view is that of the current context
		// (Inspect gives an empty snapshot without one).
		vw.PosteriorSkipped = "the study has a context and no ask yet: the posterior is drawn in the context of the last ask"
		return vw
	}
	var snap bandit.Snapshot
	s.r.Policy().Inspect(&snap, bandit.Full)
	if !viewFinitePosteriors(snap.F) || !viewFinitePosteriors(snap.G...) || !viewFinite(snap.SqrtBeta) {
		// JSON has no NaN or Inf; not expected of a GP's posterior.
		vw.PosteriorSkipped = "the posterior holds a value that is not a finite number"
		return vw
	}
	vw.Posterior = &SetPosterior{Round: snap.Round, X: s.res.X, SqrtBeta: snap.SqrtBeta, F: snap.F, G: snap.G, Safe: snap.Safe, Seed: s.res.Seed}
	if vw.Posterior.G == nil {
		vw.Posterior.G = []bandit.Posterior{}
	}
	return vw
}

func viewFinite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// slices computes the View's Slices of s over the box [lo, hi] through
// the summary's best safe point (the first seed before there is one);
// nil when there is neither, or the prediction fails or is not finite.
func (s reader) slices(sum *api.Summary, lo, hi []float64, seeds [][]float64) *Slices {
	var at []float64
	switch {
	case sum != nil && sum.Best != nil && len(sum.Best.X) == len(lo):
		at = sum.Best.X
	case len(seeds) > 0:
		at = seeds[0]
	default:
		return nil
	}
	coords := make([]int, min(len(lo), SliceDims))
	for j := range coords {
		coords[j] = j
	}
	return s.predictSlices(at, coords, lo, hi)
}

// predictSlices is the posterior of f and each g_i at SlicePoints points
// along each coordinate coords[j] (Slice.Dim) through at, evenly from
// lo[coords[j]] to hi[coords[j]], the other coordinates at at's, with
// Slice.Safe; nil when the prediction fails or is not finite.
func (s reader) predictSlices(at []float64, coords []int, lo, hi []float64) *Slices {
	points := make([][]float64, 0, len(coords)*SlicePoints)
	for _, c := range coords {
		for k := range SlicePoints {
			p := slices.Clone(at)
			p[c] = lo[c] + (hi[c]-lo[c])*float64(k)/(SlicePoints-1)
			points = append(points, p)
		}
	}
	var pr bandit.Prediction
	if err := bandit.Predict(s.r.Policy(), &pr, points); err != nil || !viewFinite(pr.SqrtBeta) || !viewFinitePosteriors(pr.F) || !viewFinitePosteriors(pr.G...) {
		return nil
	}
	out := &Slices{At: at, SqrtBeta: pr.SqrtBeta}
	for j, c := range coords {
		part := func(p bandit.Posterior) bandit.Posterior {
			return bandit.Posterior{Mean: slices.Clone(p.Mean[j*SlicePoints : (j+1)*SlicePoints]), Std: slices.Clone(p.Std[j*SlicePoints : (j+1)*SlicePoints])}
		}
		sl := Slice{Dim: c, X: make([]float64, SlicePoints), F: part(pr.F), G: make([]bandit.Posterior, len(pr.G))}
		for k := range SlicePoints {
			sl.X[k] = points[j*SlicePoints+k][c]
		}
		for i := range pr.G {
			sl.G[i] = part(pr.G[i])
		}
		sl.Safe = s.sliceSafe(&sl, pr.SqrtBeta)
		out.Dims = append(out.Dims, sl)
	}
	return out
}

func viewFinitePosteriors(ps ...bandit.Posterior) bool {
	for _, p := range ps {
		for i := range p.Mean {
			if !viewFinite(p.Mean[i]) || !viewFinite(p.Std[i]) {
				return false
			}
		}
	}
	return true
}

// sliceSafe is Slice.Safe: every g_i's lower confidence bound at least
// h_i, and f's at least h_f with an objective threshold (the policies'
// form: a study stated in parameters has 0 for every threshold).
func (s reader) sliceSafe(sl *Slice, sqb float64) []bool {
	safe := make([]bool, len(sl.X))
	for k := range safe {
		ok := true
		for i, g := range sl.G {
			ok = ok && g.Mean[k]-sqb*g.Std[k] >= s.res.Spec.Thresholds[i]
		}
		if h := s.res.Spec.ObjectiveThreshold; h != nil {
			ok = ok && sl.F.Mean[k]-sqb*sl.F.Std[k] >= *h
		}
		safe[k] = ok
	}
	return safe
}

// namedAt is the setting a study stated in parameters is drawn
// through, in the policy's coordinates: the best safe trial's, the first
// seed's before one; nil when there is neither.
func (s reader) namedAt(sum *api.Summary) []float64 {
	if b := sum.Best; b != nil && b.Params != nil {
		if x, err := s.r.Space().Encode(b.Params); err == nil {
			return x
		}
	}
	switch {
	case s.res.Box != nil && len(s.res.Box.Seeds) > 0:
		return s.res.Box.Seeds[0]
	case len(s.res.Seed) > 0:
		return s.res.X[s.res.Seed[0]]
	}
	return nil
}

// namedSlices is View.Slices of a study stated in parameters: along each
// numeric parameter (its unit coordinate evenly from 0 to 1, so a log
// scale evenly in its logarithm and an int over its continuous
// relaxation) through the best safe trial's setting (the first seed's
// before one), the objective's and each constraint's posterior in its
// own units (Constraints names them, in G's order).
func (s reader) namedSlices(sum *api.Summary) *Slices {
	sp := s.r.Space()
	at := s.namedAt(sum)
	if at == nil {
		return nil
	}
	// Each numeric parameter's coordinate over the unit interval.
	var params, coords []int
	for i, p := range sp.Params() {
		if p.Type != space.Choice && len(params) < SliceDims {
			params, coords = append(params, i), append(coords, sp.Coordinate(i))
		}
	}
	if len(params) == 0 {
		return nil
	}
	unit := make([]float64, len(at))
	for j := range unit {
		unit[j] = 1
	}
	out := s.predictSlices(at, coords, make([]float64, len(at)), unit)
	if out == nil {
		return nil
	}
	out.AtParams = sp.Decode(at)
	gps := s.constraintGPs()
	for _, c := range s.r.Outcomes().Constraints {
		out.Constraints = append(out.Constraints, OutcomeInfo{Name: c.Name, Unit: c.Unit, Min: c.Min, Max: c.Max})
	}
	for j := range out.Dims {
		sl := &out.Dims[j]
		sl.Dim, sl.Name = params[j], sp.Params()[params[j]].Name
		for k, u := range sl.X {
			sl.X[k] = sp.Relaxed(params[j], u)
		}
		sl.F = s.rawPosterior(0, sl.F)
		// Each constraint in its units: its first condition's GP (a min
		// and a max of one outcome share the outcome; their GPs mirror).
		g := make([]bandit.Posterior, len(gps))
		for k, gj := range gps {
			g[k] = s.rawPosterior(1+gj, sl.G[gj])
		}
		sl.G = g
	}
	return out
}

// OutcomeInfo names an outcome of a study stated in parameters: its
// unit and limits, for a picture's axis and lines.
type OutcomeInfo struct {
	Name string   `json:"name"`
	Unit string   `json:"unit,omitempty"`
	Min  *float64 `json:"min,omitempty"`
	Max  *float64 `json:"max,omitempty"`
}

// constraintGPs is, for each constraint outcome of a study stated in
// parameters, the index among the g_i of its first condition's GP.
func (s reader) constraintGPs() []int {
	conds := s.r.Conditions()
	var out []int
	for k := range s.r.Outcomes().Constraints {
		out = append(out, slices.IndexFunc(conds, func(cd space.Condition) bool { return cd.Outcome == 1+k }))
	}
	return out
}

// rawPosterior is GP gpj's posterior p (0: f, 1+i: g_i) in its outcome's
// units: the transform in force inverted, σ scaled by its scale.
func (s reader) rawPosterior(gpj int, p bandit.Posterior) bandit.Posterior {
	out := bandit.Posterior{Mean: make([]float64, len(p.Mean)), Std: make([]float64, len(p.Std))}
	sc := math.Abs(s.r.Scale(gpj))
	for k := range p.Mean {
		out.Mean[k] = s.r.Raw(gpj, p.Mean[k])
		out.Std[k] = p.Std[k] * sc
	}
	return out
}
