package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/safegp/safegp/internal/number"
	"github.com/safegp/safegp/internal/quote"
	"github.com/safegp/safegp/internal/strictjson"
	"github.com/safegp/safegp/space"
	"github.com/safegp/safegp/study/api"
)

// The wire: the JSON bodies of the HTTP API, decoded strictly into the
// study package's requests. Every decoder refuses unknown fields, keys
// given twice, trailing data and a value of the wrong kind — null above
// all: in a safety loop a missing measurement must never become a number —
// and names the field; the study then checks the values against itself.

// decodeTell decodes a JSON tell request strictly: unknown fields, trailing
// data and missing values are errors, and so is a value of the wrong kind,
// null above all — in a safety loop a missing measurement must never
// become a number. f and every element of g and of x must be JSON numbers
// within float64's range (so never NaN or Inf), ask and index integers.
// noise_std, optional, must be a number ≥ 0 when given (null is refused:
// leave it out for the model's σ). Errors wrap api.ErrBadTell and name the
// field. It checks the shape only; the study checks the values against
// itself.
func decodeTell(data []byte) (*api.TellRequest, error) {
	var raw rawTell
	if err := decodeObject(data, &raw); err != nil {
		return nil, fmt.Errorf("%w: %w", api.ErrBadTell, err)
	}
	if raw.Failed != nil {
		var failed bool
		if err := json.Unmarshal(raw.Failed, &failed); err != nil || string(raw.Failed) == "null" {
			return nil, fmt.Errorf("%w: \"failed\" must be true or false", api.ErrBadTell)
		}
		if failed {
			return raw.failedTell()
		}
	}
	if raw.Values != nil || raw.Params != nil {
		return raw.paramsTell()
	}
	return raw.plainTell()
}

// failedTell decodes the tell of a trial that produced no values:
// {"ask", "failed": true}, or "params", "index" or "x" (with "context")
// for one run outside the loop; no "f", "g", "values" or "noise_std".
func (raw *rawTell) failedTell() (*api.TellRequest, error) {
	if raw.F != nil || raw.G != nil || raw.Values != nil || raw.NoiseStd != nil {
		return nil, fmt.Errorf("%w: a failed trial has no values: leave out \"f\", \"g\", \"values\" and \"noise_std\"", api.ErrBadTell)
	}
	if given := btoi(raw.Ask != nil) + btoi(raw.Index != nil) + btoi(raw.X != nil) + btoi(raw.Params != nil); given != 1 {
		return nil, fmt.Errorf("%w: a failed trial takes exactly one of \"ask\", \"params\", \"index\" and \"x\"", api.ErrBadTell)
	}
	t := api.TellRequest{Failed: true}
	var err error
	switch {
	case raw.Params != nil:
		if t.Params, err = jsonSetting(raw.Params); err != nil {
			return nil, err
		}
	case raw.X != nil:
		if t.X, err = jsonNumbers("x", raw.X); err != nil {
			return nil, err
		}
		if len(t.X) == 0 {
			return nil, fmt.Errorf("%w: \"x\" is empty: give the point's coordinates", api.ErrBadTell)
		}
	default:
		name, src, dst := "ask", raw.Ask, &t.Ask
		if raw.Index != nil {
			name, src, dst = "index", raw.Index, &t.Index
		}
		v, err := jsonInt(name, src)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", api.ErrBadTell, err)
		}
		*dst = &v
	}
	if t.Context, err = decodeContext(raw.Context); err != nil {
		return nil, fmt.Errorf("%w: %w", api.ErrBadTell, err)
	}
	return &t, nil
}

// rawTell is a tell's body with its fields raw, each parsed strictly by
// paramsTell or plainTell: decoding into *float64 or []float64 directly
// would turn null into nil, 0 or a missing element.
type rawTell struct {
	Ask      json.RawMessage `json:"ask"`
	Index    json.RawMessage `json:"index"`
	X        json.RawMessage `json:"x"`
	F        json.RawMessage `json:"f"`
	G        json.RawMessage `json:"g"`
	NoiseStd json.RawMessage `json:"noise_std"`
	Context  json.RawMessage `json:"context"`
	Params   json.RawMessage `json:"params"`
	Values   json.RawMessage `json:"values"`
	Failed   json.RawMessage `json:"failed"`
}

