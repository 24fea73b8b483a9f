package server_test

import (
	"context"
	"flag"
	"fmt"
	"maps"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/safegp/safegp/internal/racetest"
	"github.com/safegp/safegp/study/api"
	"github.com/safegp/safegp/study/view"
)

var (
	gallery         = flag.String("gallery", "", "TestDashboardGallery: write a PNG of the dashboard per kind of study into this `folder` (docs/gallery.sh)")
	screenshot      = flag.String("screenshot", "", "TestDashboardScreenshot: write a PNG of a study's dashboard page to this `file`")
	screenshotStudy = flag.String("screenshot-study", "pump-1d", "TestDashboardScreenshot: the fixture study to show (pump-1d, valve-2d, beam-box, long-1000)")
)

// chromium returns the path of a Chromium to drive. Without one the
// browser tests are skipped, unless the environment variable CI is set
// (.ci/run installs chromium): then they fail.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("CI is set and no chromium is installed (.ci/run installs it: apt-get install chromium)")
	}
	t.Skip("no chromium installed: the browser test needs it (Debian: apt-get install chromium); set CI to make this a failure")
	return ""
}

// browser starts a headless Chromium with a fresh profile, its window
// width × height. The flags keep it off the network: without
// --disable-background-networking and its kin it tries to reach Google's
// services, which a closed network refuses.
func browser(t *testing.T, width, height int) context.Context {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromium(t)),
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("force-color-profile", "srgb"),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(width, height),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(actx)
	// The browser's deadline is the test's own (go test -timeout), less
	// a minute for the report: a fixed 60 s ran out on a loaded machine
	// (-race, every package's tests at once), where nothing was wrong.
	cancelTime := func() {}
	if d, ok := t.Deadline(); ok {
		ctx, cancelTime = context.WithDeadline(ctx, d.Add(-time.Minute))
	}
	t.Cleanup(func() { cancelTime(); cancelTab(); cancelAlloc() })
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(int64(width), int64(height))); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	return ctx
}

