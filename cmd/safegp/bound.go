package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"

	"github.com/safegp/safegp/internal/memlimit"
	"github.com/safegp/safegp/internal/quote"

	"github.com/safegp/safegp/experiment"
	"github.com/safegp/safegp/theory"
)

func boundCmd(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("safegp bound", flag.ContinueOnError)
	fs.SetOutput(stderr)
	r := intFlag(fs, "realization", 0, "which `realization` of a generated problem to analyze")
	asJSON := fs.Bool("json", false, "print JSON instead of a table")
	features := fs.String("features", "", "feature map for stationary constraint kernels: qff or rff (default: qff for se, rff for matern)")
	nodes := intFlag(fs, "nodes", 0, "QFF nodes per dimension (default: the fewest meeting Theorem 4's ε_0)")
	size := intFlag(fs, "size", 0, "RFF dimension, even (default: the seed-set size)")
	var maxMem memlimit.Flag
	fs.Var(&maxMem, "max-memory", "refuse files larger than an eighth of `SIZE` (8GiB, 512MiB, bytes)")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "Usage: safegp bound CONFIG [--realization R] [--json] [--features qff|rff] [--nodes N] [--size D]\n\n"+
			"Prints the quantities of the paper's regret analysis for a configured problem\n"+
			"(β_T, the γ_T bound, B, C_1, λ_−, t_ε, t_δ, the theory's T' and regret bound),\n"+
			"SafeOpt-MC's t* of Berkenkamp et al. 2016, Theorem 1 with its inputs (|R̄_0(D^w)|,\n"+
			"C_1, the target C_1·(|R̄_0|+1)/ε², β and γ at t*), and the length each configured\n"+
			"exploration rule gives on that realization.\n\nFlags:\n")
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
		fmt.Fprintf(stderr, "safegp bound: --features must be qff or rff, got %s\n", quote.Short(*features))
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
	cfg.SetMaxMemory(maxMem.Bytes)
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
	return rep.WriteText(stdout)
}
