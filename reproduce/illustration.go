package reproduce

import (
	"context"
	"encoding/json"
	"fmt"
	"image/color"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/safegp/safegp/bandit"
	"github.com/safegp/safegp/experiment"
	"github.com/safegp/safegp/kernel"
	"github.com/safegp/safegp/plot"
	"github.com/safegp/safegp/problem"
)

// The illustration's setting (paper Fig. 1; SPEC §6.1 leaves the details
// open): 200 actions evenly spaced on [0, 10], f and g drawn from SE GPs of
// lengthscale 1, h = 0, ε = 0.1, noise 0.05, a seed set of 10 adjacent safe
// actions in the same safe interval as x* but at least 1 away from it,
// SGP-UCB (uniform phase 1, plateau 20 / cap 100) for 200 rounds.
const (
	illN, illT              = 200, 200
	illEps, illNoise        = 0.1, 0.05
	illSeedLen              = 10
	illSeed          uint64 = 2021
)

// Snapshot is the learner's state after T rounds.
type Snapshot struct {
	T       int       `json:"t"`
	MeanF   []float64 `json:"mean_f"`
	MeanG   []float64 `json:"mean_g"`
	Safe    []bool    `json:"safe"` // D^s_{T+1}
	Played  []int     `json:"played"`
	XStarIn bool      `json:"x_star_in_safe_set"`
}

// Illustration is the data of Fig. 1.
type Illustration struct {
	X         []float64  `json:"x"`
	F         []float64  `json:"f"`
	G         []float64  `json:"g"`
	H         float64    `json:"h"`
	Epsilon   float64    `json:"epsilon"`
	Seed      []int      `json:"seed"`
	XStar     int        `json:"x_star"`
	TPrime    int        `json:"t_prime"`
	Snapshots []Snapshot `json:"snapshots"`
}

// RunIllustration draws the illustration's problem, runs SGP-UCB on it and
// writes illustration.png/.svg and illustration.json into dir, created if
// needed. It writes in place, file by file: Run calls it inside its
// staging folder, which is what makes a reproduction all-or-nothing.
func RunIllustration(ctx context.Context, dir string) (*Illustration, error) {
	p, info, err := illustrationProblem()
	if err != nil {
		return nil, err
	}
	se := kernel.SE{Variance: 1, Lengthscale: 1}
	st := &experiment.Setting{
		Model: bandit.Model{Objective: se, Constraints: []kernel.Kernel{se}, NoiseStd: illNoise, Delta: 0.01, Beta: bandit.PaperBeta},
		Set:   bandit.DecisionSet{X: p.X, Seed: p.Seed},
		// No ground truth: SGP-UCB never reads it.
		Options: bandit.Options{Thresholds: p.H, Epsilon: p.Epsilon, Horizon: illT, Rand: rand.New(rand.NewPCG(illSeed, 0x222))},
	}
	spec := &bandit.Spec{Name: bandit.SGPUCB, Phase1: "uniform",
		Exploration: bandit.Exploration{Plateau: &bandit.Plateau{Window: 20, Cap: 100}}}
	ill := &Illustration{H: 0, Epsilon: illEps, Seed: p.Seed, XStar: info.XStar, F: p.F, G: p.G[0]}
	for _, xi := range p.X {
		ill.X = append(ill.X, xi[0])
	}
	// After the tells of rounds 50 and T, the policy's view of the next
	// round holds the GP means and D^s_{t+1} the panels show.
	watch := func(t int, pol bandit.Policy) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if t != 50 && t != illT {
			return nil
		}
		var view bandit.Snapshot
		pol.Inspect(&view, bandit.Full)
		ill.Snapshots = append(ill.Snapshots, Snapshot{
			T: t, MeanF: view.F.Mean, MeanG: view.G[0].Mean, Safe: view.Safe, XStarIn: view.Safe[info.XStar],
		})
		return nil
	}
	run, err := experiment.Play(spec, st, experiment.OnProblem(p, info), rand.New(rand.NewPCG(illSeed, 0x333)), watch)
	if err != nil {
		return nil, fmt.Errorf("reproduce: illustration: %w", err)
	}
	for k := range ill.Snapshots {
		ill.Snapshots[k].Played = run.Actions[:ill.Snapshots[k].T]
	}
	ill.TPrime = run.ExplorationRounds
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("reproduce: %w", err)
	}
	js, err := json.Marshal(ill)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "illustration.json"), append(js, '\n'), 0o644); err != nil {
		return nil, fmt.Errorf("reproduce: %w", err)
	}
	panels, err := ill.panels()
	if err != nil {
		return nil, err
	}
	// One legend for the three panels, beside the last (it took a third
	// of each panel when each had its own).
	return ill, plot.Figure{Panels: panels, SharedLegend: true}.Save(dir, "illustration")
}

