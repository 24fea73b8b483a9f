package fit

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/safegp/safegp/internal/quote"

	"gonum.org/v1/gonum/stat/distuv"
)

// Prior selects the hyperprior of a fit.
type Prior int

const (
	// PriorDefault is the package's default hyperprior (see the package
	// documentation): type-II maximum a posteriori.
	PriorDefault Prior = iota
	// PriorNone is no prior: type-II maximum likelihood.
	PriorNone
)

// String is the name ParsePrior reads: "default" or "none".
func (p Prior) String() string {
	switch p {
	case PriorDefault:
		return "default"
	case PriorNone:
		return "none"
	}
	return fmt.Sprintf("Prior(%d)", int(p))
}

// ParsePrior reads "default" or "none".
func ParsePrior(s string) (Prior, error) {
	switch s {
	case "default":
		return PriorDefault, nil
	case "none":
		return PriorNone, nil
	}
	return 0, fmt.Errorf("%w: prior %s: want default or none", ErrInvalid, quote.Short(s))
}

// The default hyperprior's constants (package documentation, "Priors").
const (
	// varShape is the gamma shape of the signal variance v/v0; its rate is
	// varShape too, so that E[v] = v0, the data's second moment about the
	// zero prior mean.
	varShape = 2.0
	// noiseShape and noiseRate: σ²/v0 ~ Gamma(1.1, 10), mean 0.11.
	noiseShape = 1.1
	noiseRate  = 10.0
	// lenVar is the variance of log ℓ_j (normal, so ℓ_j is log-normal),
	// Hvarfner et al.'s 3: a factor e^{√3} ≈ 5.7 per standard deviation.
	lenVar = 3.0
)

// Floors, relative to the data's scales (package documentation, "Floors").
const (
	// noiseFloor bounds the noise variance, fitted or known, below by
	// noiseFloor·v0.
	noiseFloor = 1e-6
	// lenFloor bounds a lengthscale below by lenFloor times the inputs'
	// range along it.
	lenFloor = 1e-3
	// zmax bounds the optimizer's coordinates, each the log of a
	// parameter relative to its data scale: beyond e^{±30} ≈ 10^{±13} the
	// evaluation reports +∞, so that the line search steps back instead of
	// overflowing.
	zmax = 30
)

// scales are the data's scales: the priors' centres, the floors, and the
// units of the optimizer's coordinates.
type scales struct {
	v0     float64   // second moment of y about 0
	lmed   []float64 // per lengthscale: the prior's median
	lfloor []float64 // per lengthscale: the floor
	nfloor float64   // noise-variance floor
	lcap   []float64 // per lengthscale: its cap (Options.MaxLengthscale, RangeLengthscale), nil for none
	ranges []float64 // per lengthscale: the inputs' range along it (the diagonal's, isotropic)
}

// newScales computes the scales of inputs x (t×d) and values y, for p = d
// (ARD) or 1 lengthscale.
func newScales(x [][]float64, y []float64, p int) scales {
	return newScalesGroups(x, y, ardGroups(p > 1, len(x[0])))
}

