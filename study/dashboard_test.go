package study_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/safegp/safegp/store"
	"github.com/safegp/safegp/study"
	"github.com/safegp/safegp/study/api"
	"github.com/safegp/safegp/study/view"
)

// TestViewLeavesTheNextAskAlone drives two copies of each study with the
// same measurements; one is viewed and listed before and after every ask
// and tell, the other never. Their asks must be the same throughout: the
// uniform phase 1 and line-bo's random directions draw random numbers, so
// a view that asked or drew would shift them, and every fourth round
// brings a measurement outside the loop, after which an ask chosen
// before it would show. The fit block makes an ask
// fit every 3 tells: a view must not record that fit (nor anything else).
func TestViewLeavesTheNextAskAlone(t *testing.T) {
	t.Parallel()
	fitted := strings.Replace(specYAML, "  beta: 4\n", "  beta: 4\n  fit: {when: {every: 3}, min_points: 3}\n", 1)
	for _, tc := range []struct {
		name, spec string
		rounds     int
		point      func(x []float64) (float64, []float64)
	}{
		{"sgp-ucb", specYAML, 14, func(x []float64) (float64, []float64) { return truth(x[0]) }},
		{"sgp-ucb with fits", fitted, 10, func(x []float64) (float64, []float64) { return truth(x[0]) }},
		{"line-bo", boxSpecYAML, 10, boxTruth},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			dir := t.TempDir()
			viewed, store := newService(t, filepath.Join(dir, "viewed.db"))
			plain, _ := newService(t, filepath.Join(dir, "plain.db"))
			for _, v := range []*study.Service{viewed, plain} {
				if err := v.Create(ctx, "s", resolved(t, tc.spec)); err != nil {
					t.Fatal(err)
				}
			}
			// look views and lists the study, and checks that nothing
			// was recorded meanwhile (an ask, or a fit falling due).
			look := func() {
				t.Helper()
				before, err := store.Events(ctx, "s")
				if err != nil {
					t.Fatal(err)
				}
				if _, err := view.Of(ctx, viewed, "s"); err != nil {
					t.Fatal(err)
				}
				if _, err := viewed.List(ctx); err != nil {
					t.Fatal(err)
				}
				if after, err := store.Events(ctx, "s"); err != nil || len(after) != len(before) {
					t.Fatalf("viewing recorded %d events (%v)", len(after)-len(before), err)
				}
			}
			for round := 1; round <= tc.rounds; round++ {
				look()
				a, err := viewed.Ask(ctx, "s")
				if err != nil {
					t.Fatal(err)
				}
				look()
				b, err := plain.Ask(ctx, "s")
				if err != nil {
					t.Fatal(err)
				}
				if a.Ask != b.Ask || a.Index != b.Index || !slices.Equal(a.X, b.X) {
					t.Fatalf("round %d: the viewed study asks %+v, the other %+v", round, a, b)
				}
				f, g := tc.point(a.X)
				for _, v := range []*study.Service{viewed, plain} {
					id := a.Ask
					if _, err := v.Tell(ctx, "s", &api.TellRequest{Ask: &id, F: &f, G: g}); err != nil {
						t.Fatal(err)
					}
				}
				look()
				if round%4 != 0 {
					continue
				}
				// A measurement outside the loop: a view that left an
				// ask pending in the policy would have the next ask
				// chosen before it.
				x := []float64{0.4 + 0.1*float64(round)}
				if len(a.X) == 2 {
					x = append(x, 0.3)
				}
				f, g = tc.point(x)
				for _, v := range []*study.Service{viewed, plain} {
					if _, err := v.Tell(ctx, "s", &api.TellRequest{X: x, F: &f, G: g}); err != nil {
						t.Fatal(err)
					}
				}
				look()
			}
		})
	}
}

