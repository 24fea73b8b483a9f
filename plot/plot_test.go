package plot_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/safegp/safegp/plot"
)

func TestBandsSavesBothFormats(t *testing.T) {
	s := []plot.Series{
		{Label: "alpha", X: []float64{1, 2, 3}, Mean: []float64{1, 0.5, 0.3}, Std: []float64{0.2, 0.1, 0.1}},
		{Label: "beta", X: []float64{1, 2, 3}, Mean: []float64{0.9, 0.9, 0.9}},
	}
	p, err := plot.Bands("title", "round t", "R_t / t", s)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := plot.Save(p, dir, "fig"); err != nil {
		t.Fatal(err)
	}
	png, err := os.ReadFile(filepath.Join(dir, "fig.png"))
	if err != nil || len(png) < 8 || string(png[1:4]) != "PNG" {
		t.Fatalf("fig.png is not a PNG (%v)", err)
	}
	svg, err := os.ReadFile(filepath.Join(dir, "fig.svg"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<svg", "alpha", "beta", "round t", "title"} {
		if !strings.Contains(string(svg), want) {
			t.Errorf("fig.svg lacks %q", want)
		}
	}
	if _, err := plot.Bands("", "", "", []plot.Series{{Label: "bad", X: []float64{1}, Mean: []float64{1, 2}}}); err == nil {
		t.Error("mismatched series: no error")
	}
}