// waitFor polls the expression until it is true (every 5 ms, at most
// 90 s: a correct page is there in milliseconds, a loaded machine may take
// seconds, and only a broken page waits it out).
func waitFor(t *testing.T, ctx context.Context, what, expr string) {
	t.Helper()
	for deadline := time.Now().Add(90 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](expr))
		if err == nil && ok {
			return
		}
		if time.Now().After(deadline) {
			text, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body ? document.body.innerText.slice(0, 600) : ''`))
			t.Fatalf("waiting for %s (%s): %v; the page shows:\n%s", what, expr, err, text)
		}
	}
}

func eval[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

func count(t *testing.T, ctx context.Context, sel string) int {
	t.Helper()
	return eval[int](t, ctx, fmt.Sprintf(`document.querySelectorAll(%q).length`, sel))
}

// The charts are Plotly's: each figure.CLS holds a graph div (.chart)
// whose data are the traces drawn, each with meta naming its kind of
// mark (dashboard.js). gd is the expression of the first one's.
func gd(fig string) string {
	return fmt.Sprintf(`document.querySelector(%q)`, "figure."+fig+" .chart")
}

// points counts the points (non-null x) of the traces of the kinds
// metas in the first figure.fig; −1 without a drawn chart.
func points(t *testing.T, ctx context.Context, fig string, metas ...string) int {
	t.Helper()
	return eval[int](t, ctx, fmt.Sprintf(`(() => { const g = %s, ms = %s; return g && g.data ? g.data.filter((d) => ms.includes(d.meta)).reduce((n, d) => n + (d.x || []).filter((v) => v !== null).length, 0) : -1; })()`, gd(fig), jsList(metas)))
}

// traces counts the traces of kind meta in the first figure.fig.
func traces(t *testing.T, ctx context.Context, fig, meta string) int {
	t.Helper()
	return eval[int](t, ctx, fmt.Sprintf(`(() => { const g = %s; return g && g.data ? g.data.filter((d) => d.meta === %q).length : -1; })()`, gd(fig), meta))
}

// drawn counts the markers Plotly drew in the first figure.fig's SVG:
// what the browser shows, not only what the page asked for. Those of a
// chart of over 300 observations are dots, one subpath each of a
// shape's path named dots-KIND (dashboard.js, dotted); the rest are
// markers.
func drawn(t *testing.T, ctx context.Context, fig string) int {
	t.Helper()
	return eval[int](t, ctx, drawnExpr(fig))
}

// drawnExpr is drawn's expression.
func drawnExpr(fig string) string {
	return fmt.Sprintf(`(() => {
		const g = %s;
		if (!g) return -1;
		let n = g.querySelectorAll('.scatterlayer path.point').length;
		for (const p of g.querySelectorAll('.shapelayer path[data-index]')) {
			const s = (g.layout.shapes || [])[+p.dataset.index];
			if (s && /^dots-/.test(s.name)) n += (p.getAttribute('d').match(/M/g) || []).length;
		}
		return n;
	})()`, gd(fig))
}

// axisTexts are the texts of the first figure.fig's x (or y) axis: its
// title and tick labels (Plotly writes a minus as U+2212).
func axisTexts(t *testing.T, ctx context.Context, fig, axis string) (title string, ticks []string) {
	t.Helper()
	title = eval[string](t, ctx, fmt.Sprintf(`(() => { const e = document.querySelector(%q); return e ? e.textContent : ''; })()`, "figure."+fig+" .g-"+axis+"title"))
	ticks = eval[[]string](t, ctx, fmt.Sprintf(`[...document.querySelectorAll(%q)].map((e) => e.textContent.replace('\u2212', '-'))`, "figure."+fig+" ."+axis+"tick text"))
	return title, ticks
}

func jsList(s []string) string {
	q := make([]string, len(s))
	for k, v := range s {
		q[k] = strconv.Quote(v)
	}
	return "[" + strings.Join(q, ",") + "]"
}

// obsKinds are the metas of the observations' markers.
var obsKinds = []string{"obs", "violation", "retracted"}

// countLow counts a study's observations in force below the first
// constraint's threshold.
func countLow(t *testing.T, fx *dashFixture, name string) int {
	t.Helper()
	vw, err := view.Of(context.Background(), fx.svc, name)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, o := range vw.Observations {
		if !o.Retracted && o.G[0] < vw.Thresholds[0] {
			n++
		}
	}
	return n
}

// open loads url as a new document (after about:blank, so that a URL
// differing only in its fragment loads anew) and waits until the page
// says it drew view, and every chart of it (the page draws those below
// the window after it shows).
func open(t *testing.T, ctx context.Context, url, view string) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank"), chromedp.Navigate(url)); err != nil {
		t.Fatalf("navigate %s: %v", url, err)
	}
	waitFor(t, ctx, view, fmt.Sprintf(`document.documentElement.dataset.rendered === %q && document.documentElement.dataset.charts === 'all'`, view))
}

// goTo follows an in-page link (the hash route) and waits for view.
func goTo(t *testing.T, ctx context.Context, hash, view string) {
	t.Helper()
	eval[string](t, ctx, fmt.Sprintf(`location.hash = %q`, hash))
	waitFor(t, ctx, view, fmt.Sprintf(`document.documentElement.dataset.rendered === %q && document.documentElement.dataset.charts === 'all'`, view))
}

// TestDashboardInBrowser loads the dashboard's pages in headless Chromium
// and checks what they show against the studies served: the token flow,
// the list, one marker per observation, the violations, the thresholds,
// the pending asks, the best point, the posterior and safe set of a 1-D and
// a 2-D study, a box study's best value and parallel coordinates; no
// script error or CSP violation on the way; and the load time of a study
// page with 1 000 observations.
func TestDashboardInBrowser(t *testing.T) {
	ctx := browser(t, 1280, 900)
	fx := newDashFixture(t)
	msgs := collectConsole(ctx)

	// Without the token the page asks for it; with #token= it loads, and
	// the token leaves the address bar.
	open(t, ctx, fx.url+"/#/study/pump-1d", "auth")
	if msg := eval[string](t, ctx, `document.getElementById('auth-error').textContent`); !strings.Contains(msg, "401") || !strings.Contains(msg, "token") {
		t.Errorf("without a token the page says %q, want a 401 message about the token", msg)
	}
	open(t, ctx, fx.url+"/#/study/pump-1d&token="+dashToken, "study:pump-1d")
	if h := eval[string](t, ctx, `location.hash`); h != "#/study/pump-1d" {
		t.Errorf("address bar fragment %q after the token was taken, want #/study/pump-1d", h)
	}

	vw, err := view.Of(context.Background(), fx.svc, "pump-1d")
	if err != nil {
		t.Fatal(err)
	}
	n, viol, retracted, gLow := len(vw.Observations), 0, 0, 0
	for _, o := range vw.Observations {
		switch {
		case o.Retracted:
			retracted++
		case o.Violation:
			viol++
		}
		if !o.Retracted && o.G[0] < vw.Thresholds[0] {
			gLow++
		}
	}
	if n != 20 || viol == 0 || retracted != 1 || len(vw.Pending) != 1 {
		t.Fatalf("fixture pump-1d: %d observations, %d violations, %d retracted, %d pending; want 20 with a violation, one retracted, one pending", n, viol, retracted, len(vw.Pending))
	}
	for _, c := range []struct {
		fig, what string
		got, want int
	}{
		{"progress-f", "observations", points(t, ctx, "progress-f", obsKinds...), n},
		{"progress-f", "markers drawn", drawn(t, ctx, "progress-f"), n},
		{"progress-f", "violations", points(t, ctx, "progress-f", "violation"), viol},
		{"progress-f", "retracted", points(t, ctx, "progress-f", "retracted"), retracted},
		{"progress-g", "observations", points(t, ctx, "progress-g", obsKinds...), n},
		{"progress-g", "g below its threshold", points(t, ctx, "progress-g", "violation"), gLow},
		{"progress-g", "thresholds", traces(t, ctx, "progress-g", "threshold"), 1},
		{"progress-f", "thresholds", traces(t, ctx, "progress-f", "threshold"), 0}, // no objective threshold
		{"posterior-f", "observations", points(t, ctx, "posterior-f", obsKinds...), n},
		{"posterior-f", "bands", traces(t, ctx, "posterior-f", "band"), 1},
		{"posterior-f", "means", traces(t, ctx, "posterior-f", "mean"), 1},
		{"posterior-f", "pending asks", traces(t, ctx, "posterior-f", "pending"), 1},
		{"posterior-f", "seeds", points(t, ctx, "posterior-f", "seed"), len(vw.Posterior.Seed)},
		{"posterior-g", "thresholds", traces(t, ctx, "posterior-g", "threshold"), 1},
		{"pending", "rows", count(t, ctx, "#pending tbody tr"), 1},
	} {
		if c.got != c.want {
			t.Errorf("pump-1d: %s: %d %s, want %d", c.fig, c.got, c.what, c.want)
		}
	}
	if got := eval[int](t, ctx, gd("posterior-f")+`.layout.shapes.filter((s) => s.name === 'safe set').length`); got < 1 {
		t.Errorf("pump-1d: no safe set drawn (%d runs)", got)
	}
	b := vw.Summary.Best
	best := eval[string](t, ctx, `document.getElementById('best-x').textContent`)
	if want := fmt.Sprintf("action %d: x = %s", b.Index, strconv.FormatFloat(b.X[0], 'g', 4, 64)); best != want {
		t.Errorf("best point shows %q, want %q", best, want)
	}
	if lower := eval[string](t, ctx, `document.getElementById('best-lower').textContent`); !close4(lower, b.LowerF) {
		t.Errorf("best point's lower bound shows %q, want %.4g", lower, b.LowerF)
	}
	// The calibration row says the study's own check (study/calibration.go).
	if c := vw.Summary.Calibration; c == nil {
		t.Error("pump-1d: no calibration check in the summary")
	} else if got, want := eval[string](t, ctx, `document.getElementById('calibration').textContent`), fmt.Sprintf("%d of the last %d outside their intervals", c.Outside, c.Window); !strings.HasPrefix(got, want) {
		t.Errorf("pump-1d: calibration shows %q, want it to start %q", got, want)
	} else if want := c.Outcomes() + "; "; c.ByOutcome == nil || !strings.Contains(got, want) {
		t.Errorf("pump-1d: calibration shows %q, want the outcomes outside, %q", got, want)
	}
	dashboardWorkspace(t, ctx, fx)
	pend := eval[string](t, ctx, `document.querySelector('#pending tbody tr').textContent`)
	if p := vw.Pending[0]; !strings.HasPrefix(pend, fmt.Sprintf("%d%d", p.Ask, p.Index)) {
		t.Errorf("pending asks table row %q, want ask %d at action %d", pend, p.Ask, p.Index)
	}
	if got := texts(t, ctx, "#pending th"); got != "[ask action x handed out lease]" {
		t.Errorf("pump-1d: pending asks table columns %s", got)
	}
	if got := texts(t, ctx, "#pending td.lease"); got != "[—]" {
		t.Errorf("pump-1d: the lease of an ask without one shows %s, want [—]", got)
	}
	// Each function's plots together, the best value after them.
	if got := panels(t, ctx); got != "[posterior-f progress-f posterior-g progress-g best]" {
		t.Errorf("pump-1d: panels in the order %s", got)
	}

	// The page follows the study: tell the pending ask, and within a poll
	// (3 s) the page shows one more observation and no ask pending. Polls
	// of the unchanged study (answered 304) redraw nothing: two draws in
	// all.
	f, g := truth(vw.Pending[0].X[0])
	ask := vw.Pending[0].Ask
	if _, err := fx.svc.Tell(context.Background(), "pump-1d", &api.TellRequest{Ask: &ask, F: &f, G: []float64{g}}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, "the page to show the new observation", fmt.Sprintf(`document.querySelectorAll("figure.progress-f .scatterlayer path.point").length === %d`, n+1))
	if got := count(t, ctx, "#pending tbody tr"); got != 0 {
		t.Errorf("pump-1d after the tell: %d pending asks shown, want none", got)
	}
	if renders := eval[string](t, ctx, `document.documentElement.dataset.renders`); renders != "2" {
		t.Errorf("pump-1d drawn %s times, want 2 (the load, the tell)", renders)
	}

	// The list, through the link in the header.
	goTo(t, ctx, "#/", "list")
	if got := count(t, ctx, "#study-list tbody tr"); got != 12 {
		t.Errorf("list: %d rows, want 12 studies", got)
	}
	if got := eval[string](t, ctx, `document.querySelector('#study-list a[href="#/study/pump-1d"]').closest('tr').cells[5].textContent`); got != strconv.Itoa(viol) {
		t.Errorf("list: pump-1d shows %s violations, want %d", got, viol)
	}
	// Counts in full, in the CLI's words (not 10001 rounded to 4 digits).
	if got, want := eval[string](t, ctx, `document.querySelector('#study-list a[href="#/study/tune-2gain"]').closest('tr').cells[3].textContent`), "10001 candidate settings, d = 2"; got != want {
		t.Errorf("list: tune-2gain's decision set %q, want %q", got, want)
	}

	// A study stated in parameters: its own units, trial by trial.
	goTo(t, ctx, "#/study/tune-pi", "study:tune-pi")
	vwN, err := view.Of(context.Background(), fx.svc, "tune-pi")
	if err != nil {
		t.Fatal(err)
	}
	nN, violN := len(vwN.Observations), 0
	for _, o := range vwN.Observations {
		if o.Violation {
			violN++
		}
	}
	if nN != 9 || violN != 1 || len(vwN.Pending) != 1 {
		t.Fatalf("fixture tune-pi: %d trials told, %d violations, %d pending; want 9, 1, 1", nN, violN, len(vwN.Pending))
	}
	for _, c := range []struct {
		what      string
		got, want int
	}{
		{"progress-f observations", points(t, ctx, "progress-f", obsKinds...), nN},
		{"progress-f violations", points(t, ctx, "progress-f", "violation"), violN},
		{"progress-f best lines", traces(t, ctx, "progress-f", "best"), 1},
		{"progress-g observations", points(t, ctx, "progress-g", obsKinds...), nN},
		{"progress-g above the limit", points(t, ctx, "progress-g", "violation"), violN}, // the overshoot above its limit
		{"progress-g limits", traces(t, ctx, "progress-g", "threshold"), 1},
		{"map figures (one numeric parameter)", count(t, ctx, "figure.map"), 0},
		{"trials rows", count(t, ctx, "#trials tbody tr"), nN},
		{"pending rows", count(t, ctx, "#pending tbody tr"), 1},
	} {
		if c.got != c.want {
			t.Errorf("tune-pi: %d %s, want %d", c.got, c.what, c.want)
		}
	}
	b = vwN.Summary.Best
	if got, want := eval[string](t, ctx, `document.getElementById('best-x').textContent`), fmt.Sprintf("trial %d: kp = %s, mode = %s", *b.Trial, strconv.FormatFloat(b.Params["kp"].Num, 'g', 4, 64), b.Params["mode"].Str); got != want {
		t.Errorf("tune-pi: best shows %q, want %q", got, want)
	}
	if got := texts(t, ctx, "#pending th"); got != "[trial ask params handed out lease]" {
		t.Errorf("tune-pi: pending asks table columns %s", got)
	}
	if got := eval[string](t, ctx, `document.getElementById('limits').textContent`); got != "overshoot ≤ 0.05" {
		t.Errorf("tune-pi: limits %q", got)
	}
	// A slice along the one numeric parameter, kp, through the best
	// trial (issue 30): evenly in log kp from 0.05 to 20, the settling
	// time in seconds, the measured best inside its band there.
	if vwN.Slices == nil || len(vwN.Slices.Dims) != 1 || vwN.Slices.Dims[0].Name != "kp" {
		t.Fatalf("tune-pi: slices %+v, want one along kp", vwN.Slices)
	}
	if got := traces(t, ctx, "slice-f", "mean"); got != 1 {
		t.Errorf("tune-pi: %d slices drawn, want 1", got)
	}
	sl := vwN.Slices.Dims[0]
	if sl.X[0] != 0.05 || sl.X[len(sl.X)-1] != 20 || math.Abs(math.Log(sl.X[1]/sl.X[0])-math.Log(sl.X[2]/sl.X[1])) > 1e-9 {
		t.Errorf("tune-pi: the slice's kp runs %v … %v, not evenly in log kp from 0.05 to 20", sl.X[0], sl.X[len(sl.X)-1])
	}
	bkp, bst := b.Params["kp"].Num, b.Values["settle_time"]
	k := sort.SearchFloat64s(sl.X, bkp) // sl.X[k−1] < bkp ≤ sl.X[k]
	sb := vwN.Slices.SqrtBeta
	lo := math.Min(sl.F.Mean[k-1]-sb*sl.F.Std[k-1], sl.F.Mean[k]-sb*sl.F.Std[k])
	hi := math.Max(sl.F.Mean[k-1]+sb*sl.F.Std[k-1], sl.F.Mean[k]+sb*sl.F.Std[k])
	if bst < lo || bst > hi || vwN.Slices.AtParams["kp"].Num != bkp {
		t.Errorf("tune-pi: between kp = %.4g and %.4g the slice's settling time bands span [%.4g, %.4g]; the best trial (kp = %.4g) measured %.4g", sl.X[k-1], sl.X[k], lo, hi, bkp, bst)
	}
	// The spec's units in the trials' headers and on the plots' axes
	// (overshoot has none).
	if got := texts(t, ctx, "#trials th"); got != "[trial kp (V/rad) mode overshoot settle_time (s) violation]" {
		t.Errorf("tune-pi: trials table columns %s", got)
	}
	if got, _ := axisTexts(t, ctx, "progress-f", "y"); got != "settle_time (s)" {
		t.Errorf("tune-pi: the objective's plot's y axis is %q, want settle_time (s)", got)
	}

	dashboardInUnits(t, ctx, fx)

	// 2-D: the heat map with the safe set's border and hatching.
	goTo(t, ctx, "#/study/valve-2d", "study:valve-2d")
	vw2, err := view.Of(context.Background(), fx.svc, "valve-2d")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		what      string
		got, want int
	}{
		{"observations", points(t, ctx, "heatmap", obsKinds...), len(vw2.Observations)},
		{"markers drawn", drawn(t, ctx, "heatmap"), len(vw2.Observations) + 3 + 1}, // and the seeds and the pending ask
		{"violations", points(t, ctx, "heatmap", "violation"), 1},
		{"pending asks", points(t, ctx, "heatmap", "pending"), 1},
		{"unsafe veils", traces(t, ctx, "heatmap", "unsafe"), 1},
		{"safe-set outlines", traces(t, ctx, "heatmap", "safe-outline"), 1},
		{"seeds", points(t, ctx, "heatmap", "seed"), 3},
		{"cell grids", traces(t, ctx, "heatmap", "cells"), 1},
		{"progress-g thresholds", traces(t, ctx, "progress-g", "threshold"), 1},
	} {
		if c.got != c.want {
			t.Errorf("valve-2d: %d %s, want %d", c.got, c.what, c.want)
		}
	}
	if got := panels(t, ctx); got != "[heatmap heatmap-sd heatmap-g progress-f progress-g best]" {
		t.Errorf("valve-2d: panels in the order %s, want f's mean, σ and g's mean as heat maps, f's progress, then g's, then the best value", got)
	}
	// Beside f's mean (issue 30): f's σ and g's mean, each coloured from
	// its own values (the colour bars' ends), the safe set outlined.
	post2 := vw2.Posterior
	for _, c := range []struct {
		fig  string
		vals []float64
	}{{"heatmap-sd", post2.F.Std}, {"heatmap-g", post2.G[0].Mean}} {
		if got := traces(t, ctx, c.fig, "safe-outline"); got != 1 {
			t.Errorf("valve-2d: %s: %d safe-set outlines, want 1", c.fig, got)
		}
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, v := range c.vals {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
		// The colour scale spans the values' own range (Plotly's zmin
		// and zmax of the cells, computed from them).
		zr := eval[[]float64](t, ctx, fmt.Sprintf(`(() => { const d = %s._fullData.find((d) => d.meta === 'cells'); return [d.zmin, d.zmax]; })()`, gd(c.fig)))
		if len(zr) != 2 || math.Abs(zr[0]-lo) > 1e-9*math.Max(1, math.Abs(lo)) || math.Abs(zr[1]-hi) > 1e-9*math.Max(1, math.Abs(hi)) {
			t.Errorf("valve-2d: %s: colour scale %v, want the values' range [%.6g, %.6g]", c.fig, zr, lo, hi)
		}
	}
	// Every observation's marker is drawn over the seeds', the pending
	// ask's and the safe set's marks (an ask often goes to an action
	// observed already): the observations' traces come last.
	if order := eval[[]string](t, ctx, gd("heatmap")+`.data.map((d) => d.meta)`); !slices.Equal(order[len(order)-3:], obsKinds) {
		t.Errorf("valve-2d: traces in the order %v, want the observations' last", order)
	}

	// A study without observations yet.
	goTo(t, ctx, "#/study/fresh", "study:fresh")
	if got := points(t, ctx, "heatmap", obsKinds...) + points(t, ctx, "progress-f", obsKinds...); got != 0 {
		t.Errorf("fresh: %d observation markers, want none", got)
	}
	if got := traces(t, ctx, "heatmap", "safe-outline"); got != 1 {
		t.Errorf("fresh: %d safe-set outlines, want the seed set's", got)
	}
	if s := eval[string](t, ctx, `document.getElementById('pending').textContent`); s != "no ask pending" {
		t.Errorf("fresh: pending asks %q", s)
	}

	// 2-D actions that are no grid: a dot per action, the safe ones
	// ringed (the seeds, at first).
	goTo(t, ctx, "#/study/scatter-2d", "study:scatter-2d")
	if got := points(t, ctx, "heatmap", "cell"); got != 50 {
		t.Errorf("scatter-2d: %d dots, want one per action (50)", got)
	}
	if got := eval[int](t, ctx, gd("heatmap")+`.data.find((d) => d.meta === 'cell').customdata.reduce((n, s) => n + s, 0)`); got < 3 {
		t.Errorf("scatter-2d: %d safe actions ringed, want the 3 seeds at least", got)
	}

	// A box: best value against evaluations, parallel coordinates, no
	// posterior.
	goTo(t, ctx, "#/study/beam-box", "study:beam-box")
	vw3, err := view.Of(context.Background(), fx.svc, "beam-box")
	if err != nil {
		t.Fatal(err)
	}
	if got := pcLines(t, ctx); got != len(vw3.Observations) || got != 12 {
		t.Errorf("beam-box: %d lines in parallel coordinates, want one per observation (12, the view has %d)", got, len(vw3.Observations))
	}
	if got := points(t, ctx, "best", "best"); got < 1 {
		t.Errorf("beam-box: best-so-far plot without a point")
	}
	if got := count(t, ctx, "figure.posterior"); got != 0 {
		t.Errorf("beam-box: %d posterior plots, want none", got)
	}
	// Slices through the best safe point, one per coordinate (issue 30):
	// the server's posterior along each, its mean drawn through the
	// view's values, the point marked.
	if vw3.Slices == nil || len(vw3.Slices.Dims) != 3 {
		t.Fatalf("beam-box: slices %+v, want one per coordinate of 3", vw3.Slices)
	}
	for _, fig := range []string{"slice-f", "slice-g"} {
		if got := traces(t, ctx, fig, "mean"); got != 3 {
			t.Errorf("beam-box: %s: %d slices drawn, want 3", fig, got)
		}
		if got := traces(t, ctx, fig, "at"); got != 3 {
			t.Errorf("beam-box: %s: %d slices mark the best safe point, want 3", fig, got)
		}
	}
	if got := traces(t, ctx, "slice-g", "threshold"); got != 3 {
		t.Errorf("beam-box: g's slices: %d thresholds, want one per slice (3)", got)
	}
	for j, d := range vw3.Slices.Dims {
		if d.Dim != j || len(d.X) != view.SlicePoints || len(d.F.Mean) != view.SlicePoints || len(d.G) != 1 {
			t.Errorf("beam-box: slice %d: dim %d, %d points, %d means, %d constraints", j, d.Dim, len(d.X), len(d.F.Mean), len(d.G))
		}
		b := vw3.Summary.Box[j]
		if d.X[0] != b[0] || d.X[len(d.X)-1] != b[1] {
			t.Errorf("beam-box: slice %d runs from %v to %v, want the box's [%v, %v]", j, d.X[0], d.X[len(d.X)-1], b[0], b[1])
		}
	}
	// The slices' posterior is the study's own at those points, to 1e-12
	// relative: the prediction of 123 points at once sums in another
	// order than that of one (the last bit or two).
	post, err := fx.svc.Posterior(context.Background(), "beam-box", [][]float64{sliceAt(vw3.Slices, 1, 7)})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := post.Points[0].F.Mean, vw3.Slices.Dims[1].F.Mean[7]; math.Abs(got-want) > 1e-12*math.Max(1, math.Abs(want)) {
		t.Errorf("beam-box: slice 2's mean at its 8th point %v, the posterior there %v", want, got)
	}
	if s := eval[string](t, ctx, `document.getElementById('posterior-skipped').textContent`); !strings.Contains(s, "box") {
		t.Errorf("beam-box: skipped note %q", s)
	}

	// A study with a context: the context of the view in the Study card,
	// the posterior plots' titles and the pending asks; the posteriors
	// draw only the observations made in it (not those of a context one
	// bit away), the progress plots all of them.
	goTo(t, ctx, "#/study/climate-1d", "study:climate-1d")
	vw4, err := view.Of(context.Background(), fx.svc, "climate-1d")
	if err != nil {
		t.Fatal(err)
	}
	inC1 := 0
	for _, o := range vw4.Observations {
		if sameBits(o.Context, climateC1) {
			inC1++
		}
	}
	if n := len(vw4.Observations); inC1 != 7 || n != 12 || !maps.Equal(vw4.Summary.Context, climateC1) {
		t.Fatalf("fixture climate-1d: %d of %d observations in the current context %v; want 7 of 12 in %v", inC1, n, vw4.Summary.Context, climateC1)
	}
	const c1 = "temperature = 19, load = 0.1"
	if got := eval[string](t, ctx, `document.getElementById('context').textContent`); got != c1 {
		t.Errorf("climate-1d: the Study card's context %q, want %q", got, c1)
	}
	for _, c := range []struct {
		what      string
		got, want int
	}{
		{"posterior-f observations", points(t, ctx, "posterior-f", obsKinds...), inC1},
		{"posterior-g observations", points(t, ctx, "posterior-g", obsKinds...), inC1},
		{"progress-f observations", points(t, ctx, "progress-f", obsKinds...), 12},
		{"progress-g observations", points(t, ctx, "progress-g", obsKinds...), 12},
		{"posterior-f pending asks", traces(t, ctx, "posterior-f", "pending"), 1},
		{"pending rows", count(t, ctx, "#pending tbody tr"), 1},
	} {
		if c.got != c.want {
			t.Errorf("climate-1d: %d %s, want %d", c.got, c.what, c.want)
		}
	}
	for _, sel := range []string{"figure.posterior-f h2", "figure.posterior-g h2"} {
		if got := eval[string](t, ctx, fmt.Sprintf(`document.querySelector(%q).textContent`, sel)); !strings.HasSuffix(got, " in context "+c1) {
			t.Errorf("climate-1d: title %q, want it to end %q", got, " in context "+c1)
		}
	}
	if got := eval[string](t, ctx, `document.querySelector('figure.posterior-f .shown').textContent`); !strings.HasPrefix(got, "7 of 12 observations drawn") {
		t.Errorf("climate-1d: the posterior's caption says %q, want 7 of 12 drawn", got)
	}
	if got := texts(t, ctx, "#pending td.context"); got != "["+c1+"]" {
		t.Errorf("climate-1d: pending asks' contexts %s, want [%s]", got, c1)
	}
	if got := eval[string](t, ctx, `document.querySelector('#best-observed').previousElementSibling.textContent + ' | ' + document.querySelector('figure.best h2').textContent`); got != "best safe f observed, over all contexts | Best safe f so far, over all contexts" {
		t.Errorf("climate-1d: the best values are labelled %q, want them over all contexts", got)
	}
	// The tooltips name each observation's context, in full.
	tips := eval[string](t, ctx, gd("progress-f")+`.data.filter((d) => ['obs', 'violation', 'retracted'].includes(d.meta)).flatMap((d) => d.text).join('\n')`)
	if n := strings.Count(tips, " in context "+c1+"\n"); n != inC1-1 && n != inC1 { // the last one ends without a newline
		t.Errorf("climate-1d: %d tooltips in context %s, want %d:\n%s", n, c1, inC1, tips)
	}
	if !strings.Contains(tips, "in context temperature = 19.000000000000004, load = 0.1") || !strings.Contains(tips, "in context temperature = 25, load = 0.3") {
		t.Errorf("climate-1d: tooltips without the other contexts:\n%s", tips)
	}

	// A leased batch: 2 asks leased for 10 min, 1 handed out again
	// without a lease, 1 released.
	goTo(t, ctx, "#/study/batch-1d", "study:batch-1d")
	leases := eval[[]string](t, ctx, `[...document.querySelectorAll('#pending td.lease')].map((e) => e.textContent)`)
	// The page gives the date too when the lease ends on another day (a
	// run shortly before midnight).
	until := regexp.MustCompile(`^until (\d{4}-\d\d-\d\d )?\d\d:\d\d:\d\d \(in (9|10) min\)$`)
	if len(leases) != 4 || !until.MatchString(leases[0]) || !until.MatchString(leases[1]) || leases[2] != "—" || leases[3] != "released" {
		t.Errorf("batch-1d: leases shown %q, want 2 × until HH:MM:SS (in 10 min), —, released", leases)
	}

	// 1 000 observations: each a marker (one subpath each: above 300 the
	// page draws them as one path per kind), and the page drawn within
	// 300 ms of the navigation's start, the median of 5 loads. The machine
	// may be shared with other tests (go test ./... runs packages in
	// parallel): a batch whose median misses is measured again, up to 3
	// batches, so that a page that is slow in earnest fails all three.
	// A time not asserted (under -race, or without
	// SAFEGP_ASSERT_LOAD_TIME) is reported from one batch: the retries
	// only serve the assertion (under -race they cost 10 s of CI).
	assertLoad := !racetest.Enabled && os.Getenv("SAFEGP_ASSERT_LOAD_TIME") != ""
	var batches [][]float64
	for range 3 {
		var ms []float64
		for range 5 {
			open(t, ctx, fx.url+"/#/study/long-1000", "study:long-1000")
			v, err := strconv.ParseFloat(eval[string](t, ctx, `document.documentElement.dataset.renderMs`), 64)
			if err != nil {
				t.Fatal(err)
			}
			ms = append(ms, v)
		}
		slices.Sort(ms)
		batches = append(batches, ms)
		if ms[2] <= loadBound || !assertLoad {
			break
		}
	}
	if got, drawn := points(t, ctx, "progress-f", obsKinds...), drawn(t, ctx, "progress-f"); got != 1000 || drawn != 1000 {
		t.Errorf("long-1000: %d markers of f (%d drawn), want 1000", got, drawn)
	}
	if got, want := points(t, ctx, "progress-g", "violation"), countLow(t, fx, "long-1000"); got != want {
		t.Errorf("long-1000: %d markers of g below its threshold, want %d", got, want)
	}
	// A dot answers the mouse as a marker does: the pointer over
	// observation #500's dot (where Plotly's axes put its point) shows
	// its tooltip.
	at := eval[[]float64](t, ctx, `(() => {
		const g = `+gd("progress-f")+`, d = g.data.find((d) => d.meta === 'obs'), k = d.customdata.indexOf(500), fl = g._fullLayout;
		const box = g.querySelector('.draglayer .nsewdrag').getBoundingClientRect();
		return [box.left + fl.xaxis.d2p(d.x[k]), box.top + fl.yaxis.d2p(d.y[k])];
	})()`)
	if _, err := chromedp.Run(ctx, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, at[0], at[1])); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, "the tooltip of observation #500", `(() => { const h = document.querySelector('figure.progress-f .hovertext'); return !!h && h.textContent.startsWith('#500 '); })()`)
	// A click on the legend's "observation" hides those dots, as it
	// hid their markers, and a second shows them again.
	violations := points(t, ctx, "progress-f", "violation")
	clickLegend := func() {
		t.Helper()
		at := eval[[]float64](t, ctx, `(() => {
			const e = [...document.querySelectorAll('figure.progress-f .legend .traces')].find((e) => e.textContent === 'observation');
			const r = e.querySelector('.legendtoggle').getBoundingClientRect();
			return [r.left + r.width / 2, r.top + r.height / 2];
		})()`)
		if _, err := chromedp.Run(ctx, chromedp.MouseClickXY(at[0], at[1])); err != nil {
			t.Fatal(err)
		}
	}
	clickLegend()
	waitFor(t, ctx, "the observations' dots hidden by their legend entry", fmt.Sprintf(`%d === %s`, violations, drawnExpr("progress-f")))
	clickLegend()
	waitFor(t, ctx, "the observations' dots shown again", fmt.Sprintf(`1000 === %s`, drawnExpr("progress-f")))
	// Zoom and pan are the mode bar's (Plotly's own drag modes).
	if got := eval[string](t, ctx, `[...document.querySelectorAll('figure.progress-f .modebar-btn[data-attr="dragmode"]')].map((e) => e.dataset.val).join(' ')`); got != "zoom pan" {
		t.Errorf("long-1000: the mode bar's drag modes are %q, want zoom and pan", got)
	}
	// The mode bar's download writes the chart as SVG with the dots in
	// it: the round caps that draw them travel with the file.
	eval[any](t, ctx, `(() => {
		window.__svg = null;
		const make = URL.createObjectURL;
		URL.createObjectURL = (b) => { b.text().then((s) => { window.__svg = s; }); URL.createObjectURL = make; return make(b); };
		document.querySelector('figure.progress-f .modebar-btn[data-title="Download plot as SVG"]').click();
	})()`)
	waitFor(t, ctx, "the downloaded SVG", `!!window.__svg`)
	if got := eval[int](t, ctx, `(() => {
		const doc = new DOMParser().parseFromString(window.__svg, 'image/svg+xml');
		const caps = [...doc.querySelectorAll('style')].some((e) => e.textContent.includes('.shapelayer path { stroke-linecap: round; }'));
		return caps ? [...doc.querySelectorAll('.shapelayer path')].reduce((n, p) => n + (p.getAttribute('d').match(/M/g) || []).length, 0) : -1;
	})()`); got != 1000 {
		t.Errorf("long-1000: the downloaded SVG of f's observations holds %d dots with round caps (-1: no caps), want 1000", got)
	}
	last := batches[len(batches)-1]
	t.Logf("long-1000 (1 000 observations): navigation start → page drawn and laid out, 5 loads per batch: %v ms; median %.1f ms", batches, last[2])
	switch {
	case last[2] <= loadBound:
	case !assertLoad:
		// A time, not a result: measured and logged always, asserted
		// only when asked, without -race (which slows the server about
		// tenfold), on a machine running nothing else — .ci/run's step
		// after the test suite.
		t.Logf("the %d ms bound is asserted with SAFEGP_ASSERT_LOAD_TIME=1 and without -race; .ci/run reports the time without asserting it", loadBound)
	default:
		t.Errorf("the page of a study with 1 000 observations was drawn %.1f ms after the navigation started (median of 5, in each of %d batches), want ≤ %d", last[2], len(batches), loadBound)
	}

	// Every study's page, whatever its kind, shows the study's notes, as
	// many as its summary has and in its words, and its calibration check
	// where it has one (issue 44: a grid study's page hid them).
	infos, err := fx.svc.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	noted := 0
	for _, info := range infos {
		sum, err := fx.svc.Show(context.Background(), info.Study)
		if err != nil {
			t.Fatal(err)
		}
		open(t, ctx, fx.url+"/#/study/"+info.Study, "study:"+info.Study)
		if got := eval[[]string](t, ctx, `[...document.querySelectorAll('#notes li')].map((e) => e.textContent)`); !slices.Equal(got, sum.Notes) {
			t.Errorf("%s: the page's notes %q, the summary's %q", info.Study, got, sum.Notes)
		}
		if got, want := count(t, ctx, "#calibration"), map[bool]int{true: 1}[sum.Calibration != nil]; got != want {
			t.Errorf("%s: %d calibration rows on the page, want %d", info.Study, got, want)
		}
		noted += min(len(sum.Notes), 1)
	}
	if noted < 3 {
		t.Errorf("only %d of the %d studies have notes: the check above means little", noted, len(infos))
	}

	// No script error, no CSP violation. The browser logs the 401 of the
	// first page as a network error: that one was expected.
	eval[any](t, ctx, `console.log('end of the browser test')`)
	waitFor(t, ctx, "the console's last message", "true")
	for _, m := range msgs.until(t, "end of the browser test") {
		if m.Type == chromedp.ConsoleError || m.IsException() || m.Source == "security" {
			if m.Source == "network" && strings.Contains(m.Text, "401") {
				continue
			}
			t.Errorf("console: %s (%s)", m, m.URL)
		}
	}
}

// loadBound is the asserted load time of long-1000's page, in ms: issue
// 44's 300 ms. On the 2-core machine the page took 580–690 ms on
// Plotly.js until two changes (BENCHMARKS.md, "The dashboard"): a
// chart's box keeps its height before it is drawn, so that the first
// window holds the two charts it shows and not four; a trace of over 300
// markers is one path of dots. It now measures 260–315 ms there (median
// of 5) on a day when the old page took 640 ms.
const loadBound = 300

// consoleLog collects a tab's console messages as they come.
type consoleLog struct {
	mu   sync.Mutex
	msgs []chromedp.ConsoleMessage
}

func collectConsole(ctx context.Context) *consoleLog {
	c := &consoleLog{}
	messages := chromedp.Console(ctx)
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			c.mu.Lock()
			c.msgs = append(c.msgs, m)
			c.mu.Unlock()
		}
	}()
	return c
}

// until returns the messages up to the one with text last, waiting for it
// (at most 5 s).
func (c *consoleLog) until(t *testing.T, last string) []chromedp.ConsoleMessage {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		c.mu.Lock()
		for k, m := range c.msgs {
			if m.Text == last {
				out := slices.Clone(c.msgs[:k])
				c.mu.Unlock()
				return out
			}
		}
		c.mu.Unlock()
	}
	t.Fatalf("the console's message %q never came", last)
	return nil
}

// texts returns the text of every element sel selects, as [a b …].
func texts(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	return fmt.Sprint(eval[[]string](t, ctx, fmt.Sprintf(`[...document.querySelectorAll(%q)].map((e) => e.textContent)`, sel)))
}

// panels returns the study page's plots in order, each by its last class.
func panels(t *testing.T, ctx context.Context) string {
	t.Helper()
	return fmt.Sprint(eval[[]string](t, ctx, `[...document.querySelectorAll('.plots > figure')].map((f) => f.classList[f.classList.length - 1])`))
}

// sameBits reports whether two contexts are the same values to the bit
// (as vec.SameBits).
func sameBits(a, b map[string]float64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		w, ok := b[k]
		if !ok || math.Float64bits(v) != math.Float64bits(w) {
			return false
		}
	}
	return true
}

// close4 reports whether text is v written with 4 significant digits.
func close4(text string, v float64) bool {
	got, err := strconv.ParseFloat(text, 64)
	return err == nil && got == mustFloat(strconv.FormatFloat(v, 'g', 4, 64))
}

func mustFloat(s string) float64 {
	v, _ := strconv.ParseFloat(s, 64)
	return v
}

// TestDashboardScreenshot writes one study's page as a PNG (run with
// -args -screenshot FILE [-screenshot-study NAME]), whole, 1280 px wide.
func TestDashboardScreenshot(t *testing.T) {
	if *screenshot == "" {
		t.Skip("give -screenshot FILE to write the dashboard's screenshot")
	}
	ctx := browser(t, 1280, 900)
	fx := newDashFixture(t)
	msgs := collectConsole(ctx)
	open(t, ctx, fx.url+"/#/study/"+*screenshotStudy+"&token="+dashToken, "study:"+*screenshotStudy)
	// A map comes after the page: wait for it.
	waitFor(t, ctx, "the map", `!document.getElementById('map-figure') || !!document.getElementById('map-figure').dataset.mapped`)
	eval[any](t, ctx, `console.log('end of the screenshot')`)
	for _, m := range msgs.until(t, "end of the screenshot") {
		t.Logf("console: %s %s (%s)", m.Type, m.Text, m.URL)
	}
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(*screenshot, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s (%d bytes)", *screenshot, len(png))
}

// topTick is the highest y tick label of the first figure.fig.
func topTick(t *testing.T, ctx context.Context, fig string) float64 {
	t.Helper()
	_, ticks := axisTexts(t, ctx, fig, "y")
	top := math.Inf(-1)
	for _, s := range ticks {
		if v, err := strconv.ParseFloat(s, 64); err == nil {
			top = math.Max(top, v)
		}
	}
	return top
}

// pcLines counts the trials drawn in the parallel coordinates: a line
// each, starting on the first axis (x = 0).
func pcLines(t *testing.T, ctx context.Context) int {
	t.Helper()
	return eval[int](t, ctx, gd("parallel")+`.data.filter((d) => d.meta.startsWith('pc')).reduce((n, d) => n + d.x.filter((x) => x === 0).length, 0)`)
}

// dashboardWorkspace checks issue 30's views on pump-1d (shown): the y
// axes follow the data — the mistyped f = 100, retracted, sets none, and
// is drawn pinned at the edge — and the 1-D posteriors' ±√β·σ band is
// clipped until the toggle asks for all of it; the observations as CSV
// from the page's origin; the table of observations, built when opened,
// sorted by a click on a header and filtered.
func dashboardWorkspace(t *testing.T, ctx context.Context, fx *dashFixture) {
	t.Helper()
	vw, err := view.Of(context.Background(), fx.svc, "pump-1d")
	if err != nil {
		t.Fatal(err)
	}
	if top := topTick(t, ctx, "progress-f"); !(top < 10) {
		t.Errorf("pump-1d: the f progress plot's top tick is %v: the retracted f = 100 set its range", top)
	}
	if top := topTick(t, ctx, "posterior-f"); !(top < 10) {
		t.Errorf("pump-1d: the posterior of f's top tick is %v: the retracted f = 100 set its range", top)
	}
	// Every mark lies in its plot area: the retracted one pinned to it.
	if n := eval[int](t, ctx, `(() => { const g = `+gd("progress-f")+`, [lo, hi] = g._fullLayout.yaxis.range; return g.data.filter((d) => ['obs', 'violation', 'retracted'].includes(d.meta)).flatMap((d) => d.y).filter((y) => y < lo || y > hi).length; })()`); n != 0 {
		t.Errorf("pump-1d: %d marks of the f progress plot outside its area", n)
	}
	// The band clipped, then whole on the toggle (the y range takes it
	// in), then clipped again; the choice survives the redraw. The band's
	// extent comes from the view: mean ± √β·σ over the actions.
	post := vw.Posterior
	bandLo, bandHi := math.Inf(1), math.Inf(-1)
	for j := range post.F.Mean {
		bandLo = math.Min(bandLo, post.F.Mean[j]-post.SqrtBeta*post.F.Std[j])
		bandHi = math.Max(bandHi, post.F.Mean[j]+post.SqrtBeta*post.F.Std[j])
	}
	yRange := func() (float64, float64) {
		return eval[float64](t, ctx, `Number(document.querySelector('figure.posterior-f').dataset.y0)`), eval[float64](t, ctx, `Number(document.querySelector('figure.posterior-f').dataset.y1)`)
	}
	n0, n1 := yRange()
	if n0 <= bandLo && n1 >= bandHi {
		t.Errorf("pump-1d: the posterior's y range [%v, %v] holds the whole band [%v, %v]: it should follow the data", n0, n1, bandLo, bandHi)
	}
	redraws := eval[int](t, ctx, `Number(document.documentElement.dataset.redraws || 0)`)
	eval[bool](t, ctx, `(() => { const b = document.getElementById('whole-band'); b.click(); return b.checked; })()`)
	waitFor(t, ctx, "the redraw with the whole band", fmt.Sprintf(`Number(document.documentElement.dataset.redraws || 0) > %d`, redraws))
	if w0, w1 := yRange(); !(w0 <= bandLo && w1 >= bandHi) || !eval[bool](t, ctx, `document.getElementById('whole-band').checked`) {
		t.Errorf("pump-1d: with the whole band the y range is [%v, %v], want it to hold [%v, %v]", w0, w1, bandLo, bandHi)
	}
	eval[bool](t, ctx, `(() => { const b = document.getElementById('whole-band'); b.click(); return !b.checked; })()`)
	waitFor(t, ctx, "the redraw with the band clipped", fmt.Sprintf(`Number(document.documentElement.dataset.redraws || 0) > %d`, redraws+1))
	if b0, b1 := yRange(); b0 != n0 || b1 != n1 {
		t.Errorf("pump-1d: after the toggle back the y range is [%v, %v], want [%v, %v]", b0, b1, n0, n1)
	}
	// The CSV the download button fetches, from the page's origin, with
	// the page's token.
	csv, err := chromedp.Run(ctx, chromedp.Evaluate[string](`fetch('v1/studies/pump-1d/observations?format=csv', { headers: { Authorization: 'Bearer ' + sessionStorage.getItem('safegp.token') } }).then(async (r) => r.status + ' ' + (await r.text()))`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("pump-1d: fetch the CSV: %v", err)
	}
	if !strings.HasPrefix(csv, "200 seq,kind,ask,index,x1,f,g1,") || strings.Count(csv, "\n") != 22 { // header, 20 tells, 1 retraction
		t.Errorf("pump-1d: the CSV download gives %q…", csv[:min(len(csv), 200)])
	}
	if count(t, ctx, "#download-csv") != 1 {
		t.Error("pump-1d: no download button")
	}
	// The table: not built until opened, then every observation; sorted
	// by f on a click (again: the other way), filtered by the box.
	if count(t, ctx, "#observations tbody tr") != 0 {
		t.Error("pump-1d: the observations table was built before it was opened")
	}
	eval[bool](t, ctx, `(() => { const d = document.getElementById('observations-section'); d.open = true; return true; })()`)
	waitFor(t, ctx, "the observations table", `document.querySelectorAll('#observations tbody tr').length === 20`)
	fcol := eval[int](t, ctx, `Array.from(document.querySelectorAll('#observations th')).findIndex((th) => th.textContent === 'f')`)
	column := fmt.Sprintf(`Array.from(document.querySelectorAll('#observations tbody tr')).filter((r) => !r.hidden).map((r) => Number(r.cells[%d].textContent))`, fcol)
	sorted := func(dir string) bool {
		return eval[bool](t, ctx, fmt.Sprintf(`(() => { const v = %s; return v.every((x, k) => k === 0 || (%q === 'up' ? v[k - 1] <= x : v[k - 1] >= x)); })()`, column, dir))
	}
	eval[bool](t, ctx, fmt.Sprintf(`(() => { document.querySelectorAll('#observations th')[%d].click(); return true; })()`, fcol))
	if !sorted("up") || eval[string](t, ctx, fmt.Sprintf(`document.querySelectorAll('#observations th')[%d].getAttribute('aria-sort')`, fcol)) != "ascending" {
		t.Errorf("pump-1d: after a click on f the column reads %v", eval[[]float64](t, ctx, column))
	}
	eval[bool](t, ctx, fmt.Sprintf(`(() => { document.querySelectorAll('#observations th')[%d].click(); return true; })()`, fcol))
	if !sorted("down") {
		t.Errorf("pump-1d: after a second click on f the column reads %v", eval[[]float64](t, ctx, column))
	}
	eval[bool](t, ctx, `(() => { const b = document.getElementById('observations-filter'); b.value = 'retracted'; b.dispatchEvent(new Event('input')); return true; })()`)
	if got := eval[[]float64](t, ctx, column); len(got) != 1 || got[0] != 100 {
		t.Errorf("pump-1d: filtered by \"retracted\", the table shows f = %v, want [100]", got)
	}
	eval[bool](t, ctx, `(() => { const b = document.getElementById('observations-filter'); b.value = ''; b.dispatchEvent(new Event('input')); document.getElementById('observations-section').open = false; return true; })()`)
}

// sliceAt is the point of slice dim's k-th value.
func sliceAt(sl *view.Slices, dim, k int) []float64 {
	p := slices.Clone(sl.At)
	p[dim] = sl.Dims[dim].X[k]
	return p
}

// dashboardInUnits checks issue 44's pictures in the user's units on
// studies stated in parameters: tune-2gain (kp on a log scale over
// [0.05, 20], ki over [0.01, 10], settle_time minimized, an overshoot
// limit) names its parameters and outcomes on every axis, puts log ticks
// 0.1, 1, 10 on kp and draws no unit-cube x₁; its map shows the model's
// mean, the safe region and every trial (the violation and the failure
// marked) and follows the axes picked; its slices cover the objective and
// the constraint; tune-pid's five parameters are drawn in parallel
// coordinates; two studies of one problem are compared.
func dashboardInUnits(t *testing.T, ctx context.Context, fx *dashFixture) {
	t.Helper()
	goTo(t, ctx, "#/study/tune-2gain", "study:tune-2gain")
	waitFor(t, ctx, "the map", `document.getElementById('map-figure').dataset.mapped === 'kp,ki'`)
	vw, err := view.Of(context.Background(), fx.svc, "tune-2gain")
	if err != nil {
		t.Fatal(err)
	}
	ok, bad := 0, 0
	for _, o := range vw.Observations {
		switch {
		case o.Retracted:
		case o.Violation:
			bad++
		default:
			ok++
		}
	}
	if ok != 10 || bad != 1 || len(vw.Failures) != 1 {
		t.Fatalf("fixture tune-2gain: %d trials kept the limit, %d broke it, %d failed; want 10, 1, 1", ok, bad, len(vw.Failures))
	}
	for _, c := range []struct {
		what      string
		got, want int
	}{
		{"map: trials", points(t, ctx, "map", "obs"), ok},
		{"map: violations", points(t, ctx, "map", "violation"), bad},
		{"map: failures", points(t, ctx, "map", "failed"), 1},
		{"map: mean contours", traces(t, ctx, "map", "mean"), 1},
		{"map: safe regions", traces(t, ctx, "map", "safe-region"), 1},
		{"map: grid rows", eval[int](t, ctx, gd("map")+`.data.find((d) => d.meta === 'mean').z.length`), view.MapPoints},
		{"progress-f: failures", points(t, ctx, "progress-f", "failed"), 1},
		{"slice-f: slices", traces(t, ctx, "slice-f", "mean"), 2},
		{"slice-g: slices", traces(t, ctx, "slice-g", "mean"), 2},
		{"slice-g: limits", traces(t, ctx, "slice-g", "threshold"), 2},
	} {
		if c.got != c.want {
			t.Errorf("tune-2gain: %s: %d, want %d", c.what, c.got, c.want)
		}
	}
	// The axes in the user's units, as the browser drew them.
	for _, c := range []struct{ fig, axis, title, ticks string }{
		{"map", "x", "kp (V/rad)", "[0.1 1 10]"},
		{"map", "y", "ki (1/s)", ""},
		{"progress-f", "y", "settle_time (s)", ""},
		{"progress-g", "y", "overshoot", ""},
		{"slice-f", "x", "kp (V/rad)", "[0.1 1 10]"},
	} {
		title, ticks := axisTexts(t, ctx, c.fig, c.axis)
		if c.fig == "slice-f" {
			// The first of the slices' panels: kp's.
			title = eval[string](t, ctx, `document.querySelector('figure.slice-f .g-xtitle').textContent`)
			ticks = eval[[]string](t, ctx, `[...document.querySelectorAll('figure.slice-f .xaxislayer-above .xtick text')].map((e) => e.textContent).slice(0, 3)`)
		}
		if title != c.title || (c.ticks != "" && fmt.Sprint(ticks) != c.ticks) {
			t.Errorf("tune-2gain: %s's %s axis: %q with ticks %v, want %q%s", c.fig, c.axis, title, ticks, c.title, map[bool]string{true: " with ticks " + c.ticks}[c.ticks != ""])
		}
	}
	if typ := eval[string](t, ctx, gd("map")+`._fullLayout.xaxis.type`); typ != "log" {
		t.Errorf("tune-2gain: the map's kp axis is %s, want log", typ)
	}
	if text := eval[string](t, ctx, `document.querySelector('.plots').textContent`); strings.Contains(text, "x₁") || strings.Contains(text, "x1") || strings.Contains(text, "x2") {
		t.Errorf("tune-2gain: the plots name a unit-cube coordinate: %q", text[:min(len(text), 300)])
	}
	// Another pair: picking y = kp swaps the axes, and the map follows.
	eval[bool](t, ctx, `(() => { const s = document.getElementById('map-y'); s.value = 'kp'; s.dispatchEvent(new Event('change')); return true; })()`)
	waitFor(t, ctx, "the swapped map", `document.getElementById('map-figure').dataset.mapped === 'ki,kp'`)
	if title, _ := axisTexts(t, ctx, "map", "x"); title != "ki (1/s)" {
		t.Errorf("tune-2gain: after the swap the map's x axis is %q, want ki (1/s)", title)
	}

	// Five parameters, a choice and an int among them: parallel
	// coordinates, one line per trial, an axis per parameter.
	goTo(t, ctx, "#/study/tune-pid", "study:tune-pid")
	if got := pcLines(t, ctx); got != 8 {
		t.Errorf("tune-pid: %d lines in parallel coordinates, want one per trial (8)", got)
	}
	if got := eval[[]string](t, ctx, gd("parallel")+`.layout.xaxis.ticktext`); fmt.Sprint(got) != "[kp ki kd filter mode settle_time (s)]" {
		t.Errorf("tune-pid: parallel axes %v", got)
	}
	if got := traces(t, ctx, "slice-f", "mean"); got != 4 {
		t.Errorf("tune-pid: %d slices, want one per numeric parameter (4)", got)
	}

	// Compare: the list's two ticked studies, then the view of both.
	goTo(t, ctx, "#/", "list")
	eval[bool](t, ctx, `(() => { for (const n of ['tune-2gain', 'tune-2gain-b']) document.querySelector('input.pick[value="' + n + '"]').click(); document.getElementById('compare').click(); return true; })()`)
	waitFor(t, ctx, "the compare view", `document.documentElement.dataset.rendered === 'compare:tune-2gain/tune-2gain-b'`)
	if got := traces(t, ctx, "compare-best", "best"); got != 2 {
		t.Errorf("compare: %d best-so-far lines, want 2", got)
	}
	if got := points(t, ctx, "compare-params", "trials-0", "trials-1"); got != 2*(11+6) {
		t.Errorf("compare: %d points against the parameters, want %d (2 parameters × 17 trials in force)", got, 2*(11+6))
	}
	goTo(t, ctx, "#/compare/tune-2gain/pump-1d", "compare:tune-2gain/pump-1d")
	if msg := eval[string](t, ctx, `document.getElementById('compare-error').textContent`); !strings.Contains(msg, "do not have the same parameters") {
		t.Errorf("compare of two problems: %q", msg)
	}
}

// TestDashboardGallery writes the gallery's screenshots (docs/gallery.sh:
// -args -gallery ../docs/figures): the list and one page per kind of
// study, whole, at 1280 px wide, each once its map (if any) is drawn.
func TestDashboardGallery(t *testing.T) {
	if *gallery == "" {
		t.Skip("give -gallery FOLDER to write the dashboard's screenshots")
	}
	ctx := browser(t, 1280, 900)
	fx := newDashFixture(t)
	open(t, ctx, fx.url+"/#/&token="+dashToken, "list")
	for _, c := range []struct{ file, hash, view string }{
		{"dashboard-list", "#/", "list"},
		{"dashboard-1d", "#/study/pump-1d", "study:pump-1d"},
		{"dashboard-2d", "#/study/valve-2d", "study:valve-2d"},
		{"dashboard-box", "#/study/beam-box", "study:beam-box"},
		{"dashboard-context", "#/study/climate-1d", "study:climate-1d"},
		{"dashboard-params", "#/study/tune-2gain", "study:tune-2gain"},
		{"dashboard-mixed", "#/study/tune-pid", "study:tune-pid"},
		{"dashboard-compare", "#/compare/tune-2gain/tune-2gain-b", "compare:tune-2gain/tune-2gain-b"},
	} {
		open(t, ctx, fx.url+"/"+c.hash, c.view)
		waitFor(t, ctx, "the map", `!document.getElementById('map-figure') || !!document.getElementById('map-figure').dataset.mapped`)
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(*gallery, c.file+".png")
		if err := os.WriteFile(path, png, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s (%d bytes)", path, len(png))
	}
}
