package api

// ImportAnswer is what import returns.
type ImportAnswer struct {
	Imported int `json:"imported"`
	// First and Last are the observation numbers (sequence numbers) of
	// the first and last imported rows, which follow each other.
	First int `json:"first"`
	Last  int `json:"last"`
	// Outside counts the rows at points outside the decision set; the
	// others count as the action they are at.
	Outside int `json:"outside"`
	Rounds  int `json:"rounds"` // observations in force after the import
}

// ImportOptions modify Import.
type ImportOptions struct {
	// Repeat imports rows the study took before (by their digest), which
	// are otherwise refused with ErrDuplicateImport: the same
	// measurements once more, on purpose.
	Repeat bool
}

// Bound is a GP's posterior at a point with the study's confidence
// bounds there: ℓ = μ − √β_t σ and u = μ + √β_t σ (SPEC §3).
type Bound struct {
	Mean  float64 `json:"mean"`
	Std   float64 `json:"std"`
	Lower float64 `json:"lower"`
	Upper float64 `json:"upper"`
}

// PointPosterior is the posterior of f and of every g_i at one point.
type PointPosterior struct {
	X []float64 `json:"x"`
	F Bound     `json:"f"`
	G []Bound   `json:"g"`
}

// PosteriorAnswer is what posterior returns: the posteriors at the points
// asked, from every observation in force (at actions and at points
// outside the decision set), with √β_t of the coming round.
type PosteriorAnswer struct {
	Round    int     `json:"round"` // the coming round t = observations in force + 1
	SqrtBeta float64 `json:"sqrt_beta"`
	// Context is the context the points are taken in, for a study with a
	// context.
	Context map[string]float64 `json:"context,omitempty"`
	Points  []PointPosterior   `json:"points"`
}
