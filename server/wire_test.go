package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/safegp/safegp/internal/testjson"
	"github.com/safegp/safegp/space"
	"github.com/safegp/safegp/study/api"
)

// keysOnce fails t when data, accepted by a decoder, has a key twice
// (encoding/json lets the last win) or a top key other than exact, as
// encoding/json matches {"INDEX": 3} to index (issue 24, item 5).
func keysOnce(t *testing.T, data []byte, exact ...string) {
	t.Helper()
	if err := testjson.KeysOnce(data, exact...); err != nil {
		t.Fatalf("accepted %q: %v", data, err)
	}
}

var jsonSeeds = []string{`{}`, `[]`, ``, `{"a": 1, "a": 2}`, `{"A": 1}`, "{\"x\": \"\xff\"}", `{"context": {"t": 1, "t": 2}}`}

// FuzzDecodeRetract: errors are ErrBadRetract; what is accepted has its
// one key, once and exactly.
func FuzzDecodeRetract(f *testing.F) {
	for _, s := range append(jsonSeeds, `{"observation": 3}`, `{"observation": 3, "observation": 4}`, `{"OBSERVATION": 3}`, `{"observation": 3.0}`, `{"trial": 2}`) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, err := decodeRetract(data); err != nil {
			if !errors.Is(err, api.ErrBadRetract) {
				t.Fatalf("error %v is not ErrBadRetract", err)
			}
			return
		}
		keysOnce(t, data, "observation", "trial")
	})
}

// TestDecodeRetractTrial: {"trial": N} takes a trial from 0; a negative
// one is a bad request (400), not an unknown trial (404).
func TestDecodeRetractTrial(t *testing.T) {
	if r, err := decodeRetract([]byte(`{"trial": 0}`)); err != nil || r.Trial == nil || *r.Trial != 0 {
		t.Errorf("trial 0: %+v, %v", r, err)
	}
	for _, body := range []string{`{"trial": -1}`, `{"trial": 1, "observation": 2}`, `{"trial": 1.5}`} {
		if _, err := decodeRetract([]byte(body)); !errors.Is(err, api.ErrBadRetract) {
			t.Errorf("%s: %v, want ErrBadRetract", body, err)
		}
	}
	if _, err := decodeRetract([]byte(`{"trial": -1}`)); err == nil || !strings.Contains(err.Error(), "trial must be ≥ 0, got -1") {
		t.Errorf("trial -1: %v", err)
	}
}

// FuzzDecodeAsk: errors are ErrBadAsk or ErrBadContext; what is accepted
// has its keys once and exactly, its context's names once.
func FuzzDecodeAsk(f *testing.F) {
	for _, s := range append(jsonSeeds, `{"count": 2, "lease_seconds": 60}`, `{"count": 2, "count": 3}`, `{"Count": 2}`, `{"context": {"t": 1.5}}`) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, err := decodeAsk(data); err != nil {
			if !errors.Is(err, api.ErrBadAsk) && !errors.Is(err, api.ErrBadContext) {
				t.Fatalf("error %v is neither ErrBadAsk nor ErrBadContext", err)
			}
			return
		}
		if len(bytes.TrimSpace(data)) > 0 {
			keysOnce(t, data, "count", "lease_seconds", "context")
		}
	})
}

// FuzzDecodePosterior: errors are ErrBadPoints or ErrBadContext; what is
// accepted has its keys once and exactly.
func FuzzDecodePosterior(f *testing.F) {
	for _, s := range append(jsonSeeds, `{"points": [[1, 2]]}`, `{"points": [[1]], "points": [[2]]}`, `{"Points": [[1]]}`, `{"points": [[1]], "context": {"t": 1}}`) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, err := decodePosterior(data); err != nil {
			if !errors.Is(err, api.ErrBadPoints) && !errors.Is(err, api.ErrBadContext) {
				t.Fatalf("error %v is neither ErrBadPoints nor ErrBadContext", err)
			}
			return
		}
		keysOnce(t, data, "points", "context")
	})
}

