package space

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/safegp/safegp/internal/argmax"
	"github.com/safegp/safegp/internal/fielderr"
	"github.com/safegp/safegp/internal/number"
	"github.com/safegp/safegp/internal/quote"
)

// ErrInvalid marks parameters, outcomes or settings that cannot be used.
var ErrInvalid = errors.New("invalid parameters")

// Parameter types and scales.
const (
	Float  = "float"
	Int    = "int"
	Choice = "choice"
	Linear = "linear"
	Log    = "log"
)

// Param is one named parameter of the system tuned, in the user's units:
// a float or an int in [Low, High] (on a linear or a log scale), or a
// choice among Values.
type Param struct {
	Name   string   `yaml:"name" json:"name"`
	Type   string   `yaml:"type,omitempty" json:"type,omitempty"` // float (the default), int or choice
	Low    *float64 `yaml:"low,omitempty" json:"low,omitempty"`
	High   *float64 `yaml:"high,omitempty" json:"high,omitempty"`
	Scale  string   `yaml:"scale,omitempty" json:"scale,omitempty"` // linear (the default) or log
	Values []string `yaml:"values,omitempty" json:"values,omitempty"`
	// Step, if given, makes a linear float or int take only the values
	// low + k·step up to high, which it must reach (Optuna's
	// FloatDistribution and IntDistribution with step): an ordinal
	// parameter, searched as an int is.
	Step *float64 `yaml:"step,omitempty" json:"step,omitempty"`
	// Unit names the parameter's unit, for the dashboard and figures.
	Unit string `yaml:"unit,omitempty" json:"unit,omitempty"`
}

// kind is Type with its default.
func (p *Param) kind() string {
	if p.Type == "" {
		return Float
	}
	return p.Type
}

// log reports whether p is on a log scale.
func (p *Param) log() bool { return p.Scale == Log }

// ordinal reports whether p takes values on a grid: an int, or a float
// with a step.
func (p *Param) ordinal() bool { return p.kind() == Int || p.Step != nil }

// step is an ordinal parameter's spacing: its step, or 1 for an int.
func (p *Param) step() float64 {
	if p.Step != nil {
		return *p.Step
	}
	return 1
}

// count is an ordinal parameter's number of values.
func (p *Param) count() float64 {
	return math.Floor((*p.High-*p.Low)/p.step()+1e-9) + 1
}

// value is an ordinal parameter's k-th value, low + k·step: for a float,
// the shortest decimal within a few ulps, as raw gives it.
func (p *Param) value(k float64) float64 {
	if p.Step == nil {
		return *p.Low + k
	}
	return p.decimal(min(*p.Low+k**p.Step, *p.High))
}

// decimal is v, or the shorter decimal within 8 ulps of it (0.3, not
// 0.30000000000000004), kept within the bounds.
func (p *Param) decimal(v float64) float64 {
	if r, err := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 14, 64), 64); err == nil && math.Abs(r-v) <= 8*ulp(v) {
		v = min(max(r, *p.Low), *p.High)
	}
	return v
}

// width is the number of unit-cube coordinates p takes: one, or one per
// value of a choice (one-hot).
func (p *Param) width() int {
	if p.kind() == Choice {
		return len(p.Values)
	}
	return 1
}

// Value is a parameter's value: a number (float and int parameters) or a
// string (a choice). In JSON and YAML it is that number or that string.
type Value struct {
	Num   float64
	Str   string
	IsStr bool
}

// Number and String make Values.
func Number(v float64) Value { return Value{Num: v} }
func String(s string) Value  { return Value{Str: s, IsStr: true} }

func (v Value) String() string {
	if v.IsStr {
		return v.Str
	}
	return strconv.FormatFloat(v.Num, 'g', -1, 64)
}

// MarshalJSON writes the number (an integral one without a fraction) or
// the string.
func (v Value) MarshalJSON() ([]byte, error) {
	if v.IsStr {
		return json.Marshal(v.Str)
	}
	if math.IsNaN(v.Num) || math.IsInf(v.Num, 0) {
		return nil, fmt.Errorf("value %v is not a finite number", v.Num)
	}
	return strconv.AppendFloat(nil, v.Num, 'g', -1, 64), nil
}

