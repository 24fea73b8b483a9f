package space

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

func f64(v float64) *float64 { return &v }

func testSpace(t *testing.T) *Space {
	t.Helper()
	s, err := New([]Param{
		{Name: "kp", Low: f64(0.05), High: f64(20), Scale: Log},
		{Name: "filter", Type: Int, Low: f64(1), High: f64(8)},
		{Name: "mode", Type: Choice, Values: []string{"pi", "pid"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestEncodeDecode: a setting maps into the unit cube — log scale through
// the logarithm, an int by its position, a choice one-hot — and back,
// the bounds exactly, an int rounded, a choice by its largest coordinate.
func TestEncodeDecode(t *testing.T) {
	t.Parallel()
	s := testSpace(t)
	if s.Dim() != 4 || s.Numeric() != 2 || s.Continuous() {
		t.Fatalf("dim %d, numeric %d, continuous %v", s.Dim(), s.Numeric(), s.Continuous())
	}
	x, err := s.Encode(Setting{"kp": Number(1), "filter": Number(8), "mode": String("pid")})
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{(math.Log(1) - math.Log(0.05)) / (math.Log(20) - math.Log(0.05)), 1, 0, 1}
	for j := range want {
		if math.Abs(x[j]-want[j]) > 1e-15 {
			t.Errorf("x[%d] = %v, want %v", j, x[j], want[j])
		}
	}
	got := s.Decode([]float64{0, 0.49, 0.3, 0.2})
	if got["kp"].Num != 0.05 || got["filter"].Num != 4 || got["mode"].Str != "pi" {
		t.Errorf("decode: %v", got)
	}
	if got := s.Decode([]float64{1, 1.2, 0, 0.9}); got["kp"].Num != 20 || got["filter"].Num != 8 || got["mode"].Str != "pid" {
		t.Errorf("decode at the top: %v", got)
	}
	back := s.Decode(x)
	if math.Abs(back["kp"].Num-1) > 1e-12 || back["filter"].Num != 8 || back["mode"].Str != "pid" {
		t.Errorf("round trip: %v", back)
	}
	for _, c := range []struct {
		set  Setting
		want string
	}{
		{Setting{"kp": Number(1), "filter": Number(8)}, "mode is missing"},
		{Setting{"kp": Number(30), "filter": Number(8), "mode": String("pi")}, "kp = 30"},
		{Setting{"kp": Number(1), "filter": Number(2.5), "mode": String("pi")}, "want an integer"},
		{Setting{"kp": Number(1), "filter": Number(2), "mode": String("p")}, "want one of [pi pid]"},
		{Setting{"kp": String("x"), "filter": Number(2), "mode": String("pi")}, "want a number"},
		{Setting{"kp": Number(1), "filter": Number(2), "mode": String("pi"), "ki": Number(1)}, `"ki" is not a parameter`},
	} {
		if _, err := s.Encode(c.set); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.set, err, c.want)
		}
	}
}

// TestChoiceNumbers: a number names the choice written as it, else the
// value that reads as the same number — YAML reads a seed's gear: 2.50
// as 2.5, the CLI's --param gear=2.50 too, while the values list keeps
// the text 2.50 — and a setting handed back (Canonical) gives the
// choice's own text. A string names only the value written so.
func TestChoiceNumbers(t *testing.T) {
	t.Parallel()
	s, err := New([]Param{{Name: "gear", Type: Choice, Values: []string{"1.25", "2.50", "3", "low"}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		v    Value
		want string // the choice named, "" for none
	}{
		{Number(2.5), "2.50"},
		{String("2.50"), "2.50"},
		{String("2.5"), ""},
		{Number(1.25), "1.25"},
		{Number(3), "3"},
		{String("3"), "3"},
		{Number(3.0000001), ""},
		{String("low"), "low"},
		{Number(0), ""},
		{String("0"), ""},
	} {
		x, err := s.Encode(Setting{"gear": c.v})
		if c.want == "" {
			// A number as written, a string quoted: which was sent.
			want := fmt.Sprintf("gear = %q: want one of [1.25 2.50 3 low]", c.v.Str)
			if !c.v.IsStr {
				want = fmt.Sprintf("gear = %v: want one of [1.25 2.50 3 low]", c.v.Num)
			}
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), want) {
				t.Errorf("%v: %v, want it refused: %s", c.v, err, want)
			}
			continue
		}
		if err != nil {
			t.Errorf("%v: %v, want %s", c.v, err, c.want)
			continue
		}
		if got := s.Decode(x)["gear"]; got != String(c.want) {
			t.Errorf("%v: encoded as %s, want %s", c.v, got, c.want)
		}
		if got := s.Canonical(Setting{"gear": c.v})["gear"]; got != String(c.want) {
			t.Errorf("%v: canonical %v, want %s", c.v, got, c.want)
		}
	}
}

// TestNewRefuses: parameters that cannot be used are refused, naming the
// key.
func TestNewRefuses(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		p    []Param
		want string
	}{
		{nil, "at least one parameter"},
		{manyParams(65), "65 parameters, more than 64"},
		{manyParams(3000), "3000 parameters, more than 64"},
		{[]Param{{Name: "1x", Low: f64(0), High: f64(1)}}, "parameters[0].name"},
		{[]Param{{Name: "a", Low: f64(1), High: f64(1)}}, "low < high"},
		{[]Param{{Name: "a", Low: f64(0), High: f64(1), Scale: Log}}, "low > 0"},
		{[]Param{{Name: "a", Type: Int, Low: f64(0.5), High: f64(3)}}, "integers"},
		{[]Param{{Name: "a", Type: Choice, Values: []string{"x"}}}, "at least 2 values"},
		{[]Param{{Name: "a", Type: Choice, Values: []string{"x", "x"}}}, "distinct"},
		{[]Param{{Name: "a", Type: Choice, Values: []string{"2.5", "x", "2.50"}}}, `values[2]: want distinct values, got "2.5" and "2.50", the same number`},
		{[]Param{{Name: "a", Type: "bool"}}, "float, int or choice"},
		{[]Param{{Name: "a", Low: f64(0), High: f64(1)}, {Name: "a", Low: f64(0), High: f64(1)}}, "given twice"},
		{[]Param{{Name: "a"}}, "takes low and high"},
		{[]Param{{Name: "a", Low: f64(1), High: f64(2), Scale: "cubic"}}, `scale: want linear or log, got "cubic"`},
		{[]Param{{Name: "a", Low: f64(1), High: f64(2), Values: []string{"x", "y"}}}, "values: only for type: choice"},
		{[]Param{{Name: "a", Type: Int, Low: f64(0), High: f64(1<<30 + 1)}}, "high: at most 2^30 values, got 1.073741826e+09"},
		{[]Param{{Name: "a", Type: Choice, Values: []string{"x", "y"}, Scale: Log}}, "low: a choice takes values, not low, high, scale or step"},
		{[]Param{{Name: "a", Type: Choice, Values: []string{"x", "y"}, High: f64(1)}}, "low: a choice takes values, not low, high, scale or step"},
		{[]Param{{Name: "a", Type: Choice, Values: manyValues(65)}}, "values: at most 64 values, got 65"},
	} {
		if _, err := New(c.p); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.p, err, c.want)
		}
	}
	// At the limits: 2^30 + 1 integers, 64 values.
	for _, p := range []Param{{Name: "a", Type: Int, Low: f64(0), High: f64(1 << 30)}, {Name: "a", Type: Choice, Values: manyValues(64)}} {
		if _, err := New([]Param{p}); err != nil {
			t.Errorf("%+v: %v", p, err)
		}
	}
	// Three choices of 64 values: 262144 candidates, more than
	// MaxCandidates, refused when the candidates are made.
	s, err := New([]Param{{Name: "a", Type: Choice, Values: manyValues(64)}, {Name: "b", Type: Choice, Values: manyValues(64)}, {Name: "c", Type: Choice, Values: manyValues(64)}})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Candidates(); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "make 262144 candidates, more than 100000") {
		t.Errorf("64³ choices: %v", err)
	}
}

