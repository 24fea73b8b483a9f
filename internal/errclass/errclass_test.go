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
	a, b := New(Conflict, "ask already told"), New(Conflict, "study exists already")
	err := fmt.Errorf("%w: ask 3 of study %q", a, "s")
	if err.Error() != `ask already told: ask 3 of study "s"` {
		t.Errorf("message %q", err)
	}
	if !errors.Is(err, Conflict) || !errors.Is(err, a) {
		t.Error("a wrapped sentinel is not of its class, or not itself")
	}
	for _, c := range []error{Invalid, NotFound, Unavailable, TooLarge} {
		if errors.Is(err, c) {
			t.Errorf("a conflict is also %v", c)
		}
	}
	if errors.Is(err, b) {
		t.Error("two sentinels of one class are not told apart")
	}
}
