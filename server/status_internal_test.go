package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/safegp/safegp/store"
	"github.com/safegp/safegp/study"
)

// TestStatusByClass: every sentinel of the store and the study gets the
// status it got when the server listed them one by one (27 of them,
// issue 41, item 6), now by its class; wrapped with context, and joined
// with another of a lower rank, as the errors that reach the server are.
func TestStatusByClass(t *testing.T) {
	for _, c := range []struct {
		err  error
		want int
	}{
		{store.ErrNotFound, 404}, {study.ErrUnknownAsk, 404}, {study.ErrUnknownObservation, 404},
		{study.ErrImportTooLarge, 413}, {&http.MaxBytesError{Limit: 1}, 413},
		{store.ErrExists, 409}, {study.ErrAlreadyTold, 409}, {store.ErrStale, 409}, {store.ErrDuplicateImport, 409},
		{&store.DuplicateImportError{First: 1, Last: 2}, 409},
		{study.ErrHorizon, 409}, {study.ErrWithdrawn, 409}, {study.ErrAlreadyRetracted, 409},
		{study.ErrContextPending, 409}, {study.ErrNoAsk, 409}, {store.ErrLeaseLost, 409}, {study.ErrLeased, 409},
		{fmt.Errorf("%w: %w: gone", store.ErrStale, store.ErrGone), 409},
		{study.ErrBadTell, 400}, {study.ErrBadRetract, 400}, {study.ErrBadImport, 400}, {study.ErrBadPoints, 400},
		{study.ErrSpec, 400}, {study.ErrBadName, 400}, {errBadRequest, 400}, {study.ErrBadContext, 400},
		{study.ErrBadAsk, 400}, {study.ErrBadHeartbeat, 400},
		{store.ErrDiskFull, 507}, {context.Canceled, 499},
		{study.ErrOverloaded, 503}, {errTimedOut, 503}, {errors.New("database is locked (5) (SQLITE_BUSY)"), 503},
		{study.ErrReplay, 500}, {store.ErrDamaged, 500}, {errors.New("anything else"), 500},
		// An import past the horizon is a conflict, not bad input (the
		// rank the server always gave them).
		{fmt.Errorf("%w: %w", study.ErrBadImport, study.ErrHorizon), 409},
		{fmt.Errorf("%w: %w", study.ErrBadTell, study.ErrUnknownAsk), 404},
	} {
		wrapped := fmt.Errorf("study %q: %w", "s", c.err)
		if got := status(wrapped); got != c.want {
			t.Errorf("%v: %d, want %d", c.err, got, c.want)
		}
	}
}