// newScalesGroups computes the scales of inputs x (t×d) and values y for
// the lengthscales of groups (newDataGroups; nil: one for all). A group of
// several coordinates is scaled as one isotropic lengthscale over them:
// its range is the diagonal of their ranges, its floor from the smallest
// non-zero one.
func newScalesGroups(x [][]float64, y []float64, groups []int) scales {
	d := len(x[0])
	p := 1
	if groups != nil {
		p = slices.Max(groups) + 1
	}
	r := make([]float64, d)
	for j := 0; j < d; j++ {
		lo, hi := x[0][j], x[0][j]
		for _, xi := range x[1:] {
			lo, hi = math.Min(lo, xi[j]), math.Max(hi, xi[j])
		}
		r[j] = hi - lo
	}
	var rmax, rmin, diag2 float64
	for _, v := range r {
		rmax = math.Max(rmax, v)
		if v > 0 && (rmin == 0 || v < rmin) {
			rmin = v
		}
		diag2 += v * v
	}
	same := rmax == 0
	if same {
		// Every point the same (a seed measured again and again): the
		// likelihood does not depend on the lengthscale, and the fit
		// returns about the prior's median for a span of 1 along every
		// input, with or without ARD — at most half a cap the span sets
		// (Fit), 0.125 for a range cap of a quarter.
		// It is not moot to a study: it sets how far the first step from
		// the seed reaches. Taking the span as 0 instead would cap a range
		// cap at its floor, 0.1, with a median of 0.05, whose reach (0.13
		// lengthscales, docs/fitting.md) is under a 100 × 100 grid's
		// spacing; returning the floor itself tuned fewer of
		// BenchmarkTuneControllers's plants (pi-slow 24 of 48 against 29,
		// a PI from a distant seed 2 against 0 overshoots). With ARD the
		// span was taken as 0 along each input: now 1, as without.
		rmax, rmin, diag2 = 1, 1, 1
	}
	var m float64
	for _, v := range y {
		m += v * v
	}
	s := scales{v0: m / float64(len(y)), lmed: make([]float64, p), lfloor: make([]float64, p), ranges: make([]float64, p)}
	s.nfloor = noiseFloor * s.v0
	if p == 1 {
		s.lmed[0] = math.Sqrt(diag2)
		s.lfloor[0] = lenFloor * rmin
		s.ranges[0] = math.Sqrt(diag2)
		return s
	}
	// Per group: its range (a lone coordinate's own, exactly, as ARD's),
	// and the smallest non-zero range among its coordinates.
	gmin := make([]float64, p)
	for g := range p {
		members := 0
		var sq float64
		for j, gj := range groups {
			if gj != g {
				continue
			}
			members++
			sq += r[j] * r[j]
			s.ranges[g] = r[j]
			if r[j] > 0 && (gmin[g] == 0 || r[j] < gmin[g]) {
				gmin[g] = r[j]
			}
		}
		if members > 1 {
			s.ranges[g] = math.Sqrt(sq)
		}
	}
	for g, v := range s.ranges {
		if same {
			s.ranges[g] = 1 // as without ARD
		}
		if v == 0 { // a constant input: its lengthscale is moot
			v = rmax
		}
		s.lmed[g] = v * math.Sqrt(float64(p))
		fl := v
		if gmin[g] > 0 {
			fl = gmin[g]
		}
		s.lfloor[g] = lenFloor * fl
	}
	return s
}

// logPrior is the default hyperprior's log density over the
// log-parameters θ = (log v, log ℓ_1…p[, log σ²]), with its gradient added
// to g unless g is nil. Densities are over the log-parameters, the
// coordinates the fit maximizes in: a Gamma(a, b) variable u has log u
// with log density a·log u − b·u + a·log b − log Γ(a).
func (s scales) logPrior(g, theta []float64, fitNoise bool) float64 {
	p := len(s.lmed)
	lp, d := logGammaLog(theta[0], varShape, varShape/s.v0)
	if g != nil {
		g[0] += d
	}
	for j := 0; j < p; j++ {
		e := theta[1+j] - math.Log(s.lmed[j])
		lp += -0.5*e*e/lenVar - 0.5*math.Log(2*math.Pi*lenVar)
		if g != nil {
			g[1+j] -= e / lenVar
		}
	}
	if fitNoise {
		l, d := logGammaLog(theta[1+p], noiseShape, noiseRate/s.v0)
		lp += l
		if g != nil {
			g[1+p] += d
		}
	}
	return lp
}

// logGammaLog is the log density of log u for u ~ Gamma(a, rate b), at
// lu = log u, and its derivative.
func logGammaLog(lu, a, b float64) (float64, float64) {
	u := math.Exp(lu)
	lg, _ := math.Lgamma(a)
	return a*lu - b*u + a*math.Log(b) - lg, a - b*u
}

// draw returns a start point drawn from the default prior: the
// log-parameters (log v, log ℓ_j[, log σ²]), each raised to twice its floor.
func (s scales) draw(rng *rand.Rand, fitNoise bool) []float64 {
	p := len(s.lmed)
	theta := make([]float64, 1+p, 2+p)
	theta[0] = math.Log(distuv.Gamma{Alpha: varShape, Beta: varShape / s.v0, Src: rng}.Rand())
	for j := 0; j < p; j++ {
		l := s.lmed[j] * math.Exp(math.Sqrt(lenVar)*rng.NormFloat64())
		theta[1+j] = math.Log(math.Max(l, 2*s.lfloor[j]))
	}
	if fitNoise {
		n := distuv.Gamma{Alpha: noiseShape, Beta: noiseRate / s.v0, Src: rng}.Rand()
		theta = append(theta, math.Log(math.Max(n, 2*s.nfloor)))
	}
	return theta
}
