package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/safegp/safegp/store"
	"github.com/safegp/safegp/study/api"
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
		{store.ErrNotFound, 404}, {api.ErrUnknownAsk, 404}, {api.ErrUnknownObservation, 404},
		{api.ErrImportTooLarge, 413}, {&http.MaxBytesError{Limit: 1}, 413},
		{store.ErrExists, 409}, {api.ErrAlreadyTold, 409}, {store.ErrStale, 409}, {store.ErrDuplicateImport, 409},
		{&store.DuplicateImportError{First: 1, Last: 2}, 409},
		{api.ErrHorizon, 409}, {api.ErrWithdrawn, 409}, {api.ErrAlreadyRetracted, 409},
		{api.ErrContextPending, 409}, {api.ErrNoAsk, 409}, {store.ErrLeaseLost, 409}, {api.ErrLeased, 409},
		{fmt.Errorf("%w: %w: gone", store.ErrStale, store.ErrGone), 409},
		{api.ErrBadTell, 400}, {api.ErrBadRetract, 400}, {api.ErrBadImport, 400}, {api.ErrBadPoints, 400},
		{api.ErrSpec, 400}, {api.ErrBadName, 400}, {errBadRequest, 400}, {api.ErrBadContext, 400},
		{api.ErrBadAsk, 400}, {api.ErrBadHeartbeat, 400},
		{store.ErrDiskFull, 507}, {context.Canceled, 499},
		{api.ErrOverloaded, 503}, {errTimedOut, 503}, {errors.New("database is locked (5) (SQLITE_BUSY)"), 503},
		{api.ErrReplay, 500}, {store.ErrDamaged, 500}, {errors.New("anything else"), 500},
		// An import past the horizon is a conflict, not bad input (the
		// rank the server always gave them).
		{fmt.Errorf("%w: %w", api.ErrBadImport, api.ErrHorizon), 409},
		{fmt.Errorf("%w: %w", api.ErrBadTell, api.ErrUnknownAsk), 404},
	} {
		wrapped := fmt.Errorf("study %q: %w", "s", c.err)
		if got := status(wrapped); got != c.want {
			t.Errorf("%v: %d, want %d", c.err, got, c.want)
		}
	}
}
