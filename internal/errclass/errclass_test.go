package errclass

import (
	"errors"
	"fmt"
	"testing"
)

// TestClass: a sentinel says its own message and is of its class, also
// wrapped with context; it is of no other class, and two sentinels of one
// class are told apart.
func TestClass(t *testing.T) {
	t.Parallel()
	a, b := New(ErrConflict, "ask already told"), New(ErrConflict, "study exists already")
	err := fmt.Errorf("%w: ask 3 of study %q", a, "s")
	if err.Error() != `ask already told: ask 3 of study "s"` {
		t.Errorf("message %q", err)
	}
	if !errors.Is(err, ErrConflict) || !errors.Is(err, a) {
		t.Error("a wrapped sentinel is not of its class, or not itself")
	}
	for _, c := range []error{ErrInvalid, ErrNotFound, ErrUnavailable, ErrTooLarge} {
		if errors.Is(err, c) {
			t.Errorf("a conflict is also %v", c)
		}
	}
	if errors.Is(err, b) {
		t.Error("two sentinels of one class are not told apart")
	}
}
