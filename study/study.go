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
	"strings"
	"sync"
	"time"

	"github.com/safegp/safegp/bandit"
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
	ErrStale       = errors.New("study changed in another process")
	ErrReplay      = errors.New("stored study does not replay")
)

// errWrite marks a failed database write (busy, cancelled, disk full).
var errWrite = errors.New("write failed")

func writeFailed(err error) error {
	if errors.Is(err, ErrStale) {
		return err
	}
	return fmt.Errorf("%w: %w", errWrite, err)
}

// ErrBusy reports whether err is a database held by another writer for
// longer than the busy timeout: worth a retry.
func ErrBusy(err error) bool {
	return err != nil && (strings.Contains(err.Error(), "SQLITE_BUSY") || strings.Contains(err.Error(), "database is locked"))
}

var validName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$`)

// CheckName accepts names of 1–100 letters, digits, '.', '_' and '-',
// starting with a letter or digit: safe in URLs and file names.
func CheckName(name string) error {
	if !validName.MatchString(name) {
		return fmt.Errorf("%w: %q (1–100 letters, digits, '.', '_', '-', starting with a letter or digit)", ErrBadName, name)
	}
	return nil
}

// Study is one study's state in memory: its policy, rebuilt by replaying
// every recorded ask and tell. Not safe for concurrent use; Service
// serializes access.
type Study struct {
	name    string
	res     *Resolved
	pol     bandit.Policy
	events  []Event
	asks    map[int]int  // ask id → index into events
	told    map[int]bool // ask ids already told
	pending int          // id of the ask handed out and not yet told, 0 if none
	nObs    int
	viol    int
	created time.Time
}

// policyStream is the stream a study's policy draws its random choices
// from (phase-1 uniform sampling): fixed by the spec's seed.
const policyStream = 0x57d1

func newStudy(name string, st *stored, events []Event) (*Study, error) {
	spec, err := ParseSpec(st.spec)
	if err != nil {
		return nil, fmt.Errorf("study %q: stored spec: %w", name, err)
	}
	// The stored actions and seeds stand in for the original file.
	spec.DecisionSet = DecisionSet{Actions: st.actions}
	spec.SeedActions = st.seeds
	res, err := spec.Resolve("")
	if err != nil {
		return nil, fmt.Errorf("study %q: stored spec: %w", name, err)
	}
	s := &Study{name: name, res: res, asks: map[int]int{}, told: map[int]bool{}, created: st.created}
	if s.pol, err = newPolicy(res); err != nil {
		return nil, fmt.Errorf("study %q: %w", name, err)
	}
	for _, e := range events {
		if err := s.apply(e, true); err != nil {
			return nil, fmt.Errorf("study %q: %w", name, err)
		}
	}
	return s, nil
}

func newPolicy(r *Resolved) (bandit.Policy, error) {
	s := r.Spec
	return bandit.New(&s.Algorithm, &bandit.Env{
		X: r.X, Seed: r.Seed, H: s.Thresholds, Epsilon: r.Epsilon,
		Objective: r.Kernels.F, Constraints: r.Kernels.G,
		NoiseStd: *s.Model.NoiseStd, Delta: *s.Model.Delta, Beta: *s.Model.Beta,
		Horizon: s.Horizon, Rand: rand.New(rand.NewPCG(s.Seed, policyStream)),
		Grow: true, // a study may stop long before its horizon
	})
}

// apply feeds one recorded event to the policy. When replaying, an ask must
// get the same action it got when it was recorded.
func (s *Study) apply(e Event, replay bool) error {
	switch e.Kind {
	case "ask":
		if replay {
			if a := s.pol.Next(); a != e.Index {
				return fmt.Errorf("%w: event %d: the recorded ask is action %d, the policy now suggests %d; the study was recorded by a safegp whose policy behaves differently (export its observations and replay them as index tells into a new study)", ErrReplay, e.Seq, e.Index, a)
			}
		}
		s.asks[e.Ask] = len(s.events)
		s.events = append(s.events, e)
		s.pending = e.Ask
	case "tell":
		if e.Index < 0 || e.Index >= len(s.res.X) || len(e.G) != len(s.res.Spec.Thresholds) {
			return fmt.Errorf("%w: event %d: malformed tell", ErrReplay, e.Seq)
		}
		s.pol.Observe(e.Index, e.F, e.G)
		if e.Ask != 0 {
			s.told[e.Ask] = true
			if s.pending == e.Ask {
				s.pending = 0
			}
		}
		s.events = append(s.events, e)
		s.nObs++
		if e.Violation {
			s.viol++
		}
	default:
		return fmt.Errorf("%w: event %d: unknown kind %q", ErrReplay, e.Seq, e.Kind)
	}
	return nil
}

// AskAnswer is what ask returns.
type AskAnswer struct {
	Ask   int       `json:"ask"`
	Index int       `json:"index"`
	X     []float64 `json:"x"`
}

func (s *Study) answer(ask int) *AskAnswer {
	e := s.events[s.asks[ask]]
	return &AskAnswer{Ask: e.Ask, Index: e.Index, X: s.res.X[e.Index]}
}

// TellRequest is an observation: of the action of ask Ask, or of action
// Index made outside the loop (exactly one of the two).
type TellRequest struct {
	Ask   *int      `json:"ask,omitempty"`
	Index *int      `json:"index,omitempty"`
	F     *float64  `json:"f"`
	G     []float64 `json:"g"`
}

// DecodeTell decodes a JSON tell request strictly: unknown fields, trailing
// data, NaN/Inf (as strings or otherwise) and missing values are errors.
// It checks the shape only; the study checks the values against itself.
func DecodeTell(data []byte) (*TellRequest, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var t TellRequest
	if err := dec.Decode(&t); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadTell, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("%w: trailing data after the JSON object", ErrBadTell)
	}
	if (t.Ask == nil) == (t.Index == nil) {
		return nil, fmt.Errorf("%w: give exactly one of \"ask\" and \"index\"", ErrBadTell)
	}
	if t.F == nil {
		return nil, fmt.Errorf("%w: \"f\" is missing", ErrBadTell)
	}
	if t.G == nil {
		return nil, fmt.Errorf("%w: \"g\" is missing", ErrBadTell)
	}
	return &t, nil
}

// TellAnswer is what tell returns.
type TellAnswer struct {
	Observation int   `json:"observation"` // the event's sequence number
	Ask         int   `json:"ask,omitempty"`
	Index       int   `json:"index"`
	Violation   bool  `json:"violation"`
	Violated    []int `json:"violated,omitempty"` // 1-based constraints with g_i < h_i
	Rounds      int   `json:"rounds"`             // observations so far
}

func (s *Study) validate(t *TellRequest) (Event, error) {
	e := Event{Kind: "tell", Seq: len(s.events) + 1, Created: time.Now().UTC()}
	switch {
	case t.Ask != nil && t.Index != nil:
		return e, fmt.Errorf("%w: give exactly one of ask and index, not both", ErrBadTell)
	case t.Ask != nil:
		i, ok := s.asks[*t.Ask]
		if !ok {
			return e, fmt.Errorf("%w: %d is not an ask of study %q", ErrUnknownAsk, *t.Ask, s.name)
		}
		if s.told[*t.Ask] {
			return e, fmt.Errorf("%w: ask %d of study %q", ErrAlreadyTold, *t.Ask, s.name)
		}
		e.Ask, e.Index = *t.Ask, s.events[i].Index
	case t.Index != nil:
		if *t.Index < 0 || *t.Index >= len(s.res.X) {
			return e, fmt.Errorf("%w: index %d outside the decision set's 0…%d", ErrBadTell, *t.Index, len(s.res.X)-1)
		}
		e.Index = *t.Index
	default:
		return e, fmt.Errorf("%w: give exactly one of ask and index", ErrBadTell)
	}
	if t.F == nil || math.IsNaN(*t.F) || math.IsInf(*t.F, 0) {
		return e, fmt.Errorf("%w: f must be a finite number", ErrBadTell)
	}
	m := len(s.res.Spec.Thresholds)
	if len(t.G) != m {
		return e, fmt.Errorf("%w: %d constraint values given, the study has %d constraints", ErrBadTell, len(t.G), m)
	}
	for i, v := range t.G {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return e, fmt.Errorf("%w: g%d = %v is not finite", ErrBadTell, i+1, v)
		}
	}
	e.F, e.G = *t.F, append([]float64(nil), t.G...)
	return e, nil
}

// Service gives access to the studies of one store: it loads a study on
// first use and keeps it in memory, serializes the writes to each study and
// lets different studies proceed in parallel.
type Service struct {
	store   *Store
	mu      sync.Mutex
	studies map[string]*entry
}

type entry struct {
	mu sync.Mutex
	st *Study // nil until loaded
}

// NewService serves the studies of store.
func NewService(store *Store) *Service {
	return &Service{store: store, studies: map[string]*entry{}}
}

// with runs fn on the named study, loaded and locked.
func (v *Service) with(ctx context.Context, name string, fn func(s *Study) error) error {
	if err := CheckName(name); err != nil {
		return err
	}
	v.mu.Lock()
	e, ok := v.studies[name]
	if !ok {
		e = &entry{}
		v.studies[name] = e
	}
	v.mu.Unlock()
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.st == nil {
		st, events, err := v.store.load(ctx, name)
		if err != nil {
			return err
		}
		if e.st, err = newStudy(name, st, events); err != nil {
			return err
		}
	}
	err := fn(e.st)
	if errors.Is(err, ErrStale) || errors.Is(err, errWrite) {
		// Another process wrote, or our write failed after the policy was
		// consulted: rebuild from the records on the next call, so that
		// memory never holds what the database does not.
		e.st = nil
	}
	if errors.Is(err, ErrNotFound) {
		v.mu.Lock()
		delete(v.studies, name)
		v.mu.Unlock()
	}
	return err
}

// Create stores a new study.
func (v *Service) Create(ctx context.Context, name string, r *Resolved) error {
	if err := CheckName(name); err != nil {
		return err
	}
	if _, err := newPolicy(r); err != nil {
		return fmt.Errorf("%w: %v", ErrSpec, err)
	}
	spec := *r.Spec
	spec.DecisionSet = DecisionSet{Actions: r.X}
	spec.SeedActions = nil
	js, err := json.Marshal(&spec)
	if err != nil {
		return err
	}
	return v.store.create(ctx, name, js, r.X, r.Seed)
}

// Ask returns the pending ask, or records and returns a new one.
func (v *Service) Ask(ctx context.Context, name string) (*AskAnswer, error) {
	var a *AskAnswer
	err := v.with(ctx, name, func(s *Study) error {
		if s.pending != 0 {
			a = s.answer(s.pending)
			return nil
		}
		seq := len(s.events) + 1
		e := Event{Seq: seq, Kind: "ask", Ask: seq, Index: s.pol.Next(), Created: time.Now().UTC()}
		if err := v.store.append(ctx, name, &e); err != nil {
			return writeFailed(err)
		}
		if err := s.apply(e, false); err != nil {
			return err
		}
		a = s.answer(s.pending)
		return nil
	})
	return a, err
}

// Tell records an observation in one transaction and feeds it to the
// policy. Bad input changes nothing.
func (v *Service) Tell(ctx context.Context, name string, t *TellRequest) (*TellAnswer, error) {
	var ans *TellAnswer
	err := v.with(ctx, name, func(s *Study) error {
		e, err := s.validate(t)
		if err != nil {
			return err
		}
		ans = &TellAnswer{Observation: e.Seq, Ask: e.Ask, Index: e.Index}
		for i, g := range e.G {
			if g < s.res.Spec.Thresholds[i] {
				ans.Violated = append(ans.Violated, i+1)
			}
		}
		e.Violation = len(ans.Violated) > 0
		ans.Violation = e.Violation
		if err := v.store.append(ctx, name, &e); err != nil {
			return writeFailed(err)
		}
		if err := s.apply(e, false); err != nil {
			return err
		}
		ans.Rounds = s.nObs
		return nil
	})
	return ans, err
}
