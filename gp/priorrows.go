package gp

import "github.com/safegp/safegp/kernel"

// PriorRowsMaxN is the largest decision set on which KeepPriorRows keeps
// kernel rows: at most min(N, t) rows of N floats, so never more than V
// (t·N floats) and at most 128 MiB.
const PriorRowsMaxN = 4096

// KeepPriorRows makes the model keep the prior row k(x_i, D) of every
// action i it observes (Add, Observe) and reuse it when i is observed
// again, instead of evaluating the kernel N times: a bandit plays few
// distinct actions many times (SGP-UCB and SafeOpt settle on a handful),
// and the N kernel evaluations (an exp each for SE) cost about as much as
// the product Vᵀl at t ≈ 200 (issue 14's sweep profile: 19 % of the CPU
// in exp). The rows are the floats kernel.Row computes, so nothing the
// model computes changes (TestPriorRowsSameFloats).
//
// The rows take min(N, t)·N floats for t reserved observations, allocated
// with V by Reserve (PriorRowsBytes counts them): Add still allocates
// nothing within Reserve. Decision sets of more than PriorRowsMaxN
// actions keep no rows (the call does nothing). Call it before Reserve.
func (m *Model) KeepPriorRows() {
	n := len(m.x)
	if n == 0 || n > PriorRowsMaxN || m.kslot != nil {
		return
	}
	m.kslot = make([]int32, n)
	for i := range m.kslot {
		m.kslot[i] = -1
	}
	if m.rows > 0 {
		m.reservePriorRows(m.rows)
	}
}

// PriorRowsBytes is what KeepPriorRows adds to Bytes(n, t, …) for a
// model over n actions with room for t observations: the rows, the slot
// of each action, and room for allocation rounding as in Bytes (a page
// for the rows, a quarter more for the slots).
func PriorRowsBytes(n, t int) int64 {
	if n == 0 || n > PriorRowsMaxN {
		return 0
	}
	return 8*int64(n)*int64(min(n, t)) + 5*int64(n) + 8<<10
}

// reservePriorRows gives the kept rows room for min(N, t) actions.
func (m *Model) reservePriorRows(t int) {
	n := len(m.x)
	if m.kslot == nil || cap(m.krows) >= min(n, t)*n {
		return
	}
	g := takeSlab(slabRows, len(m.krows), min(n, t)*n)
	copy(g, m.krows)
	m.krows = g
}

// priorRow returns k(x_i, D) from the kept rows, computing and keeping it
// on i's first observation, or nil when the model keeps no rows or has no
// room left for one (never within Reserve: t observations play at most
// min(N, t) distinct actions).
func (m *Model) priorRow(i int) []float64 {
	if row := m.keptRow(i); row != nil || m.kslot == nil {
		return row
	}
	n := len(m.x)
	s := len(m.krows) / n
	if (s+1)*n > cap(m.krows) {
		return nil
	}
	m.krows = m.krows[:(s+1)*n]
	var row []float64
	if m.flat != nil {
		row = kernel.RowFlat(m.k, m.krows[s*n:s*n+n], m.x[i], m.flat)
	} else {
		row = kernel.Row(m.k, m.krows[s*n:], m.x[i], m.x)
	}
	m.kslot[i] = int32(s)
	return row
}

// keptRow returns k(x_i, D) when the model already keeps it, else nil;
// unlike priorRow it keeps no new row (Covariance reads rows of actions
// that need not be observed).
func (m *Model) keptRow(i int) []float64 {
	if m.kslot == nil || m.kslot[i] < 0 {
		return nil
	}
	n, s := len(m.x), int(m.kslot[i])
	return m.krows[s*n : (s+1)*n]
}
