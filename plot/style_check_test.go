package plot_test

import (
	"errors"
	"testing"

	"github.com/safegp/safegp/plot"
)

// TestCheckStyle: the style's fonts, sizes and colours pass; each way off
// them is ErrOffStyle.
func TestCheckStyle(t *testing.T) {
	text := func(family, size string) string {
		return `<text style="font-family:` + family + `;font-variant:normal;font-weight:normal;font-style:normal;font-size:` + size + `px">a</text>`
	}
	ok := text("Liberation Serif", "10") + text("Liberation Serif", "9") + text("Liberation Serif", "6.65") +
		`<path style="stroke:#0072B2"/><path style="stroke:#0071B1"/><path style="stroke:#808080"/>`
	for _, c := range []struct {
		name, svg string
		off       bool
	}{
		{"the style", ok, false},
		{"no text", `<path style="stroke:#000000"/>`, true},
		{"another family", ok + text("DejaVu Sans", "9"), true},
		{"a large text", ok + text("Liberation Serif", "12"), true},
		{"a small text", ok + text("Liberation Serif", "7.5"), true},
		{"a colour off the palette", ok + `<path style="stroke:#FF0000"/>`, true},
	} {
		err := plot.CheckStyle([]byte(c.svg))
		if off := errors.Is(err, plot.ErrOffStyle); off != c.off {
			t.Errorf("%s: %v, want off the style %v", c.name, err, c.off)
		}
	}
}
