package bandit

import (
	"fmt"
	"math"
	"sync"

	"github.com/safegp/safegp/gp"
)

// MaxBatch is the most asks a policy holds pending at once: AskNew hands
// out no more. It bounds the scratch of the hallucinated variances
// (BatchBytes), k·N floats per GP for k pending asks.
const MaxBatch = 64

// Batcher is a policy that hands out batches: several asks pending at
// once, to be measured in parallel. Every policy New and NewBox return
// implements it (a separate interface, so that Policy stays the ask/tell
// seam).
//
// The safe set — and for the SafeOpt family the maximizers M_t and the
// expanders G_t — are those of the real observations only, exactly the
// sets Ask would use: a batch never holds an action the data so far do
// not make safe. Among them the policy scores the actions with the
// posterior variance conditioned also on the pending points, observed
// with the GP's noise at their posterior mean (hallucinated observations:
// GP-BUCB, Desautels, Krause and Burdick, JMLR 2014, §4.1): the mean is
// unchanged and the variance shrinks near the pending points, so the
// batch spreads out instead of repeating the argmax. What reads the
// hallucinated variance: SGP-UCB's u_f in phase 2 and its uncertainty
// rule in phase 1, SafeOpt's width over M_t ∪ G_t, StageOpt's constraint
// width in stage 1 and u_f in stage 2, the oracle's u_f. SafeOpt-MC's
// second phase maximizes ℓ_f, which the hallucination would raise next to
// the pending points — drawing the batch together, the opposite of its
// purpose — so it keeps the real ℓ_f. The pending actions are never
// chosen again, and SGP-UCB's uniform phase 1 draws among the seeds not
// pending. β_t, the round and the exploration phase are those of the
// real observations: a batch is chosen within one round.
//
// StageOpt ends its stage 1 only on real data (as Ask does): when the
// hallucinated widths of the expanders not pending are all at most ε,
// the new ask is chosen by stage 2's rule and the stage goes on.
//
// line-bo hands out batches within its current line (the pending points
// are on the line's finite set, and the inner policy chooses them): when
// the line would end with the batch — its per_line evaluations handed
// out — or no line is running because the last one ended while asks were
// pending, AskNew returns ok false, and a new line starts at the next Ask
// with nothing pending.
type Batcher interface {
	// AskNew hands out a new ask, distinct from every pending one, and
	// keeps it pending. ok is false, with no error, when the policy has
	// no further distinct candidate (every one pending, MaxBatch reached,
	// or line-bo's line full): the batch is then shorter. With no ask
	// pending it makes exactly the choice Ask makes, with the same random
	// draws. Errors are Ask's.
	AskNew() (a Ask, ok bool, err error)
	// Pending returns the asks pending, oldest first. The slice is the
	// policy's own: read it before the next call, do not change it.
	Pending() []Ask
}

// BatchBytes estimates the scratch of batches of up to MaxBatch asks for
// a policy of spec s over n actions with m constraints and at most
// horizon observations: the hallucinated variance of every GP
// (gp.HallucinatedBytes), the candidates and the pending flags.
// bandit.Bytes leaves it out (a simulation never batches); a study, which
// may, adds it.
func BatchBytes(s *Spec, n, m, horizon int) int64 {
	return gpCount(s, m)*gp.HallucinatedBytes(n, MaxBatch, horizon) + 9*int64(n) + 64*MaxBatch
}

// BoxBatchBytes is BatchBytes for line-bo (spec s) on a box with m
// constraints at the horizon: the inner policy's, on a line of at most
// Points + horizon actions (see BoxBytes).
func BoxBatchBytes(s *Spec, m, horizon int) int64 {
	l := s.LineOptions()
	return BatchBytes(&l.Inner, l.Points+horizon, m, horizon)
}

