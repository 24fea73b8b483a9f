package server_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/safegp/safegp/server"
	"github.com/safegp/safegp/space"
	"github.com/safegp/safegp/store"
	"github.com/safegp/safegp/study"
	"github.com/safegp/safegp/study/api"
	"github.com/safegp/safegp/study/view"
)

// The studies the dashboard tests draw: made through study.Service, as
// `safegp serve` would have recorded them.

// dashToken is the fixture server's bearer token.
const dashToken = "dash-t0ken"

// A pump: f (flow) peaks at x = 3, the pressure margin g ≥ 0 for x ≤ 3.5
// (the server tests' truth).
const oneDSpec = `decision_set: {grid: {bounds: [[0, 4]], points: [81]}}
seed_actions: [20, 22]
thresholds: [0.0]
model:
  objective: {kernel: se, lengthscale: 0.8}
  constraints: [{kernel: se, lengthscale: 0.8}]
  noise_std: 0.05
  delta: 0.01
  beta: 4
algorithm: {name: sgp-ucb, phase1: uniform, exploration: {fixed: 6}}
horizon: 60
seed: 7
`

// A valve with two settings on a 30 × 30 grid; safe inside a disc.
const twoDSpec = `decision_set: {grid: {bounds: [[0, 1], [0, 1]], points: [30, 30]}}
seed_actions: [300, 301, 330]
thresholds: [0.0]
model:
  objective: {kernel: se, lengthscale: 0.25}
  constraints: [{kernel: se, lengthscale: 0.25}]
  noise_std: 0.02
  delta: 0.01
  beta: 4
algorithm: {name: safeopt, safe_set: gp}
horizon: 60
seed: 3
`

func twoDTruth(x []float64) (float64, []float64) {
	f := math.Exp(-((x[0]-0.7)*(x[0]-0.7) + (x[1]-0.6)*(x[1]-0.6)) / 0.08)
	return f, []float64{0.5 - math.Hypot(x[0]-0.4, x[1]-0.45)}
}

const boxSpec = `decision_set: {box: {bounds: [[-1, 2], [-1, 2], [0, 1]]}}
seed_points: [[0.2, 0.3, 0.5]]
thresholds: [0.0]
model:
  objective: {kernel: se, lengthscale: 0.7}
  constraints: [{kernel: se, lengthscale: 0.7}]
  noise_std: 0.05
  delta: 0.1
  beta: 4
algorithm: {name: line-bo, inner: safeopt, safe_set: gp, direction: random, points: 50, per_line: 3}
horizon: 40
seed: 5
`

func boxTruth(x []float64) (float64, []float64) {
	return -(x[0]-1)*(x[0]-1) - (x[1]-0.5)*(x[1]-0.5) - 0.3*(x[2]-0.5)*(x[2]-0.5), []float64{1.2 - x[0]*x[0] - x[1]*x[1]}
}

// The long study: 1 000 measurements imported at the actions of a 1-D
// grid of 200, with noise; those beyond x = 3.5 violate g ≥ 0.
const longSpec = `decision_set: {grid: {bounds: [[0, 4]], points: [200]}}
seed_actions: [50]
thresholds: [0.0]
model:
  objective: {kernel: se, lengthscale: 0.8}
  constraints: [{kernel: se, lengthscale: 0.8}]
  noise_std: 0.1
  delta: 0.01
  beta: 4
algorithm: {name: sgp-ucb, phase1: uniform, exploration: {fixed: 5}}
horizon: 1200
seed: 11
`

// scatterSpec is twoDSpec on 50 points of the unit square drawn at random
// (a fixed stream), seeded at the first three.
func scatterSpec() string {
	rng := rand.New(rand.NewPCG(5, 6))
	var b strings.Builder
	b.WriteString("decision_set: {actions: [")
	for k := range 50 {
		if k > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "[%.3f, %.3f]", 0.3+0.4*rng.Float64(), 0.3+0.4*rng.Float64())
	}
	b.WriteString("]}\nseed_actions: [0, 1, 2]\n")
	return b.String() + twoDSpec[strings.Index(twoDSpec, "thresholds:"):]
}

// climateSpec is the pump in a room whose temperature and load change:
// oneDSpec with a context.
const climateSpec = oneDSpec + "context: {names: [temperature, load], kernel: {kernel: se, lengthscale: [10, 1]}}\n"

