package api

import "github.com/safegp/safegp/config"

// Limits on what a study may hold: its decision set and its horizon.
const (
	MaxActions = 1_000_000
	MaxHorizon = config.MaxHorizon
)

// MaxPoints bounds the points of one Posterior request, as MaxActions
// bounds a decision set.
const MaxPoints = MaxActions

// MaxOutside bounds the observations a study holds at points outside its
// decision set. Opening a study replays them, and each costs a forward
// substitution through the observations before it, O(t²), so their
// replay is O(t³) in all: measured on the project's 2-core machine, 13 s
// at 4 000 and 107 s at 8 000 (beyond the HTTP server's 60 s write
// timeout), and about 2 s at this bound.
const MaxOutside = 2000
