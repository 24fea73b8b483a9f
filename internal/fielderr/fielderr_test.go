package fielderr_test

import (
	"errors"
	"io/fs"
	"testing"

	"github.com/safegp/safegp/internal/fielderr"
)

var (
	errShared = errors.New("shared check")
	errCaller = errors.New("caller's kind")
)

// TestUnderRecast: a field error moves under its caller's key with the
// right separator, and Recast makes it the caller's kind without losing
// the kind it had or, for a plain error, what that error wraps.
func TestUnderRecast(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name     string
		err      error
		recast   bool
		want     string
		wantKind []error
	}{
		{"key", fielderr.New(errShared, "lengthscale", "must be > 0"), false, "model.objective.lengthscale: must be > 0", []error{errShared}},
		{"index", fielderr.New(errShared, "[2]", "given twice"), false, "model.objective[2]: given twice", []error{errShared}},
		{"no path", fielderr.New(errShared, "", "empty"), false, "model.objective: empty", []error{errShared}},
		{"plain", fs.ErrNotExist, false, "model.objective: file does not exist", []error{fs.ErrNotExist}},
		{"recast key", fielderr.New(errShared, "bounds[0]", "want lo < hi"), true, "model.objective.bounds[0]: want lo < hi", []error{errShared, errCaller}},
		{"recast plain", fs.ErrNotExist, true, "model.objective: file does not exist", []error{fs.ErrNotExist, errCaller}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var err error
			if c.recast {
				err = fielderr.Recast(errCaller, "model.objective", c.err)
			} else {
				err = fielderr.Under("model.objective", c.err)
			}
			if err.Error() != c.want {
				t.Errorf("got %q, want %q", err, c.want)
			}
			for _, k := range c.wantKind {
				if !errors.Is(err, k) {
					t.Errorf("%v does not unwrap to %v", err, k)
				}
			}
			if !c.recast && errors.Is(err, errCaller) {
				t.Errorf("Under made %v the caller's kind", err)
			}
		})
	}
	if err := fielderr.Recast(errCaller, "x", nil); err != nil {
		t.Errorf("Recast of nil: %v", err)
	}
}
