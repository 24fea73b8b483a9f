package sweep

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/safegp/safegp/internal/csvcell"
	"github.com/safegp/safegp/plot"
)

// CSV renders sweep.csv: one row per cell and algorithm, with the cell's
// axis values (as written in the sweep file) and the means and standard
// errors of Row, numbers in Go's shortest round-trip form.
func (s *Sweep) CSV(rows []Row) []byte {
	var b bytes.Buffer
	w := csvcell.NewWriter(&b)
	head := []string{"cell", "folder"}
	for _, a := range s.Axes {
		head = append(head, a.Key)
	}
	head = append(head, "algorithm", "realizations",
		"final_avg_regret_mean", "final_avg_regret_se",
		"violations_mean", "violations_se",
		"exploration_rounds_mean", "exploration_rounds_se")
	w.Write(head)
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	for _, r := range rows {
		line := []string{strconv.Itoa(r.Cell), "cells/" + r.Name}
		for i, a := range s.Axes {
			line = append(line, a.Values[s.Cells[r.Cell].Pick[i]])
		}
		line = append(line, r.Label, strconv.Itoa(r.Realizations),
			f(r.Regret), f(r.RegretSE), f(r.Violations), f(r.ViolationsSE), f(r.Exploration), f(r.ExplorationSE))
		w.Write(line)
	}
	w.Flush()
	return b.Bytes()
}

// Markdown renders sweep.md: the table of CSV with mean ± standard error
// to four significant digits.
func (s *Sweep) Markdown(rows []Row) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Sweep: %d cells\n\n", len(s.Cells))
	b.WriteString("Each cell's final average regret R_T/T, violations over the T rounds and exploration rounds: mean ± standard error over its realizations. Every cell's folder is under cells/.\n\n|")
	for _, a := range s.Axes {
		fmt.Fprintf(&b, " %s |", escape(a.Key))
	}
	b.WriteString(" algorithm | R_T/T | violations | exploration rounds |\n|")
	for range len(s.Axes) + 4 {
		b.WriteString("---|")
	}
	b.WriteByte('\n')
	pm := func(m, se float64) string { return fmt.Sprintf("%.4g ± %.2g", m, se) }
	for _, r := range rows {
		b.WriteString("|")
		for i, a := range s.Axes {
			fmt.Fprintf(&b, " %s |", escape(a.Values[s.Cells[r.Cell].Pick[i]]))
		}
		fmt.Fprintf(&b, " %s | %s | %s | %s |\n", escape(r.Label), pm(r.Regret, r.RegretSE), pm(r.Violations, r.ViolationsSE), pm(r.Exploration, r.ExplorationSE))
	}
	return b.Bytes()
}

