package study

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/safegp/safegp/bandit"
	"github.com/safegp/safegp/store"
	"github.com/safegp/safegp/study/api"
)

// batchSpec is a 1-D study of 41 actions on [0, 4] whose constraint is
// safe on [0.5, 3.5] (batchTruth), with algorithm alg and horizon h.
func batchSpec(alg string, h int) string {
	return fmt.Sprintf(`{"decision_set": {"grid": {"bounds": [[0, 4]], "points": [41]}}, "seed_actions": [10, 11],
	 "thresholds": [0.0],
	 "model": {"objective": {"kernel": "se", "lengthscale": 1}, "constraints": [{"kernel": "se", "lengthscale": 1}], "noise_std": 0.05, "delta": 0.1, "beta": 4},
	 "algorithm": %s, "horizon": %d, "seed": 3}`, alg, h)
}

func batchTruth(x []float64) (float64, []float64) {
	if len(x) == 2 { // batchBoxSpec's
		return -(x[0]-1)*(x[0]-1) - (x[1]-0.5)*(x[1]-0.5), []float64{1.2 - x[0]*x[0] - x[1]*x[1]}
	}
	return -(x[0] - 2.5) * (x[0] - 2.5), []float64{1.5 - abs(x[0]-2)}
}

// batchBoxSpec is a line-bo study on a 2-D box (safe within radius 1.1
// of the origin) with 8 evaluations per line.
const batchBoxSpec = `{"decision_set": {"box": {"bounds": [[-1, 2], [-1, 2]]}}, "seed_points": [[0.2, 0.3]], "thresholds": [0.0],
 "model": {"objective": {"kernel": "se", "lengthscale": 0.7}, "constraints": [{"kernel": "se", "lengthscale": 0.7}], "noise_std": 0.05, "delta": 0.1, "beta": 4},
 "algorithm": {"name": "line-bo", "inner": "safeopt", "safe_set": "gp", "direction": "random", "points": 50, "per_line": 8}, "horizon": 200, "seed": 5}`

func abs(v float64) float64 { return max(v, -v) }

// fakeClock is a settable clock for the leases.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time          { return c.t }
func (c *fakeClock) advance(d time.Duration) { c.t = c.t.Add(d) }