// FuzzDecodeImport: errors are ErrBadImport; every element accepted has
// its keys once and exactly.
func FuzzDecodeImport(f *testing.F) {
	for _, s := range append(jsonSeeds, `[{"x": [1], "f": 1, "g": [1]}]`, `[{"index": 1, "f": 1, "f": 2, "g": [1]}]`, `[{"INDEX": 1, "F": 1, "g": [1]}]`, `[{"x": [1], "f": 1, "g": [1]}] x`) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		rows, err := decodeImport(data)
		if err != nil {
			if !errors.Is(err, api.ErrBadImport) {
				t.Fatalf("error %v is not ErrBadImport", err)
			}
			return
		}
		var elems []json.RawMessage
		if err := json.Unmarshal(data, &elems); err != nil || len(elems) != len(rows) {
			t.Fatalf("accepted %q: %d rows, %d elements (%v)", data, len(rows), len(elems), err)
		}
		for _, e := range elems {
			keysOnce(t, e, "index", "x", "f", "g", "noise_std", "context")
		}
	})
}

// FuzzDecodeHeartbeat: DecodeHeartbeat never panics; every error is
// ErrBadHeartbeat, and what it accepts has a lease length in
// (0, MaxLeaseSeconds] and no token or one of 16 hex digits.
func FuzzDecodeHeartbeat(f *testing.F) {
	for _, seed := range []string{
		`{"ask": 1, "lease_seconds": 60}`, `{"ask": 1.0, "lease_seconds": 6e1, "lease": "0123456789abcdef"}`,
		`{"ask": 1, "lease_seconds": 60, "lease": ""}`, `{"ask": 1, "lease_seconds": null}`, `{"ask": 1, "lease_seconds": 60, "lease": 7}`,
		`{"ask": 1e30, "lease_seconds": 1}`, ``, `[]`, `{"ask": 1, "lease_seconds": 60} {}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		r, err := decodeHeartbeat(body)
		if err != nil {
			if !errors.Is(err, api.ErrBadHeartbeat) {
				t.Fatalf("error %v is not ErrBadHeartbeat", err)
			}
			return
		}
		keysOnce(t, body, "ask", "lease_seconds", "lease")
		if !(r.LeaseSeconds > 0 && r.LeaseSeconds <= api.MaxLeaseSeconds) {
			t.Fatalf("accepted lease_seconds %v", r.LeaseSeconds)
		}
		if r.Lease != "" && (len(r.Lease) != 16 || strings.Trim(r.Lease, "0123456789abcdef") != "") {
			t.Fatalf("accepted token %q", r.Lease)
		}
	})
}

// TestDecodeTellStrict: null or any non-number where a number belongs is
// refused, naming the field; a missing measurement never becomes 0.
func TestDecodeTellStrict(t *testing.T) {
	bad := []struct{ name, body, field string }{
		{"null g element", `{"ask": 1, "f": 1, "g": [null]}`, "g1 is null"},
		{"null second g", `{"ask": 1, "f": 1, "g": [0.5, null]}`, "g2 is null"},
		{"null f", `{"ask": 1, "f": null, "g": [1]}`, "f is null"},
		{"string f", `{"ask": 1, "f": "1.5", "g": [1]}`, "f must be a number, got a string"},
		{"NaN string", `{"ask": 1, "f": "NaN", "g": [1]}`, "f must be a number"},
		{"bool f", `{"ask": 1, "f": true, "g": [1]}`, "f must be a number, got a boolean"},
		{"object f", `{"ask": 1, "f": {}, "g": [1]}`, "f must be a number, got an object"},
		{"string g", `{"ask": 1, "f": 1, "g": ["1"]}`, "g1 must be a number, got a string"},
		{"bool g", `{"ask": 1, "f": 1, "g": [false]}`, "g1 must be a number, got a boolean"},
		{"object g", `{"ask": 1, "f": 1, "g": [{"v": 1}]}`, "g1 must be a number, got an object"},
		{"nested g", `{"ask": 1, "f": 1, "g": [[1]]}`, "g1 must be a number, got an array"},
		{"g null", `{"ask": 1, "f": 1, "g": null}`, `"g" must be an array of numbers, got null`},
		{"g number", `{"ask": 1, "f": 1, "g": 1}`, `"g" must be an array`},
		{"f missing", `{"ask": 1, "g": [1]}`, `"f" is missing (a study stated in parameters takes "values": {NAME: V, …} instead)`},
		{"f and values missing", `{"ask": 1}`, `"f" is missing (a study stated in parameters takes "values"`},
		{"huge f", `{"ask": 1, "f": 1e400, "g": [1]}`, "f = 1e400 is outside the range"},
		{"huge g", `{"ask": 1, "f": 1, "g": [-1e309]}`, "g1 = -1e309 is outside the range"},
		{"fractional ask", `{"ask": 1.5, "f": 1, "g": [1]}`, "ask must be an integer"},
		{"fractional exponent", `{"index": 25e-1, "f": 1, "g": [1]}`, "index must be an integer, got 25e-1"},
		{"integral beyond 2^53", `{"ask": 1e16, "f": 1, "g": [1]}`, "ask = 1e16 is out of range"},
		{"null ask", `{"ask": null, "f": 1, "g": [1]}`, "ask is null"},
		{"null index", `{"index": null, "f": 1, "g": [1]}`, "index is null"},
		{"string index", `{"index": "3", "f": 1, "g": [1]}`, "index must be a number, got a string"},
		{"bool ask", `{"ask": true, "f": 1, "g": [1]}`, "ask must be a number, got a boolean"},
		{"ask too large", `{"ask": 9223372036854775808, "f": 1, "g": [1]}`, "ask = 9223372036854775808 is out of range"},
		{"both", `{"ask": 1, "index": 2, "f": 1, "g": [1]}`, "exactly one"},
		{"both, one null", `{"ask": 1, "index": null, "f": 1, "g": [1]}`, "exactly one"},
		{"neither", `{"f": 1, "g": [1]}`, "exactly one"},
		{"unknown field", `{"ask": 1, "f": 1, "g": [1], "h": 2}`, `: unknown field "h"`},
		{"trailing", `{"ask": 1, "f": 1, "g": [1]} {}`, "trailing data"},
		{"not an object", `[1]`, "want a JSON object, got an array"},
		{"empty", ``, "empty body"},
		{"x null", `{"x": null, "f": 1, "g": [1]}`, `"x" must be an array of numbers, got null`},
		{"x empty", `{"x": [], "f": 1, "g": [1]}`, `"x" is empty`},
		{"x string", `{"x": ["1"], "f": 1, "g": [1]}`, "x1 must be a number, got a string"},
		{"x null element", `{"x": [0.5, null], "f": 1, "g": [1]}`, "x2 is null"},
		{"x huge", `{"x": [1e999], "f": 1, "g": [1]}`, "x1 = 1e999 is outside the range"},
		{"x and index", `{"x": [1], "index": 2, "f": 1, "g": [1]}`, "exactly one"},
		{"x and ask", `{"x": [1], "ask": 2, "f": 1, "g": [1]}`, "exactly one"},
		{"noise_std null", `{"ask": 1, "f": 1, "g": [1], "noise_std": null}`, "noise_std is null"},
		{"noise_std negative", `{"ask": 1, "f": 1, "g": [1], "noise_std": -0.1}`, "noise_std = -0.1"},
		{"noise_std string", `{"ask": 1, "f": 1, "g": [1], "noise_std": "0.1"}`, "noise_std must be a number, got a string"},
		{"noise_std NaN string", `{"ask": 1, "f": 1, "g": [1], "noise_std": "NaN"}`, "noise_std must be a number"},
		{"noise_std huge", `{"ask": 1, "f": 1, "g": [1], "noise_std": 1e300}`, "noise_std = 1e+300"},
		{"noise_std overflow", `{"ask": 1, "f": 1, "g": [1], "noise_std": 1e400}`, "noise_std = 1e400 is outside the range"},
		{"noise_std array", `{"ask": 1, "f": 1, "g": [1], "noise_std": [0.1]}`, "noise_std must be a number, got an array"},
		// A study stated in parameters: {"ask", "values"} or {"params", "values"}.
		{"values and f", `{"ask": 1, "f": 1, "values": {"y": 1}}`, `leave out "index", "x", "f" and "g"`},
		{"values and index", `{"index": 1, "values": {"y": 1}}`, `leave out "index"`},
		{"params without values", `{"params": {"kp": 1}}`, `"values" is missing`},
		{"values alone", `{"values": {"y": 1}}`, `exactly one of "ask" and "params"`},
		{"ask and params", `{"ask": 1, "params": {"kp": 1}, "values": {"y": 1}}`, `exactly one of "ask" and "params"`},
		{"values null", `{"ask": 1, "values": null}`, `"values" must be an object`},
		{"values array", `{"ask": 1, "values": [1]}`, `"values" must be an object`},
		{"value null", `{"ask": 1, "values": {"y": null}}`, "values.y is null"},
		{"value string", `{"ask": 1, "values": {"y": "1"}}`, "values.y must be a number, got a string"},
		{"value huge", `{"ask": 1, "values": {"y": 1e999}}`, "values.y = 1e999 is outside the range"},
		{"value twice", `{"ask": 1, "values": {"y": 1, "y": 2}}`, "y"},
		{"params null", `{"params": null, "values": {"y": 1}}`, `"params" must be an object`},
		{"param null", `{"params": {"kp": null}, "values": {"y": 1}}`, "params.kp: want a number or a string, got null"},
		{"param bool", `{"params": {"kp": true}, "values": {"y": 1}}`, "params.kp: want a number or a string"},
		{"param huge", `{"params": {"kp": 1e999}, "values": {"y": 1}}`, "params.kp"},
		{"values and noise_std", `{"ask": 1, "values": {"y": 1}, "noise_std": 0.1}`, `"noise_std" and "context" are not taken`},
		{"values, ask null", `{"ask": null, "values": {"y": 1}}`, "ask is null"},
	}
	for _, c := range bad {
		req, err := decodeTell([]byte(c.body))
		if !errors.Is(err, api.ErrBadTell) || !strings.Contains(err.Error(), c.field) {
			t.Errorf("%s: got %+v, %v; want ErrBadTell mentioning %q", c.name, req, err, c.field)
		}
	}
	named := []struct {
		body   string
		ask    *int
		params space.Setting
		values map[string]float64
	}{
		{`{"ask": 4, "values": {"settle_time": 4.1, "overshoot": -0.012}}`, ptr(4), nil, map[string]float64{"settle_time": 4.1, "overshoot": -0.012}},
		{`{"params": {"kp": 0.35, "filter": 4, "mode": "pi"}, "values": {"y": 0}}`, nil,
			space.Setting{"kp": space.Number(0.35), "filter": space.Number(4), "mode": space.String("pi")}, map[string]float64{"y": 0}},
	}
	for _, c := range named {
		req, err := decodeTell([]byte(c.body))
		if err != nil {
			t.Errorf("%s: %v", c.body, err)
			continue
		}
		if !reflect.DeepEqual(req.Ask, c.ask) || !reflect.DeepEqual(req.Params, c.params) || !reflect.DeepEqual(req.Values, c.values) || req.F != nil || req.G != nil {
			t.Errorf("%s: got %+v", c.body, req)
		}
	}
	good := []struct {
		body  string
		ask   *int
		index *int
		x     []float64
		f     float64
		g     []float64
	}{
		{`{"ask": 3, "f": -1.5e2, "g": [0, 2.5]}`, ptr(3), nil, nil, -150, []float64{0, 2.5}},
		{`{"index": 0, "f": 0, "g": []}`, nil, ptr(0), nil, 0, []float64{}},
		{` {"g": [1e-300], "index": -0, "f": 7} `, nil, ptr(0), nil, 7, []float64{1e-300}},
		{`{"x": [0.25, -3e1], "f": 2, "g": [1]}`, nil, nil, []float64{0.25, -30}, 2, []float64{1}},
		{`{"x": [0.25], "f": 2, "g": [1], "noise_std": 0.3}`, nil, nil, []float64{0.25}, 2, []float64{1}},
		{`{"ask": 1, "f": 2, "g": [1], "noise_std": 0}`, ptr(1), nil, nil, 2, []float64{1}},
		// An integral number is an integer however it is written
		// (README, "Limits": 2.0 is 2), as in a specification.
		{`{"index": 2.0, "f": 1, "g": [1]}`, nil, ptr(2), nil, 1, []float64{1}},
		{`{"index": 1e1, "f": 1, "g": [1]}`, nil, ptr(10), nil, 1, []float64{1}},
		{`{"ask": 7.000, "f": 1, "g": [1]}`, ptr(7), nil, nil, 1, []float64{1}},
		{`{"ask": -2E0, "f": 1, "g": [1]}`, ptr(-2), nil, nil, 1, []float64{1}},
	}
	for _, c := range good {
		req, err := decodeTell([]byte(c.body))
		if err != nil {
			t.Errorf("%s: %v", c.body, err)
			continue
		}
		if !eqPtr(req.Ask, c.ask) || !eqPtr(req.Index, c.index) || !slices.Equal(req.X, c.x) || *req.F != c.f || !slices.Equal(req.G, c.g) {
			t.Errorf("%s: decoded %+v (f %v, g %v)", c.body, req, *req.F, req.G)
		}
	}
}

func FuzzDecodeTell(f *testing.F) {
	for _, seed := range []string{
		`{"ask": 3, "f": 1.5, "g": [0.2]}`,
		`{"index": 0, "f": -1, "g": [0.2, 3]}`,
		`{"ask": 1, "f": "NaN", "g": [1]}`,
		`{"ask": 1, "index": 2, "f": 1, "g": []}`,
		`{"f": 1e400, "g": [1]}`,
		`{"ask": 1, "f": 1, "g": [1]} trailing`,
		`[]`, ``, `{"ask": 9223372036854775808, "f": 0, "g": [0]}`,
		`{"ask": 1, "f": 1, "g": [null]}`, `{"index": 1.5, "f": 1, "g": [1]}`,
		`{"ask": 1, "f": null, "g": [1, true, "2", {}]}`, `{"ask": 1, "index": null, "f": 1, "g": [1]}`,
		`{"ask":1,"f":0.1,"f":0.9,"g":[1]}`, `{"INDEX":3,"F":0.1,"g":[1]}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		req, err := decodeTell(data)
		if err != nil {
			if !errors.Is(err, api.ErrBadTell) {
				t.Fatalf("error %v does not wrap ErrBadTell", err)
			}
			return
		}
		// Exactly one of ask, index and x; f always; g may be left out
		// (a study without constraints: the study checks the count).
		if btoi(req.Ask != nil)+btoi(req.Index != nil)+btoi(req.X != nil) != 1 || req.F == nil {
			t.Fatalf("accepted a malformed request: %+v", req)
		}
		if math.IsNaN(*req.F) || math.IsInf(*req.F, 0) {
			t.Fatalf("accepted f = %v", *req.F)
		}
		for i, g := range req.G {
			if math.IsNaN(g) || math.IsInf(g, 0) {
				t.Fatalf("accepted g%d = %v", i+1, g)
			}
		}
		keysOnce(t, data, "ask", "index", "x", "f", "g", "noise_std", "context")
		// An accepted request holds numbers where the values go and no
		// string but its four keys, so no null anywhere.
		if bytes.Contains(data, []byte("null")) {
			t.Fatalf("accepted %q, which holds a null", data)
		}
	})
}

