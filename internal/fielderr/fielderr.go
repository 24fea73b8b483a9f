package fielderr

import (
	"errors"
	"fmt"
)

// Error is a problem with one field. It unwraps to the package's sentinel
// error, so callers test it with errors.Is without the sentinel's text
// cluttering the message.
type Error struct {
	Path string
	Msg  string
	Kind error
}

func (e *Error) Error() string {
	if e.Path == "" {
		return e.Msg
	}
	return e.Path + ": " + e.Msg
}

func (e *Error) Unwrap() error { return e.Kind }

// New returns an *Error for field path.
func New(kind error, path, format string, args ...any) error {
	return &Error{Path: path, Msg: fmt.Sprintf(format, args...), Kind: kind}
}

// Under puts a field error under prefix ("kernel" under "model.objective"
// becomes "model.objective.kernel", "[2]" under "seed_actions"
// "seed_actions[2]"); other errors get "prefix: " before their text.
func Under(prefix string, err error) error {
	var fe *Error
	if errors.As(err, &fe) {
		return &Error{Path: Join(prefix, fe.Path), Msg: fe.Msg, Kind: fe.Kind}
	}
	return fmt.Errorf("%s: %w", prefix, err)
}

// Recast is Under for a check that several kinds of input share (a grid, a
// seed set, the model section): the error, put under prefix, unwraps to
// kind — the caller's sentinel — as well as to what it wrapped before. An
// error that names no field becomes one naming prefix. Recast of a nil
// error is nil, so that a check's result can be passed straight in.
func Recast(kind error, prefix string, err error) error {
	if err == nil {
		return nil
	}
	var fe *Error
	if errors.As(err, &fe) {
		return &Error{Path: Join(prefix, fe.Path), Msg: fe.Msg, Kind: errors.Join(kind, fe.Kind)}
	}
	return &Error{Path: prefix, Msg: err.Error(), Kind: errors.Join(kind, err)}
}

// Join appends a key path ("lengthscale", "[2]", "bounds[0]") to prefix.
func Join(prefix, path string) string {
	switch {
	case prefix == "":
		return path
	case path == "":
		return prefix
	case path[0] == '[':
		return prefix + path
	}
	return prefix + "." + path
}