// TestCandidates: the candidate set is the product of each parameter's
// values — an int's integers, a float's grid with its bounds exact, a
// choice's values — with exact settings, and each candidate is its
// setting's encoding.
func TestCandidates(t *testing.T) {
	t.Parallel()
	s := testSpace(t)
	xs, sets, err := s.Candidates()
	if err != nil {
		t.Fatal(err)
	}
	// 2 numeric parameters and 2 choices: 10 000/2 points for the
	// numeric axes; filter takes its 8 integers and leaves kp 5 000/8 =
	// 625 values.
	if len(xs) != 625*8*2 || len(sets) != len(xs) {
		t.Fatalf("%d candidates, want %d", len(xs), 625*8*2)
	}
	if sets[0]["kp"].Num != 0.05 || sets[len(sets)-1]["kp"].Num != 20 || sets[0]["mode"].Str != "pi" || sets[1]["mode"].Str != "pid" {
		t.Errorf("first and last: %v %v", sets[0], sets[len(sets)-1])
	}
	seen := map[string]bool{}
	for k, x := range xs {
		key := s.Key(sets[k])
		if seen[key] {
			t.Fatalf("candidate %d repeats a setting", k)
		}
		seen[key] = true
		if sets[k]["filter"].Num != math.Trunc(sets[k]["filter"].Num) {
			t.Fatalf("candidate %d: filter %v", k, sets[k]["filter"].Num)
		}
		e, err := s.Encode(sets[k])
		if err != nil {
			t.Fatal(err)
		}
		for j := range e {
			if math.Abs(e[j]-x[j]) > 1e-12 {
				t.Fatalf("candidate %d: %v, its setting encodes to %v", k, x, e)
			}
		}
	}
	// The grid's size: 201 values of one numeric parameter, 100 × 100 of
	// two, an int with fewer integers than its share taking them all.
	for _, c := range []struct {
		name string
		p    []Param
		want int
	}{
		{"one float", []Param{{Name: "a", Low: f64(-1), High: f64(1)}}, 201},
		{"two floats", []Param{{Name: "a", Low: f64(0), High: f64(1)}, {Name: "b", Low: f64(1), High: f64(2), Scale: Log}}, 100 * 100},
		{"float and wide int", []Param{{Name: "a", Low: f64(0), High: f64(1)}, {Name: "n", Type: Int, Low: f64(1), High: f64(1000)}}, 100 * 100},
		{"float and 3 integers", []Param{{Name: "a", Low: f64(0), High: f64(1)}, {Name: "n", Type: Int, Low: f64(1), High: f64(3)}}, 3333 * 3},
		{"two small ints", []Param{{Name: "m", Type: Int, Low: f64(1), High: f64(3)}, {Name: "n", Type: Int, Low: f64(1), High: f64(4)}}, 12},
		{"one int of 8", []Param{{Name: "n", Type: Int, Low: f64(1), High: f64(8)}}, 8},
		{"one int of 150", []Param{{Name: "n", Type: Int, Low: f64(1), High: f64(150)}}, 150},
		{"ints of 8 and 20", []Param{{Name: "m", Type: Int, Low: f64(1), High: f64(8)}, {Name: "n", Type: Int, Low: f64(1), High: f64(20)}}, 160},
		{"ints of 8 and 500", []Param{{Name: "m", Type: Int, Low: f64(1), High: f64(8)}, {Name: "n", Type: Int, Low: f64(1), High: f64(500)}}, 4000},
		{"float and 3 choices", []Param{{Name: "a", Low: f64(0), High: f64(1)}, {Name: "c", Type: Choice, Values: []string{"x", "y", "z"}}}, 67 * 3},
	} {
		if xs, _, err := mustSpace(t, c.p).Candidates(); err != nil || len(xs) != c.want {
			t.Errorf("%s: %d candidates (%v), want %d", c.name, len(xs), err, c.want)
		}
	}
	three, _ := New([]Param{{Name: "a", Low: f64(0), High: f64(1)}, {Name: "b", Low: f64(0), High: f64(1)}, {Name: "c", Low: f64(0), High: f64(1)}})
	if _, _, err := three.Candidates(); !errors.Is(err, ErrInvalid) {
		t.Errorf("three floats: %v, want ErrInvalid", err)
	}
}

