package study_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/safegp/safegp/space"
	"github.com/safegp/safegp/study/api"
)

// TestSeedNotes: a seed measured past a limit is named in the summary
// and in every ask answer — once per seed, in the user's terms for a
// study stated in parameters, until the tell is retracted — and is never
// asked again: with no other seed and nothing certified the ask is
// ErrNoSafeSetting, naming the seed's measurements, instead of the seed
// (issue 43, item 2). A seed measured safe, or a violation elsewhere,
// says nothing.
func TestSeedNotes(t *testing.T) {
	const named = `
parameters:
  - {name: kp, low: 0.05, high: 20, scale: log}
objective: {name: y, goal: maximize}
constraints:
  - {name: c, max: 1}
seeds: [{kp: 0.3}]
horizon: 20
`
	// Three floats: line-bo on their box.
	namedBox := strings.Replace(named, "  - {name: kp, low: 0.05, high: 20, scale: log}\n",
		"  - {name: kp, low: 0.05, high: 20, scale: log}\n  - {name: ki, low: 0.01, high: 10, scale: log}\n  - {name: kd, low: 0.001, high: 2, scale: log}\n", 1)
	namedBox = strings.Replace(namedBox, "seeds: [{kp: 0.3}]", "seeds: [{kp: 0.3, ki: 0.05, kd: 0.01}]", 1)
	pidSeed := space.Setting{"kp": space.Number(0.3), "ki": space.Number(0.05), "kd": space.Number(0.01)}
	ten, x := 10, []float64{0.2, 0.3}
	for _, c := range []struct {
		name, spec string
		seed, safe api.TellRequest // at a seed: past a limit, within it
		other      api.TellRequest // past a limit, not at a seed
		want       string
	}{
		{"named", named,
			api.TellRequest{Params: space.Setting{"kp": space.Number(0.3)}, Values: map[string]float64{"y": 1, "c": 5}},
			api.TellRequest{Params: space.Setting{"kp": space.Number(0.3)}, Values: map[string]float64{"y": 1, "c": 0.5}},
			api.TellRequest{Params: space.Setting{"kp": space.Number(2)}, Values: map[string]float64{"y": 1, "c": 5}},
			`the seed {"kp":0.3} broke a limit when measured (trial 3)`},
		{"named box", namedBox,
			api.TellRequest{Params: pidSeed, Values: map[string]float64{"y": 1, "c": 5}},
			api.TellRequest{Params: pidSeed, Values: map[string]float64{"y": 1, "c": 0.5}},
			api.TellRequest{Params: space.Setting{"kp": space.Number(2), "ki": space.Number(0.05), "kd": space.Number(0.01)}, Values: map[string]float64{"y": 1, "c": 5}},
			`the seed {"kd":0.01,"ki":0.05,"kp":0.3} broke a limit when measured (trial 3)`},
		{"plain", specYAML,
			api.TellRequest{Index: &ten, F: ptr(1.0), G: []float64{-1}},
			api.TellRequest{Index: &ten, F: ptr(1.0), G: []float64{1}},
			api.TellRequest{X: []float64{4}, F: ptr(1.0), G: []float64{-1}},
			"the seed action 10 broke a threshold when measured (observation 4)"},
		{"box", boxSpecYAML,
			api.TellRequest{X: x, F: ptr(1.0), G: []float64{-1}},
			api.TellRequest{X: x, F: ptr(1.0), G: []float64{1}},
			api.TellRequest{X: []float64{1, 1}, F: ptr(1.0), G: []float64{-1}},
			"the seed point [0.2 0.3] broke a threshold when measured (observation 4)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			v, _ := newService(t, filepath.Join(t.TempDir(), "s.db"))
			if err := v.Create(ctx, "s", resolved(t, c.spec)); err != nil {
				t.Fatal(err)
			}
			lastAsk := 0
			notes := func() string {
				t.Helper()
				a, err := v.Ask(ctx, "s")
				if err != nil {
					t.Fatal(err)
				}
				lastAsk = a.Ask
				sum, err := v.Show(ctx, "s")
				if err != nil {
					t.Fatal(err)
				}
				if got := strings.Join(sum.Notes, "\n"); got != strings.Join(a.Notes, "\n") {
					t.Errorf("the ask's notes %q, the summary's %q", a.Notes, sum.Notes)
				}
				return strings.Join(a.Notes, "\n")
			}
			for _, r := range []api.TellRequest{c.safe, c.other} {
				if _, err := v.Tell(ctx, "s", &r); err != nil {
					t.Fatal(err)
				}
			}
			if got := notes(); strings.Contains(got, "seed") {
				t.Errorf("notes %q before a seed broke a limit", got)
			}
			var obs []int
			for range 2 { // twice: one note
				tell, err := v.Tell(ctx, "s", &c.seed)
				if err != nil || !tell.Violation {
					t.Fatalf("tell %+v, %v", tell, err)
				}
				obs = append(obs, tell.Observation)
			}
			shown := func() string {
				t.Helper()
				sum, err := v.Show(ctx, "s")
				if err != nil {
					t.Fatal(err)
				}
				return strings.Join(sum.Notes, "\n")
			}
			got := shown()
			if !strings.Contains(got, c.want) || strings.Count(got, "broke") != 1 || !strings.Contains(got, "create a new study whose seeds are safe") {
				t.Errorf("notes %q, want one with %q", got, c.want)
			}
			// The only seed is excluded and nothing else is certified:
			// no ask, and the error names what the seed measured.
			a, err := v.Ask(ctx, "s")
			if err == nil && a.Ask == lastAsk {
				// On a box the ask of before was elsewhere, and stays
				// pending: it fails, and then nothing is left.
				if _, err := v.Tell(ctx, "s", &api.TellRequest{Ask: &a.Ask, Failed: true}); err != nil {
					t.Fatal(err)
				}
				a, err = v.Ask(ctx, "s")
			}
			if !errors.Is(err, api.ErrNoSafeSetting) || !strings.Contains(err.Error(), "measured unsafe") {
				t.Fatalf("ask with the only seed measured unsafe: %+v, %v; want ErrNoSafeSetting", a, err)
			}
			// Retracting the first leaves the second to name (the next
			// trial, the next event); retracting it too, none.
			if _, err := v.Retract(ctx, "s", obs[0]); err != nil {
				t.Fatal(err)
			}
			if got := shown(); !strings.Contains(got, strings.NewReplacer("trial 3", "trial 4", "observation 4", "observation 5").Replace(c.want)) {
				t.Errorf("after retracting the first: notes %q", got)
			}
			if _, err := v.Retract(ctx, "s", obs[1]); err != nil {
				t.Fatal(err)
			}
			if got := notes(); strings.Contains(got, "seed") {
				t.Errorf("after retracting both: notes %q", got)
			}
		})
	}
}

func ptr(v float64) *float64 { return &v }