// paramsTell decodes the tell of a study stated in parameters: {"ask",
// "values"} or {"params", "values"}, never mixed with the plain form's
// fields.
func (raw *rawTell) paramsTell() (*api.TellRequest, error) {
	switch {
	case raw.Index != nil || raw.X != nil || raw.F != nil || raw.G != nil:
		return nil, fmt.Errorf("%w: \"params\" and \"values\" go with \"ask\" only: leave out \"index\", \"x\", \"f\" and \"g\"", api.ErrBadTell)
	case raw.Values == nil:
		return nil, fmt.Errorf("%w: \"values\" is missing: give every outcome's value by name", api.ErrBadTell)
	case (raw.Ask != nil) == (raw.Params != nil):
		return nil, fmt.Errorf("%w: give exactly one of \"ask\" and \"params\"", api.ErrBadTell)
	}
	var t api.TellRequest
	var err error
	if t.Values, err = jsonObject("values", "number", raw.Values, api.ErrBadTell); err != nil {
		return nil, err
	}
	if raw.Params != nil {
		if t.Params, err = jsonSetting(raw.Params); err != nil {
			return nil, err
		}
	} else {
		v, err := jsonInt("ask", raw.Ask)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", api.ErrBadTell, err)
		}
		t.Ask = &v
	}
	if raw.NoiseStd != nil || raw.Context != nil {
		return nil, fmt.Errorf("%w: \"noise_std\" and \"context\" are not taken by a study stated in parameters", api.ErrBadTell)
	}
	return &t, nil
}

// plainTell decodes the plain form's tell: one of "ask", "index" and
// "x", then "f", "g", "noise_std" and "context".
func (raw *rawTell) plainTell() (*api.TellRequest, error) {
	if given := btoi(raw.Ask != nil) + btoi(raw.Index != nil) + btoi(raw.X != nil); given != 1 {
		return nil, fmt.Errorf("%w: give exactly one of \"ask\", \"index\" and \"x\"", api.ErrBadTell)
	}
	var t api.TellRequest
	for _, fld := range []struct {
		name string
		raw  json.RawMessage
		dst  **int
	}{{"ask", raw.Ask, &t.Ask}, {"index", raw.Index, &t.Index}} {
		if fld.raw == nil {
			continue
		}
		v, err := jsonInt(fld.name, fld.raw)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", api.ErrBadTell, err)
		}
		*fld.dst = &v
	}
	if raw.F == nil {
		return nil, fmt.Errorf("%w: \"f\" is missing (a study stated in parameters takes \"values\": {NAME: V, …} instead)", api.ErrBadTell)
	}
	f, err := jsonNumber("f", raw.F)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", api.ErrBadTell, err)
	}
	t.F = &f
	// "g" may be left out only where there is nothing to give: a study
	// without constraints (validate refuses it missing anywhere else).
	if raw.G != nil {
		if t.G, err = jsonNumbers("g", raw.G); err != nil {
			return nil, err
		}
	}
	if raw.X != nil {
		if t.X, err = jsonNumbers("x", raw.X); err != nil {
			return nil, err
		}
		if len(t.X) == 0 {
			return nil, fmt.Errorf("%w: \"x\" is empty: give the point's coordinates", api.ErrBadTell)
		}
	}
	if t.NoiseStd, err = tellNoiseStd(raw.NoiseStd); err != nil {
		return nil, err
	}
	if t.Context, err = decodeContext(raw.Context); err != nil {
		return nil, fmt.Errorf("%w: %w", api.ErrBadTell, err)
	}
	return &t, nil
}

// tellNoiseStd decodes a tell's "noise_std": nil when left out, refused
// when null, else a checked noise standard deviation.
func tellNoiseStd(raw json.RawMessage) (*float64, error) {
	if raw == nil {
		return nil, nil
	}
	if raw[0] == 'n' {
		return nil, fmt.Errorf("%w: noise_std is null: leave it out for the model's σ, or give the measurement's noise standard deviation", api.ErrBadTell)
	}
	v, err := jsonNumber("noise_std", raw)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", api.ErrBadTell, err)
	}
	if err := api.CheckNoiseStd(v); err != nil {
		return nil, err
	}
	return &v, nil
}

// jsonFields parses the object field name strictly into its fields and
// their names, sorted so that the first bad value named is the same every
// time; hint names what its values are in the error for another kind.
// Errors wrap sentinel.
func jsonFields(name, hint string, raw json.RawMessage, sentinel error) ([]string, map[string]json.RawMessage, error) {
	if raw[0] != '{' {
		return nil, nil, fmt.Errorf("%w: %q must be an object {\"name\": %s, …}, got %s", sentinel, name, hint, jsonKind(raw))
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return nil, nil, fmt.Errorf("%w: %q: %w", sentinel, name, jsonError(err))
	}
	names := make([]string, 0, len(fields))
	for n := range fields {
		names = append(names, n)
	}
	sort.Strings(names)
	return names, fields, nil
}