// UnmarshalJSON reads a JSON number or string; null and anything else
// are refused.
func (v *Value) UnmarshalJSON(b []byte) error {
	switch {
	case len(b) > 0 && b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*v = String(s)
		return nil
	case len(b) > 0 && (b[0] == '-' || b[0] >= '0' && b[0] <= '9'):
		f, err := strconv.ParseFloat(string(b), 64)
		if err != nil || math.IsInf(f, 0) {
			return fmt.Errorf("%s is outside the range of a float64", quote.Raw(b))
		}
		*v = Number(f)
		return nil
	}
	return fmt.Errorf("want a number or a string, got %s", quote.Raw(b))
}

// UnmarshalYAML reads a scalar: a number, or a string.
func (v *Value) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("line %d: want a number or a string", n.Line)
	}
	switch n.Tag {
	case "!!int", "!!float":
		var f float64
		if err := n.Decode(&f); err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return fmt.Errorf("line %d: %s is not a finite number", n.Line, quote.Short(n.Value))
		}
		*v = Number(f)
	case "!!str":
		*v = String(n.Value)
	default:
		return fmt.Errorf("line %d: want a number or a string, got %s", n.Line, quote.Short(n.Value))
	}
	return nil
}

// Setting is a value for each parameter, by name: what a study asks the
// user to try, or a measurement was made at.
type Setting map[string]Value

