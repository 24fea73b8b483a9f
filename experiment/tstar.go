package experiment

import (
	"fmt"
	"io"

	"github.com/safegp/safegp/bandit"
	"github.com/safegp/safegp/theory"
)

// needsReach0 reports whether an algorithm reads |R̄_0(D^w)|:
// safeopt-mc with exploration: theory (bandit.TStar).
func (c *Config) needsReach0() bool {
	for i := range c.Algorithms {
		if a := &c.Algorithms[i]; a.UsesTStar() {
			return true
		}
	}
	return false
}

// withReach0 fills in.Reach0 when an algorithm needs it: one reachability
// search per realization (problem.Reachable, near-linear in N), spared
// the configurations that do not read it.
func (c *Config) withReach0(in Instance) Instance {
	if c.needsReach0() {
		in.Reach0 = in.Problem.Reach0(in.Info)
	}
	return in
}

// tStar is SafeOpt-MC's t* on the realization of in and st (bandit.TStar),
// for the bound report whether or not an algorithm uses it; the error
// text says why there is none.
func tStar(st *Setting, in Instance) (*theory.TStar, string) {
	reach0 := in.Reach0
	if reach0 == 0 {
		reach0 = in.Problem.Reach0(in.Info)
	}
	ts, err := bandit.TStar(st.Model, st.Set, st.Options, reach0)
	if err != nil {
		return nil, err.Error()
	}
	return ts, ""
}

// writeTStar writes the rows of SafeOpt-MC's t* (Berkenkamp et al. 2016,
// Theorem 1) with its inputs. The first column stays within the width of
// the rows above ("T' (theory)") and avoids R̄, whose combining macron
// tabwriter would count as a cell.
func (rep *BoundReport) writeTStar(w io.Writer) {
	if rep.TStarError != "" {
		fmt.Fprintf(w, "SafeOpt-MC\tt*: %s\n", rep.TStarError)
		return
	}
	ts := rep.TStar
	if ts == nil {
		return
	}
	fmt.Fprintf(w, "SafeOpt-MC\tt* of Berkenkamp et al. 2016, Theorem 1: the smallest t with t/(β_t·γ_{|I|t}) ≥ C_1·(|R̄_0(D^w)| + 1)/ε²\n")
	fmt.Fprintf(w, "  inputs\t|R̄_0(D^w)| = %d (reachable from D^w with ε = 0 under the true g_i and L_i), |I| = %d GPs (f and the g_i), C_1 = %.4g (largest σ), ε = %g\n", ts.Reach0, ts.GPs, ts.C1, ts.Epsilon)
	fmt.Fprintf(w, "  target\t%.4g\tC_1·(|R̄_0(D^w)| + 1)/ε²\n", ts.Target)
	if ts.T == 0 {
		fmt.Fprintf(w, "  t*\tnone up to 2^53: SafeOpt-MC never switches\n")
		return
	}
	fmt.Fprintf(w, "  β, γ at t*\t%.4g, %.4g\tβ_t as configured; γ_{|I|t} ≤ |I|N·log(1 + σ⁻²·|I|t·|I|N·max_j k_j), smallest σ\n", ts.BetaT, ts.GammaT)
	verdict := "≤ T: SafeOpt-MC switches to argmax_{S_t} ℓ_f after it"
	if !ts.Within(rep.Horizon) {
		verdict = fmt.Sprintf("> T = %d: SafeOpt-MC never switches", rep.Horizon)
	}
	fmt.Fprintf(w, "  t*\t%d\t%s\n", ts.T, verdict)
}