func mustSpace(t *testing.T, p []Param) *Space {
	t.Helper()
	s, err := New(p)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestValueCodecs: a value reads from JSON and YAML as a number or a
// string, and writes back the same; null and lists are refused.
func TestValueCodecs(t *testing.T) {
	t.Parallel()
	var set Setting
	if err := json.Unmarshal([]byte(`{"kp": 0.35, "filter": 4, "mode": "pi"}`), &set); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(set)
	if string(b) != `{"filter":4,"kp":0.35,"mode":"pi"}` {
		t.Errorf("JSON round trip: %s", b)
	}
	var y Setting
	if err := yaml.Unmarshal([]byte("{kp: 0.35, filter: 4, mode: pi, q: '5'}"), &y); err != nil {
		t.Fatal(err)
	}
	if y["kp"].Num != 0.35 || y["filter"].Num != 4 || y["mode"].Str != "pi" || !y["q"].IsStr {
		t.Errorf("YAML: %v", y)
	}
	for _, bad := range []string{`{"a": null}`, `{"a": [1]}`, `{"a": true}`} {
		if err := json.Unmarshal([]byte(bad), &set); err == nil {
			t.Errorf("%s: accepted", bad)
		}
	}
	var v Value
	for _, c := range []struct{ in, want string }{
		{`"\q"`, "invalid character"},
		{`1e999`, "outside the range of a float64"},
	} {
		if err := v.UnmarshalJSON([]byte(c.in)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("JSON %s: %v, want %q", c.in, err, c.want)
		}
	}
	for _, c := range []struct{ in, want string }{
		{"a: [1]", "line 1: want a number or a string"},
		{"a:\n  b: 1", "line 2: want a number or a string"},
		{"a: .inf", `line 1: ".inf" is not a finite number`},
		{"a: .nan", `line 1: ".nan" is not a finite number`},
		{"a: true", `line 1: want a number or a string, got "true"`},
	} {
		var y Setting
		if err := yaml.Unmarshal([]byte(c.in), &y); err == nil || !strings.HasSuffix(err.Error(), c.want) {
			t.Errorf("YAML %q: %v, want one ending %q", c.in, err, c.want)
		}
	}
	for _, x := range []float64{math.NaN(), math.Inf(1)} {
		if b, err := json.Marshal(Setting{"a": Number(x)}); err == nil || !strings.Contains(err.Error(), "is not a finite number") {
			t.Errorf("%v written as %s, %v", x, b, err)
		}
	}
}

// TestOutcomes: each limit becomes a condition, the objective's limit in
// its goal's direction its threshold; the transform maps every limit to 0
// and a value on the safe side of its limit to g ≥ 0.
func TestOutcomes(t *testing.T) {
	t.Parallel()
	o := Outcomes{
		Objective:   Objective{Name: "settle", Goal: Minimize, Max: f64(10)},
		Constraints: []Constraint{{Name: "overshoot", Max: f64(0.02)}, {Name: "margin", Min: f64(6), Max: f64(40)}},
	}
	if err := o.Check([]string{"kp"}); err != nil {
		t.Fatal(err)
	}
	if th := o.Threshold(); th == nil || th.Sign != -1 || th.Limit != 10 {
		t.Errorf("threshold %+v", th)
	}
	cs := o.Conditions()
	if len(cs) != 3 || cs[0] != (Condition{1, -1, 0.02}) || cs[1] != (Condition{2, 1, 6}) || cs[2] != (Condition{2, -1, 40}) {
		t.Errorf("conditions %+v", cs)
	}
	values := [][]float64{{4, 6, 12}, {0.01, 0.015, 0.03}, {7, 20, 30}}
	tr := o.FitTransform(values)
	if tr.Center != 10 {
		t.Errorf("the objective's centre %v, want its threshold 10", tr.Center)
	}
	g := make([]float64, 3)
	for k := range 3 {
		y := []float64{values[0][k], values[1][k], values[2][k]}
		f := o.Apply(&tr, y, g)
		if (f >= 0) != (y[0] <= 10) {
			t.Errorf("row %d: f = %v for settle %v", k, f, y[0])
		}
		for c, cond := range cs {
			if (g[c] >= 0) != cond.Holds(y[cond.Outcome]) {
				t.Errorf("row %d, condition %d: g = %v for %v", k, c, g[c], y[cond.Outcome])
			}
		}
	}
	if v := o.Violated([]float64{12, 0.03, 5}); len(v) != 3 || v[0] != -1 || v[1] != 0 || v[2] != 1 {
		t.Errorf("violated %v", v)
	}
	for _, c := range []struct {
		o    Outcomes
		want string
	}{
		{Outcomes{Objective: Objective{Name: "f", Goal: "best"}}, `objective.goal: want minimize or maximize, got "best"`},
		{Outcomes{Objective: Objective{Name: "f"}}, "objective.goal: missing: want minimize or maximize"},
		{Outcomes{Objective: Objective{Name: "kp", Goal: Maximize}}, "names a parameter"},
		{Outcomes{Objective: Objective{Name: "f", Goal: Maximize}, Constraints: []Constraint{{Name: "g"}}}, "min, max or both"},
		{Outcomes{Objective: Objective{Name: "f", Goal: Maximize}, Constraints: []Constraint{{Name: "g", Min: f64(2), Max: f64(1)}}}, "min < max"},
		{Outcomes{Objective: Objective{Name: "1f", Goal: Maximize}}, "objective.name"},
		{Outcomes{Objective: Objective{Name: "f", Goal: Maximize, Min: f64(math.Inf(-1))}}, "objective.min: want a finite number within ±1e100, got -Inf"},
		{Outcomes{Objective: Objective{Name: "f", Goal: Maximize, Max: f64(1e101)}}, "objective.max: want a finite number within ±1e100, got 1e+101"},
		{Outcomes{Objective: Objective{Name: "f", Goal: Maximize}, Constraints: []Constraint{{Name: "g h", Max: f64(1)}}}, "constraints[0].name"},
		{Outcomes{Objective: Objective{Name: "f", Goal: Maximize}, Constraints: []Constraint{{Name: "f", Max: f64(1)}}}, "constraints[0].name: f names a parameter or another outcome"},
		{Outcomes{Objective: Objective{Name: "f", Goal: Maximize}, Constraints: []Constraint{{Name: "g", Min: f64(math.NaN())}}}, "constraints[0].min: want a finite number"},
	} {
		if err := c.o.Check([]string{"kp"}); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.o, err, c.want)
		}
	}
}

