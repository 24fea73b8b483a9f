package api

import (
	"errors"

	"github.com/safegp/safegp/internal/errclass"
)

// Errors a caller can tell apart (the HTTP service maps them to status
// codes).
var (
	ErrBadName     = errclass.New(errclass.ErrInvalid, "invalid study name")
	ErrBadTell     = errclass.New(errclass.ErrInvalid, "invalid observation")
	ErrUnknownAsk  = errclass.New(errclass.ErrNotFound, "unknown ask")
	ErrAlreadyTold = errclass.New(errclass.ErrConflict, "ask already told")
	ErrOverloaded  = errclass.New(errclass.ErrUnavailable, "memory limit of the open studies reached")
	ErrReplay      = errors.New("stored study does not replay")
	ErrHorizon     = errclass.New(errclass.ErrConflict, "study reached its horizon") // it has its horizon's worth of observations
	ErrWithdrawn   = errclass.New(errclass.ErrConflict, "ask withdrawn")             // by a retraction, while it was pending
	// ErrFinished: an ask of a study that has its horizon's worth of
	// observations (it wraps ErrHorizon too: the CLI exits 3, not 1).
	ErrFinished = errclass.New(errclass.ErrConflict, "study finished")
	// ErrNoSafeSetting: no seed is left safe (each measured unsafe, or
	// failed) and the model certifies nothing else: the study asks
	// nothing rather than a seed again.
	ErrNoSafeSetting = errclass.New(errclass.ErrConflict, "no safe setting left to ask")

	ErrBadRetract = errclass.New(errclass.ErrInvalid, "invalid retraction")
	// ErrBadExtend refuses an extension of a study's horizon: not above
	// it, above MaxHorizon, or with asks pending.
	ErrBadExtend          = errclass.New(errclass.ErrConflict, "cannot extend the horizon")
	ErrUnknownObservation = errclass.New(errclass.ErrNotFound, "unknown observation")
	ErrAlreadyRetracted   = errclass.New(errclass.ErrConflict, "observation already retracted")
)

// Errors of batches and leases.
var (
	ErrBadAsk = errclass.New(errclass.ErrInvalid, "invalid ask request")
	// ErrBadHeartbeat marks a heartbeat request out of range or
	// malformed.
	ErrBadHeartbeat = errclass.New(errclass.ErrInvalid, "invalid heartbeat")
	// ErrNoAsk: an ask call could hand out nothing — every pending ask is
	// leased to another caller, and the horizon or the policy leaves no
	// room for a new one. Retry when the leases end.
	ErrNoAsk = errclass.New(errclass.ErrConflict, "no ask available")
)

// Errors of contexts (a spec's `context` block).
var (
	// ErrBadContext marks context values a study cannot take: a name
	// missing or unknown, a value not a finite number, a context given to
	// a study without one or left out of a study with one.
	ErrBadContext = errclass.New(errclass.ErrInvalid, "invalid context")
	// ErrContextPending marks an ask in a new context while asks are
	// pending in bandit.MaxPendingContexts other contexts already: tell
	// some of them (or retract) first.
	ErrContextPending = errclass.New(errclass.ErrConflict, "asks pending in other contexts")
)

// Errors of Import and Posterior.
var (
	ErrBadImport = errclass.New(errclass.ErrInvalid, "invalid import")
	ErrBadPoints = errclass.New(errclass.ErrInvalid, "invalid points")
)

// ErrImportTooLarge: the import would take longer than the service
// allows one request (ServiceOptions.MaxImportSeconds).
var ErrImportTooLarge = errclass.New(errclass.ErrTooLarge, "import too large for one request")

// ErrLeased refuses to delete a study while some of its asks are leased
// to workers, measuring them now (Service.Delete without force).
var ErrLeased = errclass.New(errclass.ErrConflict, "asks of the study are leased")

// ErrSpec marks a study specification that cannot be used.
var ErrSpec = errclass.New(errclass.ErrInvalid, "invalid study specification")
