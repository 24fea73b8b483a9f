package bandit_test

import "github.com/safegp/safegp/bandit"

// next and observe are the only places the external tests drive a
// policy's ask and tell one action at a time, so that a change of that
// interface touches them alone. observe tells the pending ask when it is
// for action a, else a measurement of a made outside the loop.
func next(p bandit.Policy) int {
	q, err := p.Ask()
	if err != nil {
		panic(err)
	}
	return q.Index
}

func observe(p bandit.Policy, a int, y float64, z []float64) {
	id := 0
	if q, err := p.Ask(); err == nil && q.Index == a {
		id = q.ID
	}
	if err := p.Tell(id, bandit.Observation{F: y, G: z, Index: a}); err != nil {
		panic(err)
	}
}