// TestFitTransformUnits: data whose spread is 0 (one measurement of the
// objective; a condition measured at its limit) are scaled by the
// centre's magnitude, so the transformed values do not depend on the
// units — a second measurement 2 % away lies 0.02 from the first, in
// seconds as in hours — and by 1 only when the centre is 0 too.
func TestFitTransformUnits(t *testing.T) {
	t.Parallel()
	o := Outcomes{Objective: Objective{Name: "settle", Goal: Minimize}, Constraints: []Constraint{{Name: "overshoot", Max: f64(0.05)}}}
	g := make([]float64, 1)
	for _, unit := range []float64{1, 1.0 / 3600, 1000} {
		tr := o.FitTransform([][]float64{{61.6 * unit}, {0.05}})
		if want := []float64{61.6 * unit, 0.05}; math.Abs(tr.Scale-want[0]) > 1e-12*want[0] || tr.Scales[0] != want[1] {
			t.Errorf("unit %v: scales %v, %v, want the centres' magnitudes %v", unit, tr.Scale, tr.Scales, want)
		}
		// f = −(y − c)/S for a goal of minimize: 1.38/61.6 below.
		if f, want := o.Apply(&tr, []float64{62.98 * unit, 0.04}, g), -1.38/61.6; math.Abs(f-want) > 1e-12 {
			t.Errorf("unit %v: f = %v for a second measurement 1.38/61.6 above, want %v", unit, f, want)
		}
	}
	if tr := o.FitTransform([][]float64{{0, 0}, {}}); tr.Scale != 1 || tr.Scales[0] != 0.05 {
		t.Errorf("zeros and no constraint data: %+v, want the scales 1 and |0.05|", tr)
	}
	at0 := Outcomes{Objective: Objective{Name: "f", Goal: Maximize}, Constraints: []Constraint{{Name: "g", Min: f64(0)}}}
	if tr := at0.FitTransform([][]float64{{}, {0, 0}}); tr.Scale != 1 || tr.Scales[0] != 1 {
		t.Errorf("a condition at its limit 0: %+v, want the scales 1", tr)
	}
}