func escape(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// metric returns the figure's metric of r: its mean and standard error.
func (s *Sweep) metric(r *Row) (float64, float64) {
	switch s.Figure.Metric {
	case MetricViolations:
		return r.Violations, r.ViolationsSE
	case MetricExploration:
		return r.Exploration, r.ExplorationSE
	}
	return r.Regret, r.RegretSE
}

func (s *Sweep) metricLabel() string {
	switch s.Figure.Metric {
	case MetricViolations:
		return "violations in T rounds"
	case MetricExploration:
		return "exploration rounds"
	}
	return "final average regret R_T / T"
}

// maxPanels bounds the figure's panels (one per combination of the other
// axes' values): more would be unreadable at print size.
const maxPanels = 16

// SaveFigure writes dir/base.png and .svg through plot.Figure, as every
// figure of the project: the figure's metric against its axis x, one
// line per algorithm in its project-wide style with error bars of ±1
// standard error, a panel per combination of the other axes' values (in
// rows of four), all panels on one y range that includes 0, and one
// legend placed where it covers no line, point or error bar.
func (s *Sweep) SaveFigure(dir, base string, rows []Row) error {
	fig, err := s.drawing(rows)
	if err != nil {
		return err
	}
	if err := fig.Save(dir, base); err != nil {
		return fmt.Errorf("write sweep figure: %w", err)
	}
	return nil
}

// drawing builds SaveFigure's figure.
func (s *Sweep) drawing(rows []Row) (plot.Figure, error) {
	xa := 0
	for i, a := range s.Axes {
		if a.Key == s.Figure.X {
			xa = i
		}
	}
	// Panels: the cells grouped by their picks on the other axes, in the
	// product's order.
	type panel struct {
		title string
		rows  []*Row
	}
	var panels []*panel
	byKey := map[string]*panel{}
	for k := range rows {
		r := &rows[k]
		pick := s.Cells[r.Cell].Pick
		var parts []string
		for i, a := range s.Axes {
			if i != xa {
				parts = append(parts, symbol(a)+" = "+a.Values[pick[i]])
			}
		}
		key := strings.Join(parts, ", ")
		p, ok := byKey[key]
		if !ok {
			p = &panel{title: key}
			byKey[key] = p
			panels = append(panels, p)
		}
		p.rows = append(p.rows, r)
	}
	if len(panels) > maxPanels {
		return plot.Figure{}, fmt.Errorf("write sweep figure: %d panels (one per combination of the axes other than %s), more than %d; plot against another axis or sweep fewer values", len(panels), s.Figure.X, maxPanels)
	}
	// Every algorithm in the project's one style (plot.Styles: its colour
	// and dashes in every figure of the project), resolved over the
	// sweep's labels at once so that two panels never disagree.
	var all []string
	for k := range rows {
		if !slices.Contains(all, rows[k].Label) {
			all = append(all, rows[k].Label)
		}
	}
	style := map[string]plot.Style{}
	for k, st := range plot.Styles(all) {
		style[all[k]] = st
	}
	fig := plot.Figure{Panels: make([]*plot.Panel, 0, len(panels)), SharedLegend: true, Columns: 4,
		Title: fmt.Sprintf("%s against %s: mean ± 1 SE", s.Figure.Metric, symbol(s.Axes[xa]))}
	for _, pn := range panels {
		// NewPanel: the project's fonts, grid and a tick at 0; Add
		// records the lines, points and error bars the legend must not
		// cover (Figure.Save places it, Figure.Check checks it).
		p := plot.NewPanel(pn.title, symbol(s.Axes[xa]), s.metricLabel())
		var labels []string
		lines := map[string]plotter.XYs{}
		errs := map[string]plotter.YErrors{}
		for _, r := range pn.rows {
			if _, ok := lines[r.Label]; !ok {
				labels = append(labels, r.Label)
			}
			m, se := s.metric(r)
			lines[r.Label] = append(lines[r.Label], plotter.XY{X: s.Axes[xa].Numbers[s.Cells[r.Cell].Pick[xa]], Y: m})
			errs[r.Label] = append(errs[r.Label], struct{ Low, High float64 }{se, se})
		}
		for _, l := range labels {
			st := style[l]
			pts := lines[l]
			line, points, err := plotter.NewLinePoints(pts)
			if err != nil {
				return plot.Figure{}, fmt.Errorf("write sweep figure: %s: %w", l, err)
			}
			line.Color, line.Width, line.Dashes = st.Color, vg.Points(1.5), st.Dashes
			points.Color, points.Shape, points.Radius = st.Color, draw.CircleGlyph{}, vg.Points(2)
			bars := &plotter.YErrorBars{XYs: pts, YErrors: errs[l], LineStyle: line.LineStyle, CapWidth: vg.Points(4)}
			bars.LineStyle.Width, bars.LineStyle.Dashes = vg.Points(1), nil
			p.Add(line, points, bars)
			p.Legend.Add(l, line, points)
		}
		fig.Panels = append(fig.Panels, p)
	}
	if len(panels) == 1 && panels[0].title != "" {
		// One panel: what its title says (the other axes' single
		// values) goes into the figure's title, which has its width.
		fig.Title = fmt.Sprintf("%s against %s (%s): mean ± 1 SE", s.Figure.Metric, symbol(s.Axes[xa]), panels[0].title)
		fig.Panels[0].Title.Text = ""
	}
	// One y range across the panels, with 0 in it and a margin above the
	// highest error bar, so that the panels compare at a glance.
	plot.ShareY(true, fig.Panels...)
	return fig, nil
}

// symbols are the paper's symbols of the settings a sweep most often
// varies, by an axis's last key, for its figure (plot's math text): the
// folder names keep the keys.
var symbols = map[string]string{
	"delta": "$\\delta$", "epsilon": "$\\varepsilon$", "noise_std": "$\\sigma$", "beta": "$\\beta$",
	"horizon": "$T$", "variance": "variance",
}

// symbol is how a figure names axis a: the paper's symbol of its setting
// (a lengthscale as ℓ_f or ℓ_g by the GP it belongs to), else its short
// name.
func symbol(a Axis) string {
	if strings.HasSuffix(a.Key, "lengthscale") {
		switch {
		case strings.Contains(a.Key, "objective"):
			return "$\\ell_f$"
		case strings.Contains(a.Key, "constraints"):
			return "$\\ell_g$"
		}
	}
	if sym, ok := symbols[last(a.Key)]; ok {
		return sym
	}
	return a.Short
}
