package api

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strings"
	"sync"

	"github.com/safegp/safegp/bandit"
	"github.com/safegp/safegp/internal/number"
	"github.com/safegp/safegp/internal/quote"
	"github.com/safegp/safegp/problem"
	"github.com/safegp/safegp/space"
	"github.com/safegp/safegp/store"
)

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
	// Trial, Params and Best are a study stated in parameters' (no index
	// or x in its JSON, which Params set marks): the ask's trial number,
	// its setting, and the best safe trial so far.
	Trial  int           `json:"-"`
	Params space.Setting `json:"-"`
	Best   *Best         `json:"-"`
	// Notes say why the study may not be making progress (its safe set
	// has not grown, notes.go) or why a batch is smaller than asked.
	Notes []string `json:"notes,omitempty"`
	// BackToBest marks the ask after a violation or a failed trial under
	// after_violation: best: the best safe setting measured so far, not
	// the policy's choice.
	BackToBest bool `json:"back_to_best,omitempty"`
}

// MarshalJSON writes {"ask", "index", "x"}, or {"ask", "x"} on a box
// (Index −1), with "lease_until" and "lease" when the ask is leased; a
// study stated in parameters' as {"ask", "trial", "params", "best"}.
func (a AskAnswer) MarshalJSON() ([]byte, error) {
	switch {
	case a.Params != nil:
		return json.Marshal(struct {
			Ask        int           `json:"ask"`
			Trial      int           `json:"trial"`
			Params     space.Setting `json:"params"`
			LeaseUntil string        `json:"lease_until,omitempty"`
			Lease      string        `json:"lease,omitempty"`
			Best       *Best         `json:"best"`
			Notes      []string      `json:"notes,omitempty"`
			BackToBest bool          `json:"back_to_best,omitempty"`
		}{a.Ask, a.Trial, a.Params, a.LeaseUntil, a.Lease, a.Best, a.Notes, a.BackToBest})
	case a.Index < 0:
		return json.Marshal(struct {
			Ask        int       `json:"ask"`
			X          []float64 `json:"x"`
			LeaseUntil string    `json:"lease_until,omitempty"`
			Lease      string    `json:"lease,omitempty"`
			Notes      []string  `json:"notes,omitempty"`
			BackToBest bool      `json:"back_to_best,omitempty"`
		}{a.Ask, a.X, a.LeaseUntil, a.Lease, a.Notes, a.BackToBest})
	}
	type plain AskAnswer
	return json.Marshal(plain(a))
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
	// A study stated in parameters takes Params (a measurement outside
	// the loop: the setting it was made at; a tell of an ask has the
	// ask's) and Values, every outcome's by name, instead of x, index, f
	// and g.
	Params space.Setting      `json:"params,omitempty"`
	Values map[string]float64 `json:"values,omitempty"`
	// Failed says the trial produced no values (a crash, a tripped
	// interlock, a lost measurement): no f, g or values. The setting is
	// never asked again and counts against every limit (docs/safety.md,
	// "Failed trials").
	Failed bool `json:"failed,omitempty"`
	// Line is the line of the file an imported row was read from
	// (ParseImportCSV), named by the import's errors; 0 for a row that
	// came otherwise (a JSON import's, named by its place).
	Line int `json:"-"`
}

// CheckNoiseStd accepts a noise standard deviation: a number in
// [0, 1e100] (its square must stay a finite variance). Errors wrap
// ErrBadTell and name the field.
func CheckNoiseStd(v float64) error {
	if !(v >= 0) || !problem.InRange(v) {
		return fmt.Errorf("%w: noise_std = %v: want the measurement's noise standard deviation, a finite number ≥ 0 (leave it out for the model's σ)", ErrBadTell, v)
	}
	return nil
}