// TestDecodeRoundTrip: a value given by the user comes back from the
// unit cube as the same decimal, on both scales (Param.raw).
func TestDecodeRoundTrip(t *testing.T) {
	t.Parallel()
	lo, hi, llo, lhi := 0.05, 20.0, -3.0, 18.0
	sp, err := New([]Param{{Name: "kp", Low: &lo, High: &hi, Scale: Log}, {Name: "b", Low: &llo, High: &lhi}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range [][2]float64{{0.3, -0.3}, {0.05, -3}, {20, 18}, {1.7, 0.1}, {0.123456789, 2.2}, {19.99, 17.99}} {
		v, w := c[0], c[1]
		set := Setting{"kp": Number(v), "b": Number(w)}
		x, err := sp.Encode(set)
		if err != nil {
			t.Fatal(err)
		}
		back := sp.Decode(x)
		if back["kp"].Num != v || back["b"].Num != w {
			t.Errorf("%v, %v: decoded as %v, %v", v, w, back["kp"].Num, back["b"].Num)
		}
	}
}

// TestHints: a float or int on a linear scale is named when every seed
// lies so near its low end that a hundredth of the range is more than
// half the seed (the boundary: 0.2 = 0.4/2 is not), and not on a log
// scale, with low ≤ 0 (no log scale possible), or a seed far enough in;
// an int whose neighbouring integers lie more than HintStep apart next
// to every seed, unless the seeds cover every integer, and a choice
// with a value no seed has.
func TestHints(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		p     Param
		seeds []any
		want  string // a substring of the one hint; "" for none
	}{
		{"wide linear float", Param{Name: "kp", Low: f64(0.05), High: f64(20)}, []any{0.3}, "a hundredth of the range, 0.199, is 66 % of the seed"},
		{"wide linear int", Param{Name: "n", Type: Int, Low: f64(1), High: f64(1000)}, []any{2.0}, "give n scale: log"},
		{"the largest seed decides", Param{Name: "kp", Low: f64(0.05), High: f64(20)}, []any{0.3, 0.39}, "the largest 0.39"},
		{"one seed far enough in", Param{Name: "kp", Low: f64(0.05), High: f64(20)}, []any{0.3, 0.5}, ""},
		{"at the boundary", Param{Name: "kp", Low: f64(0.1), High: f64(20.1)}, []any{0.4}, ""},
		{"log scale", Param{Name: "kp", Low: f64(0.05), High: f64(20), Scale: Log}, []any{0.3}, ""},
		{"low 0", Param{Name: "kp", Low: f64(0), High: f64(20)}, []any{0.1}, ""},
		{"seed mid-range", Param{Name: "temp", Low: f64(1), High: f64(400)}, []any{200.0}, ""},
		{"an int of 8 values", Param{Name: "filter", Type: Int, Low: f64(1), High: f64(8)}, []any{2.0}, "filter's integers lie 0.143 of its scale apart next to its seeds' (2)"},
		{"every integer seeded", Param{Name: "filter", Type: Int, Low: f64(1), High: f64(3)}, []any{1.0, 2.0, 3.0, 2.0}, ""},
		{"an int of 8 values, two seeds", Param{Name: "filter", Type: Int, Low: f64(1), High: f64(8)}, []any{2.0, 5.0}, "next to its seeds' (2, 5)"},
		{"an int of 101 values", Param{Name: "n", Type: Int, Low: f64(0), High: f64(100)}, []any{50.0}, ""},
		// Gaps of 1/34 ≈ 0.0294, below HintStep, and 1/33 ≈ 0.0303, above.
		{"an int of 35 values", Param{Name: "n", Type: Int, Low: f64(0), High: f64(34)}, []any{15.0}, ""},
		{"an int of 35 values at the top", Param{Name: "n", Type: Int, Low: f64(0), High: f64(34)}, []any{34.0}, ""},
		{"an int of 34 values", Param{Name: "n", Type: Int, Low: f64(0), High: f64(33)}, []any{15.0}, "n's integers lie 0.0303 of its scale apart"},
		{"an int of 30 values", Param{Name: "ti", Type: Int, Low: f64(1), High: f64(30)}, []any{10.0}, "ti's integers lie 0.0345 of its scale apart"},
		{"an int on a log scale", Param{Name: "n", Type: Int, Low: f64(1), High: f64(1000), Scale: Log}, []any{2.0}, "n's integers lie 0.0587 of its scale apart"},
		{"a choice", Param{Name: "mode", Type: Choice, Values: []string{"pi", "pid", "pd"}}, []any{"pi"}, "a study tries only its seeds' mode (pi) until the model vouches for another value, and the values lie as far apart as the cube allows; give a seed with each mode you want tried (pid, pd)"},
		{"every choice seeded", Param{Name: "mode", Type: Choice, Values: []string{"pi", "pid"}}, []any{"pid", "pi"}, ""},
		{"a choice seeded by a number", Param{Name: "m", Type: Choice, Values: []string{"1", "2"}}, []any{1.0}, "its seeds' m (1)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := New([]Param{c.p})
			if err != nil {
				t.Fatal(err)
			}
			var seeds []Setting
			for _, v := range c.seeds {
				if str, ok := v.(string); ok {
					seeds = append(seeds, Setting{c.p.Name: String(str)})
				} else {
					seeds = append(seeds, Setting{c.p.Name: Number(v.(float64))})
				}
			}
			got := s.Hints(seeds)
			switch {
			case c.want == "" && got != nil:
				t.Errorf("hints %q, want none", got)
			case c.want != "" && (len(got) != 1 || !strings.Contains(got[0], c.want)):
				t.Errorf("hints %q, want one with %q", got, c.want)
			}
		})
	}
}

