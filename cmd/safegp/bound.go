package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/safegp/safegp/experiment"
	"github.com/safegp/safegp/theory"
)

func boundCmd(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("safegp bound", flag.ContinueOnError)
	fs.SetOutput(stderr)
	r := fs.Int("realization", 0, "which `realization` of a generated problem to analyze")
	asJSON := fs.Bool("json", false, "print JSON instead of a table")
	features := fs.String("features", "", "feature map for stationary constraint kernels: qff or rff (default: qff for se, rff for matern)")
	nodes := fs.Int("nodes", 0, "QFF nodes per dimension (default: the fewest meeting Theorem 4's ε_0)")
	size := fs.Int("size", 0, "RFF dimension, even (default: the seed-set size)")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "Usage: safegp bound CONFIG [--realization R] [--json] [--features qff|rff] [--nodes N] [--size D]\n\n"+
			"Prints the quantities of the paper's regret analysis for a configured problem\n"+
			"(β_T, the γ_T bound, B, C_1, λ_−, t_ε, t_δ, the theory's T' and regret bound)\n"+
			"and the T' each configured exploration rule gives on that realization.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	pos, ok, err := parse(fs, args)
	if !ok {
		return err
	}
	if len(pos) != 1 {
		fmt.Fprintf(stderr, "safegp bound: want exactly one CONFIG file, got %d arguments\n", len(pos))
		return errUsage
	}
	if *features != "" && *features != "qff" && *features != "rff" {
		fmt.Fprintf(stderr, "safegp bound: --features must be qff or rff, got %q\n", *features)
		return errUsage
	}
	if *nodes < 0 || *size < 0 || *size%2 != 0 {
		fmt.Fprintln(stderr, "safegp bound: --nodes must be ≥ 0 and --size even and ≥ 0")
		return errUsage
	}
	cfg, err := experiment.Load(pos[0])
	if err != nil {
		return err
	}
	if *r < 0 || *r >= cfg.Realizations {
		fmt.Fprintf(stderr, "safegp bound: --realization must be in 0…%d, got %d\n", cfg.Realizations-1, *r)
		return errUsage
	}
	rep, err := experiment.Bound(cfg, *r, theory.Features{Kind: *features, Nodes: *nodes, Size: *size})
	if err != nil {
		return fmt.Errorf("%s: %w", pos[0], err)
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	w := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintf(w, "problem\trealization %d: N = %d actions in d = %d, m = %d constraint(s), |D^w| = %d\n", rep.Realization, rep.N, rep.Dim, rep.M, rep.SeedSize)
	fmt.Fprintf(w, "model\tσ = %g, δ = %g, ε = %g, T = %d\n", rep.NoiseStd, rep.Delta, rep.Epsilon, rep.Horizon)
	fmt.Fprintf(w, "β_T\t%.4g\t2·log((m+1)·N·T²·π²/(6δ))\n", rep.BetaT)
	fmt.Fprintf(w, "γ_T bound\t%.4g\tN·log(1 + σ⁻²·T·N·max k_f)\n", rep.GammaT)
	fmt.Fprintf(w, "B\t%.4g\t2·√(max k_f)·√(2·log 2N)/δ\n", rep.B)
	fmt.Fprintf(w, "C_1\t%.4g\t8/log(1 + σ⁻²)\n", rep.C1)
	for i, c := range rep.Constraints {
		e := c.Exploration
		if e == nil {
			fmt.Fprintf(w, "g%d\t%s\n", i+1, c.Error)
			continue
		}
		fmt.Fprintf(w, "g%d\tTheorem %d, %s features", i+1, e.Theorem, e.Features)
		if e.Dim > 0 {
			fmt.Fprintf(w, ", dimension %d", e.Dim)
		}
		if e.Nodes > 0 {
			fmt.Fprintf(w, " (%d nodes per dimension)", e.Nodes)
		}
		fmt.Fprintln(w)
		if e.Theorem == 4 {
			fmt.Fprintf(w, "  ε_0\tneeded ≤ %.3g", e.Eps0Target)
			if e.Features == "qff" && e.Nodes > 0 {
				fmt.Fprintf(w, "; QFF lemma bound %.3g", e.Eps0Bound)
			}
			if e.Eps0Measured > 0 {
				fmt.Fprintf(w, "; measured on D %.3g", e.Eps0Measured)
			}
			fmt.Fprintln(w)
		}
		if c.Error != "" {
			fmt.Fprintf(w, "  no T'\t%s\n", c.Error)
			continue
		}
		fmt.Fprintf(w, "  λ_−\t%.4g\n", e.Lambda)
		fmt.Fprintf(w, "  t_ε, t_δ\t%.4g, %.4g\n", e.TEps, e.TDelta)
		fmt.Fprintf(w, "  T'\t%d\t⌈max(t_ε, t_δ)⌉, at most T\n", e.TPrime)
		if e.KMax > 1 || e.RMax > 1 {
			fmt.Fprintf(w, "  scaling\tk_g(x,x) up to %.3g on D, %.3g on D^w: t_ε and t_δ scaled by them (the paper assumes k ≤ 1)\n", e.KMax, e.RMax)
		}
		if !e.Guarantee {
			fmt.Fprintf(w, "  no guarantee\tthe feature map misses Theorem 4's ε_0 condition: T' is the formula, not a guarantee\n")
		}
	}
	if rep.Regret > 0 {
		fmt.Fprintf(w, "T' (theory)\t%d\n", rep.TPrime)
		promise := "probability ≥ 1 − 3δ"
		if !rep.Guarantee {
			promise = "not a guarantee: a feature map misses the ε_0 condition"
		}
		fmt.Fprintf(w, "regret bound\t%.4g\tB·T' + √(C_1·T·β_T·γ_T), %s\n", rep.Regret, promise)
	} else {
		fmt.Fprintf(w, "T' (theory)\tnone: the guarantee does not apply to this seed set\n")
	}
	for _, rl := range rep.Rules {
		if rl.Error != "" {
			fmt.Fprintf(w, "rule %s\t%s: %s\n", rl.Label, rl.Rule, rl.Error)
			continue
		}
		fmt.Fprintf(w, "rule %s\t%s: %d rounds on this realization\n", rl.Label, rl.Rule, rl.Rounds)
	}
	return w.Flush()
}