// Contexts of climate-1d: the page draws the view of climateC1, the last
// ask's. climateNear is climateC1 but for the last bit of the
// temperature: another context, which 4 digits would write alike.
var (
	climateC1   = map[string]float64{"temperature": 19, "load": 0.1}
	climateC2   = map[string]float64{"temperature": 25, "load": 0.3}
	climateNear = map[string]float64{"temperature": math.Nextafter(19, 20), "load": 0.1}
)

// climateTruth is the pump in context c: warmer and more loaded, its
// optimum and safe region move left by (T − 19)/10 + load − 0.1.
func climateTruth(c map[string]float64) func([]float64) (float64, []float64) {
	s := (c["temperature"]-19)/10 + c["load"] - 0.1
	return func(x []float64) (float64, []float64) {
		f, g := truth(x[0] + s)
		return f, []float64{g}
	}
}

// dashFixture holds the served studies and what the pages must show.
type dashFixture struct {
	url   string
	svc   *study.Service
	store *store.Store
}

// namedSpec is a study stated in parameters: a gain on a log scale and a
// mode, the settling time minimized with the overshoot at most 0.05.
const namedSpec = `
parameters:
  - {name: kp, low: 0.05, high: 20, scale: log, unit: "V/rad"}
  - {name: mode, type: choice, values: [pi, pid]}
objective: {name: settle_time, goal: minimize, unit: s}
constraints:
  - {name: overshoot, max: 0.05}
seeds: [{kp: 0.3, mode: pi}]
horizon: 30
`

// namedTruth is namedSpec's plant: faster, and more overshoot, with a
// higher gain.
func namedTruth(p space.Setting) map[string]float64 {
	kp := p["kp"].Num
	if p["mode"].Str == "pid" {
		kp *= 1.3
	}
	return map[string]float64{"settle_time": 10/(1+kp) + 1, "overshoot": 0.02*kp - 0.01}
}

// twoGainSpec is issue 44's study: two gains, kp on a log scale, the
// settling time minimized with the overshoot at most 0.05.
const twoGainSpec = `
parameters:
  - {name: kp, low: 0.05, high: 20, scale: log, unit: "V/rad"}
  - {name: ki, low: 0.01, high: 10, unit: "1/s"}
objective: {name: settle_time, goal: minimize, unit: s}
constraints:
  - {name: overshoot, max: 0.05}
seeds: [{kp: 0.3, ki: 0.05}]
horizon: 40
`

// twoGainTruth is twoGainSpec's plant: faster, and more overshoot, with
// higher gains.
func twoGainTruth(p space.Setting) map[string]float64 {
	kp, ki := p["kp"].Num, p["ki"].Num
	return map[string]float64{"settle_time": 10/(1+kp) + 1/(0.2+ki) + 1, "overshoot": 0.02*kp + 0.01*ki - 0.01}
}

// pidSpec is a mixed space of five parameters: three gains, an integer
// filter length and a mode.
const pidSpec = `
parameters:
  - {name: kp, low: 0.05, high: 20, scale: log, unit: "V/rad"}
  - {name: ki, low: 0.01, high: 10, unit: "1/s"}
  - {name: kd, low: 0, high: 1}
  - {name: filter, type: int, low: 1, high: 8}
  - {name: mode, type: choice, values: [pi, pid]}
objective: {name: settle_time, goal: minimize, unit: s}
constraints:
  - {name: overshoot, max: 0.05}
seeds: [{kp: 0.3, ki: 0.05, kd: 0.1, filter: 2, mode: pi}]
horizon: 30
`

func pidTruth(p space.Setting) map[string]float64 {
	v := twoGainTruth(p)
	v["settle_time"] += 0.5*p["kd"].Num + 0.05*p["filter"].Num
	if p["mode"].Str == "pid" {
		v["overshoot"] += 0.005
	}
	return v
}

