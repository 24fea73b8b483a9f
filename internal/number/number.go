package number

import (
	"errors"
	"math"
	"strconv"
	"strings"

	"github.com/safegp/safegp/internal/quote"
)

var (
	// ErrSyntax: the text is not a decimal number.
	ErrSyntax = errors.New("not a decimal number")
	// ErrRange: the number is beyond float64's range, or an integer
	// beyond those a float64 holds exactly.
	ErrRange = errors.New("number out of range")
	// ErrNotInteger: an integer is wanted, and the value has a fraction.
	ErrNotInteger = errors.New("not an integer")
)

// Error is a value that is not the number wanted. Its message quotes a
// short prefix of the value; Reason is the message without it, for
// callers that name the value themselves (a flag's "invalid value").
type Error struct {
	Err    error  // ErrSyntax or ErrRange
	Value  string // the text given
	reason string // what is wrong, and how to write the number
}

func (e *Error) Error() string { return quote.Short(e.Value) + " is " + e.reason }

// Reason is the message without the value: "not a decimal number (write
// it as …)".
func (e *Error) Reason() string { return e.reason }

func (e *Error) Unwrap() error { return e.Err }

// Decimal reports whether s is written in decimal notation:
//
//	[+-]? (digits [. digits?]? | . digits) ([eE] [+-]? digits)?
//
// with ASCII digits and nothing around it (no spaces).
func Decimal(s string) bool {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	lead := digits(s, i)
	i += lead
	frac := 0
	if i < len(s) && s[i] == '.' {
		i++
		frac = digits(s, i)
		i += frac
	}
	if lead == 0 && frac == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		exp := digits(s, i)
		if exp == 0 {
			return false
		}
		i += exp
	}
	return i == len(s)
}

// digits counts the ASCII digits of s from i on.
func digits(s string, i int) int {
	n := 0
	for i+n < len(s) && '0' <= s[i+n] && s[i+n] <= '9' {
		n++
	}
	return n
}

// Parse parses s, which must be Decimal, as the nearest float64. Errors
// are *Error, wrapping ErrSyntax or ErrRange.
func Parse(s string) (float64, error) {
	if !Decimal(s) {
		if nonFinite(s) {
			return 0, &Error{ErrSyntax, s, "not a finite number: NaN and Inf are refused, give the value measured"}
		}
		return 0, &Error{ErrSyntax, s, "not a decimal number (write it as -1.5, 0.25 or 1e-3: digits with an optional sign, decimal point and exponent)"}
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(v, 0) {
		return 0, &Error{ErrRange, s, "beyond the range of a float64 (±1.8e308)"}
	}
	return v, nil
}

// ParseInt parses s as an integer: Decimal, with an integral value (2,
// 2.0 and 2e0 are 2; 2.5 is refused, never truncated), as JSON has one
// kind of number and many encoders write every number as a float. Beyond
// 2⁵³ a float64 no longer holds every integer, so such values are written
// as plain digits (parsed exactly) or refused.
func ParseInt(s string) (int, error) {
	if !Decimal(s) {
		return 0, &Error{ErrSyntax, s, "not an integer (write it as digits, such as 12)"}
	}
	if plain(s) {
		v, err := strconv.Atoi(s)
		if err != nil {
			return 0, &Error{ErrRange, s, "beyond the range of an integer"}
		}
		return v, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	switch {
	case err != nil || math.IsInf(f, 0) || math.Abs(f) >= 1<<53:
		return 0, &Error{ErrRange, s, "beyond the range of an integer"}
	case f != math.Trunc(f):
		return 0, &Error{ErrNotInteger, s, "not an integer (it is never rounded)"}
	}
	return int(f), nil
}

// ParseUint64 parses s as an unsigned 64-bit integer written as plain
// digits (random seeds: every value of the range, exactly).
func ParseUint64(s string) (uint64, error) {
	if s == "" || s[0] == '+' || s[0] == '-' || !plain(s) {
		return 0, &Error{ErrSyntax, s, "not a non-negative integer (write it as digits, such as 12)"}
	}
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, &Error{ErrRange, s, "beyond 18446744073709551615"}
	}
	return v, nil
}

// plain reports whether s is an optional sign and digits only.
func plain(s string) bool {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	return i < len(s) && digits(s, i) == len(s)-i
}

// nonFinite reports whether s spells NaN or an infinity as strconv takes
// them (any case, with a sign): refused with a message of their own.
func nonFinite(s string) bool {
	s = strings.TrimLeft(s, "+-")
	return strings.EqualFold(s, "nan") || strings.EqualFold(s, "inf") || strings.EqualFold(s, "infinity")
}
