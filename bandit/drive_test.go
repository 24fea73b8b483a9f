package bandit_test

import "github.com/safegp/safegp/bandit"

// next and observe are the only places the external tests drive a
// policy's ask/tell methods, so that a change of that interface touches
// them alone.
func next(p bandit.Policy) int { return p.Next() }

func observe(p bandit.Policy, a int, y float64, z []float64) { p.Observe(a, y, z) }
