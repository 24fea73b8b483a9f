package safety

import (
	"github.com/safegp/safegp/plot"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestFigureTexts (issue 44, item 3): safety.svg's texts — the title,
// both panels' titles and labels, the scenarios as ticks, one legend entry
// per algorithm — and its intervals: a Wilson interval stays in [0, 1],
// also at 0 and n of n, and is 95 % wide about the share.
func TestFigureTexts(t *testing.T) {
	results := []Result{
		{Scenario: Scenario{Short: "model right"}, Rows: []Row{{Label: "sgp-ucb", Runs: 10, Violating: 0, Regret: 1, RegretSE: 0.1}, {Label: "losbo", Runs: 10, Violating: 0, Regret: 1.5, RegretSE: 0.2}}},
		{Scenario: Scenario{Short: "ℓ 3× long"}, Rows: []Row{{Label: "sgp-ucb", Runs: 10, Violating: 7, Regret: 1.2, RegretSE: 0.1}, {Label: "losbo", Runs: 10, Violating: 10, Regret: 1.6, RegretSE: 0.2}}},
	}
	dir := t.TempDir()
	if err := Figure(dir, results); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "safety.svg"))
	if err != nil {
		t.Fatal(err)
	}
	if err := plot.CheckStyle(b); err != nil {
		t.Errorf("safety.svg: %v", err)
	}
	var texts []string
	for _, part := range strings.Split(string(b), "</text>") {
		if i := strings.LastIndex(part, ">"); i >= 0 && strings.Contains(part, "<text") {
			texts = append(texts, part[i+1:])
		}
	}
	for _, w := range []string{"safety when the model is wrong", "share of runs with a violation, 95 % interval", "regret, mean ± 1 SE",
		"share of runs", "scenario", "model right", "ℓ 3× long", "sgp-ucb", "losbo"} {
		if !slices.Contains(texts, w) {
			t.Errorf("no text %q in %q", w, texts)
		}
	}
	if n := strings.Count(strings.Join(texts, "\n"), "sgp-ucb"); n != 1 {
		t.Errorf("sgp-ucb in %d texts, want one legend entry", n)
	}
	for _, c := range []struct{ k, n int }{{0, 10}, {10, 10}, {7, 10}, {1, 100}} {
		p, lo, hi := wilson(c.k, c.n)
		if !(0 <= lo && lo <= p && p <= hi && hi <= 1) || !(hi > lo) {
			t.Errorf("wilson(%d, %d) = %v [%v, %v]", c.k, c.n, p, lo, hi)
		}
	}
	// 0 of 10: [0, z²/(n + z²)] = [0, 0.2775] (Wilson's closed form at 0).
	if _, lo, hi := wilson(0, 10); lo != 0 || hi < 0.2775 || hi > 0.2776 {
		t.Errorf("wilson(0, 10) = [%v, %v], want [0, 0.2775]", lo, hi)
	}
}