// hallucination is a policy's batch state: the actions pending, in the
// order handed out, and per GP the variance conditioned on them at the
// candidates of the coming choice (the actions it may choose: the real
// safe set or a part of it), which is all a choice reads. It is brought
// up to date lazily, for the GPs a choice reads only, and kept between
// AskNew calls so that each adds one point; a tell invalidates it
// (dirty), since the GPs, the candidates and the pending asks change.
type hallucination struct {
	pending   []int  // the pending actions, oldest first
	isPending []bool // per action, nil until the first batch
	dirty     bool   // a tell since: rebuild from the loop's pending asks
	gps       []gp.Hallucinated
	// kind is, per GP, the candidate set its rows are (one of the cand
	// constants; 0: to be reset): within a round each set is fixed.
	kind []int
	js   []int // scratch: the GPs to bring up to date
	rows []int // scratch: the candidates
	free []int // scratch: seeds not pending
}

// The candidate sets a choice hallucinates on.
const (
	candSeed      = 1 + iota // the seed set D^w
	candPhase2               // SGP-UCB's phase 2: D^s_t (with the seeds for keep_seed)
	candTrueSafe             // the oracle's D^s_0
	candGM                   // SafeOpt's G_t ∪ M_t (lipschitz mode)
	candExpanders            // StageOpt's G_t (lipschitz mode)
	candSafe                 // S_t; in gp mode also where the SafeOpt family searches G_t ∪ M_t or G_t
	candAll                  // the whole decision set (constrained-ei)
	candFeasible             // pof-ei's actions likely feasible
)

// sync makes the pending actions those of the asks pending (oldest
// first): after a tell it starts over, else it appends the asks handed
// out since.
func (m *models) sync(pending []Ask) {
	h := &m.hall
	if h.isPending == nil {
		h.isPending = make([]bool, len(m.set.X))
		h.gps = make([]gp.Hallucinated, 1+len(m.g))
		h.kind = make([]int, len(h.gps))
	}
	if h.dirty || len(h.pending) > len(pending) {
		for _, i := range h.pending {
			h.isPending[i] = false
		}
		h.pending = h.pending[:0]
		clear(h.kind)
		h.dirty = false
	}
	for _, a := range pending[len(h.pending):] {
		h.pending = append(h.pending, a.Index)
		h.isPending[a.Index] = true
	}
}

// free reports whether action i is not pending.
func (m *models) free(i int) bool { return !m.hall.isPending[i] }

// gpAt is GP j: f for 0, g_j for j ≥ 1.
func (m *models) gpAt(j int) *gp.Model {
	if j == 0 {
		return m.f
	}
	return m.g[j-1]
}

// candidates lists the actions with in(i), ascending, in the scratch
// rows, and returns it.
func (m *models) candidates(in func(i int) bool) []int {
	rows := m.hall.rows[:0]
	for i := range m.set.X {
		if in(i) {
			rows = append(rows, i)
		}
	}
	m.hall.rows = rows
	return rows
}

// hallucinate brings the hallucinated variance of the GPs js (0: f, 1+k:
// g_k) at the candidates rows, of kind kind, up to the pending actions:
// each adds the points pending since it was last brought up, at O(R·t)
// for R candidates. Several GPs with much to add run concurrently, as
// observe does.
func (m *models) hallucinate(js, rows []int, kind int) {
	h := &m.hall
	work := 0
	for _, j := range js {
		g := m.gpAt(j)
		if h.kind[j] != kind || !h.gps[j].Current(g) {
			h.gps[j].ResetRows(g, rows)
			h.kind[j] = kind
		}
		work += len(h.pending) - h.gps[j].Len()
	}
	if len(js) < 2 || work*len(rows)*max(m.t, 1) < parallelObserve {
		for _, j := range js {
			h.bring(j)
		}
		return
	}
	var wg sync.WaitGroup
	for _, j := range js[1:] {
		wg.Go(func() { h.bring(j) })
	}
	h.bring(js[0])
	wg.Wait()
}

// bring adds to GP j's hallucination the points pending since.
func (h *hallucination) bring(j int) {
	hg := &h.gps[j]
	for _, i := range h.pending[hg.Len():] {
		hg.Add(i)
	}
}

// hallucinateF brings f's hallucinated variance at rows up to date.
func (m *models) hallucinateF(rows []int, kind int) {
	m.hall.js = append(m.hall.js[:0], 0)
	m.hallucinate(m.hall.js, rows, kind)
}

