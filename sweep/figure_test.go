package sweep

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestFigure: the sweep's figure is drawn as every figure of the project
// (plot.Figure): its legend covers no line, point or error bar
// (Figure.Check), every panel has one y range with 0 in it and room above
// the highest error bar, a panel per value of the other axis, and the
// title says what the error bars are.
func TestFigure(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name   string
		sweep  []byte
		panels int
	}{
		{"lengthscale × delta", small(t), 2},
		{"one axis", withAxes(t, "axes:\n  model.delta: [0.01, 0.1, 0.5]\nfigure: {x: model.delta}\n"), 1},
		{"exploration", withAxes(t, "axes:\n  model.delta: [0.01, 0.1]\n  seed: [1, 2, 3, 4, 5]\nfigure: {x: model.delta, metric: exploration}\n"), 5},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := Parse(c.sweep, "testdata")
			if err != nil {
				t.Fatal(err)
			}
			rows, err := Run(context.Background(), s, filepath.Join(t.TempDir(), "out"), Options{Workers: 2})
			if err != nil {
				t.Fatal(err)
			}
			fig, err := s.drawing(rows)
			if err != nil {
				t.Fatal(err)
			}
			if len(fig.Panels) != c.panels {
				t.Fatalf("%d panels, want %d", len(fig.Panels), c.panels)
			}
			if _, err := fig.Check(); err != nil {
				t.Fatal(err)
			}
			top := 0.0
			for k := range rows {
				m, se := s.metric(&rows[k])
				top = max(top, m+se)
			}
			for i, p := range fig.Panels {
				if p.Y.Min != fig.Panels[0].Y.Min || p.Y.Max != fig.Panels[0].Y.Max {
					t.Errorf("panel %d's y range [%v, %v], panel 1's [%v, %v]", i+1, p.Y.Min, p.Y.Max, fig.Panels[0].Y.Min, fig.Panels[0].Y.Max)
				}
				if p.Y.Min > 0 || p.Y.Max <= top {
					t.Errorf("panel %d's y range [%v, %v] leaves out 0 or the highest error bar's top %v", i+1, p.Y.Min, p.Y.Max, top)
				}
			}
			if !strings.Contains(fig.Title, "mean ± 1 SE") {
				t.Errorf("title %q does not say what the error bars are", fig.Title)
			}
		})
	}
}

// TestFigureTooManyPanels: more than maxPanels panels is an error that
// says what to do, not an unreadable figure.
func TestFigureTooManyPanels(t *testing.T) {
	t.Parallel()
	s, err := Parse(withAxes(t, "axes:\n  model.delta: [0.01, 0.1]\n  seed: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17]\nfigure: {x: model.delta}\n"), "testdata")
	if err != nil {
		t.Fatal(err)
	}
	rows := make([]Row, 0, len(s.Cells))
	for _, c := range s.Cells {
		rows = append(rows, Row{Cell: c.Index, Label: "sgp-ucb", Realizations: 2})
	}
	_, err = s.drawing(rows)
	if err == nil || !strings.Contains(err.Error(), "plot against another axis") {
		t.Fatalf("error %v, want the panel limit", err)
	}
}