// illustrationProblem draws f and g from SE GPs of lengthscale 1 on the
// grid until a draw has a seed interval (seedInterval), each draw by
// problem.Generate, which itself redraws while D^s_ε is empty.
func illustrationProblem() (*problem.Problem, *problem.Info, error) {
	rng := rand.New(rand.NewPCG(illSeed, 0x111))
	spec := &problem.GenerateSpec{
		DecisionSet: problem.DecisionSetSpec{Kind: "grid", Bounds: [][2]float64{{0, 10}}, Points: []int{illN}},
		Objective:   kernel.Spec{Kernel: "se", Lengthscale: kernel.Iso(1)},
		Constraints: []kernel.Spec{{Kernel: "se", Lengthscale: kernel.Iso(1)}},
		// The whole safe set for now: seedInterval then picks the seeds.
		SeedSet: problem.SeedSetSpec{All: true},
	}
	for draw := 0; draw < problem.MaxDraws; draw++ {
		p, err := problem.Generate(spec, []float64{0}, illEps, illNoise, rng)
		if err != nil {
			return nil, nil, fmt.Errorf("reproduce: illustration: %w", err)
		}
		seed, ok := seedInterval(p)
		if !ok {
			continue
		}
		p.Seed = seed
		if info, err := p.Analyze(); err == nil {
			return p, info, nil
		}
	}
	return nil, nil, fmt.Errorf("reproduce: illustration: no suitable draw in %d", problem.MaxDraws)
}

// seedInterval picks illSeedLen adjacent actions with g ≥ h + ε inside the
// ε-safe interval that holds x*, at least 1 (20 grid steps) from x*.
func seedInterval(p *problem.Problem) ([]int, bool) {
	safe := p.SafeSet(p.Epsilon)
	xs, ok := problem.Argmax(p.F, safe)
	if !ok {
		return nil, false
	}
	lo, hi := xs, xs
	for lo > 0 && safe[lo-1] {
		lo--
	}
	for hi < len(safe)-1 && safe[hi+1] {
		hi++
	}
	const gap = illN / 10 // 1.0 on [0, 10]
	// Prefer the side with more room.
	var start int
	switch {
	case xs-gap-illSeedLen+1 >= lo && xs-lo >= hi-xs:
		start = xs - gap - illSeedLen + 1
	case xs+gap+illSeedLen-1 <= hi:
		start = xs + gap
	case xs-gap-illSeedLen+1 >= lo:
		start = xs - gap - illSeedLen + 1
	default:
		return nil, false
	}
	seed := make([]int, illSeedLen)
	for i := range seed {
		seed[i] = start + i
	}
	return seed, true
}

var (
	// The figures' palette (plot.Palette, Okabe–Ito).
	colF    = plot.Palette[0]
	colG    = plot.Palette[3]
	colH    = plot.Palette[2]
	colMF   = plot.Palette[4]
	colMG   = plot.Palette[1]
	colSeed = color.NRGBA{127, 127, 127, 70}
	colSafe = plot.Palette[2]
)