// hallucinateSafety brings the hallucinated variance at rows of the GPs
// of the safety conditions up to date (f's with an objective threshold).
func (m *models) hallucinateSafety(rows []int, kind int) {
	js := m.hall.js[:0]
	for _, c := range m.safety {
		js = append(js, c.j) // distinct: 1 … m, and 0 once
	}
	m.hall.js = js
	m.hallucinate(js, rows, kind)
}

// hallucinateAll brings every GP's hallucinated variance at rows up to
// date.
func (m *models) hallucinateAll(rows []int, kind int) {
	js := m.hall.js[:0]
	for j := range m.hall.gps {
		js = append(js, j)
	}
	m.hall.js = js
	m.hallucinate(js, rows, kind)
}

// hallStd is GP j's hallucinated posterior standard deviation at row r of
// its candidates.
func (m *models) hallStd(j, r int) float64 {
	return math.Sqrt(max(m.hall.gps[j].Var()[r], 0))
}

// hallUpperF is u_f with the hallucinated σ_f at action i, row r.
func (m *models) hallUpperF(r, i int) float64 { return m.f.Mean()[i] + m.sqbF*m.hallStd(0, r) }

// argmaxRows returns the candidate of rows not pending with the largest
// score(r, i) — r its row, i the action — the lowest action on ties, and
// its row; −1, −1 when every candidate is pending. A NaN score loses to
// any number (internal/argmax's rule).
func (m *models) argmaxRows(rows []int, score func(r, i int) float64) (best, row int) {
	best, row = -1, -1
	bv := 0.0
	for r, i := range rows {
		if m.hall.isPending[i] {
			continue
		}
		if v := score(r, i); best < 0 || v > bv || (bv != bv && v == v) {
			best, row, bv = i, r, v
		}
	}
	return best, row
}

// AskNew implements Batcher.
func (l *loop) AskNew() (Ask, bool, error) {
	if len(l.pending) == 0 {
		a, err := l.Ask()
		return a, err == nil, err
	}
	if len(l.pending) >= MaxBatch {
		return Ask{}, false, nil
	}
	l.m.sync(l.pending)
	i := l.rule.chooseNew()
	if i < 0 {
		return Ask{}, false, nil
	}
	if i >= len(l.m.set.X) || l.m.hall.isPending[i] {
		return Ask{}, false, fmt.Errorf("bandit: chose action %d for a batch, outside the decision set's 0…%d or pending", i, len(l.m.set.X)-1)
	}
	l.last++
	a := Ask{ID: l.last, X: l.m.set.X[i], Index: i}
	l.pending = append(l.pending, a)
	l.m.sync(l.pending)
	return a, true, nil
}

// Pending implements Batcher.
func (l *loop) Pending() []Ask { return l.pending }

// chooseNew implements rule: the rules of choose on the real sets, with
// the hallucinated variance and the pending actions left out.
func (s *sgpUCB) chooseNew() int {
	t := s.update()
	if s.phase.in(t) {
		if !s.uncertainty {
			free := s.hall.free[:0]
			for _, i := range s.seeds() {
				if s.free(i) {
					free = append(free, i)
				}
			}
			s.hall.free = free
			if len(free) == 0 {
				return -1
			}
			return free[s.opt.Rand.IntN(len(free))]
		}
		rows := s.candidates(s.inSeed)
		s.hallucinateSafety(rows, candSeed)
		a, _ := s.argmaxRows(rows, s.hallConstraintStd)
		return a
	}
	in, kind := s.inPhase2, candPhase2
	if s.size == 0 && !s.keepSeed {
		// D^s_t is empty: the seed set, as choose falls back to.
		in, kind = s.inSeed, candSeed
	}
	rows := s.candidates(in)
	s.hallucinateF(rows, kind)
	a, r := s.argmaxRows(rows, s.hallUpperF)
	if a >= 0 && kind == candPhase2 && s.known(s.hallStd(0, r)) {
		// choose's repeats rule, on the hallucinated variances (not on
		// the seeds' fallback, as in choose).
		s.hallucinateSafety(rows, kind)
		if e, re := s.argmaxRows(rows, s.hallConstraintStd); e >= 0 && s.teaches(func(c safetyGP) float64 { return s.hallStd(c.j, re) }) {
			a = e
		}
	}
	return a
}