// TellAnswer is what tell returns.
type TellAnswer struct {
	Observation int `json:"observation"` // the event's sequence number
	// Trial is the tell's trial, and Best the best safe trial after it,
	// of a study stated in parameters.
	Trial     *int  `json:"trial,omitempty"`
	Best      *Best `json:"best,omitempty"`
	Ask       int   `json:"ask,omitempty"`
	Index     int   `json:"index"`
	Violation bool  `json:"violation"`
	// Failed: the trial was told as failed, without values.
	Failed   bool  `json:"failed,omitempty"`
	Violated []int `json:"violated,omitempty"` // 1-based constraints with g_i < h_i
	Rounds   int   `json:"rounds"`             // observations so far, not counting retracted ones
	// Warnings flag values far from what the model expects (likely
	// typos, see warnSigmas); the observation is recorded all the same.
	Warnings []string `json:"warnings,omitempty"`
	// Calibration, when the recent measurements make the model
	// implausible (calibration.go), says so and what to do.
	Calibration string `json:"calibration,omitempty"`
	// ViolatedObjective is f < h_f, for a study with an objective
	// threshold (SPEC §5, "Safe objective"): a field of its own, so that
	// Violated keeps naming constraints g_i only and older clients read
	// the answer as before (Violation is true either way).
	ViolatedObjective bool `json:"violated_objective,omitempty"`

	// Outcomes are a study stated in parameters' outcome names (nil
	// otherwise): its JSON names the outcomes whose limits a tell broke.
	Outcomes []string `json:"-"`
}

// MarshalJSON writes a study stated in parameters' answer as
// {"observation", "trial", "ask", "violation", "violated": [names],
// "rounds", "best", "warnings"}, another's as its fields.
func (a TellAnswer) MarshalJSON() ([]byte, error) {
	if a.Outcomes == nil {
		type plain TellAnswer
		return json.Marshal(plain(a))
	}
	var names []string
	if a.ViolatedObjective {
		names = append(names, a.Outcomes[0])
	}
	for _, j := range a.Violated {
		names = append(names, a.Outcomes[j])
	}
	return json.Marshal(struct {
		Observation int      `json:"observation"`
		Trial       *int     `json:"trial"`
		Ask         int      `json:"ask,omitempty"`
		Violation   bool     `json:"violation"`
		Failed      bool     `json:"failed,omitempty"`
		Violated    []string `json:"violated,omitempty"`
		Rounds      int      `json:"rounds"`
		Best        *Best    `json:"best"`
		Warnings    []string `json:"warnings,omitempty"`
		Calibration string   `json:"calibration,omitempty"`
	}{a.Observation, a.Trial, a.Ask, a.Violation, a.Failed, names, a.Rounds, a.Best, a.Warnings, a.Calibration})
}

// MaxBatch is the most asks one ask call hands out, and the most a study
// holds pending: the policy's bound (bandit.MaxBatch), whose scratch the
// study's memory estimate counts.
const MaxBatch = bandit.MaxBatch

// MaxLeaseSeconds bounds a lease: a week. A worker that needs longer
// sends heartbeats; a lease beyond it is a unit mistake (milliseconds for
// seconds) that would lock an ask away for good.
const MaxLeaseSeconds = 7 * 24 * 3600

// AskOptions are the options of an ask call.
type AskOptions struct {
	// Count is the most asks to hand out, 1 … MaxBatch (0: 1).
	Count int
	// LeaseSeconds, if not 0, leases every ask handed out for that long
	// (0 < LeaseSeconds ≤ MaxLeaseSeconds): until it ends, or a tell, no
	// other ask call hands the ask out again. 0: no lease.
	LeaseSeconds float64
	// Context is the context measured now, for a study with a context
	// (every variable, nothing else; nil for a study without one): the
	// asks are chosen from D × {c} (AskIn).
	Context map[string]float64
}

// Check validates the options: errors wrap ErrBadAsk and name the field.
func (o *AskOptions) Check() error {
	if o.Count == 0 {
		o.Count = 1
	}
	if o.Count < 1 || o.Count > MaxBatch {
		return fmt.Errorf("%w: count = %d: want 1 … %d asks", ErrBadAsk, o.Count, MaxBatch)
	}
	return CheckLease(ErrBadAsk, "lease_seconds", o.LeaseSeconds, true)
}

