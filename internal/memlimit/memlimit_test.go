package memlimit_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/safegp/safegp/internal/memlimit"
)

func TestParse(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		want int64
	}{
		{"8GiB", 8 << 30}, {"512MiB", 512 << 20}, {"1.5GB", 1_500_000_000}, {"1000", 1000},
		{" 2 GiB ", 2 << 30}, {"4G", 4 << 30}, {"100B", 100}, {"1TiB", 1 << 40},
	} {
		got, err := memlimit.Parse(c.in)
		if err != nil || got != c.want {
			t.Errorf("Parse(%q) = %d, %v; want %d", c.in, got, err, c.want)
		}
	}
	for _, in := range []string{"", "0", "-1GiB", "abc", "1e30", "NaN", "Inf", "GiB", "1.5XB"} {
		if v, err := memlimit.Parse(in); err == nil {
			t.Errorf("Parse(%q) = %d, want an error", in, v)
		}
	}
}

func TestFormat(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   int64
		want string
	}{
		{300, "300 B"}, {1 << 10, "1 KiB"}, {1536 << 20, "1.5 GiB"}, {8 << 40, "8 TiB"}, {123456789, "118 MiB"},
		{1000 << 30, "1000 GiB"}, {12345 << 20, "12.1 GiB"},
	} {
		if got := memlimit.Format(c.in); got != c.want {
			t.Errorf("Format(%d) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestCheck(t *testing.T) {
	t.Parallel()
	if err := memlimit.Check(10, 10, "x"); err != nil {
		t.Errorf("need = limit: %v", err)
	}
	if err := memlimit.Check(math.MaxInt64, 0, "x"); err != nil {
		t.Errorf("no limit: %v", err)
	}
	err := memlimit.Check(3<<30, 1<<30, "decision_set (N = 1000) and horizon (T = 9)")
	if !errors.Is(err, memlimit.ErrTooLarge) || !strings.Contains(err.Error(), "horizon (T = 9)") || !strings.Contains(err.Error(), "3 GiB") || !strings.Contains(err.Error(), "--max-memory") {
		t.Errorf("Check: %v", err)
	}
}

func TestSaturating(t *testing.T) {
	t.Parallel()
	if got := memlimit.Mul(1<<40, 1<<40); got != math.MaxInt64 {
		t.Errorf("Mul overflow = %d", got)
	}
	if got := memlimit.Mul(3, 4, 5); got != 60 {
		t.Errorf("Mul = %d", got)
	}
	if got := memlimit.Add(math.MaxInt64, 1); got != math.MaxInt64 {
		t.Errorf("Add overflow = %d", got)
	}
}

// TestFlag: unset, the flag is Default; set, it is what was parsed; a bad
// size is refused by Set and leaves the flag as it was. Mul of a
// non-positive size is 0, never a negative estimate.
func TestFlag(t *testing.T) {
	t.Parallel()
	var f memlimit.Flag
	if f.Limit() != memlimit.Default || f.String() != "8 GiB" {
		t.Errorf("unset: limit %d, %q", f.Limit(), f.String())
	}
	if err := f.Set("512MiB"); err != nil || f.Limit() != 512<<20 || f.String() != "512 MiB" {
		t.Errorf("512MiB: limit %d, %q, %v", f.Limit(), f.String(), err)
	}
	if err := f.Set("lots"); err == nil || f.Bytes != 512<<20 {
		t.Errorf("lots: %v, now %d", err, f.Bytes)
	}
	if got := memlimit.Mul(5, 0, 1<<40); got != 0 {
		t.Errorf("Mul with a zero = %d", got)
	}
	if got := memlimit.Mul(-3, 4); got != 0 {
		t.Errorf("Mul with a negative = %d", got)
	}
}

// TestParseDecimalOnly: the number of a size is decimal (issue 24,
// item 6), as everywhere else.
func TestParseDecimalOnly(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"0x10GiB", "1_0MiB", "InfGiB", "NaN"} {
		if _, err := memlimit.Parse(s); err == nil {
			t.Errorf("Parse(%q) took it", s)
		}
	}
	if v, err := memlimit.Parse("1.5GiB"); err != nil || v != 3<<29 {
		t.Errorf("Parse(1.5GiB) = %d, %v", v, err)
	}
}