// hallConstraintStd is constraintStd with the hallucinated σ at row r.
func (s *sgpUCB) hallConstraintStd(r, _ int) float64 {
	u := 0.0
	for _, c := range s.safety {
		u = max(u, s.hallStd(c.j, r))
	}
	return u
}

// chooseNew implements rule: argmax over D^s_0 of the hallucinated u_f.
func (o *oracle) chooseNew() int {
	rows := o.candidates(o.inTrueSafe)
	o.hallucinateF(rows, candTrueSafe)
	a, _ := o.argmaxRows(rows, o.hallUpperF)
	return a
}

// chooseNew implements rule, as choose does on the real S_t, M_t and G_t.
// In gp mode G_t is not computed whole: chooseNewGP tests candidates
// until the choice is known (batch_gp.go), and chooses the same action.
func (o *safeOpt) chooseNew() int {
	t := o.update()
	if !o.lip && !gpModeOld && !batchOld {
		return o.chooseNewGP(t)
	}
	switch {
	case o.variant == variantSafeOpt || (o.variant == variantMC && o.phase.in(t)):
		o.sets(t, true)
		rows := o.candidates(o.inGM)
		o.hallucinateAll(rows, candGM)
		a, _ := o.argmaxRows(rows, o.hallWidth)
		return a
	case o.variant == variantMC:
		return o.argmax(o.loF, o.freeSafe)
	case o.phase.in(t):
		o.sets(t, false)
		rows := o.candidates(o.inExpanders)
		o.hallucinateSafety(rows, candExpanders)
		if a, r := o.argmaxRows(rows, o.hallConstraintWidth); a >= 0 && o.hallConstraintWidth(r, a) > o.eps {
			return a
		}
		// Every expander left is within ε under the hallucination:
		// stage 2's choice for this ask, without ending stage 1, which
		// only the real widths end (choose).
	}
	rows := o.candidates(o.inSafe)
	o.hallucinateF(rows, candSafe)
	a, _ := o.argmaxRows(rows, o.hallHiF)
	return a
}

// sets computes M_t (when withM) and G_t for round t unless choose or an
// earlier chooseNew did this round: both depend on the real observations
// only.
func (o *safeOpt) sets(t int, withM bool) {
	if withM && o.mRound != t {
		o.maximizers()
		o.mRound = t
	}
	if o.gRound != t {
		o.expanders()
		o.gRound = t
	}
}

func (o *safeOpt) freeSafe(i int) bool { return o.safe[i] && o.free(i) }

// hallBounds is [ℓ_j, u_j] at action i, row r, with GP j's hallucinated
// σ: in lipschitz mode intersected with the bounds kept so far, and
// replacing them when the two are disjoint, as bounds does.
func (o *safeOpt) hallBounds(j, r, i int) (l, u float64) {
	mean := o.gps[j].model.Mean()[i]
	w := o.sqb * o.hallStd(j, r)
	l, u = mean-w, mean+w
	if o.lip {
		if nl, nu := math.Max(o.lo[j][i], l), math.Min(o.hi[j][i], u); nl <= nu {
			l, u = nl, nu
		}
	}
	return l, u
}

// hallWidth is width with the hallucinated bounds.
func (o *safeOpt) hallWidth(r, i int) float64 {
	w := math.Inf(-1)
	for j, g := range o.gps {
		l, u := o.hallBounds(j, r, i)
		w = math.Max(w, (u-l)/g.scale[i])
	}
	return w
}

// hallConstraintWidth is constraintWidth with the hallucinated bounds.
func (o *safeOpt) hallConstraintWidth(r, i int) float64 {
	w := math.Inf(-1)
	for _, c := range o.safety {
		l, u := o.hallBounds(c.j, r, i)
		w = math.Max(w, (u-l)/o.gps[c.j].scale[i])
	}
	return w
}

// hallHiF is u_f with the hallucinated σ_f.
func (o *safeOpt) hallHiF(r, i int) float64 {
	_, u := o.hallBounds(0, r, i)
	return u
}
