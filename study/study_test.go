package study_test

import (
	"context"
	"errors"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/safegp/safegp/store"
	"github.com/safegp/safegp/study"
	"github.com/safegp/safegp/study/api"
	"github.com/safegp/safegp/study/exchange"
)

const specYAML = `decision_set: {grid: {bounds: [[0, 4]], points: [21]}}
seed_actions: [10]
thresholds: [0.0]
model:
  objective: {kernel: se, lengthscale: 1}
  constraints: [{kernel: se, lengthscale: 1}]
  noise_std: 0.05
  delta: 0.1
  beta: 4
algorithm: {name: sgp-ucb, phase1: uniform, exploration: {fixed: 4}}
horizon: 30
seed: 3
`

// truth is the system being tuned: f peaks at x = 3, g ≥ 0 for x ≤ 3.5.
func truth(x float64) (f float64, g []float64) {
	return -(x - 3) * (x - 3), []float64{1 - math.Pow(x/3.5, 4)}
}

func newService(t testing.TB, path string) (*study.Service, *store.Store) {
	t.Helper()
	st, err := store.Open(path, store.OpenOptions{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return study.NewService(st, study.ServiceOptions{}), st
}

func resolved(t testing.TB, y string) *study.Resolved {
	t.Helper()
	s, err := study.ParseSpec([]byte(y))
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.Resolve(".")
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func drive(t *testing.T, v *study.Service, name string, rounds int) []int {
	t.Helper()
	ctx := context.Background()
	var got []int
	for i := 0; i < rounds; i++ {
		a, err := v.Ask(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		again, err := v.Ask(ctx, name)
		if err != nil || again.Ask != a.Ask || again.Index != a.Index {
			t.Fatalf("second ask while pending: %+v, want %+v (%v)", again, a, err)
		}
		f, g := truth(a.X[0])
		id := a.Ask
		if _, err := v.Tell(ctx, name, &api.TellRequest{Ask: &id, F: &f, G: g}); err != nil {
			t.Fatal(err)
		}
		got = append(got, a.Index)
	}
	return got
}

func TestReopenReplaysToTheSameState(t *testing.T) {
	// Ten rounds, close, reopen, ten more — against twenty rounds in one go.
	// The uniform phase 1 draws random numbers, so any replay that consumed
	// them differently would change the actions.
	ctx := context.Background()
	dir := t.TempDir()
	ref, _ := newService(t, filepath.Join(dir, "ref.db"))
	if err := ref.Create(ctx, "s", resolved(t, specYAML)); err != nil {
		t.Fatal(err)
	}
	want := drive(t, ref, "s", 20)

	path := filepath.Join(dir, "a.db")
	v, st := newService(t, path)
	if err := v.Create(ctx, "s", resolved(t, specYAML)); err != nil {
		t.Fatal(err)
	}
	got := drive(t, v, "s", 10)
	if _, err := v.Ask(ctx, "s"); err != nil { // left pending across the restart
		t.Fatal(err)
	}
	st.Close()
	v2, _ := newService(t, path)
	got = append(got, drive(t, v2, "s", 10)...)
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("round %d: action %d after reopening, %d without (%v vs %v)", i+1, got[i], want[i], got, want)
		}
	}
	sum, err := v2.Show(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	if sum.Rounds != 20 || sum.Pending != nil || sum.Best == nil || sum.SafeSetSize == 0 {
		t.Errorf("summary %+v", sum)
	}
}

func TestBadTellsChangeNothing(t *testing.T) {
	ctx := context.Background()
	v, _ := newService(t, filepath.Join(t.TempDir(), "b.db"))
	if err := v.Create(ctx, "s", resolved(t, specYAML)); err != nil {
		t.Fatal(err)
	}
	a, err := v.Ask(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	one, nan, inf, neg := 1.0, math.NaN(), math.Inf(1), -0.1
	id, other, bad, far := a.Ask, a.Ask+7, -1, 21
	cases := []struct {
		name string
		req  api.TellRequest
		want error
	}{
		{"NaN f", api.TellRequest{Ask: &id, F: &nan, G: []float64{1}}, api.ErrBadTell},
		{"Inf g", api.TellRequest{Ask: &id, F: &one, G: []float64{inf}}, api.ErrBadTell},
		{"too many g", api.TellRequest{Ask: &id, F: &one, G: []float64{1, 2}}, api.ErrBadTell},
		{"no g", api.TellRequest{Ask: &id, F: &one, G: []float64{}}, api.ErrBadTell},
		{"unknown ask", api.TellRequest{Ask: &other, F: &one, G: []float64{1}}, api.ErrUnknownAsk},
		{"index below", api.TellRequest{Index: &bad, F: &one, G: []float64{1}}, api.ErrBadTell},
		{"index above", api.TellRequest{Index: &far, F: &one, G: []float64{1}}, api.ErrBadTell},
		{"both", api.TellRequest{Ask: &id, Index: &id, F: &one, G: []float64{1}}, api.ErrBadTell},
		{"ask and x", api.TellRequest{Ask: &id, X: []float64{1}, F: &one, G: []float64{1}}, api.ErrBadTell},
		{"index and x", api.TellRequest{Index: &id, X: []float64{1}, F: &one, G: []float64{1}}, api.ErrBadTell},
		{"x of two coordinates", api.TellRequest{X: []float64{1, 2}, F: &one, G: []float64{1}}, api.ErrBadTell},
		{"x NaN", api.TellRequest{X: []float64{nan}, F: &one, G: []float64{1}}, api.ErrBadTell},
		{"x Inf", api.TellRequest{X: []float64{-inf}, F: &one, G: []float64{1}}, api.ErrBadTell},
		{"x with bad g", api.TellRequest{X: []float64{1.1}, F: &one, G: []float64{nan}}, api.ErrBadTell},
		{"neither", api.TellRequest{F: &one, G: []float64{1}}, api.ErrBadTell},
		{"no f", api.TellRequest{Ask: &id, G: []float64{1}}, api.ErrBadTell},
		{"negative noise_std", api.TellRequest{Ask: &id, F: &one, G: []float64{1}, NoiseStd: &neg}, api.ErrBadTell},
		{"NaN noise_std", api.TellRequest{Ask: &id, F: &one, G: []float64{1}, NoiseStd: &nan}, api.ErrBadTell},
		{"Inf noise_std", api.TellRequest{X: []float64{1.1}, F: &one, G: []float64{1}, NoiseStd: &inf}, api.ErrBadTell},
	}
	for _, c := range cases {
		if _, err := v.Tell(ctx, "s", &c.req); !errors.Is(err, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, err, c.want)
		}
	}
	obs, _ := v.Observations(ctx, "s")
	if len(obs) != 0 {
		t.Fatalf("%d observations after only bad tells", len(obs))
	}
	// A good tell, then the same ask again: already told.
	ans, err := v.Tell(ctx, "s", &api.TellRequest{Ask: &id, F: &one, G: []float64{-0.5}})
	if err != nil {
		t.Fatal(err)
	}
	if !ans.Violation || len(ans.Violated) != 1 || ans.Violated[0] != 1 || ans.Rounds != 1 {
		t.Errorf("violation not reported: %+v", ans)
	}
	if _, err := v.Tell(ctx, "s", &api.TellRequest{Ask: &id, F: &one, G: []float64{1}}); !errors.Is(err, api.ErrAlreadyTold) {
		t.Errorf("second tell of ask %d: %v", id, err)
	}
	// An observation made outside the loop, by index.
	idx := 3
	if _, err := v.Tell(ctx, "s", &api.TellRequest{Index: &idx, F: &one, G: []float64{0.2}}); err != nil {
		t.Fatal(err)
	}
	sum, _ := v.Show(ctx, "s")
	if sum.Rounds != 2 || sum.Violations != 1 {
		t.Errorf("summary %+v", sum)
	}
}

// TestSpecErrors: specifications a study cannot use are refused with
// ErrSpec, naming the key at fault.
func TestSpecErrors(t *testing.T) {
	cases := []struct {
		name, alg, key string
	}{
		{"oracle", `algorithm: {name: gp-ucb-oracle}`, "algorithm.name:"},
		{"lipschitz auto", `algorithm: {name: safeopt, safe_set: lipschitz, lipschitz: auto}`, "algorithm.lipschitz:"},
		{"lipschitz unset", `algorithm: {name: safeopt}`, "algorithm.lipschitz:"},
		{"unknown key", `algorithm: {name: sgp-ucb, phase1: uniform, exploration: {fixed: 4}, colour: red}`, `"colour"`},
		{"no exploration", `algorithm: {name: sgp-ucb}`, "algorithm.exploration:"},
		{"theory for stageopt", `algorithm: {name: stageopt, safe_set: gp, exploration: theory}`, "algorithm.exploration:"},
		{"theory for safeopt-mc: no R̄_0(S_0) in a study", `algorithm: {name: safeopt-mc, safe_set: gp, exploration: theory}`, "algorithm.exploration: theory: safeopt-mc's t* needs |R̄_0(S_0)|"},
	}
	for _, c := range cases {
		s, err := study.ParseSpec([]byte(replaceLine(specYAML, "algorithm:", c.alg)))
		if err == nil {
			_, err = s.Resolve(".")
		}
		if !errors.Is(err, api.ErrSpec) || !strings.Contains(err.Error(), c.key) {
			t.Errorf("%s: got %v, want api.ErrSpec naming %s", c.name, err, c.key)
		}
	}
}

func replaceLine(s, prefix, with string) string {
	out := ""
	for _, l := range splitLines(s) {
		if len(l) >= len(prefix) && l[:len(prefix)] == prefix {
			l = with
		}
		out += l + "\n"
	}
	return out
}

func splitLines(s string) []string {
	var lines []string
	start := 0
	for i := range s {
		if s[i] == '\n' {
			lines = append(lines, s[start:i])
			start = i + 1
		}
	}
	return lines
}

// TestInspectDoesNotChangeTheFuture: showing a study between an outside
// tell and the next ask must not change the suggestion, live or replayed
// (SafeOpt's lipschitz-mode safe set grows once per round, so preparing a
// round in show but not on replay once made the two disagree).
func TestInspectDoesNotChangeTheFuture(t *testing.T) {
	ctx := context.Background()
	spec := `{"decision_set": {"grid": {"bounds": [[0, 4]], "points": [41]}}, "seed_actions": [10, 11],
	 "thresholds": [0.0],
	 "model": {"objective": {"kernel": "se", "lengthscale": 1}, "constraints": [{"kernel": "se", "lengthscale": 2}], "noise_std": 0.05, "delta": 0.01},
	 "algorithm": {"name": "safeopt", "lipschitz": 3}, "horizon": 100, "seed": 7}`
	run := func(path string, show bool) int {
		v, _ := newService(t, path)
		if err := v.Create(ctx, "s", resolved(t, spec)); err != nil {
			t.Fatal(err)
		}
		a, err := v.Ask(ctx, "s")
		if err != nil {
			t.Fatal(err)
		}
		idx, f, g := 10, 0.5, []float64{1}
		if _, err := v.Tell(ctx, "s", &api.TellRequest{Index: &idx, F: &f, G: g}); err != nil {
			t.Fatal(err)
		}
		if show {
			if _, err := v.Show(ctx, "s"); err != nil {
				t.Fatal(err)
			}
		}
		f2, id := 0.4, a.Ask
		if _, err := v.Tell(ctx, "s", &api.TellRequest{Ask: &id, F: &f2, G: g}); err != nil {
			t.Fatal(err)
		}
		next, err := v.Ask(ctx, "s")
		if err != nil {
			t.Fatal(err)
		}
		return next.Index
	}
	dir := t.TempDir()
	plain := run(filepath.Join(dir, "plain.db"), false)
	shown := run(filepath.Join(dir, "shown.db"), true)
	if plain != shown {
		t.Errorf("next ask %d after a show, %d without", shown, plain)
	}
	reopened, _ := newService(t, filepath.Join(dir, "shown.db"))
	a, err := reopened.Ask(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	if a.Index != shown {
		t.Errorf("after reopening, the pending ask is action %d, live it was %d", a.Index, shown)
	}
}

// TestTellAtPoints: a measurement made outside the loop at a point is
// stored with its point, reaches the model (its posterior moves), and
// replays: a study reopened from its records asks what a twin kept in
// memory asks, before and after the point's observation is retracted. A
// point of the decision set is told as that action.
func TestTellAtPoints(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "r.db")
	v, _ := newService(t, filepath.Join(dir, "live.db")) // kept in memory throughout
	r, st := newService(t, path)                         // reopened from its records
	without, _ := newService(t, filepath.Join(dir, "without.db"))
	for _, s := range []*study.Service{v, r, without} {
		if err := s.Create(ctx, "s", resolved(t, specYAML)); err != nil {
			t.Fatal(err)
		}
		drive(t, s, "s", 6)
	}
	var pending *api.AskAnswer
	var at api.Observation
	f, g := truth(2.05)
	f2, g2 := truth(2.2)
	for _, s := range []*study.Service{v, r} {
		var err error
		if pending, err = s.Ask(ctx, "s"); err != nil { // stays pending across the tells below
			t.Fatal(err)
		}
		ans, err := s.Tell(ctx, "s", &api.TellRequest{X: []float64{2.05}, F: &f, G: g})
		if err != nil {
			t.Fatal(err)
		}
		if ans.Index != -1 || ans.Ask != 0 || ans.Rounds != 7 {
			t.Errorf("tell at 2.05, between actions: %+v, want index −1, round 7", ans)
		}
		if ans, err := s.Tell(ctx, "s", &api.TellRequest{X: []float64{2.2}, F: &f2, G: g2}); err != nil || ans.Index != 11 {
			t.Errorf("tell at 2.2, action 11: %+v %v", ans, err)
		}
		if again, err := s.Ask(ctx, "s"); err != nil || again.Ask != pending.Ask || again.Index != pending.Index {
			t.Errorf("pending ask after the tells outside the loop: %+v (%v), want %+v", again, err, pending)
		}
		obs, _ := s.Observations(ctx, "s")
		at = obs[len(obs)-2]
		if at.Index != -1 || !slices.Equal(at.X, []float64{2.05}) || at.F != f {
			t.Errorf("exported observation %+v, want index −1 at [2.05]", at)
		}
	}
	_, _, _, snap, _ := v.Inspect(ctx, "s")
	_, _, _, before, _ := without.Inspect(ctx, "s")
	if snap.F.Mean[10] == before.F.Mean[10] {
		t.Error("the observation at 2.05 did not move the posterior of f at 2.0")
	}
	x, _ := v.Export(ctx, "s")
	if csv := string(exchange.ExportCSV(x)); !strings.Contains(csv, ",tell,0,-1,2.05,") {
		t.Errorf("CSV has no row for the point 2.05:\n%s", csv)
	}

	reopen := func() *study.Service {
		st.Close()
		var s *study.Service
		s, st = newService(t, path)
		return s
	}
	next := func(s *study.Service) []int {
		id := pending.Ask
		fp, gp := truth(pending.X[0])
		if _, err := s.Tell(ctx, "s", &api.TellRequest{Ask: &id, F: &fp, G: gp}); err != nil {
			t.Fatal(err)
		}
		return drive(t, s, "s", 5)
	}
	r = reopen()
	if got, live := next(r), next(v); !slices.Equal(got, live) {
		t.Errorf("reopened study plays %v, the one in memory %v", got, live)
	}
	// Retracting the point's observation rebuilds the policy from the
	// rest, points included, the same live and on replay.
	for _, s := range []*study.Service{v, r} {
		if _, err := s.Retract(ctx, "s", at.Seq); err != nil {
			t.Fatal(err)
		}
	}
	r = reopen()
	if got, live := drive(t, r, "s", 3), drive(t, v, "s", 3); !slices.Equal(got, live) {
		t.Errorf("after the retraction the reopened study plays %v, the one in memory %v", got, live)
	}
}

// TestTellNoiseStd: tells with their own noise standard deviation — at an
// ask, at an action, at a point outside the set, 0 for an exact value —
// are recorded with it, listed and exported with it, and replayed with it:
// a reopened study asks what the one kept in memory asks, and what a study
// told the same values with the model's σ does not (the noise changes the
// posterior).
func TestTellNoiseStd(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "n.db")
	v, _ := newService(t, filepath.Join(dir, "live.db"))
	r, st := newService(t, path)
	plain, _ := newService(t, filepath.Join(dir, "plain.db"))
	big, zero, small := 0.5, 0.0, 0.01
	for k, s := range []*study.Service{v, r, plain} {
		if err := s.Create(ctx, "s", resolved(t, specYAML)); err != nil {
			t.Fatal(err)
		}
		noise := func(p *float64) *float64 {
			if k == 2 {
				return nil
			}
			return p
		}
		a, err := s.Ask(ctx, "s")
		if err != nil {
			t.Fatal(err)
		}
		f, g := truth(a.X[0])
		id := a.Ask
		if _, err := s.Tell(ctx, "s", &api.TellRequest{Ask: &id, F: &f, G: g, NoiseStd: noise(&big)}); err != nil {
			t.Fatal(err)
		}
		idx := 12
		f, g = truth(2.4)
		if _, err := s.Tell(ctx, "s", &api.TellRequest{Index: &idx, F: &f, G: g, NoiseStd: noise(&zero)}); err != nil {
			t.Fatal(err)
		}
		f, g = truth(1.77)
		if _, err := s.Tell(ctx, "s", &api.TellRequest{X: []float64{1.77}, F: &f, G: g, NoiseStd: noise(&small)}); err != nil {
			t.Fatal(err)
		}
		drive(t, s, "s", 3)
	}
	obs, _ := v.Observations(ctx, "s")
	for k, want := range []float64{big, zero, small} {
		if obs[k].NoiseStd == nil || *obs[k].NoiseStd != want {
			t.Errorf("observation %d: noise_std %v, want %v", k+1, obs[k].NoiseStd, want)
		}
	}
	if obs[3].NoiseStd != nil {
		t.Errorf("observation 4 told without noise_std lists %v", *obs[3].NoiseStd)
	}
	x, _ := v.Export(ctx, "s")
	csv := string(exchange.ExportCSV(x))
	if !strings.Contains(strings.SplitN(csv, "\n", 2)[0], ",g1,noise_std,violation,") || !strings.Contains(csv, ",1.77,") || !strings.Contains(csv, ",0.01,") {
		t.Errorf("CSV export lacks the noise_std column or values:\n%s", csv)
	}
	st.Close()
	r, st = newService(t, path)
	defer st.Close()
	got, live, other := drive(t, r, "s", 6), drive(t, v, "s", 6), drive(t, plain, "s", 6)
	if !slices.Equal(got, live) {
		t.Errorf("reopened study plays %v, the one in memory %v", got, live)
	}
	_, _, _, a, _ := v.Inspect(ctx, "s")
	_, _, _, b, _ := plain.Inspect(ctx, "s")
	if slices.Equal(a.F.Std, b.F.Std) {
		t.Errorf("the tells' noise_std left the posterior as the model's σ does (plays %v and %v)", live, other)
	}
}