// manyParams is n float parameters p0, p1, … on [0, 1].
// manyValues returns n distinct choice values.
func manyValues(n int) []string {
	vs := make([]string, n)
	for i := range vs {
		vs[i] = "v" + strconv.Itoa(i)
	}
	return vs
}

func manyParams(n int) []Param {
	ps := make([]Param, n)
	for i := range ps {
		ps[i] = Param{Name: "p" + strconv.Itoa(i), Low: f64(0), High: f64(1)}
	}
	return ps
}

// TestNamesAtTheLimit: 64 parameters are taken (the limit, docs/limits.md),
// and so are 64 outcomes; 65 outcomes are refused.
func TestNamesAtTheLimit(t *testing.T) {
	t.Parallel()
	if _, err := New(manyParams(64)); err != nil {
		t.Errorf("64 parameters: %v", err)
	}
	o := Outcomes{Objective: Objective{Name: "y", Goal: Maximize}}
	one := 1.0
	for i := range 63 {
		o.Constraints = append(o.Constraints, Constraint{Name: "c" + strconv.Itoa(i), Max: &one})
	}
	if err := o.Check([]string{"x"}); err != nil {
		t.Errorf("64 outcomes: %v", err)
	}
	o.Constraints = append(o.Constraints, Constraint{Name: "c63", Max: &one})
	if err := o.Check([]string{"x"}); err == nil || !strings.Contains(err.Error(), "65 outcomes") {
		t.Errorf("65 outcomes: %v, want refused", err)
	}
}

