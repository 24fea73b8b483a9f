package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"

	"github.com/safegp/safegp/internal/number"
	"github.com/safegp/safegp/plot"
	"gonum.org/v1/plot/vg"
)

// Numeric flags parse their values with internal/number, the parser of
// CSV cells and tells: decimal notation only. The flag package's own
// (strconv) would take --f 1_0 as 10 and --f 0x1p-3 as 0.125 (issue 24,
// item 6).

// reason drops the value from a parse error: the flag package names it.
func reason(err error) error {
	var ne *number.Error
	if errors.As(err, &ne) {
		return errors.New(ne.Reason())
	}
	return err
}

type floatValue struct{ p *float64 }

func (v floatValue) Set(s string) (err error) { *v.p, err = number.Parse(s); return reason(err) }
func (v floatValue) String() string {
	if v.p == nil {
		return ""
	}
	return strconv.FormatFloat(*v.p, 'g', -1, 64)
}

type intValue struct{ p *int }

func (v intValue) Set(s string) (err error) { *v.p, err = number.ParseInt(s); return reason(err) }
func (v intValue) String() string {
	if v.p == nil {
		return ""
	}
	return strconv.Itoa(*v.p)
}

type uint64Value struct{ p *uint64 }

func (v uint64Value) Set(s string) (err error) { *v.p, err = number.ParseUint64(s); return reason(err) }
func (v uint64Value) String() string {
	if v.p == nil {
		return ""
	}
	return strconv.FormatUint(*v.p, 10)
}

// floatFlag is fs.Float64 with the decimal parser.
func floatFlag(fs *flag.FlagSet, name string, def float64, usage string) *float64 {
	p := new(float64)
	*p = def
	fs.Var(floatValue{p}, name, usage)
	return p
}

// intFlag is fs.Int with the decimal parser.
func intFlag(fs *flag.FlagSet, name string, def int, usage string) *int {
	p := new(int)
	*p = def
	fs.Var(intValue{p}, name, usage)
	return p
}

// uint64Flag is fs.Uint64 with the decimal parser.
func uint64Flag(fs *flag.FlagSet, name string, def uint64, usage string) *uint64 {
	p := new(uint64)
	*p = def
	fs.Var(uint64Value{p}, name, usage)
	return p
}

// figureWidthFlag defines --figure-width on fs; the returned function,
// called after parsing, checks it (a usage error, said on stderr, for a
// width out of range) and sets plot.Width until restore is called.
func figureWidthFlag(fs *flag.FlagSet) func(stderr io.Writer, cmd string) (restore func(), err error) {
	w := floatFlag(fs, "figure-width", 0, "every figure this `wide`, in inches (a paper's column: 3.5, its text: 7), panels wrapped into rows at least 2.4 in wide; 0: each panel 3.2 in wide")
	return func(stderr io.Writer, cmd string) (func(), error) {
		switch {
		case *w == 0:
			return func() {}, nil
		case !(*w >= float64(plot.MinPanelWidth/vg.Inch) && *w <= 40):
			fmt.Fprintf(stderr, "safegp %s: --figure-width: want 0 or %.1f…40 inches, got %v\n", cmd, float64(plot.MinPanelWidth/vg.Inch), *w)
			return nil, errUsage
		}
		prev := plot.Width
		plot.Width = vg.Length(*w) * vg.Inch
		return func() { plot.Width = prev }, nil
	}
}
