package bandit

// Oracle is GP-UCB restricted to the true safe set D^s_0 (paper §6,
// baseline 4): x_t = argmax_{D^s_0} u_{f,t}.
type Oracle struct {
	models
	next cached
	size int
}

func newOracle(env *Env) *Oracle {
	o := &Oracle{models: newModels(env, false)}
	for _, s := range env.TrueSafe {
		if s {
			o.size++
		}
	}
	return o
}

// Next implements Policy.
func (o *Oracle) Next() int {
	t := o.t + 1
	if a, ok := o.next.get(t); ok {
		return a
	}
	o.beta()
	a := o.argmaxUpper(func(i int) bool { return o.env.TrueSafe[i] })
	if a < 0 {
		// D^s_0 contains the seed set, so this needs inconsistent input.
		panic("bandit: gp-ucb-oracle: empty true safe set")
	}
	return o.next.set(t, a)
}

// Observe implements Policy.
func (o *Oracle) Observe(i int, y float64, z []float64) { o.observe(i, y, z) }

// SafeSetSize implements Policy: |D^s_0|.
func (o *Oracle) SafeSetSize() int { return o.size }

// ExplorationRounds implements Policy: the oracle does not explore.
func (o *Oracle) ExplorationRounds() int { return 0 }

// Inspect implements Policy.
func (o *Oracle) Inspect() Snapshot {
	o.beta()
	return o.snapshot(o.t+1, o.env.TrueSafe)
}
