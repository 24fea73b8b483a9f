// Package bandit implements the safe GP bandit policies — SGP-UCB and the
// baselines it is compared with — as ask/tell objects (SPEC §3–5).
package bandit