// jsonObject parses the object field name strictly, {NAME: NUMBER, …}
// (jsonNumber, each named name.NAME). Errors wrap sentinel.
func jsonObject(name, hint string, raw json.RawMessage, sentinel error) (map[string]float64, error) {
	names, fields, err := jsonFields(name, hint, raw, sentinel)
	if err != nil {
		return nil, err
	}
	m := make(map[string]float64, len(fields))
	for _, n := range names {
		v, err := jsonNumber(name+"."+quote.Prefix(n), fields[n])
		if err != nil {
			return nil, fmt.Errorf("%w: %w", sentinel, err)
		}
		m[n] = v
	}
	return m, nil
}

// jsonSetting parses "params" strictly: an object whose values are
// numbers or strings (null and anything else refused). The study checks
// them against its parameters.
func jsonSetting(raw json.RawMessage) (space.Setting, error) {
	names, fields, err := jsonFields("params", "value", raw, api.ErrBadTell)
	if err != nil {
		return nil, err
	}
	set := make(space.Setting, len(fields))
	for _, n := range names {
		var v space.Value
		if err := v.UnmarshalJSON(fields[n]); err != nil {
			return nil, fmt.Errorf("%w: params.%s: %w", api.ErrBadTell, quote.Prefix(n), err)
		}
		set[n] = v
	}
	return set, nil
}

// jsonNumbers parses the array field name strictly: an array, every
// element a number (jsonNumber, named name1, name2, …). Errors wrap
// api.ErrBadTell.
func jsonNumbers(name string, raw json.RawMessage) ([]float64, error) {
	switch {
	case raw == nil:
		return nil, fmt.Errorf("%w: %q is missing", api.ErrBadTell, name)
	case raw[0] != '[':
		return nil, fmt.Errorf("%w: %q must be an array of numbers, got %s", api.ErrBadTell, name, jsonKind(raw))
	}
	var elems []json.RawMessage
	if err := json.Unmarshal(raw, &elems); err != nil {
		return nil, fmt.Errorf("%w: %q: %w", api.ErrBadTell, name, err)
	}
	v := make([]float64, len(elems))
	for i, e := range elems {
		var err error
		if v[i], err = jsonNumber(fmt.Sprintf("%s%d", name, i+1), e); err != nil {
			return nil, fmt.Errorf("%w: %w", api.ErrBadTell, err)
		}
	}
	return v, nil
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// decodeObject decodes one JSON object into v, refusing unknown fields,
// trailing data, keys given twice anywhere and keys of v's fields in
// another case (strictjson: encoding/json would let the last duplicate
// win, and match {"INDEX": 3} to index).
func decodeObject(data []byte, v any) error {
	if err := strictjson.Check(data, v); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return jsonError(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("trailing data after the JSON object")
	}
	return nil
}

// jsonError restates an error of encoding/json's decoder in the words of
// the request rather than of Go ("json: cannot unmarshal array into Go
// value of type struct { … }" becomes "want a JSON object, got an
// array"): what a client reads is the API's JSON, not our types.
func jsonError(err error) error {
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case errors.As(err, &te) && te.Field == "":
		return fmt.Errorf("want a JSON object, got %s", article(te.Value))
	case errors.As(err, &te):
		return fmt.Errorf("%q: wrong kind of value, got %s", te.Field, article(te.Value))
	case errors.As(err, &se):
		return fmt.Errorf("not valid JSON at byte %d: %s", se.Offset, strings.TrimPrefix(se.Error(), "invalid character "))
	case errors.Is(err, io.EOF):
		return errors.New("empty body: want a JSON object")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return errors.New("the JSON ends too early")
	}
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, `json: unknown field "`); ok {
		// encoding/json quotes the key whole: a 16 MB key, a 16 MB error.
		return fmt.Errorf("unknown field %s", quote.Short(strings.TrimSuffix(name, `"`)))
	}
	if msg, ok := strings.CutPrefix(msg, "json: "); ok {
		return errors.New(quote.Prefix(msg))
	}
	return err
}

// article prefixes a JSON kind as json.UnmarshalTypeError names it
// ("array", "number", "string", "bool", "object") with its article.
func article(kind string) string {
	if kind == "array" || kind == "object" {
		return "an " + kind
	}
	return "a " + kind
}