// Compiled on first use: names are identifiers, safe as CSV columns and
// in URLs.
var validName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.]{0,63}$`) })

// CheckName accepts a parameter's or an outcome's name: 1–64 letters,
// digits, '_' and '.', not starting with a digit or a '.'.
func CheckName(name string) error {
	if !validName().MatchString(name) {
		return fmt.Errorf("%w: name %s: want 1–64 letters, digits, '_' and '.', starting with a letter or '_'", ErrInvalid, quote.Short(name))
	}
	return nil
}

// Space is the parameters of a study, mapped to the unit cube [0, 1]^d:
// a float or an int by (v − low)/(high − low), on a log scale by
// (ln v − ln low)/(ln high − ln low); a choice of k values by a one-hot
// vector of k coordinates. The policies see the cube only.
type Space struct {
	params []Param
	off    []int // the first coordinate of each parameter
	dim    int
}

// MaxNames is the most parameters a space takes, and the most outcomes
// (the objective and the constraints) a study states (docs/limits.md).
const MaxNames = 64

// New checks the parameters and makes their space. Errors wrap ErrInvalid
// and name the parameter's key (parameters[1].high).
func New(params []Param) (*Space, error) {
	if len(params) == 0 {
		return nil, fielderr.New(ErrInvalid, "parameters", "give at least one parameter")
	}
	if len(params) > MaxNames {
		return nil, fielderr.New(ErrInvalid, "parameters", "%d parameters, more than %d (docs/limits.md)", len(params), MaxNames)
	}
	s := &Space{params: slices.Clone(params)}
	seen := map[string]bool{}
	for i := range s.params {
		p := &s.params[i]
		key := fmt.Sprintf("parameters[%d]", i)
		if err := checkParam(p); err != nil {
			return nil, fielderr.Under(key, err)
		}
		if seen[p.Name] {
			return nil, fielderr.New(ErrInvalid, key+".name", "%s is given twice", p.Name)
		}
		seen[p.Name] = true
		s.off = append(s.off, s.dim)
		s.dim += p.width()
	}
	return s, nil
}

func checkParam(p *Param) error {
	if err := CheckName(p.Name); err != nil {
		return fielderr.Recast(ErrInvalid, "name", err)
	}
	if p.Scale != "" && p.Scale != Linear && p.Scale != Log {
		return bad("scale", "want linear or log, got %s", quote.Short(p.Scale))
	}
	switch p.kind() {
	case Float, Int:
		return checkRange(p)
	case Choice:
		return checkChoice(p)
	default:
		return bad("type", "want float, int or choice, got %s", quote.Short(p.Type))
	}
}

// bad is an ErrInvalid error at key (fielderr.New).
func bad(key, format string, args ...any) error {
	return fielderr.New(ErrInvalid, key, format, args...)
}

// checkRange checks a float or int parameter: finite low < high (> 0 on
// a log scale), integers for an int with at most 2^30 values.
func checkRange(p *Param) error {
	if p.Values != nil {
		return bad("values", "only for type: choice")
	}
	if p.Low == nil || p.High == nil {
		return bad("low", "a %s parameter takes low and high", p.kind())
	}
	lo, hi := *p.Low, *p.High
	switch {
	case !finite(lo) || !finite(hi) || !(lo < hi):
		return bad("high", "want finite low < high within ±1e100, got %v and %v", lo, hi)
	case p.log() && !(lo > 0):
		return bad("low", "scale: log needs low > 0, got %v", lo)
	case p.kind() == Int && (lo != math.Trunc(lo) || hi != math.Trunc(hi)):
		return bad("low", "an int parameter's low and high are integers, got %v and %v", lo, hi)
	case p.kind() == Int && hi-lo > 1<<30:
		return bad("high", "at most 2^30 values, got %v", hi-lo+1)
	}
	return checkStep(p)
}

// checkStep checks a float's or an int's step, if it has one: a number
// > 0 on a linear scale, an integer for an int, at most 2^30 values, and
// high on the grid.
func checkStep(p *Param) error {
	if p.Step == nil {
		return nil
	}
	lo, hi, st := *p.Low, *p.High, *p.Step
	n := (hi - lo) / st
	switch {
	case !(st > 0) || !finite(st):
		return bad("step", "want a number > 0, got %v", st)
	case p.log():
		return bad("step", "not with scale: log (as Optuna: a step is on the linear scale)")
	case p.kind() == Int && st != math.Trunc(st):
		return bad("step", "an int's step is an integer, got %v", st)
	case n > 1<<30:
		return bad("step", "at most 2^30 values, got %.0f", n+1)
	case n < 1:
		return bad("step", "%v is larger than high − low = %v: give a smaller step", st, hi-lo)
	case math.Abs(n-math.Round(n)) > 1e-9*max(1, n):
		return bad("high", "%v is not low + k·step (low %v, step %v): make high %v", hi, lo, st, p.decimal(lo+math.Floor(n)*st))
	}
	return nil
}

// checkChoice checks a choice: 2…64 values, distinct, not empty, and no
// two that read as the same number.
func checkChoice(p *Param) error {
	if p.Low != nil || p.High != nil || p.Scale != "" || p.Step != nil {
		return bad("low", "a choice takes values, not low, high, scale or step")
	}
	if len(p.Values) < 2 {
		return bad("values", "a choice takes at least 2 values, got %d", len(p.Values))
	}
	if len(p.Values) > 64 {
		return bad("values", "at most 64 values, got %d", len(p.Values))
	}
	seen := map[string]bool{}
	nums := map[float64]string{} // a number names the first value that reads as it (choiceIndex)
	for k, v := range p.Values {
		if v == "" || seen[v] {
			return bad(fmt.Sprintf("values[%d]", k), "values are distinct and not empty, got %s", quote.Short(v))
		}
		seen[v] = true
		if f, ok := choiceNumber(v); ok {
			if w, ok := nums[f]; ok {
				return bad(fmt.Sprintf("values[%d]", k), "want distinct values, got %s and %s, the same number", quote.Short(w), quote.Short(v))
			}
			nums[f] = v
		}
	}
	return nil
}

func finite(v float64) bool { return !math.IsNaN(v) && math.Abs(v) <= 1e100 }

// Dim is the dimension of the unit cube.
func (s *Space) Dim() int { return s.dim }

// Params are the parameters, in order.
func (s *Space) Params() []Param { return s.params }

// Numeric is the number of float and int parameters.
func (s *Space) Numeric() int {
	n := 0
	for i := range s.params {
		if s.params[i].kind() != Choice {
			n++
		}
	}
	return n
}

// Continuous reports whether every parameter is a float without a step.
func (s *Space) Continuous() bool {
	for i := range s.params {
		if s.params[i].kind() != Float || s.params[i].Step != nil {
			return false
		}
	}
	return true
}

// unit maps a float or int parameter's value v to [0, 1].
func (p *Param) unit(v float64) float64 {
	lo, hi := *p.Low, *p.High
	if p.log() {
		return (math.Log(v) - math.Log(lo)) / (math.Log(hi) - math.Log(lo))
	}
	return (v - lo) / (hi - lo)
}

// raw maps u in [0, 1] back to a float or int parameter's value: the
// bounds exactly at 0 and 1, an int rounded to the nearest integer.
func (p *Param) raw(u float64) float64 {
	lo, hi := *p.Low, *p.High
	var v float64
	switch {
	case u <= 0:
		v = lo
	case u >= 1:
		v = hi
	case p.log():
		v = math.Exp(math.Log(lo) + u*(math.Log(hi)-math.Log(lo)))
	default:
		v = lo + u*(hi-lo)
	}
	v = min(max(v, lo), hi)
	if p.Step != nil {
		return p.value(min(math.Round((v-lo)/p.step()), p.count()-1))
	}
	if p.kind() == Int {
		return math.Round(v)
	}
	// The round trip through the logarithm or the division leaves a few
	// ulps of error: a value within them of a shorter decimal (0.3, not
	// 0.30000000000000004, after Encode) is that decimal.
	return p.decimal(v)
}

// ulp is the spacing of float64s at v.
func ulp(v float64) float64 { return math.Nextafter(math.Abs(v), math.Inf(1)) - math.Abs(v) }

// Encode maps a setting to the unit cube. Every parameter must be given,
// of its type and within its bounds; a name the space has not is an
// error. Errors wrap ErrInvalid and name the parameter.
func (s *Space) Encode(set Setting) ([]float64, error) {
	for name := range set {
		if !slices.ContainsFunc(s.params, func(p Param) bool { return p.Name == name }) {
			return nil, fmt.Errorf("%w: %s is not a parameter of the study (its parameters: %v)", ErrInvalid, quote.Short(name), s.names())
		}
	}
	x := make([]float64, s.dim)
	for i := range s.params {
		p := &s.params[i]
		v, ok := set[p.Name]
		if !ok {
			return nil, fmt.Errorf("%w: %s is missing", ErrInvalid, p.Name)
		}
		switch p.kind() {
		case Choice:
			k := p.choiceIndex(v)
			if k < 0 {
				got := quote.Short(v.Str) // a number as written, a string quoted
				if !v.IsStr {
					got = v.String()
				}
				return nil, fmt.Errorf("%w: %s = %s: want one of %v", ErrInvalid, p.Name, got, p.Values)
			}
			x[s.off[i]+k] = 1
		default:
			if v.IsStr {
				return nil, fmt.Errorf("%w: %s = %s: want a number in [%v, %v]", ErrInvalid, p.Name, quote.Short(v.Str), *p.Low, *p.High)
			}
			if !finite(v.Num) || v.Num < *p.Low || v.Num > *p.High {
				return nil, fmt.Errorf("%w: %s = %v: want a number in [%v, %v]", ErrInvalid, p.Name, v.Num, *p.Low, *p.High)
			}
			if p.kind() == Int && v.Num != math.Trunc(v.Num) {
				return nil, fmt.Errorf("%w: %s = %v: want an integer", ErrInvalid, p.Name, v.Num)
			}
			if p.Step != nil {
				// On the grid, to a relative 1e-9 of the step; encoded as
				// the grid's value, the one Decode gives back.
				k := math.Round((v.Num - *p.Low) / p.step())
				if w := p.value(k); math.Abs(w-v.Num) > 1e-9*p.step() {
					return nil, fmt.Errorf("%w: %s = %v: want %v + k·%v (the nearest: %v)", ErrInvalid, p.Name, v.Num, *p.Low, p.step(), w)
				}
				x[s.off[i]] = p.unit(p.value(k))
				continue
			}
			x[s.off[i]] = p.unit(v.Num)
		}
	}
	return x, nil
}

// Coordinate is parameter i's first coordinate in the unit cube (a
// choice has one per value, from there on).
func (s *Space) Coordinate(i int) int { return s.off[i] }

// Relaxed maps u in [0, 1] to numeric parameter i's value in its units
// on its scale, an int not rounded: the continuous relaxation the GPs
// see, for plots along a parameter.
func (s *Space) Relaxed(i int, u float64) float64 {
	q := s.params[i]
	q.Type = Float
	return q.raw(u)
}

// Snap moves x, a point of the unit cube, onto the point of the setting
// Decode makes of it, in place: an int's coordinate onto its integer's, a
// choice's block one-hot on its largest coordinate (the first of equals).
// A float's coordinate is left as it is. It makes the space a
// bandit.Lattice: a policy on its box judges the points that will run.
func (s *Space) Snap(x []float64) {
	for i := range s.params {
		p := &s.params[i]
		o := s.off[i]
		switch {
		case p.kind() == Choice:
			k := p.chosen(x[o:])
			for j := range p.Values {
				x[o+j] = 0
			}
			x[o+k] = 1
		case p.ordinal():
			x[o] = p.unit(p.raw(x[o]))
		}
	}
}

// Steps is a step limit per coordinate (bandit's max_step) of step for
// a float, and at least one integer for an int (its widest gap between
// neighbouring integers, on its scale) and any value for a choice (1 on
// each of its coordinates): a limit under an int's spacing would hold it
// at its seed's value for good.
func (s *Space) Steps(step float64) []float64 {
	out := make([]float64, s.dim)
	for i := range s.params {
		p := &s.params[i]
		o := s.off[i]
		switch {
		case p.ordinal():
			// The widest gap is at the low end on a log scale, the same
			// everywhere on a linear one.
			out[o] = max(step, p.unit(p.value(min(1, p.count()-1)))-p.unit(*p.Low))
		case p.kind() == Float:
			out[o] = step
		case p.kind() == Choice:
			for j := range p.Values {
				out[o+j] = 1
			}
		}
	}
	return out
}

// Groups ties the cube's coordinates to a fit's lengthscales
// (fit.Options.Groups): every numeric parameter's to lengthscale 0, each
// choice's block to one of its own, so that the distance between a
// choice's values (√2 one-hot) does not set how far the numeric
// parameters correlate. Nil for a space without choices, or of choices
// only.
func (s *Space) Groups() []int {
	if s.Numeric() == 0 || s.Numeric() == len(s.params) {
		return nil
	}
	out := make([]int, s.dim)
	next := 1
	for i := range s.params {
		p := &s.params[i]
		if p.kind() != Choice {
			continue
		}
		for j := range p.Values {
			out[s.off[i]+j] = next
		}
		next++
	}
	return out
}

// Block is the coordinates of the choice that coordinate j belongs to,
// nil for an int's or a float's: the coordinates that move together.
func (s *Space) Block(j int) []int {
	for i := range s.params {
		p := &s.params[i]
		if o := s.off[i]; p.kind() == Choice && j >= o && j < o+len(p.Values) {
			block := make([]int, len(p.Values))
			for k := range block {
				block[k] = o + k
			}
			return block
		}
	}
	return nil
}

// chosen is the value of choice p whose coordinate is the largest in its
// block (the block's first len(p.Values) coordinates), the first of
// equals: the value Decode and Snap give.
func (p *Param) chosen(block []float64) int {
	return argmax.Func(len(p.Values), func(int) bool { return true }, func(j int) float64 { return block[j] })
}

// Decode maps a point of the unit cube to a setting: a number clamped to
// its bounds, an int rounded, a choice the value of its largest
// coordinate (the first of equals).
func (s *Space) Decode(x []float64) Setting {
	set := make(Setting, len(s.params))
	for i := range s.params {
		p := &s.params[i]
		o := s.off[i]
		if p.kind() == Choice {
			set[p.Name] = String(p.Values[p.chosen(x[o:])])
			continue
		}
		set[p.Name] = Number(p.raw(x[o]))
	}
	return set
}

func (s *Space) names() []string {
	out := make([]string, len(s.params))
	for i := range s.params {
		out[i] = s.params[i].Name
	}
	return out
}

// Canonical returns set with each choice's value as a string: a number
// names the choice written the same way (Encode), and a setting handed
// back — a seed asked, the best trial — gives a choice as its string.
// Other values are set's own; set itself is not changed.
func (s *Space) Canonical(set Setting) Setting {
	out := maps.Clone(set)
	for i := range s.params {
		p := &s.params[i]
		if v, ok := out[p.Name]; ok && p.kind() == Choice && !v.IsStr {
			if k := p.choiceIndex(v); k >= 0 {
				out[p.Name] = String(p.Values[k])
			} else {
				out[p.Name] = String(v.String())
			}
		}
	}
	return out
}

// Hints says what in the parameters and seeds will keep a study from
// exploring, one hint per parameter, naming it and what to change:
//
//   - a float or int on a linear scale too coarse for a safe walk from
//     the seeds: every seed's value v lies so near the low end that a
//     hundredth of the range exceeds v/2, while a log scale is possible
//     (low > 0). The unit cube's hundredth is the candidates' step on a
//     100 × 100 grid and a tenth of the smallest lengthscale a study
//     stated in parameters fits, so each step from such a seed changes
//     the parameter by half its value or more, and the model sees the
//     region where the system changes as one cell;
//   - an int whose neighbouring integers lie more than HintStep apart in
//     the cube from every seed's, or a choice with values no seed has: a
//     study vouches for steps of about 0.01–0.03 of the cube (0.13
//     lengthscales of at most 0.25, docs/limits.md), and a choice's
//     one-hot values lie √2 apart, so it stays at the seeds' values.
//
// docs/limits.md has the measurements.
func (s *Space) Hints(seeds []Setting) []string {
	var hints []string
	if len(seeds) == 0 {
		return nil
	}
	for i := range s.params {
		p := &s.params[i]
		if h := p.scaleHint(seeds); h != "" {
			hints = append(hints, h)
		} else if h := p.seedHint(seeds); h != "" {
			hints = append(hints, h)
		}
	}
	return hints
}

// HintStep is the distance in the unit cube between an int's
// neighbouring integers above which Hints says the study will rarely
// try another than the seeds': the 0.03 a study vouches for at most
// (docs/limits.md). It was 0.05: an int of 30 values, 0.034 apart,
// stayed at its seed's value for all 50 trials of a new user's study,
// and nothing said so (issue 26's review).
const HintStep = 0.03

// scaleHint is Hints's hint on p's linear scale, "" for none.
func (p *Param) scaleHint(seeds []Setting) string {
	if p.kind() == Choice || p.log() || *p.Low <= 0 {
		return ""
	}
	lo, hi := *p.Low, *p.High
	step := (hi - lo) / 100
	most := math.Inf(-1) // the largest seed value
	for _, set := range seeds {
		most = max(most, set[p.Name].Num)
	}
	if step <= most/2 {
		return ""
	}
	return fmt.Sprintf("%s runs from %v to %v on a linear scale, and its seeds (the largest %v) lie in the first %.2g %% of that range: a hundredth of the range, %.3g, is %.0f %% of the seed, too coarse a step for a safe walk from it; give %s scale: log, so that steps are ratios (docs/limits.md)",
		p.Name, lo, hi, most, 100*(most-lo)/(hi-lo), step, 100*step/most, p.Name)
}

// choiceIndex is the index of choice p's value v, -1 for none: the value
// written as v is, else, for a number, the first value that reads as the
// same number — the CLI's --param gear=2.50 cannot tell a number from a
// string, and YAML reads a seed's gear: 2.50 as the number 2.5 while the
// values list keeps the text 2.50.
func (p *Param) choiceIndex(v Value) int {
	if k := slices.Index(p.Values, v.String()); k >= 0 || v.IsStr {
		return k
	}
	return slices.IndexFunc(p.Values, func(c string) bool {
		f, ok := choiceNumber(c)
		return ok && f == v.Num
	})
}

// choiceNumber reads a choice's value as a number, if it is written as
// one (number.Parse: decimal notation, the project's one reading of
// numbers written as text).
func choiceNumber(c string) (float64, bool) {
	f, err := number.Parse(strings.TrimSpace(c))
	return f, err == nil
}

// seedHint is Hints's hint on an int's or a choice's values the study
// will rarely try, "" for none.
func (p *Param) seedHint(seeds []Setting) string {
	var seeded []string // the seeds' values, in order, once each
	add := func(v string) {
		if !slices.Contains(seeded, v) {
			seeded = append(seeded, v)
		}
	}
	switch p.kind() {
	case Choice:
		for _, set := range seeds {
			if k := p.choiceIndex(set[p.Name]); k >= 0 {
				add(p.Values[k])
			}
		}
		if len(seeded) >= len(p.Values) {
			return ""
		}
		var missing []string
		for _, v := range p.Values {
			if !slices.Contains(seeded, v) {
				missing = append(missing, v)
			}
		}
		return fmt.Sprintf("%s is a choice: a study tries only its seeds' %s (%s) until the model vouches for another value, and the values lie as far apart as the cube allows; give a seed with each %s you want tried (%s) (docs/limits.md)",
			p.Name, p.Name, strings.Join(seeded, ", "), p.Name, strings.Join(missing, ", "))
	case Int, Float:
		if !p.ordinal() {
			return ""
		}
		lo, hi := *p.Low, *p.High
		near := math.Inf(1) // the closest neighbouring value of a seed, in the cube
		for _, set := range seeds {
			v := set[p.Name].Num
			add(strconv.FormatFloat(v, 'g', -1, 64))
			for _, w := range []float64{v - p.step(), v + p.step()} {
				if w >= lo && w <= hi {
					near = min(near, math.Abs(p.unit(w)-p.unit(v)))
				}
			}
		}
		// A relative tolerance: gaps of exactly HintStep (an int of
		// 1/HintStep + 1 values), which the subtraction of units may round
		// above it, are not more than it.
		if len(seeded) >= int(p.count()) || near <= HintStep*(1+1e-9) {
			return ""
		}
		what, instead := "integers", "make it a float"
		if p.Step != nil {
			what, instead = "steps", "give it a smaller step"
		}
		return fmt.Sprintf("%s's %s lie %.3g of its scale apart next to its seeds' (%s), and a study vouches for steps of about 0.01–0.03: it will rarely try another %s; give a seed at each %s you want tried, or %s (docs/limits.md)",
			p.Name, what, near, strings.Join(seeded, ", "), p.Name, p.Name, instead)
	}
	return ""
}

// Embed writes into dst (appended, from its length) the point x of the
// unit cube as coordinates whose ℓ1 distances are a per-parameter
// Lipschitz bound in raw units: w[name]·(its raw value), over scale, for
// each number (an int's integer, a log-scale float's value itself), and
// for a choice w[name]/2 over scale at its value's coordinate (so two
// settings that differ in the choice lie w[name] apart). A parameter
// missing from w counts 0. LoSBO's safety bound in a study stated in
// parameters is the ℓ1 distance of two embeddings (bandit.LoSBOBounds).
func (s *Space) Embed(x []float64, w map[string]float64, scale float64, dst []float64) []float64 {
	for i := range s.params {
		p := &s.params[i]
		o, l := s.off[i], w[p.Name]/scale
		if p.kind() == Choice {
			k := p.chosen(x[o:])
			for v := range p.Values {
				c := 0.0
				if v == k {
					c = l / 2
				}
				dst = append(dst, c)
			}
			continue
		}
		dst = append(dst, l*p.raw(x[o]))
	}
	return dst
}
