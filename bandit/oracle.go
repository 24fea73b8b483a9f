package bandit

import "fmt"

// oracle is GP-UCB restricted to the true safe set D^s_0 (paper §6,
// baseline 4): x_t = argmax_{D^s_0} u_{f,t}.
type oracle struct {
	*models
	safe []bool // D^s_0, from Truth
	size int
}

func newOracle(m *models, safe []bool) (*oracle, error) {
	o := &oracle{models: m, safe: safe}
	for _, s := range safe {
		if s {
			o.size++
		}
	}
	if o.size == 0 {
		// D^s_0 contains the seed set, so this needs inconsistent input.
		return nil, fmt.Errorf("%w: gp-ucb-oracle: the true safe set is empty", ErrConfig)
	}
	o.prepare()
	return o, nil
}

func (o *oracle) base() *models { return o.models }

func (o *oracle) inTrueSafe(i int) bool { return o.safe[i] }

// choose implements rule.
func (o *oracle) choose() (int, error) { return o.argmaxUpper(o.inTrueSafe), nil }

// prepare implements rule: β_t of the coming round, once per round.
func (o *oracle) prepare() { o.beta() }

// inspect implements rule: D^s_0; the oracle does not explore.
func (o *oracle) inspect(dst *Snapshot, d Detail) { o.snapshot(dst, d, o.t+1, o.safe, o.size, 0) }
