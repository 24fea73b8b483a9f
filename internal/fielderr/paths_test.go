package fielderr_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/safegp/safegp/internal/fielderr"
)

var errKind = errors.New("invalid thing")

func TestNewAndUnder(t *testing.T) {
	t.Parallel()
	base := fielderr.New(errKind, "lengthscale", "must be > 0, got %v", -1)
	cases := []struct {
		name string
		err  error
		want string
	}{
		{"new", base, "lengthscale: must be > 0, got -1"},
		{"no path", fielderr.New(errKind, "", "empty"), "empty"},
		{"under", fielderr.Under("model.objective", base), "model.objective.lengthscale: must be > 0, got -1"},
		{"under twice", fielderr.Under("a", fielderr.Under("b", base)), "a.b.lengthscale: must be > 0, got -1"},
		{"under a pathless field error", fielderr.Under("horizon", fielderr.New(errKind, "", "too large")), "horizon: too large"},
		{"under a wrapped field error", fielderr.Under("x", fmt.Errorf("context: %w", base)), "x.lengthscale: must be > 0, got -1"},
	}
	for _, c := range cases {
		if got := c.err.Error(); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
		if !errors.Is(c.err, errKind) {
			t.Errorf("%s: does not unwrap to the kind", c.name)
		}
		var fe *fielderr.Error
		if !errors.As(c.err, &fe) {
			t.Errorf("%s: not a *fielderr.Error", c.name)
		}
	}
	// Another error under a prefix keeps its text and its chain.
	other := errors.New("disk full")
	err := fielderr.Under("problem.file", other)
	if err.Error() != "problem.file: disk full" || !errors.Is(err, other) {
		t.Errorf("plain error under a prefix: %q", err)
	}
	var fe *fielderr.Error
	if errors.As(err, &fe) {
		t.Error("a plain error became a field error")
	}
	// The kind's own text stays out of the message.
	if e := fielderr.New(errKind, "k", "bad"); e.Error() != "k: bad" {
		t.Errorf("%q carries the kind's text", e)
	}
}