// TestDecodeImportStrict: a JSON import body that is no array of tells
// outside the loop, or holds a value of the wrong kind, is one error
// wrapping ErrBadImport that names the element.
func TestDecodeImportStrict(t *testing.T) {
	for _, c := range []struct{ name, body, msg string }{
		{"not an array", `{"x": [1], "f": 1, "g": [1]}`, "want a JSON array"},
		{"empty", `[]`, "empty"},
		{"ask", `[{"x": [1], "f": 1, "g": [1]}, {"ask": 1, "f": 1, "g": [1]}]`, "element 2"},
		{"null noise", `[{"x": [1], "f": 1, "g": [1], "noise_std": null}]`, "element 1: invalid observation: noise_std is null"},
		{"string noise", `[{"x": [1], "f": 1, "g": [1], "noise_std": "0.1"}]`, "element 1: invalid observation: noise_std must be a number"},
		{"trailing", `[{"x": [1], "f": 1, "g": [1]}] x`, "trailing data"},
	} {
		if _, err := decodeImport([]byte(c.body)); !errors.Is(err, api.ErrBadImport) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("JSON %s: %v, want ErrBadImport mentioning %q", c.name, err, c.msg)
		}
	}
	rows, err := decodeImport([]byte(`[{"x": [2.71], "f": -0.0841, "g": [0.64], "noise_std": 0.07}, {"index": 3, "f": -5.76, "g": [0.999]}]`))
	if err != nil || len(rows) != 2 || rows[0].X[0] != 2.71 || *rows[0].NoiseStd != 0.07 || *rows[1].Index != 3 || rows[1].G[0] != 0.999 {
		t.Errorf("decodeImport: %+v, %v", rows, err)
	}
}

