package number

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// TestParse: the decimal notation is taken, with strconv.ParseFloat's
// correctly rounded value; Go's other notations are refused (issue 24,
// item 6: --f 1_0 stored 10, --f 0x1p-3 0.125).
func TestParse(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		want float64
		err  error
	}{
		{"0", 0, nil},
		{"-0", math.Copysign(0, -1), nil},
		{"10", 10, nil},
		{"+10", 10, nil},
		{"-1.5", -1.5, nil},
		{".5", 0.5, nil},
		{"5.", 5, nil},
		{"1e-3", 1e-3, nil},
		{"1.5E+03", 1500, nil},
		{"007", 7, nil},
		{"0.1", 0.1, nil},
		{"1e308", 1e308, nil},
		{"4.9e-324", 5e-324, nil},
		{"1e-400", 0, nil}, // underflows to 0, as JSON decoders do
		{"1e309", 0, ErrRange},
		{"-1e309", 0, ErrRange},
		{"1_0", 0, ErrSyntax},
		{"1_0e-1", 0, ErrSyntax},
		{"0x1p-3", 0, ErrSyntax},
		{"0x10", 0, ErrSyntax},
		{"0b1", 0, ErrSyntax},
		{"0o7", 0, ErrSyntax},
		{"Inf", 0, ErrSyntax},
		{"-inf", 0, ErrSyntax},
		{"NaN", 0, ErrSyntax},
		{"infinity", 0, ErrSyntax},
		{"", 0, ErrSyntax},
		{".", 0, ErrSyntax},
		{"-", 0, ErrSyntax},
		{"e5", 0, ErrSyntax},
		{"1e", 0, ErrSyntax},
		{"1e+", 0, ErrSyntax},
		{" 1", 0, ErrSyntax},
		{"1 ", 0, ErrSyntax},
		{"1,5", 0, ErrSyntax},
		{"--1", 0, ErrSyntax},
		{"١", 0, ErrSyntax}, // a digit, but not an ASCII one
	} {
		got, err := Parse(c.in)
		if !errors.Is(err, c.err) || (err == nil && (got != c.want || math.Signbit(got) != math.Signbit(c.want))) {
			t.Errorf("Parse(%q) = %v, %v; want %v, %v", c.in, got, err, c.want, c.err)
		}
	}
	_, err := Parse(strings.Repeat("9", 1<<20) + "x")
	if err == nil || len(err.Error()) > 300 {
		t.Errorf("a 1 MiB bad value: error of %d bytes", len(err.Error()))
	}
}

func TestParseInt(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		want int
		err  error
	}{
		{"12", 12, nil},
		{"-3", -3, nil},
		{"2.0", 2, nil},
		{"1e1", 10, nil},
		{"9007199254740993", 9007199254740993, nil}, // plain digits: exact
		{"9.007199254740993e15", 0, ErrRange},
		{"2.5", 0, ErrNotInteger},
		{"99999999999999999999", 0, ErrRange},
		{"1_0", 0, ErrSyntax},
		{"0x10", 0, ErrSyntax},
		{"", 0, ErrSyntax},
	} {
		got, err := ParseInt(c.in)
		if !errors.Is(err, c.err) || got != c.want {
			t.Errorf("ParseInt(%q) = %v, %v; want %v, %v", c.in, got, err, c.want, c.err)
		}
	}
	for _, c := range []struct {
		in   string
		want uint64
		err  error
	}{
		{"0", 0, nil},
		{"18446744073709551615", math.MaxUint64, nil},
		{"18446744073709551616", 0, ErrRange},
		{"-1", 0, ErrSyntax},
		{"+1", 0, ErrSyntax},
		{"1e3", 0, ErrSyntax},
		{"0x1", 0, ErrSyntax},
	} {
		got, err := ParseUint64(c.in)
		if !errors.Is(err, c.err) || got != c.want {
			t.Errorf("ParseUint64(%q) = %v, %v; want %v, %v", c.in, got, err, c.want, c.err)
		}
	}
}

// FuzzDecimal: whatever Decimal accepts, strconv.ParseFloat parses (the
// grammar is a subset of Go's); whatever Parse returns is finite.
func FuzzDecimal(f *testing.F) {
	for _, s := range []string{"1", "-1.5e3", ".5", "1_0", "0x1p-3", "Inf"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := Parse(s)
		if Decimal(s) != (err == nil || errors.Is(err, ErrRange)) {
			t.Fatalf("%q: Decimal %v, Parse error %v", s, Decimal(s), err)
		}
		if err == nil && (math.IsInf(v, 0) || math.IsNaN(v)) {
			t.Fatalf("%q: %v", s, v)
		}
	})
}
