// Package gp maintains a Gaussian-process posterior over a finite decision
// set, updated incrementally one observation at a time (SPEC §2).
package gp