// jsonKind names the kind of a JSON value, for errors.
func jsonKind(raw json.RawMessage) string {
	switch raw[0] {
	case 'n':
		return "null"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case '{':
		return "an object"
	case '[':
		return "an array"
	}
	return "a number"
}

// jsonNumber parses a JSON number (nothing else: not null, not a string
// such as "NaN") as a finite float64.
func jsonNumber(name string, raw json.RawMessage) (float64, error) {
	switch {
	case raw == nil:
		return 0, fmt.Errorf("%q is missing", name)
	case raw[0] == 'n':
		return 0, fmt.Errorf("%s is null: a missing measurement must not become a number; give the value measured", name)
	case raw[0] != '-' && (raw[0] < '0' || raw[0] > '9'):
		return 0, fmt.Errorf("%s must be a number, got %s", name, jsonKind(raw))
	}
	v, err := number.Parse(string(raw))
	if err != nil {
		return 0, fmt.Errorf("%s = %s is outside the range of a float64", name, quote.Raw(raw))
	}
	return v, nil
}

// jsonInt parses a JSON integer. A number written with a fraction or an
// exponent is one when its value is integral (2.0, 2e0 and 1e1 are 2, 2
// and 10; 2.5 is refused, never truncated), as everywhere else an integer
// is meant (docs/limits.md, "Integers and null"; strictyaml for specifications): JSON has one
// kind of number, and many encoders write every number as a float.
func jsonInt(name string, raw json.RawMessage) (int, error) {
	if _, err := jsonNumber(name, raw); err != nil {
		return 0, err
	}
	v, err := number.ParseInt(string(raw))
	switch {
	case errors.Is(err, number.ErrNotInteger):
		return 0, fmt.Errorf("%s must be an integer, got %s", name, quote.Raw(raw))
	case err != nil:
		return 0, fmt.Errorf("%s = %s is out of range", name, quote.Raw(raw))
	}
	return v, nil
}

// retractRequest names the observation to retract: the "observation"
// number a tell answered with.
type retractRequest struct {
	Observation int  `json:"observation"`
	Trial       *int `json:"trial"` // a study stated in parameters: the trial, instead of the observation
}

// decodeRetract decodes a JSON retraction request strictly, exactly one
// of {"observation": N} and {"trial": N}: errors wrap
// api.ErrBadRetract.
func decodeRetract(data []byte) (*retractRequest, error) {
	var raw struct {
		Observation json.RawMessage `json:"observation"`
		Trial       json.RawMessage `json:"trial"`
	}
	if err := decodeObject(data, &raw); err != nil {
		return nil, fmt.Errorf("%w: %w", api.ErrBadRetract, err)
	}
	if raw.Trial != nil {
		if raw.Observation != nil {
			return nil, fmt.Errorf("%w: give one of \"observation\" and \"trial\"", api.ErrBadRetract)
		}
		n, err := jsonInt("trial", raw.Trial)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", api.ErrBadRetract, err)
		}
		if n < 0 { // trials are numbered from 0: no study has this one
			return nil, fmt.Errorf("%w: trial must be ≥ 0, got %d", api.ErrBadRetract, n)
		}
		return &retractRequest{Trial: &n}, nil
	}
	n, err := jsonInt("observation", raw.Observation)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", api.ErrBadRetract, err)
	}
	return &retractRequest{Observation: n}, nil
}

// askRequest is the body of an ask call over HTTP: every field optional.
type askRequest struct {
	Count        *int               `json:"count,omitempty"`
	LeaseSeconds *float64           `json:"lease_seconds,omitempty"`
	Context      map[string]float64 `json:"context,omitempty"`
}

