package bandit

import (
	"math"

	"github.com/safegp/safegp/internal/argmax"

	"github.com/safegp/safegp/internal/memlimit"
)

// ei is the expected-improvement family that practitioners run for
// constrained problems, with no safety guarantee — the comparison's
// reference (issue 28):
//
//   - constrained-ei (J. R. Gardner, M. J. Kusner, Z. Xu, K. Q. Weinberger,
//     J. P. Cunningham, "Bayesian Optimization with Inequality
//     Constraints", ICML 2014): argmax over D of EI_f(x)·PoF(x), PoF(x) =
//     Π_i Φ((μ_{g_i}(x) − h_i)/σ_{g_i}(x)) the posterior probability that
//     every safety condition holds (f ≥ h_f with an objective threshold
//     among them), independent GPs;
//   - pof-ei: argmax of EI_f over F_t = D^w ∪ {x : PoF(x) ≥ 1 − δ}, δ the
//     model's: EI where feasibility is likely, as Ax and BoTorch users
//     constrain outcomes by a probability.
//
// EI_f(x) = (μ − f⁺)Φ(z) + σφ(z), z = (μ − f⁺)/σ, with μ, σ f's posterior
// mean and standard deviation (of the latent f, noise excluded) and f⁺
// the best f measured among the measurements whose every measured
// condition held (Gardner et al.'s incumbent). Until one has, both play
// argmax PoF (Gardner et al.'s rule for an empty feasible set); pof-ei
// over F_t. Lowest index on ties. A batch hallucinates f's variance at
// the pending actions (EI falls there) and leaves them out.
type ei struct {
	*models
	pof      bool    // pof-ei
	minPoF   float64 // 1 − δ
	feasible []bool  // F_t (pof-ei)
	best     float64 // f⁺, −∞ while no measurement was feasible
	seen     int     // measurements folded into best
	pofs     []float64
	updated  int // the round prepared
}

func eiRule(b *building) (rule, error) {
	m := newModelsFrom(b.model, b.set, b.opt, nil)
	m.log = &measurements{}
	n := len(b.set.X)
	e := &ei{models: m, pof: b.spec.Name == PoFEI, minPoF: 1 - b.model.Delta, feasible: make([]bool, n), pofs: make([]float64, n), best: math.Inf(-1)}
	e.prepare()
	return e, nil
}

// eiBytes is the rule's state over n actions: PoF and F_t.
func eiBytes(_ *Spec, n, _ int, _ bool, _ int) int64 { return memlimit.Mul(int64(n), 9) }

func (e *ei) base() *models { return e.models }

// prepare implements rule: the incumbent, PoF and F_t of the coming round.
func (e *ei) prepare() {
	t := e.t + 1
	if e.updated == t {
		return
	}
	e.updated = t
	e.beta() // for Inspect's bounds; EI itself has no β
	log := e.log
	for ; e.seen < len(log.x); e.seen++ {
		k, ok := e.seen, true
		for _, c := range e.safety {
			if !(log.of(k, c) >= c.h) {
				ok = false
				break
			}
		}
		if ok {
			e.best = math.Max(e.best, log.f[k])
		}
	}
	for i := range e.pofs {
		p := 1.0
		for _, c := range e.safety {
			p *= probAbove(c.gp.Mean()[i], c.gp.Std(i), c.h)
		}
		e.pofs[i] = p
		e.feasible[i] = p >= e.minPoF
	}
	for _, i := range e.seeds() {
		e.feasible[i] = true
	}
}

// probAbove is P(Z ≥ h) for Z ~ N(μ, σ²); a step at σ = 0.
func probAbove(mu, sd, h float64) float64 {
	if !(sd > 0) {
		if mu >= h {
			return 1
		}
		return 0
	}
	return 0.5 * math.Erfc((h-mu)/(sd*math.Sqrt2))
}

// expectedImprovement is EI over f⁺ of N(μ, σ²).
func expectedImprovement(mu, sd, best float64) float64 {
	d := mu - best
	if !(sd > 0) {
		return max(d, 0)
	}
	z := d / sd
	return d*0.5*math.Erfc(-z/math.Sqrt2) + sd*math.Exp(-0.5*z*z)/math.Sqrt(2*math.Pi)
}

// score is the acquisition at action i with f's standard deviation sd.
func (e *ei) score(i int, sd float64) float64 {
	if math.IsInf(e.best, -1) {
		return e.pofs[i]
	}
	v := expectedImprovement(e.f.Mean()[i], sd, e.best)
	if !e.pof {
		v *= e.pofs[i]
	}
	return v
}

func (e *ei) in(i int) bool { return e.allowed(i) && (!e.pof || e.feasible[i]) }

// choose implements rule.
func (e *ei) choose() (int, error) {
	e.prepare()
	a := argmax.Func(len(e.set.X), e.in, func(i int) float64 { return e.score(i, e.f.Std(i)) })
	return a, nil // −1, ErrNoSafeAction, only when every seed was excluded
}

// chooseNew implements rule: choose with f's variance hallucinated at the
// pending actions, which are left out.
func (e *ei) chooseNew() int {
	e.prepare()
	kind := candAll
	if e.pof {
		kind = candFeasible
	}
	rows := e.candidates(e.in)
	e.hallucinateF(rows, kind)
	a, _ := e.argmaxRows(rows, func(r, i int) float64 { return e.score(i, e.hallStd(0, r)) })
	return a
}

// inspect implements rule: the safe set shown is F_t for pof-ei and the
// actions with PoF ≥ 1 − δ for constrained-ei (what each believes
// feasible; neither guarantees it).
func (e *ei) inspect(dst *Snapshot, d Detail) {
	e.prepare()
	size := 0
	for _, in := range e.feasible {
		if in {
			size++
		}
	}
	e.snapshot(dst, d, e.t+1, e.feasible, size, 0)
}