// CheckLease accepts a lease length in seconds: a finite number in
// (0, MaxLeaseSeconds], or 0 when zero (no lease) is allowed. Errors wrap
// bad (ErrBadAsk, ErrBadHeartbeat) and name the field (an HTTP field,
// or a command-line flag).
func CheckLease(bad error, field string, v float64, zero bool) error {
	if v == 0 && zero {
		return nil
	}
	if !(v > 0) || v > MaxLeaseSeconds || math.IsInf(v, 0) {
		want := "a number of seconds > 0"
		if zero {
			want = "a number of seconds ≥ 0 (0: no lease)"
		}
		named := field + " = " // "lease_seconds = 5", "--lease 5"
		if strings.HasPrefix(field, "-") {
			named = field + " "
		}
		return fmt.Errorf("%w: %s%v: want %s, at most %d (a week; renew a longer lease with heartbeats)", bad, named, v, want, MaxLeaseSeconds)
	}
	return nil
}

// BatchAnswer is the answer of an ask call that names a count: the asks
// handed out.
type BatchAnswer struct {
	Asks []*AskAnswer `json:"asks"`
	// Notes are the asks' notes, the same for every ask of a call: why
	// the study may not be making progress, and why the batch is
	// smaller than asked for.
	Notes []string `json:"notes,omitempty"`
}

// NewBatchAnswer is the answer of a batch ask call: the asks, with their
// notes once for the batch.
func NewBatchAnswer(as []*AskAnswer) BatchAnswer {
	b := BatchAnswer{Asks: as}
	if len(as) > 0 {
		b.Notes = as[0].Notes
		for _, a := range as {
			a.Notes = nil
		}
	}
	return b
}

// LeaseAnswer is what a heartbeat returns: the lease's new end and its
// token (the one the heartbeat named, kept; a new one for an ask that had
// no holder's token).
type LeaseAnswer struct {
	Ask        int    `json:"ask"`
	LeaseUntil string `json:"lease_until"`
	Lease      string `json:"lease"`
}

// HeartbeatRequest is a heartbeat: the ask and the new lease's length,
// both required, and optionally the lease token the ask was handed out
// with.
type HeartbeatRequest struct {
	Ask          int     `json:"ask"`
	LeaseSeconds float64 `json:"lease_seconds"`
	// Lease is the token of the ask answer ("lease"): given, only its
	// holder renews the lease (ErrLeaseLost once the ask went to another
	// caller); "" renews it whoever holds it.
	Lease string `json:"lease,omitempty"`
}

// Check validates the request's length and token: errors wrap
// ErrBadHeartbeat and name the field.
func (r *HeartbeatRequest) Check() error {
	if err := CheckLease(ErrBadHeartbeat, "lease_seconds", r.LeaseSeconds, false); err != nil {
		return err
	}
	if r.Lease != "" {
		if !store.ValidLeaseToken(r.Lease) {
			return fmt.Errorf("%w: lease token %.40q: want the token of the ask answer (its \"lease\", %d hex digits), or none", ErrBadHeartbeat, r.Lease, store.LeaseTokenLen)
		}
	}
	return nil
}

// ParseContext parses context values written name=value,name=value (the
// command line's --context). Errors wrap ErrBadContext.
func ParseContext(s string) (map[string]float64, error) {
	c := map[string]float64{}
	for _, kv := range strings.Split(s, ",") {
		name, val, ok := strings.Cut(strings.TrimSpace(kv), "=")
		name, val = strings.TrimSpace(name), strings.TrimSpace(val)
		if !ok || name == "" {
			return nil, fmt.Errorf("%w: %s is not name=value (give --context temperature=21.5,load=0.3)", ErrBadContext, quote.Short(kv))
		}
		if _, dup := c[name]; dup {
			return nil, fmt.Errorf("%w: context.%s is given twice", ErrBadContext, quote.Prefix(name))
		}
		v, err := number.Parse(val)
		if err != nil {
			return nil, fmt.Errorf("%w: context.%s: %w", ErrBadContext, quote.Prefix(name), err)
		}
		c[name] = v
	}
	return c, nil
}
