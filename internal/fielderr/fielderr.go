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
// becomes "model.objective.kernel"); other errors get "prefix: " before
// their text.
func Under(prefix string, err error) error {
	var fe *Error
	if errors.As(err, &fe) {
		p := prefix
		if fe.Path != "" {
			p += "." + fe.Path
		}
		return &Error{Path: p, Msg: fe.Msg, Kind: fe.Kind}
	}
	return fmt.Errorf("%s: %w", prefix, err)
}
