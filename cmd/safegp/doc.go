// Command safegp runs safe Gaussian-process bandit experiments, reproduces
// the paper's results, reports its theory for a problem, and tunes real
// systems through durable ask/tell studies, on the command line or over
// HTTP. Run `safegp help` for the subcommands.
//
// Layer 10 (docs/layout.md): it may import every package; none imports it.
package main