// TestMinimizeWithMin: an objective minimized with a min limit is safe
// at or above it (Sign +1): a value below the limit breaks it. Only max
// limits were tested for minimize, and the flipped sign survived (issue
// 41, item 4).
func TestMinimizeWithMin(t *testing.T) {
	t.Parallel()
	lo := 0.5
	o := Outcomes{Objective: Objective{Name: "y", Goal: Minimize, Min: &lo}}
	if err := o.Check([]string{"x"}); err != nil {
		t.Fatal(err)
	}
	cs := o.Conditions()
	if len(cs) != 1 || cs[0] != (Condition{Outcome: 0, Sign: 1, Limit: 0.5}) {
		t.Fatalf("conditions %+v, want y ≥ 0.5", cs)
	}
	for _, c := range []struct {
		y    float64
		safe bool
	}{{0.4, false}, {0.5, true}, {3, true}} {
		if v := o.Violated([]float64{c.y}); (len(v) == 0) != c.safe {
			t.Errorf("y = %v: violated %v, want safe %v", c.y, v, c.safe)
		}
	}
}

// TestIntDecodedToNearest: an int decodes to the nearest integer of the
// cube's point, not the one below: 2.7 is 3 (the mutant decoding by
// Floor survived; issue 41, item 4).
func TestIntDecodedToNearest(t *testing.T) {
	t.Parallel()
	s, err := New([]Param{{Name: "n", Type: Int, Low: f64(1), High: f64(4)}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		v    float64
		want float64
	}{{2.7, 3}, {2.3, 2}, {1.5, 2}, {3.9, 4}} {
		if got := s.Decode([]float64{(c.v - 1) / 3})["n"]; got.Num != c.want {
			t.Errorf("the point of %v decodes to %v, want %v", c.v, got, c.want)
		}
	}
}