// decodeAsk decodes an ask request strictly: an empty body or {} is one
// ask without a lease; "count" must be an integer in 1 … api.MaxBatch,
// "lease_seconds" a number in [0, api.MaxLeaseSeconds]; unknown fields, null
// and trailing data are refused. Errors wrap api.ErrBadAsk and name the field.
func decodeAsk(data []byte) (*askRequest, error) {
	var r askRequest
	if len(bytes.TrimSpace(data)) == 0 {
		return &r, nil
	}
	var raw struct {
		Count        json.RawMessage `json:"count"`
		LeaseSeconds json.RawMessage `json:"lease_seconds"`
		Context      json.RawMessage `json:"context"`
	}
	if err := decodeObject(data, &raw); err != nil {
		return nil, fmt.Errorf("%w: want {} or {\"count\": K, \"lease_seconds\": S, \"context\": {…}}, each optional: %w", api.ErrBadAsk, err)
	}
	c, err := decodeContext(raw.Context)
	if err != nil {
		return nil, err
	}
	r.Context = c
	if raw.Count != nil {
		if raw.Count[0] == 'n' {
			return nil, fmt.Errorf("%w: count is null: leave it out for one ask", api.ErrBadAsk)
		}
		n, err := jsonInt("count", raw.Count)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", api.ErrBadAsk, err)
		}
		if n < 1 {
			return nil, fmt.Errorf("%w: count = %d: want 1 … %d asks", api.ErrBadAsk, n, api.MaxBatch)
		}
		r.Count = &n
	}
	if raw.LeaseSeconds != nil {
		l, err := decodeLease(raw.LeaseSeconds)
		if err != nil {
			return nil, err
		}
		r.LeaseSeconds = &l
	}
	o := r.Options()
	if err := o.Check(); err != nil {
		return nil, err
	}
	return &r, nil
}

// Options are the request's api.AskOptions.
func (r *askRequest) Options() api.AskOptions {
	var o api.AskOptions
	if r.Count != nil {
		o.Count = *r.Count
	}
	if r.LeaseSeconds != nil {
		o.LeaseSeconds = *r.LeaseSeconds
	}
	o.Context = r.Context
	return o
}

// decodeLease parses "lease_seconds": a JSON number, not null.
func decodeLease(raw json.RawMessage) (float64, error) {
	if raw[0] == 'n' {
		return 0, fmt.Errorf("%w: lease_seconds is null: leave it out for no lease", api.ErrBadAsk)
	}
	l, err := jsonNumber("lease_seconds", raw)
	if err != nil {
		return 0, fmt.Errorf("%w: %w", api.ErrBadAsk, err)
	}
	return l, nil
}

// decodeHeartbeat decodes a heartbeat request strictly: "ask" an integer,
// "lease_seconds" a number in (0, api.MaxLeaseSeconds], "lease", optional, a
// lease token (a string of 16 hex digits). Errors wrap api.ErrBadHeartbeat and
// name the field.
func decodeHeartbeat(data []byte) (*api.HeartbeatRequest, error) {
	var raw struct {
		Ask          json.RawMessage `json:"ask"`
		LeaseSeconds json.RawMessage `json:"lease_seconds"`
		Lease        json.RawMessage `json:"lease"`
	}
	if err := decodeObject(data, &raw); err != nil {
		return nil, fmt.Errorf("%w: want {\"ask\": ID, \"lease_seconds\": S, \"lease\"?: TOKEN}: %w", api.ErrBadHeartbeat, err)
	}
	var r api.HeartbeatRequest
	var err error
	if r.Ask, err = jsonInt("ask", raw.Ask); err != nil {
		return nil, fmt.Errorf("%w: %w", api.ErrBadHeartbeat, err)
	}
	switch {
	case raw.LeaseSeconds == nil:
		return nil, fmt.Errorf("%w: \"lease_seconds\" is missing", api.ErrBadHeartbeat)
	case raw.LeaseSeconds[0] == 'n':
		return nil, fmt.Errorf("%w: lease_seconds is null: give the lease's new length in seconds", api.ErrBadHeartbeat)
	}
	if r.LeaseSeconds, err = jsonNumber("lease_seconds", raw.LeaseSeconds); err != nil {
		return nil, fmt.Errorf("%w: %w", api.ErrBadHeartbeat, err)
	}
	if raw.Lease != nil {
		if raw.Lease[0] != '"' {
			return nil, fmt.Errorf("%w: lease must be the lease token of the ask answer, a string, got %s (leave it out to renew whoever holds the lease)", api.ErrBadHeartbeat, jsonKind(raw.Lease))
		}
		if err := json.Unmarshal(raw.Lease, &r.Lease); err != nil {
			return nil, fmt.Errorf("%w: lease: %w", api.ErrBadHeartbeat, jsonError(err))
		}
		if r.Lease == "" {
			return nil, fmt.Errorf("%w: lease is empty: give the ask's lease token, or leave it out", api.ErrBadHeartbeat)
		}
	}
	if err := r.Check(); err != nil {
		return nil, err
	}
	return &r, nil
}

// decodeContext parses a "context" field strictly: absent (nil), or an
// object whose every value is a JSON number. Errors wrap api.ErrBadContext.
func decodeContext(raw json.RawMessage) (map[string]float64, error) {
	if raw == nil {
		return nil, nil
	}
	return jsonObject("context", "value", raw, api.ErrBadContext)
}

