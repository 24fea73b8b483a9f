// Package problem defines a safe bandit instance — decision set, objective,
// constraints, thresholds and seed set — and draws, reads and analyzes them
// (SPEC §1, §6, §9).
package problem
