package study

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/safegp/safegp/internal/number"
	"github.com/safegp/safegp/internal/plural"
	"github.com/safegp/safegp/internal/quote"
	"github.com/safegp/safegp/internal/strictjson"

	"github.com/safegp/safegp/bandit"
	"github.com/safegp/safegp/config"
	"github.com/safegp/safegp/internal/memlimit"
	"github.com/safegp/safegp/internal/vec"
	"github.com/safegp/safegp/problem"
)

// Errors a caller can tell apart (the HTTP service maps them to status
// codes).
var (
	ErrNotFound    = errors.New("no such study")
	ErrExists      = errors.New("study exists already")
	ErrBadName     = errors.New("invalid study name")
	ErrBadTell     = errors.New("invalid observation")
	ErrUnknownAsk  = errors.New("unknown ask")
	ErrAlreadyTold = errors.New("ask already told")
	ErrStale       = errors.New("stale study")
	ErrOverloaded  = errors.New("memory limit of the open studies reached")
	ErrReplay      = errors.New("stored study does not replay")
	ErrHorizon     = errors.New("study reached its horizon") // it has its horizon's worth of observations
	ErrWithdrawn   = errors.New("ask withdrawn")             // by a retraction, while it was pending

	ErrBadRetract         = errors.New("invalid retraction")
	ErrUnknownObservation = errors.New("unknown observation")
	ErrAlreadyRetracted   = errors.New("observation already retracted")
)

// errWrite marks a failed database write (busy, cancelled, disk full).
var errWrite = errors.New("write failed")

func (v *Service) writeFailed(err error) error {
	if errors.Is(err, ErrStale) {
		return err
	}
	return fmt.Errorf("%w: %w", errWrite, storageError(err, v.store.path))
}

// ErrBusy reports whether err is a database held by another writer for
// longer than the busy timeout: worth a retry.
func ErrBusy(err error) bool {
	return err != nil && (strings.Contains(err.Error(), "SQLITE_BUSY") || strings.Contains(err.Error(), "database is locked"))
}