func newDashFixture(t testing.TB) *dashFixture {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(filepath.Join(t.TempDir(), "dash.db"), store.OpenOptions{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	svc := study.NewService(st, study.ServiceOptions{})
	// fresh has no observation yet; scatter-2d's 50 actions are no grid.
	for name, spec := range map[string]string{"pump-1d": oneDSpec, "valve-2d": twoDSpec, "beam-box": boxSpec, "long-1000": longSpec, "fresh": twoDSpec, "scatter-2d": scatterSpec(),
		"climate-1d": climateSpec, "batch-1d": oneDSpec, "tune-pi": namedSpec, "tune-2gain": twoGainSpec, "tune-2gain-b": twoGainSpec, "tune-pid": pidSpec} {
		parsed, err := study.ParseSpec([]byte(spec))
		if err != nil {
			t.Fatal(err)
		}
		res, err := parsed.Resolve("")
		if err != nil {
			t.Fatal(err)
		}
		if err := svc.Create(ctx, name, res); err != nil {
			t.Fatal(err)
		}
	}
	// Measured with noise of sd 0.03 (the model's 0.05 covers it).
	noise := rand.New(rand.NewPCG(3, 4))
	one := func(x []float64) (float64, []float64) {
		f, g := truth(x[0])
		return f + 0.03*noise.NormFloat64(), []float64{g + 0.03*noise.NormFloat64()}
	}
	loop(t, svc, "pump-1d", 17, one)
	// A measurement beyond the safe region (a violation, told by index),
	// one mistyped (f = 100, far off every other) and retracted, and an
	// ask left pending: 20 observations.
	tellIndex(t, svc, "pump-1d", 78, one)
	tellIndex(t, svc, "pump-1d", 40, func([]float64) (float64, []float64) { return 100, []float64{0.5} })
	obs, err := svc.Observations(ctx, "pump-1d")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Retract(ctx, "pump-1d", obs[len(obs)-1].Seq); err != nil {
		t.Fatal(err)
	}
	loop(t, svc, "pump-1d", 1, one)
	if _, err := svc.Ask(ctx, "pump-1d"); err != nil {
		t.Fatal(err)
	}

	loop(t, svc, "valve-2d", 14, twoDTruth)
	tellIndex(t, svc, "valve-2d", 29*30+29, twoDTruth) // the far corner: a violation
	a, err := svc.Ask(ctx, "valve-2d")
	if err != nil {
		t.Fatal(err)
	}
	// A measurement at the pending ask's action, taken outside the loop:
	// the heat map draws it under the ask's mark, and must keep it seen.
	tellIndex(t, svc, "valve-2d", a.Index, twoDTruth)

	loop(t, svc, "beam-box", 12, boxTruth)

	// climate-1d: 5 rounds in C1, 4 in C2, one measurement by index in a
	// context next to C1, 2 more rounds in C1 and an ask pending there:
	// 12 observations, 7 of them in C1, the context drawn.
	loopIn(t, svc, "climate-1d", climateC1, 5)
	loopIn(t, svc, "climate-1d", climateC2, 4)
	i := 30
	f, g := climateTruth(climateNear)([]float64{1.5})
	if _, err := svc.Tell(ctx, "climate-1d", &api.TellRequest{Index: &i, F: &f, G: g, Context: climateNear}); err != nil {
		t.Fatal(err)
	}
	loopIn(t, svc, "climate-1d", climateC1, 2)
	if _, err := svc.AskIn(ctx, "climate-1d", climateC1); err != nil {
		t.Fatal(err)
	}

	// batch-1d: 10 rounds, then a batch of 2 leased for 10 min, a batch of
	// 2 leased for 1 ms, and once those ended an ask without a lease,
	// which hands out the older of them again and drops its lease: 4
	// asks pending, 2 leased, 1 without a lease, 1 released.
	loop(t, svc, "batch-1d", 10, one)
	var ends time.Time
	for _, opt := range []api.AskOptions{{Count: 2, LeaseSeconds: 600}, {Count: 2, LeaseSeconds: 0.001}} {
		as, err := svc.AskBatch(ctx, "batch-1d", opt)
		if err != nil || len(as) != 2 {
			t.Fatalf("batch-1d: ask %+v: %d asks (%v)", opt, len(as), err)
		}
		if ends, err = time.Parse(time.RFC3339Nano, as[1].LeaseUntil); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(time.Until(ends) + time.Millisecond) // past the 1 ms leases' end, as answered
	if _, err := svc.AskBatch(ctx, "batch-1d", api.AskOptions{Count: 1}); err != nil {
		t.Fatal(err)
	}

	// tune-pi, stated in parameters: 8 trials asked and told, one
	// measured outside the loop that overshoots (a violation), and an
	// ask pending.
	for range 8 {
		a, err := svc.Ask(ctx, "tune-pi")
		if err != nil {
			t.Fatal(err)
		}
		id := a.Ask
		if _, err := svc.Tell(ctx, "tune-pi", &api.TellRequest{Ask: &id, Values: namedTruth(a.Params)}); err != nil {
			t.Fatal(err)
		}
	}
	far := space.Setting{"kp": space.Number(19), "mode": space.String("pid")}
	if _, err := svc.Tell(ctx, "tune-pi", &api.TellRequest{Params: far, Values: namedTruth(far)}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Ask(ctx, "tune-pi"); err != nil {
		t.Fatal(err)
	}

	// tune-2gain: 10 trials, one failed (a trip, no values), one told
	// outside the loop that overshoots; tune-2gain-b: 6 trials of the
	// same problem, to compare; tune-pid: 8 trials of a mixed space.
	namedLoop(t, svc, "tune-2gain", 5, twoGainTruth)
	a, err = svc.Ask(ctx, "tune-2gain")
	if err != nil {
		t.Fatal(err)
	}
	id := a.Ask
	if _, err := svc.Tell(ctx, "tune-2gain", &api.TellRequest{Ask: &id, Failed: true}); err != nil {
		t.Fatal(err)
	}
	namedLoop(t, svc, "tune-2gain", 5, twoGainTruth)
	hot := space.Setting{"kp": space.Number(15), "ki": space.Number(8)}
	if _, err := svc.Tell(ctx, "tune-2gain", &api.TellRequest{Params: hot, Values: twoGainTruth(hot)}); err != nil {
		t.Fatal(err)
	}
	namedLoop(t, svc, "tune-2gain-b", 6, twoGainTruth)
	namedLoop(t, svc, "tune-pid", 8, pidTruth)

	rng := rand.New(rand.NewPCG(1, 2))
	rows := make([]api.TellRequest, 1000)
	for k := range rows {
		i := rng.IntN(200)
		f, g := truth(4 * float64(i) / 199)
		f += 0.1 * rng.NormFloat64()
		rows[k] = api.TellRequest{Index: &i, F: &f, G: []float64{g + 0.1*rng.NormFloat64()}}
	}
	if _, err := svc.Import(ctx, "long-1000", rows); err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(server.Handler(svc, server.Options{Token: dashToken}))
	t.Cleanup(ts.Close)
	return &dashFixture{url: ts.URL, svc: svc, store: st}
}

// namedLoop runs rounds of ask and tell of a study stated in parameters.
func namedLoop(t testing.TB, svc *study.Service, name string, rounds int, truth func(space.Setting) map[string]float64) {
	t.Helper()
	for range rounds {
		a, err := svc.Ask(context.Background(), name)
		if err != nil {
			t.Fatal(err)
		}
		id := a.Ask
		if _, err := svc.Tell(context.Background(), name, &api.TellRequest{Ask: &id, Values: truth(a.Params)}); err != nil {
			t.Fatal(err)
		}
	}
}

// loop runs rounds of ask and tell against the truth.
func loop(t testing.TB, svc *study.Service, name string, rounds int, truth func([]float64) (float64, []float64)) {
	t.Helper()
	ctx := context.Background()
	for range rounds {
		a, err := svc.Ask(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		f, g := truth(a.X)
		id := a.Ask
		if _, err := svc.Tell(ctx, name, &api.TellRequest{Ask: &id, F: &f, G: g}); err != nil {
			t.Fatal(err)
		}
	}
}

// loopIn runs rounds of ask and tell in context c.
func loopIn(t testing.TB, svc *study.Service, name string, c map[string]float64, rounds int) {
	t.Helper()
	ctx := context.Background()
	truth := climateTruth(c)
	for range rounds {
		a, err := svc.AskIn(ctx, name, c)
		if err != nil {
			t.Fatal(err)
		}
		f, g := truth(a.X)
		id := a.Ask
		if _, err := svc.Tell(ctx, name, &api.TellRequest{Ask: &id, F: &f, G: g}); err != nil {
			t.Fatal(err)
		}
	}
}

// tellIndex tells a measurement outside the loop at action i.
func tellIndex(t testing.TB, svc *study.Service, name string, i int, truth func([]float64) (float64, []float64)) {
	t.Helper()
	ctx := context.Background()
	vw, err := view.Of(ctx, svc, name)
	if err != nil {
		t.Fatal(err)
	}
	f, g := truth(vw.Posterior.X[i])
	if _, err := svc.Tell(ctx, name, &api.TellRequest{Index: &i, F: &f, G: g}); err != nil {
		t.Fatal(err)
	}
}