// TestDecodePosteriorPoints: a posterior body whose points are missing or
// hold a value of the wrong kind is ErrBadPoints naming the point.
func TestDecodePosteriorPoints(t *testing.T) {
	for _, c := range []struct{ name, body, msg string }{
		{"missing", `{}`, `"points" must be an array`},
		{"null coordinate", `{"points": [[1], [null]]}`, "point 2"},
		{"string", `{"points": [["1"]]}`, "point 1"},
		{"unknown field", `{"points": [[1]], "p": 1}`, "unknown field"},
	} {
		if _, err := decodePosterior([]byte(c.body)); !errors.Is(err, api.ErrBadPoints) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: %v, want ErrBadPoints mentioning %q", c.name, err, c.msg)
		}
	}
}

// TestDecodeContext: a "context" that is no object of numbers is
// ErrBadContext naming the value, in an ask and in a tell alike; a body
// that is no ask request at all is ErrBadAsk.
func TestDecodeContext(t *testing.T) {
	for _, c := range []struct{ body, msg string }{
		{`{"context": {"temperature": "20", "load": 0.1}}`, "context.temperature must be a number, got a string"},
		{`{"context": {"temperature": null, "load": 0.1}}`, "context.temperature is null"},
		{`{"context": [20, 0.1]}`, `"context" must be an object`},
		{`{"context": null}`, `"context" must be an object`},
		{`{"context": {"temperature": 1e999}}`, "outside the range of a float64"},
		{`{"contexts": {}}`, `unknown field "contexts"`},
		{`[1]`, "want a JSON object"},
	} {
		// A context's own errors are ErrBadContext; a body that is no
		// ask request at all (an unknown field, no object) ErrBadAsk.
		want := api.ErrBadContext
		if !strings.HasPrefix(c.body, `{"context"`) {
			want = api.ErrBadAsk
		}
		if _, err := decodeAsk([]byte(c.body)); !errors.Is(err, want) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("DecodeAsk(%s): %v, want %v with %q", c.body, err, want, c.msg)
		}
		if _, err := decodeTell([]byte(`{"index": 1, "f": 1, "g": [0], ` + strings.TrimPrefix(c.body, "{"))); strings.HasPrefix(c.body, `{"context"`) && (!errors.Is(err, api.ErrBadTell) || !strings.Contains(err.Error(), c.msg)) {
			t.Errorf("DecodeTell with %s: %v, want ErrBadTell with %q", c.body, err, c.msg)
		}
	}
	for _, body := range []string{``, `{}`, ` `} {
		if r, err := decodeAsk([]byte(body)); err != nil || r.Context != nil {
			t.Errorf("DecodeAsk(%q): %+v, %v; want no context", body, r, err)
		}
	}
	if r, err := decodeAsk([]byte(`{"context": {"temperature": 20.5, "load": -1}}`)); err != nil || r.Context["temperature"] != 20.5 || r.Context["load"] != -1 {
		t.Errorf("DecodeAsk: %+v, %v", r, err)
	}
}

func ptr(v int) *int { return &v }

func eqPtr(a, b *int) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

// TestDecodeMinusZero: −0 in a context comes through as −0 (the study
// takes it for 0, TestContextMinusZero): the wire changes no value.
func TestDecodeMinusZero(t *testing.T) {
	req, err := decodeAsk([]byte(`{"context": {"temperature": -0.0}}`))
	if err != nil || !math.Signbit(req.Context["temperature"]) {
		t.Fatalf("decodeAsk: %+v, %v; want −0 decoded as such", req, err)
	}
}
