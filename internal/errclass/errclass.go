package errclass

import "errors"

// The classes. A sentinel made by New wraps one: errors.Is(err, ErrConflict)
// holds for every error that wraps a conflict's sentinel.
var (
	// ErrInvalid: the input is wrong; sent again unchanged, it fails again.
	ErrInvalid = errors.New("invalid")
	// ErrConflict: the input is valid but the state refuses it (a name
	// taken, an ask told already, a study at its horizon, another
	// process's write in between).
	ErrConflict = errors.New("conflict")
	// ErrNotFound: what the input names does not exist.
	ErrNotFound = errors.New("not found")
	// ErrUnavailable: nothing was done, and the same request may succeed
	// later (a busy database, a full memory budget, a deadline).
	ErrUnavailable = errors.New("unavailable")
	// ErrTooLarge: the request is more than one call takes.
	ErrTooLarge = errors.New("too large")
)

// New returns a sentinel error saying msg, of class c.
func New(c error, msg string) error { return &sentinel{msg: msg, class: c} }

// sentinel is an error of a class; its message is its own.
type sentinel struct {
	msg   string
	class error
}

func (e *sentinel) Error() string { return e.msg }
func (e *sentinel) Unwrap() error { return e.class }
