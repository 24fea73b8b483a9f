package study

import "context"

// Columns name the columns of a study's data: x1…xd, the context
// variables of a study with a context, f and g1…gm. An import file has
// them (exchange.ParseImportCSV), and so has an export (exchange.ExportCSV).
type Columns struct {
	Dim         int      // d: x1…xd
	Context     []string // the context variables, in the spec's order; nil without
	Constraints int      // m: g1…gm
	// Params and Outcomes are a study stated in parameters' columns,
	// by name, instead of x1…xd, f and g1…gm.
	Params, Outcomes []string
}

// Columns returns the columns of a study's data, for exchange.ParseImportCSV.
func (v *Service) Columns(ctx context.Context, name string) (*Columns, error) {
	var c *Columns
	err := v.with(ctx, name, func(s *Study) error {
		c = &Columns{Dim: s.res.Dim(), Context: s.res.contextNames(), Constraints: len(s.res.Spec.Thresholds)}
		c.Params, c.Outcomes = s.u.names()
		return nil
	})
	return c, err
}