func (ill *Illustration) panels() ([]*plot.Panel, error) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for i := range ill.F {
		lo = math.Min(lo, math.Min(ill.F[i], ill.G[i]))
		hi = math.Max(hi, math.Max(ill.F[i], ill.G[i]))
	}
	lo, hi = lo-0.4, hi+0.2
	xy := func(v []float64) plotter.XYs {
		pts := make(plotter.XYs, len(v))
		for i := range v {
			pts[i] = plotter.XY{X: ill.X[i], Y: v[i]}
		}
		return pts
	}
	// The legend's entries, in the order met, each once: every panel
	// gets all of them (a shared legend, plot.Figure.SharedLegend).
	type entry struct {
		label string
		thumb []gplot.Thumbnailer
	}
	var entries []entry
	legend := func(label string, th gplot.Thumbnailer) {
		for _, e := range entries {
			if e.label == label {
				return
			}
		}
		entries = append(entries, entry{label, []gplot.Thumbnailer{th}})
	}
	line := func(p *plot.Panel, v []float64, c color.NRGBA, dashed bool, label string) error {
		l, err := plotter.NewLine(xy(v))
		if err != nil {
			return err
		}
		l.Color, l.Width = c, vg.Points(1.5)
		if dashed {
			l.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
		}
		p.Add(l)
		if label != "" {
			legend(label, l)
		}
		return nil
	}
	base := func(title string) (*plot.Panel, error) {
		p := plot.NewPanel(title, "x", "value")
		p.Y.Min, p.Y.Max = lo, hi
		x0, x1 := ill.X[ill.Seed[0]], ill.X[ill.Seed[len(ill.Seed)-1]]
		band, err := plotter.NewPolygon(plotter.XYs{{X: x0, Y: lo}, {X: x1, Y: lo}, {X: x1, Y: hi}, {X: x0, Y: hi}})
		if err != nil {
			return nil, err
		}
		band.Color, band.LineStyle.Width = colSeed, 0
		p.Add(band)
		legend("seed set Dʷ", band)
		hl := make([]float64, len(ill.X))
		for i := range hl {
			hl[i] = ill.H + ill.Epsilon
		}
		if err := line(p, hl, colH, true, "h + ε"); err != nil {
			return nil, err
		}
		return p, nil
	}
	star := func(p *plot.Panel) error {
		s, err := plotter.NewScatter(plotter.XYs{{X: ill.X[ill.XStar], Y: ill.F[ill.XStar]}})
		if err != nil {
			return err
		}
		s.GlyphStyle = draw.GlyphStyle{Color: colG, Radius: vg.Points(5), Shape: draw.PyramidGlyph{}}
		p.Add(s)
		legend("x*", s)
		return nil
	}
	first, err := base("(a) true f, g and the seed set")
	if err != nil {
		return nil, err
	}
	if err := line(first, ill.F, colF, false, "f"); err != nil {
		return nil, err
	}
	if err := line(first, ill.G, colG, false, "g"); err != nil {
		return nil, err
	}
	if err := star(first); err != nil {
		return nil, err
	}
	panels := []*plot.Panel{first}
	for k, sn := range ill.Snapshots {
		p, err := base(fmt.Sprintf("(%c) t = %d", 'b'+k, sn.T))
		if err != nil {
			return nil, err
		}
		thin := func(v []float64, c color.NRGBA) error {
			l, err := plotter.NewLine(xy(v))
			if err != nil {
				return err
			}
			l.Color, l.Width = color.NRGBA{c.R, c.G, c.B, 90}, vg.Points(1)
			p.Add(l)
			return nil
		}
		if err := thin(ill.F, colF); err != nil {
			return nil, err
		}
		if err := thin(ill.G, colG); err != nil {
			return nil, err
		}
		if err := line(p, sn.MeanF, colMF, true, "GP mean of f"); err != nil {
			return nil, err
		}
		if err := line(p, sn.MeanG, colMG, true, "GP mean of g"); err != nil {
			return nil, err
		}
		var safe plotter.XYs
		for i, in := range sn.Safe {
			if in {
				safe = append(safe, plotter.XY{X: ill.X[i], Y: lo + 0.15})
			}
		}
		if len(safe) > 0 {
			sc, err := plotter.NewScatter(safe)
			if err != nil {
				return nil, err
			}
			sc.GlyphStyle = draw.GlyphStyle{Color: colSafe, Radius: vg.Points(1.5), Shape: draw.BoxGlyph{}}
			p.Add(sc)
			legend("safe set Dˢ", sc)
		}
		seen := map[int]bool{}
		var acts plotter.XYs
		for _, a := range sn.Played {
			if !seen[a] {
				seen[a] = true
				acts = append(acts, plotter.XY{X: ill.X[a], Y: ill.F[a]})
			}
		}
		sc, err := plotter.NewScatter(acts)
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: color.Black, Radius: vg.Points(2), Shape: draw.CrossGlyph{}}
		p.Add(sc)
		legend("played actions", sc)
		if err := star(p); err != nil {
			return nil, err
		}
		panels = append(panels, p)
	}
	for _, p := range panels {
		p.Legend.Padding = vg.Points(2.5) // room for x*'s triangle
		for _, e := range entries {
			p.Legend.Add(e.label, e.thumb...)
		}
	}
	// The GP means may leave [lo, hi]: one y axis for the three panels.
	plot.ShareY(false, panels...)
	return panels, nil
}
