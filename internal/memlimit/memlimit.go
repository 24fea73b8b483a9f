package memlimit

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/safegp/safegp/internal/number"
	"github.com/safegp/safegp/internal/quote"
)

// ErrTooLarge marks a request whose memory estimate is above the limit.
var ErrTooLarge = errors.New("memory estimate above the limit")

// Default is the limit when none is given: 8 GiB, a third of the project's
// standard machine, so that a refused request leaves room for the rest.
const Default int64 = 8 << 30

// units are the suffixes Parse accepts, longest first.
var units = []struct {
	suffix string
	mult   float64
}{
	{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40},
	{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12},
	{"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"T", 1 << 40},
	{"B", 1},
}

// Parse reads a size such as "8GiB", "512MiB", "1.5GB" or "1000000" (bytes).
func Parse(s string) (int64, error) {
	t := strings.TrimSpace(s)
	mult := 1.0
	for _, u := range units {
		if v, ok := strings.CutSuffix(t, u.suffix); ok {
			t, mult = strings.TrimSpace(v), u.mult
			break
		}
	}
	v, err := number.Parse(t) // decimal only: not 0x10, 1_0 or Inf
	if err != nil || !(v > 0) || v*mult >= math.MaxInt64 {
		return 0, fmt.Errorf("memory size %s: want a positive size such as 8GiB, 512MiB or a number of bytes", quote.Short(s))
	}
	return int64(v * mult), nil
}

// Format renders a byte count for people: "7.5 GiB", "12 MiB", "300 B".
func Format(b int64) string {
	switch {
	case b >= 1<<40:
		return trim(float64(b)/(1<<40)) + " TiB"
	case b >= 1<<30:
		return trim(float64(b)/(1<<30)) + " GiB"
	case b >= 1<<20:
		return trim(float64(b)/(1<<20)) + " MiB"
	case b >= 1<<10:
		return trim(float64(b)/(1<<10)) + " KiB"
	}
	return strconv.FormatInt(b, 10) + " B"
}

// trim renders v ≥ 1 with about three significant digits, no trailing
// zeros.
func trim(v float64) string {
	digits := 2
	switch {
	case v >= 100:
		digits = 0
	case v >= 10:
		digits = 1
	}
	t := strconv.FormatFloat(v, 'f', digits, 64)
	if strings.Contains(t, ".") {
		t = strings.TrimRight(strings.TrimRight(t, "0"), ".")
	}
	return t
}

// Check returns an ErrTooLarge error when need exceeds limit (limit ≤ 0
// means no limit). what names the inputs that set the size, so that the
// user knows which keys to change.
func Check(need, limit int64, what string) error {
	if limit <= 0 || need <= limit {
		return nil
	}
	return fmt.Errorf("%w: %s needs about %s, more than the limit of %s; make it smaller, or raise the limit with --max-memory", ErrTooLarge, what, Format(need), Format(limit))
}

// Mul multiplies sizes, saturating at math.MaxInt64 instead of wrapping,
// so that an absurd input gives an absurd estimate, never a small one.
func Mul(a ...int64) int64 {
	p := int64(1)
	for _, v := range a {
		if v <= 0 {
			return 0
		}
		if p > math.MaxInt64/v {
			return math.MaxInt64
		}
		p *= v
	}
	return p
}

// Add adds sizes, saturating at math.MaxInt64.
func Add(a ...int64) int64 {
	s := int64(0)
	for _, v := range a {
		if v > math.MaxInt64-s {
			return math.MaxInt64
		}
		s += v
	}
	return s
}

// Flag is a memory limit as a command-line flag (flag.Value).
type Flag struct{ Bytes int64 }

// String implements flag.Value.
func (f *Flag) String() string {
	if f == nil || f.Bytes == 0 {
		return Format(Default)
	}
	return Format(f.Bytes)
}

// Limit is the limit the flag sets: Default when it was not given.
func (f *Flag) Limit() int64 {
	if f.Bytes == 0 {
		return Default
	}
	return f.Bytes
}

// Set implements flag.Value.
func (f *Flag) Set(s string) error {
	v, err := Parse(s)
	if err != nil {
		return err
	}
	f.Bytes = v
	return nil
}
