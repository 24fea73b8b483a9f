package reproduce

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/safegp/safegp/internal/racetest"
	"github.com/safegp/safegp/plot"
)

// updateTexts rewrites testdata/figure_texts.golden (an internal test's:
// claims_test's -update is another package's).
var updateTexts = flag.Bool("update-texts", false, "rewrite testdata/figure_texts.golden")

// TestFigureTexts (issue 44, item 3): the figures' texts — titles, axis
// labels, ticks, legends — against testdata/figure_texts.golden, read from
// the SVG each figure writes: a test of what a reader sees, not of
// pixels. go test -run TestFigureTexts -update-texts rewrites the file after a
// change meant to show.
func TestFigureTexts(t *testing.T) {
	racetest.Long(t, "every figure of the reproduction drawn end to end takes 10 s")
	dir := t.TempDir()
	got := map[string][]string{}
	for name, f := range allFigures() {
		if err := f.Save(dir, name); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(dir, name+".svg"))
		if err != nil {
			t.Fatal(err)
		}
		got[name] = svgTexts(string(b))
		if err := plot.CheckStyle(b); err != nil {
			t.Errorf("%s.svg: %v", name, err)
		}
	}
	path := filepath.Join("testdata", "figure_texts.golden")
	if *updateTexts {
		b, _ := json.MarshalIndent(got, "", "  ")
		if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var want map[string][]string
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	for name, texts := range want {
		if !slices.Equal(got[name], texts) {
			t.Errorf("%s: texts %q, want %q", name, got[name], texts)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d figures, the golden file has %d", len(got), len(want))
	}
}

// svgTexts are an SVG's texts in the order drawn.
func svgTexts(svg string) []string {
	var out []string
	for _, part := range strings.Split(svg, "</text>") {
		if i := strings.LastIndex(part, ">"); i >= 0 && strings.Contains(part, "<text") {
			out = append(out, part[i+1:])
		}
	}
	return out
}