// TestListCountsAsTheStudy: the list's counts, read from the records by
// SQL, equal the loaded study's (Show), across violations, a retraction
// that withdraws a pending ask, a new pending ask, and a box study; and
// for studies stated in parameters, on a grid and on a box, whose
// conditions (a constraint with min and max counts twice) are counted
// from their model (before, 0 for both, and the box listed as d 0, not
// a box).
func TestListCountsAsTheStudy(t *testing.T) {
	ctx := context.Background()
	v, _ := newService(t, filepath.Join(t.TempDir(), "s.db"))
	minMax := strings.Replace(tuneCases["pid"].spec, "  - {name: overshoot, max: 0.05}", "  - {name: overshoot, max: 0.05}\n  - {name: effort, min: 0.1, max: 5}", 1)
	for name, spec := range map[string]string{"a": specYAML, "b": boxSpecYAML, "empty": specYAML, "named": tuneCases["example"].spec, "named-box": minMax, "re": specYAML} {
		if err := v.Create(ctx, name, resolved(t, spec)); err != nil {
			t.Fatal(err)
		}
	}
	// A study created again under a deleted one's name, its ask told: its
	// ask IDs go on after the old one's (store's ask_base), so that a
	// tell names an ID, not its ask's seq, and nothing is pending.
	if _, err := v.Ask(ctx, "re"); err != nil {
		t.Fatal(err)
	}
	if _, err := v.Delete(ctx, "re", true); err != nil {
		t.Fatal(err)
	}
	if err := v.Create(ctx, "re", resolved(t, specYAML)); err != nil {
		t.Fatal(err)
	}
	if a, err := v.Ask(ctx, "re"); err != nil {
		t.Fatal(err)
	} else {
		f, g := truth(a.X[0])
		if _, err := v.Tell(ctx, "re", &api.TellRequest{Ask: &a.Ask, F: &f, G: g}); err != nil {
			t.Fatal(err)
		}
	}
	drive(t, v, "a", 6)
	// Two measurements outside the loop, violations both (g < 0 beyond
	// x = 3.5), then an ask left pending, withdrawn by the retraction of
	// the second (events 1–12 are the six rounds, 13 and 14 the tells).
	for _, i := range []int{20, 19} {
		f, g := truth(float64(i) * 0.2)
		idx := i
		if _, err := v.Tell(ctx, "a", &api.TellRequest{Index: &idx, F: &f, G: g}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := v.Ask(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	if _, err := v.Retract(ctx, "a", 14); err != nil {
		t.Fatal(err)
	}
	if _, err := v.Ask(ctx, "a"); err != nil { // pending again
		t.Fatal(err)
	}
	f0, g0 := boxTruth([]float64{0.1, 0.1})
	if _, err := v.Tell(ctx, "b", &api.TellRequest{X: []float64{0.1, 0.1}, F: &f0, G: g0}); err != nil {
		t.Fatal(err)
	}
	if _, err := v.Ask(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	list, err := v.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if names := fmt.Sprint(names(list)); names != "[a b empty named named-box re]" {
		t.Fatalf("list names %s", names)
	}
	for _, in := range list {
		sum, err := v.Show(ctx, in.Study)
		if err != nil {
			t.Fatal(err)
		}
		pending := 0
		if sum.Pending != nil {
			pending = 1
		}
		want := api.StudyInfo{Study: sum.Study, Algorithm: sum.Algorithm, Box: sum.Box != nil, Actions: sum.Actions, Dim: sum.Dim,
			Constraints: sum.Constraints, Horizon: sum.Horizon, Rounds: sum.Rounds, Retracted: sum.Retracted,
			Violations: sum.Violations, Pending: pending, Created: in.Created, Updated: in.Updated}
		if in != want {
			t.Errorf("list has %+v, the study %+v", in, want)
		}
		if !in.Created.Equal(sum.Created) || in.Updated.Before(in.Created) {
			t.Errorf("%s: created %v (show %v), updated %v", in.Study, in.Created, sum.Created, in.Updated)
		}
	}
	// The case the counts must catch: a violation in force, a retraction,
	// a pending ask after it.
	if a := list[0]; a.Violations != 1 || a.Retracted != 1 || a.Pending != 1 || a.Rounds != 7 {
		t.Errorf("study a: %+v, want 7 rounds, 1 violation, 1 retracted, 1 pending", a)
	}
	if n, nb := list[3], list[4]; n.Constraints != 2 || n.Box || nb.Constraints != 3 || !nb.Box || nb.Dim != 3 {
		t.Errorf("studies stated in parameters: %+v and %+v, want 2 conditions on a grid, 3 on a 3-D box", n, nb)
	}
}

func names(list []api.StudyInfo) []string {
	var out []string
	for _, in := range list {
		out = append(out, in.Study)
	}
	return out
}

// TestViewPosterior: the posterior is given over finite sets of dimension
// 1 and 2 up to view.MaxActions actions, and skipped with a reason for a
// larger set, a higher dimension and a box.
func TestViewPosterior(t *testing.T) {
	ctx := context.Background()
	v, _ := newService(t, filepath.Join(t.TempDir(), "s.db"))
	grid := func(g string) string {
		return strings.Replace(specYAML, "{grid: {bounds: [[0, 4]], points: [21]}}", g, 1)
	}
	for _, tc := range []struct {
		name, spec string
		actions    int    // with a posterior: its size
		skipped    string // else a word of the reason
	}{
		{"one", specYAML, 21, ""},
		{"two", grid("{grid: {bounds: [[0, 4], [0, 1]], points: [21, 5]}}"), 105, ""},
		{"cap", grid(fmt.Sprintf("{grid: {bounds: [[0, 4]], points: [%d]}}", view.MaxActions)), view.MaxActions, ""},
		{"large", grid(fmt.Sprintf("{grid: {bounds: [[0, 4]], points: [%d]}}", view.MaxActions+1)), 0, "10001 actions"},
		{"three", grid("{grid: {bounds: [[0, 4], [0, 1], [0, 1]], points: [21, 2, 2]}}"), 0, "dimension 3"},
		{"box", boxSpecYAML, 0, "box"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := v.Create(ctx, tc.name, resolved(t, tc.spec)); err != nil {
				t.Fatal(err)
			}
			a, err := v.Ask(ctx, tc.name)
			if err != nil {
				t.Fatal(err)
			}
			vw, err := view.Of(ctx, v, tc.name)
			if err != nil {
				t.Fatal(err)
			}
			if len(vw.Pending) != 1 || vw.Pending[0].Ask != a.Ask || !slices.Equal(vw.Pending[0].X, a.X) {
				t.Errorf("pending %+v, want ask %+v", vw.Pending, a)
			}
			if len(vw.Thresholds) != 1 || vw.Summary == nil || vw.Summary.Study != tc.name || len(vw.Seeds) != 1 {
				t.Errorf("view %+v", vw)
			}
			if tc.skipped != "" {
				if vw.Posterior != nil || !strings.Contains(vw.PosteriorSkipped, tc.skipped) {
					t.Errorf("posterior %v, skipped %q: want it skipped for %q", vw.Posterior != nil, vw.PosteriorSkipped, tc.skipped)
				}
				return
			}
			p := vw.Posterior
			if p == nil {
				t.Fatalf("no posterior: %s", vw.PosteriorSkipped)
			}
			n := tc.actions
			if len(p.X) != n || len(p.F.Mean) != n || len(p.F.Std) != n || len(p.Safe) != n || len(p.G) != 1 || len(p.G[0].Mean) != n || p.SqrtBeta != 2 {
				t.Errorf("posterior sizes x %d, f %d/%d, safe %d, g %d, √β %v; want %d actions, one constraint, √β = 2 (beta: 4)",
					len(p.X), len(p.F.Mean), len(p.F.Std), len(p.Safe), len(p.G), p.SqrtBeta, n)
			}
		})
	}
}

// TestViewFollowsAnotherProcess: a study told through another service on
// the same file (another process) shows the tell in the next View.
func TestViewFollowsAnotherProcess(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "s.db")
	server, _ := newService(t, path)
	cli, _ := newService(t, path)
	if err := server.Create(ctx, "s", resolved(t, specYAML)); err != nil {
		t.Fatal(err)
	}
	drive(t, server, "s", 2)
	if vw, err := view.Of(ctx, server, "s"); err != nil || len(vw.Observations) != 2 {
		t.Fatalf("view: %v", err)
	}
	drive(t, cli, "s", 3)
	vw, err := view.Of(ctx, server, "s")
	if err != nil {
		t.Fatal(err)
	}
	if len(vw.Observations) != 5 || vw.Summary.Rounds != 5 {
		t.Errorf("view after another process told 3 more: %d observations, %d rounds; want 5", len(vw.Observations), vw.Summary.Rounds)
	}
}

// TestViewVersion: the version counts the events; a study's view at one
// version is the same JSON whenever it is read, by this service or by
// another that replayed the records (what a cache of encoded views keyed
// by version relies on), and differs after a tell.
func TestViewVersion(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "s.db")
	v, _ := newService(t, path)
	if err := v.Create(ctx, "s", resolved(t, specYAML)); err != nil {
		t.Fatal(err)
	}
	drive(t, v, "s", 5)
	if _, err := v.Ask(ctx, "s"); err != nil {
		t.Fatal(err)
	}
	encode := func(v *study.Service) (int, string) {
		t.Helper()
		vw, err := view.Of(ctx, v, "s")
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(vw)
		if err != nil {
			t.Fatal(err)
		}
		return vw.Version, string(b)
	}
	ver, first := encode(v)
	if n, err := v.Version(ctx, "s"); err != nil || n != ver || ver != 11 {
		t.Fatalf("versions %d (Version) and %d (View), want 11 events (%v)", n, ver, err)
	}
	if _, again := encode(v); again != first {
		t.Errorf("two views of version %d differ", ver)
	}
	replayed, _ := newService(t, path)
	if _, again := encode(replayed); again != first {
		t.Errorf("the view of version %d differs after a replay:\n%s\n%s", ver, first, again)
	}
	drive(t, v, "s", 1) // tells the pending ask: one event
	if ver2, after := encode(v); ver2 != ver+1 || after == first {
		t.Errorf("after a tell: version %d, want %d, and a new view", ver2, ver+1)
	}
}

// TestViewContext: a study with a context has no posterior drawn before
// its first ask (the view is the last ask's context's); after it, the
// summary and the pending ask carry the ask's context.
func TestViewContext(t *testing.T) {
	ctx := context.Background()
	v, _ := newService(t, filepath.Join(t.TempDir(), "s.db"))
	if err := v.Create(ctx, "c", resolved(t, ctxSpec(replaySpecs["stageopt gp"], twoContext))); err != nil {
		t.Fatal(err)
	}
	vw, err := view.Of(ctx, v, "c")
	if err != nil {
		t.Fatal(err)
	}
	if vw.Posterior != nil || !strings.Contains(vw.PosteriorSkipped, "context") {
		t.Errorf("before the first ask: posterior %v, skipped %q; want none, for want of a context", vw.Posterior != nil, vw.PosteriorSkipped)
	}
	c1 := map[string]float64{"temperature": 19, "load": 0.1}
	c2 := map[string]float64{"temperature": 25, "load": 0.3}
	for _, c := range []map[string]float64{c1, c2} {
		a, err := v.AskIn(ctx, "c", c)
		if err != nil {
			t.Fatal(err)
		}
		f, g := ctxTruth(a.X[0], c)
		id := a.Ask
		if _, err := v.Tell(ctx, "c", &api.TellRequest{Ask: &id, F: &f, G: g}); err != nil {
			t.Fatal(err)
		}
	}
	a, err := v.AskIn(ctx, "c", c1)
	if err != nil {
		t.Fatal(err)
	}
	if vw, err = view.Of(ctx, v, "c"); err != nil {
		t.Fatal(err)
	}
	if vw.Posterior == nil || vw.PosteriorSkipped != "" || len(vw.Posterior.F.Mean) != 41 {
		t.Fatalf("after asks: posterior %v, skipped %q; want one over the 41 actions", vw.Posterior != nil, vw.PosteriorSkipped)
	}
	p := vw.Pending
	if len(p) != 1 || p[0].Ask != a.Ask || !maps.Equal(p[0].Context, c1) || !maps.Equal(vw.Summary.Context, c1) {
		t.Errorf("pending %+v, summary's context %v; want ask %d in %v", p, vw.Summary.Context, a.Ask, c1)
	}
	if got := []map[string]float64{vw.Observations[0].Context, vw.Observations[1].Context}; !maps.Equal(got[0], c1) || !maps.Equal(got[1], c2) {
		t.Errorf("observations' contexts %v, want %v then %v", got, c1, c2)
	}
}

// TestViewLeases: the pending asks carry their leases' ends, and none
// once handed out again without one; told asks show none; a lease set,
// renewed or dropped without an event changes LeaseStamp (View's and
// Service.LeaseStamp's, equal) and not Version.
func TestViewLeases(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(filepath.Join(t.TempDir(), "s.db"), store.OpenOptions{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	clock := time.Date(2026, 5, 2, 13, 0, 0, 0, time.UTC)
	v := study.NewService(st, study.ServiceOptions{Now: func() time.Time { return clock }})
	if err := v.Create(ctx, "s", resolved(t, specYAML)); err != nil {
		t.Fatal(err)
	}
	drive(t, v, "s", 8)
	// look returns the view's leases, ask → end ("" for none), and
	// checks its stamp against LeaseStamp.
	look := func() (map[int]string, *view.View) {
		t.Helper()
		vw, err := view.Of(ctx, v, "s")
		if err != nil {
			t.Fatal(err)
		}
		if s, err := v.LeaseStamp(ctx, "s"); err != nil || s != vw.LeaseStamp {
			t.Fatalf("LeaseStamp %x (%v), the view's %x", s, err, vw.LeaseStamp)
		}
		m := map[int]string{}
		for _, p := range vw.Pending {
			m[p.Ask] = p.LeaseUntil
		}
		return m, vw
	}
	if _, vw := look(); vw.LeaseStamp != 0 || len(vw.Pending) != 0 {
		t.Fatalf("no lease yet: stamp %x, %d pending", vw.LeaseStamp, len(vw.Pending))
	}
	b, err := v.AskBatch(ctx, "s", api.AskOptions{Count: 3, LeaseSeconds: 120})
	if err != nil || len(b) != 3 {
		t.Fatalf("batch: %d asks (%v)", len(b), err)
	}
	want := map[int]string{b[0].Ask: "2026-05-02T13:02:00.000Z", b[1].Ask: "2026-05-02T13:02:00.000Z", b[2].Ask: "2026-05-02T13:02:00.000Z"}
	got, vw := look()
	if !maps.Equal(got, want) || vw.LeaseStamp == 0 {
		t.Fatalf("leases %v (stamp %x), want %v", got, vw.LeaseStamp, want)
	}
	version, stamp := vw.Version, vw.LeaseStamp

	// A heartbeat: no event, a new end.
	clock = clock.Add(time.Minute)
	if _, err := v.Heartbeat(ctx, "s", &api.HeartbeatRequest{Ask: b[1].Ask, LeaseSeconds: 600}); err != nil {
		t.Fatal(err)
	}
	want[b[1].Ask] = "2026-05-02T13:11:00.000Z"
	if got, vw = look(); !maps.Equal(got, want) || vw.Version != version || vw.LeaseStamp == stamp {
		t.Fatalf("after a heartbeat: leases %v, version %d (was %d), stamp %x (was %x); want %v, the version kept, a new stamp", got, vw.Version, version, vw.LeaseStamp, stamp, want)
	}
	version, stamp = vw.Version, vw.LeaseStamp

	// The other two leases end; an ask without a lease hands the older
	// out again and drops its lease: no event either.
	clock = clock.Add(2 * time.Minute)
	again, err := v.AskBatch(ctx, "s", api.AskOptions{Count: 1})
	if err != nil || len(again) != 1 || again[0].Ask != b[0].Ask {
		t.Fatalf("ask after the leases ended: %+v (%v), want ask %d again", again, err, b[0].Ask)
	}
	want[b[0].Ask] = ""
	if got, vw = look(); !maps.Equal(got, want) || vw.Version != version || vw.LeaseStamp == stamp {
		t.Fatalf("after a released ask was handed out again: leases %v, version %d (was %d), stamp %x (was %x); want %v", got, vw.Version, version, vw.LeaseStamp, stamp, want)
	}

	// A told ask is no longer pending: its lease, left in the table
	// until the next ask, is not shown.
	f, g := truth(b[1].X[0])
	id := b[1].Ask
	if _, err := v.Tell(ctx, "s", &api.TellRequest{Ask: &id, F: &f, G: g}); err != nil {
		t.Fatal(err)
	}
	delete(want, b[1].Ask)
	if got, _ = look(); !maps.Equal(got, want) {
		t.Errorf("after a tell: leases %v, want %v", got, want)
	}
}
