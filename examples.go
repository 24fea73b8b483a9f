package safegp

import "embed"

// Examples holds examples/*.yaml: the paper's three regret-comparison
// regimes, its linear-kernel and phase-1 experiments.
//
//go:embed examples/*.yaml examples/safety/*.yaml
var Examples embed.FS