// posteriorRequest is a posterior request: the points x, and for a study
// with a context the context values they are taken in.
type posteriorRequest struct {
	Points  [][]float64
	Context map[string]float64
}

// decodePosterior decodes a posterior request {"points": [[x1, …], …]}
// with, for a study with a context, "context": {NAME: NUMBER, …}, strictly.
// Errors wrap api.ErrBadPoints, or api.ErrBadContext for the context.
func decodePosterior(data []byte) (*posteriorRequest, error) {
	var raw struct {
		Points  json.RawMessage `json:"points"`
		Context json.RawMessage `json:"context"`
	}
	if err := decodeObject(data, &raw); err != nil {
		return nil, fmt.Errorf("%w: want {\"points\": [[x1, …], …]} (and \"context\": {…} for a study with a context): %w", api.ErrBadPoints, err)
	}
	pts, err := pointsField(raw.Points)
	if err != nil {
		return nil, err
	}
	c, err := decodeContext(raw.Context)
	if err != nil {
		return nil, err
	}
	return &posteriorRequest{Points: pts, Context: c}, nil
}

// decodeImport decodes a JSON array of tell objects to import, each as
// strict as decodeTell's and at a point ("x") or an action ("index"), never
// an ask: [{"x": [...], "f": F, "g": [...], "noise_std": S}, ...]. Errors
// wrap api.ErrBadImport and name the element (1-based).
func decodeImport(data []byte) ([]api.TellRequest, error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 || data[0] != '[' {
		return nil, fmt.Errorf("%w: want a JSON array of tell objects [{\"x\": [...], \"f\": F, \"g\": [...]}, ...]", api.ErrBadImport)
	}
	if err := strictjson.Check(data, nil); err != nil {
		return nil, fmt.Errorf("%w: %w", api.ErrBadImport, err)
	}
	var elems []json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&elems); err != nil {
		return nil, fmt.Errorf("%w: %w", api.ErrBadImport, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("%w: trailing data after the JSON array", api.ErrBadImport)
	}
	if len(elems) == 0 {
		return nil, fmt.Errorf("%w: the array is empty: nothing to import", api.ErrBadImport)
	}
	rows := make([]api.TellRequest, len(elems))
	for k, e := range elems {
		t, err := decodeTell(e)
		if err != nil {
			return nil, fmt.Errorf("%w: element %d: %w", api.ErrBadImport, k+1, err)
		}
		if t.Ask != nil {
			return nil, fmt.Errorf("%w: element %d: an import holds measurements made outside the loop: give \"x\" or \"index\", not \"ask\" (tell an ask's measurement with tell)", api.ErrBadImport, k+1)
		}
		rows[k] = *t
	}
	return rows, nil
}

// pointsField parses the "points" field: an array of arrays of JSON
// numbers. Errors wrap api.ErrBadPoints.
func pointsField(raw json.RawMessage) ([][]float64, error) {
	if raw == nil || raw[0] != '[' {
		return nil, fmt.Errorf("%w: \"points\" must be an array of points [[x1, …], …]", api.ErrBadPoints)
	}
	var elems []json.RawMessage
	if err := json.Unmarshal(raw, &elems); err != nil {
		return nil, fmt.Errorf("%w: %w", api.ErrBadPoints, err)
	}
	pts := make([][]float64, len(elems))
	for k, e := range elems {
		p, err := jsonNumbers("x", e)
		if err != nil {
			return nil, fmt.Errorf("%w: point %d: %w", api.ErrBadPoints, k+1, err)
		}
		pts[k] = p
	}
	return pts, nil
}

// decodeExtend decodes an extension's body, {"horizon": N}: N an integer
// (the study checks it against its horizon). Errors wrap
// api.ErrBadExtend's class: bad input, 400.
func decodeExtend(data []byte) (int, error) {
	var raw struct {
		Horizon json.RawMessage `json:"horizon"`
	}
	if err := decodeObject(data, &raw); err != nil {
		return 0, fmt.Errorf("%w: %w", errBadRequest, err)
	}
	if raw.Horizon == nil {
		return 0, fmt.Errorf("%w: \"horizon\" is missing: give the new horizon", errBadRequest)
	}
	n, err := jsonInt("horizon", raw.Horizon)
	if err != nil {
		return 0, fmt.Errorf("%w: %w", errBadRequest, err)
	}
	return n, nil
}
