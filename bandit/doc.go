// Package bandit implements the safe GP bandit policies — SGP-UCB and the
// baselines it is compared with — as ask/tell objects (SPEC §3–5).
//
// The safety conditions are the constraints g_i ≥ h_i and, when
// Options.ObjectiveThreshold is set, f ≥ h_f (SPEC §5, "Safe objective";
// Sui et al. 2015's own setting): every policy treats it as one more
// constraint whose GP is the objective's own, so there may be no
// constraint at all. β_t's union bound counts GPs, not conditions, and is
// unchanged by it (SPEC §3).
//
// Contexts (NewContextual): when each round comes with a context c the
// caller observes and does not choose, the GPs model f and the g_i on
// (x, c) with a product kernel k_x·k_c (kernel.Product), and each round's
// decision set is D × {c}; a finite policy runs on it, rebuilt from the
// GPs whenever the context changes. The seed set is assumed safe in every
// context.
//
// Every policy also hands out batches of asks to measure in parallel
// (Batcher): within the safe set of the real observations, spread by the
// variance conditioned on the asks pending (GP-BUCB).
//
// Layer 3 (docs/layout.md): it imports gp, kernel, theory and internal
// packages only; never fit, config, experiment, study or anything that
// stores or decodes: storage and wire formats sit on the Policy seam, not
// in it.
package bandit