// Compiled on first use, not at init: every safegp process (a CLI
// ask or tell, a shard) would pay for it at start-up.
var validName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$`) })

// CheckName accepts names of 1–100 letters, digits, '.', '_' and '-',
// starting with a letter or digit: safe in URLs and file names.
func CheckName(name string) error {
	if !validName().MatchString(name) {
		return fmt.Errorf("%w: %s (1–100 letters, digits, '.', '_', '-', starting with a letter or digit)", ErrBadName, quote.Short(name))
	}
	return nil
}

// Study is one study's state in memory: its policy, rebuilt by replaying
// every recorded ask, tell and retraction. Not safe for concurrent use;
// Service serializes access.
type Study struct {
	name      string
	res       *Resolved
	pol       bandit.Policy
	events    []Event
	asks      map[int]int  // ask id → index into events
	told      map[int]bool // ask ids already told
	tells     map[int]int  // observation (a tell's seq) → index into events
	retracted map[int]int  // observation → seq of the retraction that retracted it
	withdrawn map[int]int  // ask id → seq of the retraction that withdrew it while pending
	retracts  int          // retractions so far
	// pending holds the asks handed out and not yet told (nor withdrawn),
	// oldest first: the policy's pending asks (bandit.Batcher.Pending),
	// in the same order.
	pending []pendingAsk
	nObs    int // observations not retracted
	viol    int // violations among them
	// outside counts the tells at points outside the decision set,
	// retracted or not: each holds a row of L in every GP (BytesWith).
	outside   int
	maxMemory int64 // the service's MaxMemory: 0, none
	created   time.Time
	// model is the model in force: the spec's, with the kernels of the
	// last fit that was not skipped (model.fit). fits lists the fit
	// events, sinceFit counts the tells since the last (retracted ones
	// too: a retraction does not undo a fit).
	model    config.Model
	fits     []int // seqs of the fit events
	sinceFit int
	// lookup, during an import of many rows, finds an action by its
	// point (Resolved.actionIndex); nil otherwise.
	lookup map[string]int
	// covSwitch: the policy's GPs keep their covariance from 2N
	// observations (Resolved.covarianceSwitch), decided when the study is
	// loaded.
	covSwitch bool
}

// pendingAsk is an ask handed out and not yet told: the study's id (the
// ask event's seq) and the policy's own id for it (bandit.Ask.ID).
type pendingAsk struct {
	ask, policy int
}

// firstPending is the oldest pending ask, 0 if none.
func (s *Study) firstPending() int {
	if len(s.pending) == 0 {
		return 0
	}
	return s.pending[0].ask
}

// policyStream is the stream a study's policy draws its random choices
// from (phase-1 uniform sampling): fixed by the spec's seed.
const policyStream = 0x57d1

// newStudy rebuilds a study from its records. maxMemory, if not zero,
// refuses a study whose memory estimate exceeds it (Resolved.CheckMemory).
func newStudy(name string, st *stored, events []Event, maxMemory int64) (*Study, error) {
	spec, err := ParseSpec(st.spec)
	if err != nil {
		return nil, fmt.Errorf("study %q: stored spec: %w", name, err)
	}
	// The stored actions and seeds stand in for the original file.
	if spec.DecisionSet.Box == nil {
		spec.DecisionSet = DecisionSet{Actions: st.actions}
		spec.SeedActions = st.seeds
	} // a box study's stored spec has its bounds and seed points, and no actions
	res, err := spec.Resolve("")
	if err != nil {
		return nil, fmt.Errorf("study %q: stored spec: %w", name, err)
	}
	tells, outside := 0, 0
	for _, e := range events {
		if e.Kind == "tell" {
			tells++
			if e.Index < 0 {
				outside++
			}
		}
	}
	if maxMemory != 0 {
		if err := res.CheckMemoryWith(maxMemory, outside); err != nil {
			return nil, fmt.Errorf("study %q: %w", name, err)
		}
	}
	s := &Study{name: name, res: res, asks: map[int]int{}, told: map[int]bool{}, tells: map[int]int{},
		retracted: map[int]int{}, withdrawn: map[int]int{}, created: st.created, maxMemory: maxMemory, model: res.Spec.Model}
	s.covSwitch = res.covarianceSwitch(maxMemory, outside)
	if s.pol, err = newPolicy(res, &s.model, 0, tells, s.covSwitch); err != nil {
		return nil, fmt.Errorf("study %q: %w", name, err)
	}
	for _, e := range events {
		if err := s.apply(e); err != nil {
			return nil, fmt.Errorf("study %q: %w", name, err)
		}
	}
	return s, nil
}

// newPolicy builds the study's policy with the model m in force (the
// spec's, or fitted). Its random stream is fixed by the spec's seed and
// the number of rebuilds before it (retractions, and fits in the upper
// bits), so that a rebuilt policy does not repeat the draws of the first.
//
// expect is the number of observations about to be fed (a replay's
// tells): room for them is made at once instead of by doubling.
func newPolicy(r *Resolved, m *config.Model, rebuilds, expect int, covSwitch bool) (bandit.Policy, error) {
	s := r.Spec
	kf, kg := r.Kernels.F, r.Kernels.G
	if m.Objective != s.Model.Objective {
		kf, kg = m.Kernels() // fitted
	}
	model := bandit.Model{
		Objective: kf, Constraints: kg,
		NoiseStd: *m.NoiseStd, NoiseStds: m.NoiseStds(),
		Delta: *m.Delta, Beta: *m.Beta,
	}
	opt := bandit.Options{
		Thresholds: s.Thresholds, ObjectiveThreshold: s.ObjectiveThreshold, Epsilon: r.Epsilon, Horizon: s.Horizon,
		Rand: rand.New(rand.NewPCG(s.Seed, policyStream+uint64(rebuilds))),
		Grow: true, Expect: expect, // a study may stop long before its horizon
		CovarianceSwitch: covSwitch,
	}
	// A real system: no ground truth in the domain. With a context, the
	// seed set is assumed safe in every context (docs/contexts.md).
	return bandit.Build(&s.Algorithm, model, r.domain(), opt)
}

// domain is where the study's policy acts: its box, or its decision set,
// with its context's dimension.
func (r *Resolved) domain() bandit.Domain {
	if r.Box != nil {
		return bandit.Domain{Box: r.Box}
	}
	return bandit.Domain{Set: bandit.DecisionSet{X: r.X, Seed: r.Seed}, ContextDim: len(r.contextNames())}
}

// observation is a tell event as the policy takes it: the point of a tell
// outside the loop comes with it, (x, c) with a context.
func observation(e *Event) bandit.Observation {
	o := bandit.Observation{F: e.F, G: e.G}
	if e.NoiseStd != nil {
		o.NoiseVar = bandit.KnownNoise(*e.NoiseStd)
	}
	if e.Ask == 0 {
		o.Index, o.X = e.Index, pointOf(e)
	}
	return o
}

// apply feeds one recorded event to the policy, the same way live and on
// replay: an ask event takes the policy's ask (live, the one Service.Ask
// or AskBatch just recorded; on replay, a new one: nextAsk), which must be
// the recorded point.
func (s *Study) apply(e Event) error {
	switch e.Kind {
	case "ask":
		if e.Context != nil {
			// The context the ask was made in: the same as the policy's
			// live (SetContext keeps its state then), a new one on replay.
			if err := bandit.SetContext(s.pol, e.Context); err != nil {
				return fmt.Errorf("%w: event %d: %w", ErrReplay, e.Seq, err)
			}
		}
		a, err := s.nextAsk()
		if err != nil {
			return fmt.Errorf("%w: event %d: %w", ErrReplay, e.Seq, err)
		}
		if a.Index != e.Index || (a.Index < 0 && !slices.Equal(a.X, e.X)) {
			return fmt.Errorf("%w: event %d: the recorded ask is action %d, the policy now suggests %d; the study was recorded by a safegp whose policy behaves differently (export its observations and replay them as index tells into a new study)", ErrReplay, e.Seq, e.Index, a.Index)
		}
		s.asks[e.Ask] = len(s.events)
		s.events = append(s.events, e)
		s.pending = append(s.pending, pendingAsk{ask: e.Ask, policy: a.ID})
	case "tell":
		if m := len(s.res.Spec.Thresholds); len(e.G) != m {
			return fmt.Errorf("%w: study %q: event %d: a tell of %s for %s; the file was edited or damaged: restore it from a backup", ErrDamaged, s.name, e.Seq, plural.Count(len(e.G), "constraint value"), plural.Count(m, "constraint"))
		}
		id, k := 0, -1
		if e.Ask != 0 {
			for j, p := range s.pending {
				if p.ask == e.Ask {
					id, k = p.policy, j
				}
			}
			if k < 0 {
				return fmt.Errorf("%w: event %d tells ask %d, which is not pending", ErrReplay, e.Seq, e.Ask)
			}
			// The ask fixes the point the policy observes.
			if a := s.events[s.asks[e.Ask]]; a.Index != e.Index || !slices.Equal(a.X, e.X) || !vec.SameBits(a.Context, e.Context) {
				return fmt.Errorf("%w: event %d tells ask %d at action %d, the ask was action %d", ErrReplay, e.Seq, e.Ask, e.Index, a.Index)
			}
		}
		if err := s.pol.Tell(id, observation(&e)); err != nil {
			return fmt.Errorf("%w: event %d: %w", ErrReplay, e.Seq, err)
		}
		if k >= 0 {
			s.told[e.Ask] = true
			s.pending = slices.Delete(s.pending, k, k+1)
		}
		s.tells[e.Seq] = len(s.events)
		s.events = append(s.events, e)
		s.nObs++
		s.sinceFit++
		if e.Index < 0 {
			s.outside++
		}
		if e.Violation {
			s.viol++
		}
	case "retract":
		k, ok := s.tells[e.Ref]
		if !ok || s.retracted[e.Ref] != 0 {
			return fmt.Errorf("%w: event %d retracts %d, which is not an observation still in force", ErrReplay, e.Seq, e.Ref)
		}
		s.retracted[e.Ref] = e.Seq
		s.nObs--
		if s.events[k].Violation {
			s.viol--
		}
		// The pending asks were chosen with the retracted value (perhaps
		// as safe only because of it): withdraw them, so that they are
		// not run.
		for _, p := range s.pending {
			s.withdrawn[p.ask] = e.Seq
		}
		s.pending = s.pending[:0]
		s.retracts++
		s.events = append(s.events, e)
		return s.rebuild()
	case "fit":
		// A fit is made at an ask with none pending, and its record is
		// applied as recorded: never fitted again on replay.
		if len(s.pending) > 0 || e.Fit == nil {
			return fmt.Errorf("%w: event %d: a fit with an ask pending, or without its record", ErrReplay, e.Seq)
		}
		m, err := s.model.WithFit(e.Fit)
		if err != nil {
			return fmt.Errorf("%w: event %d: %w", ErrReplay, e.Seq, err)
		}
		s.fits = append(s.fits, e.Seq)
		s.sinceFit = 0
		s.events = append(s.events, e)
		if e.Fit.Skipped != "" {
			return nil // the model stays as it was, and so does the policy
		}
		s.model = m
		return s.rebuild()
	default:
		return fmt.Errorf("%w: event %d: unknown kind %s", ErrReplay, e.Seq, quote.Short(e.Kind))
	}
	return nil
}

// AskAnswer is what ask returns. On a box domain there are no actions:
// Index is −1 and the JSON answer has no "index", only the point.
type AskAnswer struct {
	Ask   int       `json:"ask"`
	Index int       `json:"index"`
	X     []float64 `json:"x"`
	// Context is the context the ask was made in, for a study with a
	// context: X is the action to run in it.
	Context map[string]float64 `json:"context,omitempty"`
	// LeaseUntil is the end of the ask's lease, RFC 3339 in UTC with
	// milliseconds, when the ask call asked for one (AskOptions).
	LeaseUntil string `json:"lease_until,omitempty"`
	// Lease is the lease's token, new at every leased hand-out of the
	// ask: a heartbeat that names it renews the lease only while the ask
	// is still this caller's (HeartbeatRequest.Lease).
	Lease string `json:"lease,omitempty"`

	box bool // the study's domain is a box: no index in the JSON
}

// MarshalJSON writes {"ask", "index", "x"}, or {"ask", "x"} on a box,
// with "lease_until" and "lease" when the ask is leased.
func (a AskAnswer) MarshalJSON() ([]byte, error) {
	if a.box {
		return json.Marshal(struct {
			Ask        int       `json:"ask"`
			X          []float64 `json:"x"`
			LeaseUntil string    `json:"lease_until,omitempty"`
			Lease      string    `json:"lease,omitempty"`
		}{a.Ask, a.X, a.LeaseUntil, a.Lease})
	}
	type plain AskAnswer
	return json.Marshal(plain(a))
}

func (s *Study) answer(ask int) *AskAnswer {
	e := s.events[s.asks[ask]]
	return &AskAnswer{Ask: e.Ask, Index: e.Index, X: e.X, Context: s.res.contextMap(e.Context), box: s.res.Box != nil}
}

// TellRequest is an observation: of the action of ask Ask, or one made
// outside the loop, at action Index or at point X, which need not be an
// action (exactly one of the three).
type TellRequest struct {
	Ask   *int      `json:"ask,omitempty"`
	Index *int      `json:"index,omitempty"`
	X     []float64 `json:"x,omitempty"`
	F     *float64  `json:"f"`
	G     []float64 `json:"g"`
	// NoiseStd is the measurement's own noise standard deviation ≥ 0
	// (known, heteroscedastic noise), used on the diagonal of its GP
	// rows instead of the model's σ; nil for the model's σ.
	NoiseStd *float64 `json:"noise_std,omitempty"`
	// Context is the context a measurement outside the loop was made in,
	// for a study with a context (required there, refused elsewhere); a
	// tell of an ask has the ask's context and takes none.
	Context map[string]float64 `json:"context,omitempty"`
}

// DecodeTell decodes a JSON tell request strictly: unknown fields, trailing
// data and missing values are errors, and so is a value of the wrong kind,
// null above all — in a safety loop a missing measurement must never
// become a number. f and every element of g and of x must be JSON numbers
// within float64's range (so never NaN or Inf), ask and index integers.
// noise_std, optional, must be a number ≥ 0 when given (null is refused:
// leave it out for the model's σ). Errors wrap ErrBadTell and name the
// field. It checks the shape only; the study checks the values against
// itself.
func DecodeTell(data []byte) (*TellRequest, error) {
	// Raw fields, each parsed strictly below: decoding into *float64 or
	// []float64 directly would turn null into nil, 0 or a missing element.
	var raw struct {
		Ask      json.RawMessage `json:"ask"`
		Index    json.RawMessage `json:"index"`
		X        json.RawMessage `json:"x"`
		F        json.RawMessage `json:"f"`
		G        json.RawMessage `json:"g"`
		NoiseStd json.RawMessage `json:"noise_std"`
		Context  json.RawMessage `json:"context"`
	}
	if err := decodeObject(data, &raw); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadTell, err)
	}
	var t TellRequest
	if given := btoi(raw.Ask != nil) + btoi(raw.Index != nil) + btoi(raw.X != nil); given != 1 {
		return nil, fmt.Errorf("%w: give exactly one of \"ask\", \"index\" and \"x\"", ErrBadTell)
	}
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
			return nil, fmt.Errorf("%w: %w", ErrBadTell, err)
		}
		*fld.dst = &v
	}
	f, err := jsonNumber("f", raw.F)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadTell, err)
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
			return nil, fmt.Errorf("%w: \"x\" is empty: give the point's coordinates", ErrBadTell)
		}
	}
	if raw.NoiseStd != nil {
		if raw.NoiseStd[0] == 'n' {
			return nil, fmt.Errorf("%w: noise_std is null: leave it out for the model's σ, or give the measurement's noise standard deviation", ErrBadTell)
		}
		v, err := jsonNumber("noise_std", raw.NoiseStd)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrBadTell, err)
		}
		if err := checkNoiseStd(v); err != nil {
			return nil, err
		}
		t.NoiseStd = &v
	}
	if t.Context, err = decodeContext(raw.Context); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadTell, err)
	}
	return &t, nil
}

// checkNoiseStd accepts a noise standard deviation: a number in
// [0, 1e100] (its square must stay a finite variance). Errors wrap
// ErrBadTell and name the field.
func checkNoiseStd(v float64) error {
	if !(v >= 0) || !problem.InRange(v) {
		return fmt.Errorf("%w: noise_std = %v: want the measurement's noise standard deviation, a finite number ≥ 0 (leave it out for the model's σ)", ErrBadTell, v)
	}
	return nil
}

// jsonNumbers parses the array field name strictly: an array, every
// element a number (jsonNumber, named name1, name2, …). Errors wrap
// ErrBadTell.
func jsonNumbers(name string, raw json.RawMessage) ([]float64, error) {
	switch {
	case raw == nil:
		return nil, fmt.Errorf("%w: %q is missing", ErrBadTell, name)
	case raw[0] != '[':
		return nil, fmt.Errorf("%w: %q must be an array of numbers, got %s", ErrBadTell, name, jsonKind(raw))
	}
	var elems []json.RawMessage
	if err := json.Unmarshal(raw, &elems); err != nil {
		return nil, fmt.Errorf("%w: %q: %w", ErrBadTell, name, err)
	}
	v := make([]float64, len(elems))
	for i, e := range elems {
		var err error
		if v[i], err = jsonNumber(fmt.Sprintf("%s%d", name, i+1), e); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrBadTell, err)
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
		return JSONError(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("trailing data after the JSON object")
	}
	return nil
}

// JSONError restates an error of encoding/json's decoder in the words of
// the request rather than of Go ("json: cannot unmarshal array into Go
// value of type struct { … }" becomes "want a JSON object, got an
// array"): what a client reads is the API's JSON, not our types.
func JSONError(err error) error {
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

// RetractRequest names the observation to retract: the "observation"
// number a tell answered with.
type RetractRequest struct {
	Observation int `json:"observation"`
}

// DecodeRetract decodes a JSON retraction request strictly: errors wrap
// ErrBadRetract.
func DecodeRetract(data []byte) (*RetractRequest, error) {
	var raw struct {
		Observation json.RawMessage `json:"observation"`
	}
	if err := decodeObject(data, &raw); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadRetract, err)
	}
	n, err := jsonInt("observation", raw.Observation)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadRetract, err)
	}
	return &RetractRequest{Observation: n}, nil
}

// TellAnswer is what tell returns.
type TellAnswer struct {
	Observation int   `json:"observation"` // the event's sequence number
	Ask         int   `json:"ask,omitempty"`
	Index       int   `json:"index"`
	Violation   bool  `json:"violation"`
	Violated    []int `json:"violated,omitempty"` // 1-based constraints with g_i < h_i
	Rounds      int   `json:"rounds"`             // observations so far, not counting retracted ones
	// Warnings flag values far from what the model expects (likely
	// typos, see warnSigmas); the observation is recorded all the same.
	Warnings []string `json:"warnings,omitempty"`
	// ViolatedObjective is f < h_f, for a study with an objective
	// threshold (SPEC §5, "Safe objective"): a field of its own, so that
	// Violated keeps naming constraints g_i only and older clients read
	// the answer as before (Violation is true either way).
	ViolatedObjective bool `json:"violated_objective,omitempty"`
}

// warnSigmas is how far, in predictive standard deviations
// √(σ²_post + σ²_noise), a told value may lie from the model's mean at its
// action before the tell warns. Under the model a deviation of 6 has odds
// of about 1 in 500 million: far likelier a typo than a measurement.
const warnSigmas = 6

func (s *Study) validate(t *TellRequest) (Event, error) {
	return s.validateAt(t, len(s.events)+1, true)
}

// validateAt checks tell t as event seq; a tell outside the loop is
// checked against the horizon when horizon is set (an import checks its
// rows' total instead).
func (s *Study) validateAt(t *TellRequest, seq int, horizon bool) (Event, error) {
	e := Event{Kind: "tell", Seq: seq, Created: time.Now().UTC()}
	if btoi(t.Ask != nil)+btoi(t.Index != nil)+btoi(t.X != nil) > 1 {
		return e, fmt.Errorf("%w: give exactly one of ask, index and x", ErrBadTell)
	}
	switch {
	case t.Ask != nil:
		i, ok := s.asks[*t.Ask]
		if !ok {
			return e, fmt.Errorf("%w: %d is not an ask of study %q", ErrUnknownAsk, *t.Ask, s.name)
		}
		if s.told[*t.Ask] {
			return e, fmt.Errorf("%w: ask %d of study %q", ErrAlreadyTold, *t.Ask, s.name)
		}
		if r := s.withdrawn[*t.Ask]; r != 0 {
			return e, fmt.Errorf("%w: ask %d of study %q was withdrawn by retraction %d, since it was chosen with the retracted value; ask again (if you ran it already, tell the measurement with index %d instead)", ErrWithdrawn, *t.Ask, s.name, r, s.events[i].Index)
		}
		if t.Context != nil {
			return e, fmt.Errorf("%w: context: a tell of an ask has the ask's context; leave it out", ErrBadTell)
		}
		// A tell of an ask handed out is accepted even at the horizon:
		// the experiment has been run.
		e.Ask, e.Index, e.X, e.Context = *t.Ask, s.events[i].Index, s.events[i].X, s.events[i].Context
	case t.Index != nil || t.X != nil:
		if t.Index != nil && s.res.Box != nil {
			return e, fmt.Errorf("%w: study %q has a box decision set, without action indices: tell by ask or by x", ErrBadTell, s.name)
		}
		if t.Index != nil && (*t.Index < 0 || *t.Index >= len(s.res.X)) {
			return e, fmt.Errorf("%w: index %d outside the decision set's 0…%d", ErrBadTell, *t.Index, len(s.res.X)-1)
		}
		if d := s.res.Dim(); t.X != nil && len(t.X) != d {
			return e, fmt.Errorf("%w: x has %s, the decision set's actions have %d", ErrBadTell, plural.Count(len(t.X), "coordinate"), d)
		}
		if b := s.res.Box; b != nil {
			for j, v := range t.X {
				if lh := b.Bounds[j]; !(v >= lh[0] && v <= lh[1]) {
					return e, fmt.Errorf("%w: x%d = %v is outside the box's [%v, %v]", ErrBadTell, j+1, v, lh[0], lh[1])
				}
			}
		}
		for j, v := range t.X {
			if !problem.InRange(v) {
				return e, fmt.Errorf("%w: x%d = %v is not a finite number within ±1e100", ErrBadTell, j+1, v)
			}
		}
		c, err := s.contextValues(t.Context, "a tell outside the loop")
		if err != nil {
			return e, fmt.Errorf("%w: %w", ErrBadTell, err)
		}
		e.Context = c
		// The pending asks keep their places within the horizon.
		if held := s.nObs + len(s.pending); horizon && held >= s.res.Spec.Horizon {
			return e, fmt.Errorf("%w: study %q has %s and %s for a horizon of %d; an observation outside the loop would exceed it", ErrHorizon, s.name, plural.Count(s.nObs, "observation"), plural.Count(held-s.nObs, "pending ask"), s.res.Spec.Horizon)
		}
		if t.Index != nil {
			e.Index, e.X = *t.Index, s.res.X[*t.Index]
			break
		}
		// A point of the decision set is that action: it counts as one
		// (violations, the best safe action) and is told by index.
		if s.lookup != nil {
			e.Index = -1
			if i, ok := s.lookup[pointKey(t.X)]; ok {
				e.Index = i
			}
		} else {
			e.Index = slices.IndexFunc(s.res.X, func(x []float64) bool { return slices.Equal(x, t.X) })
		}
		if e.Index >= 0 {
			e.X = s.res.X[e.Index]
		} else {
			e.X = append([]float64(nil), t.X...)
			for j, v := range e.X {
				e.X[j] = vec.PlusZero(v)
			}
			if err := s.checkOutside(1); err != nil {
				return e, err
			}
		}
	default:
		return e, fmt.Errorf("%w: give exactly one of ask, index and x", ErrBadTell)
	}
	if t.F == nil || !problem.InRange(*t.F) {
		return e, fmt.Errorf("%w: f must be a finite number within ±1e100", ErrBadTell)
	}
	m := len(s.res.Spec.Thresholds)
	switch {
	case t.G == nil && m > 0:
		return e, fmt.Errorf("%w: \"g\" is missing: give the %s measured", ErrBadTell, plural.Count(m, "constraint value"))
	case len(t.G) != m:
		return e, fmt.Errorf("%w: %s given, the study has %s", ErrBadTell, plural.Count(len(t.G), "constraint value"), plural.Count(m, "constraint"))
	}
	for i, v := range t.G {
		if !problem.InRange(v) {
			return e, fmt.Errorf("%w: g%d = %v is not a finite number within ±1e100", ErrBadTell, i+1, v)
		}
	}
	if t.NoiseStd != nil {
		if err := checkNoiseStd(*t.NoiseStd); err != nil {
			return e, err
		}
		v := *t.NoiseStd
		e.NoiseStd = &v
	}
	e.F, e.G = *t.F, append([]float64(nil), t.G...)
	return e, nil
}

// MaxOutside bounds the observations a study holds at points outside its
// decision set. Opening a study replays them, and each costs a forward
// substitution through the observations before it, O(t²), so their
// replay is O(t³) in all: measured on the project's 2-core machine, 13 s
// at 4 000 and 107 s at 8 000 (beyond the HTTP server's 60 s write
// timeout), and about 2 s at this bound.
const MaxOutside = 2000

// checkOutside refuses, with ErrBadTell, more observations outside the
// decision set than MaxOutside, or when the study's memory estimate with
// them (BytesWith) would exceed the service's limit: each holds a row of L
// in every GP.
func (s *Study) checkOutside(more int) error {
	if s.outside+more > MaxOutside {
		return fmt.Errorf("%w: study %q holds %d observations at points outside its decision set and would hold %d: at most %d, since each costs every later replay a forward substitution through all the observations before it (O(t³) in all: about 2 s at %d, 13 s at 4 000, 2 min at 8 000 on a 2-core machine); import a subset, or create the study with those points in its decision set", ErrBadTell, s.name, s.outside, s.outside+more, MaxOutside, MaxOutside)
	}
	if s.maxMemory == 0 {
		return nil
	}
	if err := s.res.CheckMemoryWith(s.maxMemory, s.outside+more); err != nil {
		return fmt.Errorf("%w: study %q: %w", ErrBadTell, s.name, err)
	}
	return nil
}

// bytes is the study's memory estimate with the observations outside its
// decision set it holds.
func (s *Study) bytes() int64 { return s.res.BytesWith(s.outside) }

// ServiceOptions configure a Service.
type ServiceOptions struct {
	// MaxOpen bounds the studies kept in memory (0: DefaultMaxOpen). When
	// another is needed, the least recently used study not in use is
	// dropped (it is rebuilt by replay on its next use); while every one
	// is in use, a request for another study waits.
	MaxOpen int
	// MaxMemory, if not zero, refuses to create or load a study whose
	// memory estimate exceeds it, in bytes (Resolved.CheckMemory), and
	// bounds the estimates of the studies held open together: least
	// recently used ones are dropped to make room, and while the studies in
	// use fill it, loading another fails with ErrOverloaded.
	MaxMemory int64
	// Now is the clock of the leases (AskOptions.LeaseSeconds):
	// time.Now when nil. Tests give a fake one.
	Now func() time.Time
	// MaxImportSeconds, if > 0, refuses an import whose estimated time
	// (at ImportRate) exceeds it, before anything is done
	// (ErrImportTooLarge): the HTTP service sets it well within its write
	// timeout, so that every import it takes is answered.
	MaxImportSeconds float64
}

// DefaultMaxOpen is the default of ServiceOptions.MaxOpen.
const DefaultMaxOpen = 16

// Service gives access to the studies of one store: it loads a study on
// first use and keeps it in memory (at most MaxOpen of them, least
// recently used out first), serializes the writes to each study and lets
// different studies proceed in parallel.
type Service struct {
	store   *Store
	opt     ServiceOptions
	mu      sync.Mutex
	studies map[string]*entry // at most opt.MaxOpen
	clock   uint64            // counts uses, for least recently used
	bytes   int64             // memory estimates of the loaded studies
	freed   chan struct{}     // closed and replaced when an entry falls out of use
}

type entry struct {
	refs  int    // calls using or waiting for the entry; guarded by Service.mu
	used  uint64 // Service.clock at the last use; guarded by Service.mu
	bytes int64  // the loaded study's memory estimate; guarded by Service.mu
	mu    sync.Mutex
	st    *Study // nil until loaded; guarded by mu
}

// NewService serves the studies of store.
func NewService(store *Store, opt ServiceOptions) *Service {
	if opt.MaxOpen <= 0 {
		opt.MaxOpen = DefaultMaxOpen
	}
	return &Service{store: store, opt: opt, studies: map[string]*entry{}, freed: make(chan struct{})}
}

// acquire returns the named study's entry, counted as in use, making room
// for it if needed.
func (v *Service) acquire(ctx context.Context, name string) (*entry, error) {
	for {
		v.mu.Lock()
		e, ok := v.studies[name]
		if !ok && (len(v.studies) < v.opt.MaxOpen || v.evict()) {
			e, ok = &entry{}, true
			v.studies[name] = e
		}
		if ok {
			e.refs++
			v.clock++
			e.used = v.clock
			v.mu.Unlock()
			return e, nil
		}
		wait := v.freed
		v.mu.Unlock()
		select {
		case <-wait:
		case <-ctx.Done():
			return nil, fmt.Errorf("study %q: waiting for one of the %d open studies to be free: %w", name, v.opt.MaxOpen, ctx.Err())
		}
	}
}

// evict drops the least recently used entry not in use, if there is one.
// Call with v.mu held.
func (v *Service) evict() bool {
	var name string
	var lru *entry
	for n, e := range v.studies {
		if e.refs == 0 && (lru == nil || e.used < lru.used) {
			name, lru = n, e
		}
	}
	if lru == nil {
		return false
	}
	delete(v.studies, name)
	v.bytes -= lru.bytes
	return true
}

// admit counts e's freshly loaded study against MaxMemory, dropping least
// recently used studies not in use to make room.
func (v *Service) admit(e *entry) error {
	b := e.st.bytes()
	v.mu.Lock()
	defer v.mu.Unlock()
	for v.opt.MaxMemory > 0 && v.bytes+b > v.opt.MaxMemory {
		if !v.evict() {
			return fmt.Errorf("%w: the studies in use hold %s of the %s memory limit and study %q needs %s more; retry shortly", ErrOverloaded, memlimit.Format(v.bytes), memlimit.Format(v.opt.MaxMemory), e.st.name, memlimit.Format(b))
		}
	}
	v.bytes += b
	e.bytes = b
	return nil
}

// release ends a use of e; loaded says whether it holds a study. An entry
// left unused and empty (the study is unknown, or must be reloaded) is
// dropped at once rather than hold a place.
func (v *Service) release(name string, e *entry, loaded bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	e.refs--
	if e.refs > 0 {
		return
	}
	if !loaded && v.studies[name] == e {
		delete(v.studies, name)
		v.bytes -= e.bytes
		e.bytes = 0
	}
	close(v.freed)
	v.freed = make(chan struct{})
}

// write is with for a call that records events: a write that lost the
// race to another process (ErrStale: it wrote between with's look at the
// records and our insert) is tried once more on the study reloaded, so
// that a client sees the conflict only when the study changed under it
// twice in a row. fn runs again from the start, on the fresh state: a
// tell whose ask the other process told fails then as already told.
func (v *Service) write(ctx context.Context, name string, fn func(s *Study) error) error {
	err := v.with(ctx, name, fn)
	if errors.Is(err, ErrStale) {
		err = v.with(ctx, name, fn)
	}
	return err
}

// testAfterCheck, when set by a test, runs in with after the look at the
// records and before fn: where another process's write makes ours stale.
var testAfterCheck func(name string)

// with runs fn on the named study, loaded and locked.
func (v *Service) with(ctx context.Context, name string, fn func(s *Study) error) error {
	if err := CheckName(name); err != nil {
		return err
	}
	e, err := v.acquire(ctx, name)
	if err != nil {
		return err
	}
	e.mu.Lock()
	defer func() {
		loaded := e.st != nil
		e.mu.Unlock()
		v.release(name, e, loaded)
	}()
	if e.st != nil {
		// Another process may have written since the study was loaded
		// (the CLI, a second server on the file): every call, a read
		// above all, sees what the records hold. One indexed read.
		last, err := v.store.lastSeq(ctx, name)
		if err != nil {
			return err
		}
		if last != len(e.st.events) {
			v.mu.Lock()
			v.bytes -= e.bytes
			e.bytes = 0
			v.mu.Unlock()
			e.st = nil
		}
	}
	if e.st == nil {
		st, events, err := v.store.load(ctx, name)
		if err != nil {
			return storageError(err, v.store.path)
		}
		if e.st, err = newStudy(name, st, events, v.opt.MaxMemory); err != nil {
			return err
		}
		if err := v.admit(e); err != nil {
			e.st = nil
			return err
		}
	}
	if testAfterCheck != nil {
		testAfterCheck(name)
	}
	err = fn(e.st)
	if e.st != nil {
		// Observations outside the decision set raise the estimate.
		b := e.st.bytes()
		v.mu.Lock()
		v.bytes += b - e.bytes
		e.bytes = b
		v.mu.Unlock()
	}
	if errors.Is(err, ErrStale) || errors.Is(err, errWrite) || errors.Is(err, ErrReplay) {
		// Another process wrote, or our write failed after the policy was
		// consulted, or the policy could not follow a recorded event:
		// rebuild from the records on the next call, so that memory never
		// holds what the database does not.
		e.st = nil
	}
	return err
}

// Create stores a new study.
func (v *Service) Create(ctx context.Context, name string, r *Resolved) error {
	if err := CheckName(name); err != nil {
		return err
	}
	if v.opt.MaxMemory != 0 {
		if err := r.CheckMemory(v.opt.MaxMemory); err != nil {
			return err
		}
	}
	if _, err := newPolicy(r, &r.Spec.Model, 0, 0, false); err != nil {
		return fmt.Errorf("%w: %v", ErrSpec, err)
	}
	spec := *r.Spec
	if r.Box == nil {
		spec.DecisionSet = DecisionSet{Actions: r.X}
		spec.SeedActions = nil
	}
	js, err := json.Marshal(&spec)
	if err != nil {
		return err
	}
	return storageError(v.store.create(ctx, name, js, r.X, r.Seed), v.store.path)
}

// Ask returns the oldest pending ask, or records and returns a new one: an
// AskBatch of one ask without a lease. A study takes at most its
// horizon's worth of observations: once it has them, Ask fails with
// ErrHorizon. A pending ask leased by another caller (AskBatch with a
// lease) is not returned: Ask hands out a new one beside it.
func (v *Service) Ask(ctx context.Context, name string) (*AskAnswer, error) {
	as, err := v.AskBatch(ctx, name, AskOptions{Count: 1})
	if err != nil {
		return nil, err
	}
	return as[0], nil
}

// Tell records an observation in one transaction and feeds it to the
// policy. Bad input changes nothing. An observation made outside the loop
// (by index) is refused with ErrHorizon when it would take the study past
// its horizon, counting the pending ask.
func (v *Service) Tell(ctx context.Context, name string, t *TellRequest) (*TellAnswer, error) {
	var ans *TellAnswer
	err := v.write(ctx, name, func(s *Study) error {
		e, err := s.validate(t)
		if err != nil {
			return err
		}
		ans = &TellAnswer{Observation: e.Seq, Ask: e.Ask, Index: e.Index, Warnings: s.warnings(&e)}
		ans.Violated, ans.ViolatedObjective = s.violated(&e)
		ans.Violation = e.Violation
		if err := v.store.append(ctx, name, &e); err != nil {
			return v.writeFailed(err)
		}
		if err := s.apply(e); err != nil {
			return err
		}
		ans.Rounds = s.nObs
		return nil
	})
	return ans, err
}

// violated returns the constraints an observation violates (1-based,
// g_i < h_i) and whether it violates f ≥ h_f, and sets e.Violation: one
// rule for tells and imports, so that an imported f < h_f is flagged and
// never counts as known safe.
func (s *Study) violated(e *Event) (constraints []int, objective bool) {
	for i, g := range e.G {
		if g < s.res.Spec.Thresholds[i] {
			constraints = append(constraints, i+1)
		}
	}
	if hf := s.res.Spec.ObjectiveThreshold; hf != nil && e.F < *hf {
		objective = true
	}
	e.Violation = len(constraints) > 0 || objective
	return constraints, objective
}

// warnings flags the values of a tell that lie more than warnSigmas
// predictive standard deviations from the model's mean at its point,
// before the update: likely typos, which would otherwise pass for
// measurements (a g far above its threshold makes a wide region safe).
// The predictive sd adds the tell's own noise_std when given, else the
// model's σ. At an action the posterior is the policy's view over the
// set; at a point outside it, the policy's prediction there (O(t²) per
// GP, bandit.Predictor).
func (s *Study) warnings(e *Event) []string {
	model := s.model           // the kernels in force: configured or fitted
	sigma := model.NoiseStds() // each GP's σ: its kernel block's, or the model's
	var f bandit.Posterior
	var g []bandit.Posterior
	at, j := fmt.Sprintf("action %d", e.Index), e.Index
	if e.Context != nil {
		at = fmt.Sprintf("%s in context %s", at, jsonText(s.res.contextMap(e.Context)))
	}
	if e.Index >= 0 && e.Context == nil {
		var snap bandit.Snapshot
		s.pol.Inspect(&snap, bandit.Full)
		f, g = snap.F, snap.G
	} else {
		var pr bandit.Prediction
		// A point outside the decision set, or any point (x, c) of a
		// study with a context, whose policy views one context at a time.
		if err := bandit.Predict(s.pol, &pr, [][]float64{pointOf(e)}); err != nil {
			return nil // validate checked the point: not reached
		}
		f, g, j = pr.F, pr.G, 0
		if e.Index < 0 {
			at = fmt.Sprintf("point %v", e.X)
			if e.Context != nil {
				at = fmt.Sprintf("%s in context %s", at, jsonText(s.res.contextMap(e.Context)))
			}
		}
	}
	var out []string
	check := func(name string, gpj int, v float64, p bandit.Posterior) {
		// The tell's own σ, else the GP's: its kernel block's or the model's.
		noise := *model.NoiseStd
		switch {
		case e.NoiseStd != nil:
			noise = *e.NoiseStd
		case sigma != nil:
			noise = sigma[gpj]
		}
		mean, sd := p.Mean[j], math.Hypot(p.Std[j], noise)
		if z := math.Abs(v-mean) / sd; z > warnSigmas {
			out = append(out, fmt.Sprintf("%s = %.6g is %.3g posterior standard deviations from the model's mean %.3g at %s; if it is a typo, retract it (safegp study retract --observation %d, or POST /v1/studies/%s/retract {\"observation\": %d}) and tell the right value",
				name, v, z, mean, at, e.Seq, s.name, e.Seq))
		}
	}
	check("f", 0, e.F, f)
	for i, v := range e.G {
		check(fmt.Sprintf("g%d", i+1), 1+i, v, g[i])
	}
	return out
}

// rebuild makes a new policy from the observations in force, in their
// order, each told as a measurement outside the loop (id 0, its point
// given) — the same on the live path and on replay, so that the asks
// recorded after a retraction replay exactly.
func (s *Study) rebuild() error {
	pol, err := newPolicy(s.res, &s.model, s.retracts+len(s.fits)<<20, s.nObs, s.covSwitch)
	if err != nil {
		return fmt.Errorf("%w: rebuild the policy: %w", ErrReplay, err)
	}
	for _, e := range s.events {
		if e.Kind == "tell" && s.retracted[e.Seq] == 0 {
			o := observation(&e)
			o.Index, o.X = e.Index, pointOf(&e)
			if err := pol.Tell(0, o); err != nil {
				return fmt.Errorf("%w: rebuild the policy: event %d: %w", ErrReplay, e.Seq, err)
			}
		}
	}
	s.pol = pol
	// The view goes on in the context of the last ask (show, plot), as
	// the policy rebuilt had it.
	return s.lastContext()
}

// lastContext sets a study's contextual policy to the context of its last
// ask event, the context its view is in (a no-op without a context or
// before the first ask).
func (s *Study) lastContext() error {
	if s.res.ContextKernel == nil {
		return nil
	}
	for k := len(s.events) - 1; k >= 0; k-- {
		if e := &s.events[k]; e.Kind == "ask" {
			if err := bandit.SetContext(s.pol, e.Context); err != nil {
				return fmt.Errorf("%w: event %d: %w", ErrReplay, e.Seq, err)
			}
			return nil
		}
	}
	return nil
}

// RetractAnswer is what retract returns.
type RetractAnswer struct {
	Retraction  int `json:"retraction"`  // the retraction's sequence number
	Observation int `json:"observation"` // the observation retracted
	Index       int `json:"index"`       // its action
	Rounds      int `json:"rounds"`      // observations in force after the retraction
	// WithdrawnAsks are the asks that were pending, oldest first, now
	// withdrawn: they were chosen with the retracted value.
	WithdrawnAsks []int `json:"withdrawn_asks,omitempty"`
	// WithdrawnAsk is the first of WithdrawnAsks, kept for clients of
	// the time when a study held one pending ask at most.
	WithdrawnAsk int `json:"withdrawn_ask,omitempty"`
}

// Retract records that an observation (a tell's sequence number) must no
// longer count — a mistyped measurement — and rebuilds the policy without
// it. The observation stays in the records, flagged. The pending asks are
// withdrawn, since they were chosen with the retracted value, and their
// leases dropped. Retracting an unknown observation, an ask, or an
// observation retracted already is an error that changes nothing.
func (v *Service) Retract(ctx context.Context, name string, observation int) (*RetractAnswer, error) {
	var ans *RetractAnswer
	err := v.write(ctx, name, func(s *Study) error {
		k, ok := s.tells[observation]
		if !ok {
			if observation >= 1 && observation <= len(s.events) {
				return fmt.Errorf("%w: event %d of study %q is a%s, not an observation", ErrUnknownObservation, observation, s.name, map[string]string{"ask": "n ask", "retract": " retraction", "fit": " fit of the model"}[s.events[observation-1].Kind])
			}
			return fmt.Errorf("%w: study %q has no observation %d", ErrUnknownObservation, s.name, observation)
		}
		if r := s.retracted[observation]; r != 0 {
			return fmt.Errorf("%w: observation %d of study %q was retracted by event %d", ErrAlreadyRetracted, observation, s.name, r)
		}
		e := Event{Seq: len(s.events) + 1, Kind: "retract", Ref: observation, Index: s.events[k].Index, X: s.events[k].X, Created: time.Now().UTC()}
		// Every pending ask is withdrawn (apply): name them all.
		var withdrawn []int
		for _, p := range s.pending {
			withdrawn = append(withdrawn, p.ask)
		}
		first := s.firstPending()
		if err := v.store.appendRetraction(ctx, name, &e); err != nil {
			return v.writeFailed(err)
		}
		if err := s.apply(e); err != nil {
			return err
		}
		ans = &RetractAnswer{Retraction: e.Seq, Observation: observation, Index: e.Index, Rounds: s.nObs, WithdrawnAsks: withdrawn, WithdrawnAsk: first}
		return nil
	})
	return ans, err
}