// batchService opens (creating) the database at path with the clock c.
func batchService(t *testing.T, path string, c *fakeClock) (*Service, func()) {
	t.Helper()
	st, err := store.Open(path, store.OpenOptions{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	return NewService(st, ServiceOptions{Now: c.now}), func() { st.Close() }
}

func createStudy(t *testing.T, v *Service, name, spec string) {
	t.Helper()
	s, err := ParseSpec([]byte(spec))
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.Resolve("")
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Create(context.Background(), name, r); err != nil {
		t.Fatal(err)
	}
}

// tellAsk tells ask a the system's values.
func tellAsk(t *testing.T, v *Service, name string, a *api.AskAnswer) error {
	t.Helper()
	f, g := batchTruth(a.X)
	id := a.Ask
	_, err := v.Tell(context.Background(), name, &api.TellRequest{Ask: &id, F: &f, G: g})
	return err
}

func askIDs(as []*api.AskAnswer) []int {
	ids := make([]int, len(as))
	for k, a := range as {
		ids[k] = a.Ask
	}
	return ids
}

// leaseRows counts the study's rows in the leases table.
func leaseRows(t *testing.T, v *Service, name string) int {
	t.Helper()
	var n int
	if err := rawDB(t, v).QueryRow(`SELECT COUNT(*) FROM leases WHERE study = ?`, name).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestAskBatchLeases walks the lease rules with a fake clock: a leased ask
// goes to no other ask call while its lease runs, and to the next one once
// it has ended (oldest first); plain asks never take leased asks and
// return their own pending one again; a heartbeat renews a lease, also one
// that ended and was not handed out again; a restarted service keeps the
// leases; a tell is accepted whatever the lease, once.
func TestAskBatchLeases(t *testing.T) {
	ctx := context.Background()
	c := &fakeClock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	path := filepath.Join(t.TempDir(), "l.db")
	v, done := batchService(t, path, c)
	createStudy(t, v, "s", batchSpec(`{"name": "safeopt", "safe_set": "gp"}`, 100))
	// Six rounds one at a time widen the safe set.
	for range 6 {
		a, err := v.Ask(ctx, "s")
		if err != nil {
			t.Fatal(err)
		}
		if err := tellAsk(t, v, "s", a); err != nil {
			t.Fatal(err)
		}
	}
	b1, err := v.AskBatch(ctx, "s", api.AskOptions{Count: 3, LeaseSeconds: 60})
	if err != nil {
		t.Fatal(err)
	}
	want := store.LeaseTime(c.t.Add(60 * time.Second).UnixMilli())
	if len(b1) != 3 || b1[0].LeaseUntil != want || b1[2].LeaseUntil != want {
		t.Fatalf("first batch %v, leases %q…, want 3 asks leased until %s", askIDs(b1), b1[0].LeaseUntil, want)
	}
	b2, err := v.AskBatch(ctx, "s", api.AskOptions{Count: 3, LeaseSeconds: 60})
	if err != nil {
		t.Fatal(err)
	}
	if len(b2) != 3 || slices.ContainsFunc(b2, func(a *api.AskAnswer) bool { return slices.Contains(askIDs(b1), a.Ask) }) {
		t.Fatalf("second batch %v shares asks with the leased first %v", askIDs(b2), askIDs(b1))
	}
	// A plain ask takes none of the leased asks: a new one, and then
	// that one again (it has no lease).
	p1, err := v.Ask(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(append(askIDs(b1), askIDs(b2)...), p1.Ask) || p1.LeaseUntil != "" {
		t.Fatalf("plain ask %d (lease %q) is one of the leased asks", p1.Ask, p1.LeaseUntil)
	}
	if p2, err := v.Ask(ctx, "s"); err != nil || p2.Ask != p1.Ask {
		t.Fatalf("plain ask again: %v (%v), want %d", p2, err, p1.Ask)
	}
	points := map[int]bool{}
	for _, a := range append(append(b1, b2...), p1) {
		if points[a.Index] {
			t.Fatalf("action %d handed out twice among the pending asks", a.Index)
		}
		points[a.Index] = true
	}

	// The second batch's last ask gets a heartbeat at 50 s, for 60 s more.
	c.advance(50 * time.Second)
	hb, err := v.Heartbeat(ctx, "s", &api.HeartbeatRequest{Ask: b2[2].Ask, LeaseSeconds: 60})
	if err != nil || hb.LeaseUntil != store.LeaseTime(c.t.Add(60*time.Second).UnixMilli()) {
		t.Fatalf("heartbeat: %+v (%v)", hb, err)
	}
	// At 61 s the other leases have ended: a leased batch of 4 gets the
	// plain ask's (never leased) and the released ones, oldest first.
	c.advance(11 * time.Second)
	b3, err := v.AskBatch(ctx, "s", api.AskOptions{Count: 4, LeaseSeconds: 30})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := askIDs(b3), []int{b1[0].Ask, b1[1].Ask, b1[2].Ask, b2[0].Ask}; !slices.Equal(got, want) {
		t.Fatalf("after the leases ended: %v, want the oldest released %v", got, want)
	}
	// A heartbeat of an ended lease whose ask was not handed out again
	// renews it: b2[1] stays with its worker.
	if _, err := v.Heartbeat(ctx, "s", &api.HeartbeatRequest{Ask: b2[1].Ask, LeaseSeconds: 30}); err != nil {
		t.Fatal(err)
	}
	// A restart keeps the leases: only the never-leased plain ask is
	// available, then new ones.
	done()
	v, done = batchService(t, path, c)
	defer done()
	b4, err := v.AskBatch(ctx, "s", api.AskOptions{Count: 2})
	if err != nil {
		t.Fatal(err)
	}
	if b4[0].Ask != p1.Ask || slices.Contains(append(askIDs(b1), askIDs(b2)...), b4[1].Ask) || b4[0].LeaseUntil != "" {
		t.Fatalf("after a restart: %v, want the plain ask %d and a new one", askIDs(b4), p1.Ask)
	}
	// A tell of a released ask, re-leased to another worker, is accepted
	// (the first worker finished after all); the second tell is refused.
	if err := tellAsk(t, v, "s", b1[0]); err != nil {
		t.Fatalf("tell of a re-leased ask: %v", err)
	}
	if err := tellAsk(t, v, "s", b3[0]); !errors.Is(err, api.ErrAlreadyTold) {
		t.Fatalf("second tell of the ask: %v, want api.ErrAlreadyTold", err)
	}
	// Heartbeats of asks that are not pending, and bad lengths.
	for _, c := range []struct {
		ask   int
		lease float64
		want  error
	}{
		{b1[0].Ask, 10, api.ErrAlreadyTold},
		{999, 10, api.ErrUnknownAsk},
		{b1[1].Ask, 0, api.ErrBadHeartbeat},
		{b1[1].Ask, -5, api.ErrBadHeartbeat},
		{b1[1].Ask, api.MaxLeaseSeconds + 1, api.ErrBadHeartbeat},
	} {
		if _, err := v.Heartbeat(ctx, "s", &api.HeartbeatRequest{Ask: c.ask, LeaseSeconds: c.lease}); !errors.Is(err, c.want) {
			t.Errorf("heartbeat of ask %d for %v s: %v, want %v", c.ask, c.lease, err, c.want)
		}
	}
	// The told ask's lease row is dropped at the next ask call.
	before := leaseRows(t, v, "s")
	if _, err := v.Ask(ctx, "s"); err != nil {
		t.Fatal(err)
	}
	if after := leaseRows(t, v, "s"); after != before-1 {
		t.Errorf("%d lease rows after an ask, %d before a tell of a leased ask: want one fewer", after, before)
	}
}

// TestAskBatchHorizon: a batch never takes the study past its horizon
// (observations + pending asks), a call that can hand out nothing fails
// with ErrNoAsk while the pending asks are leased and with ErrHorizon once
// the observations fill the horizon, and bad options are ErrBadAsk.
func TestAskBatchHorizon(t *testing.T) {
	ctx := context.Background()
	c := &fakeClock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	v, done := batchService(t, filepath.Join(t.TempDir(), "h.db"), c)
	defer done()
	createStudy(t, v, "s", batchSpec(`{"name": "sgp-ucb", "phase1": "uniform", "exploration": {"fixed": 0}}`, 5))
	for _, o := range []api.AskOptions{{Count: -1}, {Count: api.MaxBatch + 1}, {Count: 2, LeaseSeconds: -1}, {LeaseSeconds: api.MaxLeaseSeconds * 2}} {
		if _, err := v.AskBatch(ctx, "s", o); !errors.Is(err, api.ErrBadAsk) {
			t.Errorf("AskBatch(%+v): %v, want api.ErrBadAsk", o, err)
		}
	}
	// The seeds are safe at first: a batch of 8 gets them both only.
	first, err := v.AskBatch(ctx, "s", api.AskOptions{Count: 8})
	if err != nil {
		t.Fatal(err)
	}
	if len(first) != 2 {
		t.Fatalf("first batch of %d asks, want the 2 seeds", len(first))
	}
	for _, a := range first {
		if err := tellAsk(t, v, "s", a); err != nil {
			t.Fatal(err)
		}
	}
	// 2 observations: room for 3 more.
	b, err := v.AskBatch(ctx, "s", api.AskOptions{Count: 8, LeaseSeconds: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(b) != 3 {
		t.Fatalf("a batch of %d asks with 2 observations and a horizon of 5, want 3", len(b))
	}
	if _, err := v.AskBatch(ctx, "s", api.AskOptions{Count: 1}); !errors.Is(err, api.ErrNoAsk) {
		t.Fatalf("ask with every round leased: %v, want api.ErrNoAsk", err)
	}
	if _, err := v.Ask(ctx, "s"); !errors.Is(err, api.ErrNoAsk) {
		t.Fatalf("plain ask with every round leased: %v, want api.ErrNoAsk", err)
	}
	c.advance(11 * time.Second)
	again, err := v.AskBatch(ctx, "s", api.AskOptions{Count: 8})
	if err != nil || !slices.Equal(askIDs(again), askIDs(b)) {
		t.Fatalf("after the leases ended: %v (%v), want %v", askIDs(again), err, askIDs(b))
	}
	for _, a := range b {
		if err := tellAsk(t, v, "s", a); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := v.AskBatch(ctx, "s", api.AskOptions{Count: 3}); !errors.Is(err, api.ErrHorizon) {
		t.Fatalf("ask at the horizon: %v, want api.ErrHorizon", err)
	}
}

// TestRetractDropsBatch: a retraction withdraws every pending ask of a
// batch, leased or not, and drops their leases; their tells and
// heartbeats are refused with ErrWithdrawn, and the next ask hands out new
// asks.
func TestRetractDropsBatch(t *testing.T) {
	ctx := context.Background()
	c := &fakeClock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	v, done := batchService(t, filepath.Join(t.TempDir(), "r.db"), c)
	defer done()
	createStudy(t, v, "s", batchSpec(`{"name": "safeopt", "safe_set": "gp"}`, 100))
	var obs int
	for range 4 {
		a, err := v.Ask(ctx, "s")
		if err != nil {
			t.Fatal(err)
		}
		f, g := batchTruth(a.X)
		id := a.Ask
		ans, err := v.Tell(ctx, "s", &api.TellRequest{Ask: &id, F: &f, G: g})
		if err != nil {
			t.Fatal(err)
		}
		obs = ans.Observation
	}
	b, err := v.AskBatch(ctx, "s", api.AskOptions{Count: 3, LeaseSeconds: 600})
	if err != nil {
		t.Fatal(err)
	}
	if leaseRows(t, v, "s") != 3 {
		t.Fatalf("%d lease rows, want 3", leaseRows(t, v, "s"))
	}
	r, err := v.Retract(ctx, "s", obs)
	if err != nil {
		t.Fatal(err)
	}
	if n := leaseRows(t, v, "s"); n != 0 {
		t.Errorf("%d lease rows of withdrawn asks left after the retraction", n)
	}
	if r.WithdrawnAsk != b[0].Ask || !slices.Equal(r.WithdrawnAsks, askIDs(b)) {
		t.Errorf("retraction withdrew asks %v (first %d), want every pending one %v (first %d)", r.WithdrawnAsks, r.WithdrawnAsk, askIDs(b), b[0].Ask)
	}
	for _, a := range b {
		if err := tellAsk(t, v, "s", a); !errors.Is(err, api.ErrWithdrawn) {
			t.Errorf("tell of withdrawn ask %d: %v, want api.ErrWithdrawn", a.Ask, err)
		}
		if _, err := v.Heartbeat(ctx, "s", &api.HeartbeatRequest{Ask: a.Ask, LeaseSeconds: 10}); !errors.Is(err, api.ErrWithdrawn) {
			t.Errorf("heartbeat of withdrawn ask %d: %v, want api.ErrWithdrawn", a.Ask, err)
		}
	}
	nb, err := v.AskBatch(ctx, "s", api.AskOptions{Count: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(nb) != 3 || slices.ContainsFunc(nb, func(a *api.AskAnswer) bool { return slices.Contains(askIDs(b), a.Ask) }) {
		t.Fatalf("after the retraction: %v, want 3 new asks", askIDs(nb))
	}
}

// TestBatchReplay records studies whose asks come in batches, told in
// shuffled order, with retractions, fits and tells outside the loop in
// between, and checks that replaying the records rebuilds the same
// pending asks and the same policy: the next batch asked of the replayed
// study equals the live study's, point for point.
func TestBatchReplay(t *testing.T) {
	algs := []string{
		`{"name": "sgp-ucb", "phase1": "uniform", "exploration": {"fixed": 4}}`,
		`{"name": "sgp-ucb", "phase1": "uncertainty", "exploration": {"plateau": {"window": 3, "cap": 8}}}`,
		`{"name": "safeopt", "safe_set": "gp"}`,
		`{"name": "safeopt", "lipschitz": 2}`,
		`{"name": "stageopt", "safe_set": "gp", "exploration": {"fixed": 6}}`,
		`{"name": "safeopt-mc", "lipschitz": 2, "exploration": {"fixed": 5}}`,
	}
	ctx := context.Background()
	for k, alg := range append(algs, "box") {
		t.Run(fmt.Sprint(k), func(t *testing.T) {
			c := &fakeClock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
			path := filepath.Join(t.TempDir(), "b.db")
			v, done := batchService(t, path, c)
			defer done()
			spec := batchSpec(alg, 200)
			if alg == "box" {
				spec = batchBoxSpec
			}
			if k%2 == 1 {
				// A fit every 5 tells: fits happen only at an ask call
				// with nothing pending.
				spec = strings.Replace(spec, `"beta": 4}`, `"beta": 4, "fit": {"when": {"every": 5}, "min_points": 4, "restarts": 1}}`, 1)
			}
			createStudy(t, v, "s", spec)
			shuffle := []int{2, 0, 3, 1}
			for round := range 6 {
				b, err := v.AskBatch(ctx, "s", api.AskOptions{Count: 1 + round%4})
				if err != nil {
					t.Fatal(err)
				}
				// Tell all but the last of the batch, in shuffled order;
				// every third round all of it, so that the next ask call
				// finds nothing pending (and may fit).
				keep := 1
				if round%3 == 2 {
					keep = 0
				}
				for _, j := range shuffle {
					if j < len(b)-keep {
						if err := tellAsk(t, v, "s", b[j]); err != nil {
							t.Fatal(err)
						}
					}
				}
				if round == 3 {
					req := &api.TellRequest{X: []float64{1.2}}
					if alg == "box" {
						req.X = []float64{0.1, 0.1}
					}
					f, g := batchTruth(req.X)
					req.F, req.G = &f, g
					if _, err := v.Tell(ctx, "s", req); err != nil {
						t.Fatal(err)
					}
				}
				if round == 4 {
					obs, err := v.Observations(ctx, "s")
					if err != nil {
						t.Fatal(err)
					}
					if _, err := v.Retract(ctx, "s", obs[1].Seq); err != nil {
						t.Fatal(err)
					}
				}
			}
			// A last batch, left pending.
			if _, err := v.AskBatch(ctx, "s", api.AskOptions{Count: 3}); err != nil {
				t.Fatal(err)
			}
			// Replay the records into a study of its own: the same pending
			// asks, and the same next batch from both.
			st, events, err := v.store.Load(ctx, "s")
			if err != nil {
				t.Fatal(err)
			}
			r, err := newStudy("s", st, events, 0)
			if err != nil {
				t.Fatalf("replay: %v", err)
			}
			live := v.cache.Lookup("s").Val
			if live.retracts != 1 || (k%2 == 1) != (len(live.fits) > 0) {
				t.Fatalf("%d retractions, %d fits: the study does not exercise what it should", live.retracts, len(live.fits))
			}
			if len(live.pending) == 0 || !slices.Equal(live.pending, r.pending) {
				t.Fatalf("replayed pending asks %v, live %v", r.pending, live.pending)
			}
			if !slices.EqualFunc(bandit.Pending(live.pol), bandit.Pending(r.pol), func(a, b bandit.Ask) bool { return a.Index == b.Index && slices.Equal(a.X, b.X) }) {
				t.Fatalf("the policies' pending asks differ: live %v, replayed %v", bandit.Pending(live.pol), bandit.Pending(r.pol))
			}
			var want []int
			for _, a := range live.pending {
				want = append(want, a.ask)
			}
			for range 5 {
				la, lok, lerr := bandit.AskNew(live.pol)
				ra, rok, rerr := bandit.AskNew(r.pol)
				if lerr != nil || rerr != nil || lok != rok || la.Index != ra.Index || !slices.Equal(la.X, ra.X) {
					t.Fatalf("next asks: live %d (%v, %v), replayed %d (%v, %v)", la.Index, lok, lerr, ra.Index, rok, rerr)
				}
			}
			v.cache.Lookup("s").Val = nil // it holds asks the records do not
			// And a service reopened on the records hands out the live
			// pending asks, in order.
			done()
			v, done = batchService(t, path, c)
			defer done()
			re, err := v.AskBatch(ctx, "s", api.AskOptions{Count: api.MaxBatch})
			if err != nil {
				t.Fatal(err)
			}
			if got := askIDs(re)[:len(want)]; !slices.Equal(got, want) {
				t.Fatalf("reopened: %v, want %v first", askIDs(re), want)
			}
		})
	}
}
