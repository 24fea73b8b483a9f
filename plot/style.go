package plot

import (
	"errors"
	"fmt"
	"hash/fnv"
	"image/color"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot/vg"

	"github.com/safegp/safegp/bandit"
)

// Style is how one label is drawn: the line's colour and its dash pattern
// (nil for a solid line).
type Style struct {
	Color  color.NRGBA
	Dashes []vg.Length
}

// Palette is Okabe and Ito's colours for colour-blind readers (blue,
// orange, bluish green, vermillion, reddish purple, sky blue, black), then
// grey, Tol's indigo, and Okabe–Ito's yellow darkened to read on white
// (its own, 240 228 66, is too light for a line). Tableau's ten before
// it drew random-linebo in a low-contrast olive.
var Palette = []color.NRGBA{
	{0, 114, 178, 255}, {230, 159, 0, 255}, {0, 158, 115, 255}, {213, 94, 0, 255},
	{204, 121, 167, 255}, {86, 180, 233, 255}, {0, 0, 0, 255}, {153, 153, 153, 255},
	{51, 34, 136, 255}, {184, 162, 0, 255},
}

// styleTable gives each algorithm, and each label the project's examples
// use for one, its colour (an index in Palette) and dash pattern (an
// index in variantDashes, −1 solid): the one table every figure reads,
// so that an algorithm looks the same in all of them. A label not listed
// gets a colour from a hash of itself (StyleOf).
var styleTable = map[string]struct{ color, dash int }{
	bandit.SGPUCB:       {0, -1},
	bandit.StageOpt:     {1, -1},
	bandit.SafeOptMC:    {2, -1},
	bandit.NaiveSGPUCB:  {3, -1},
	bandit.GPUCBOracle:  {4, -1},
	bandit.SafeOpt:      {8, -1}, // indigo: beside sgp-ucb's blue in Fig. 4, sky blue was too near
	bandit.LineBO:       {6, -1},
	bandit.SafeOptSwarm: {9, -1},
	// examples/phase1.yaml: sgp-ucb with uniform sampling in phase 1 (its
	// default) and its ablation, uncertainty sampling.
	"uniform":     {0, -1},
	"uncertainty": {0, 0},
	// examples/linebo-*.yaml: line-bo's three direction rules, and
	// safeopt on the grid.
	"coordinate-linebo": {6, -1},
	"random-linebo":     {8, -1},
	"ascent-linebo":     {7, -1},
	"safeopt-grid":      {5, -1},
}

// Dash patterns of the variants of an algorithm, in the order a variant
// not named in variantTable hashes into.
var variantDashes = [][]vg.Length{
	{vg.Points(5), vg.Points(3)},                               // dashed
	{vg.Points(1.5), vg.Points(2)},                             // dotted
	{vg.Points(6), vg.Points(2), vg.Points(1.5), vg.Points(2)}, // dash-dot
	{vg.Points(10), vg.Points(3)},                              // long dashes
}

// variantTable fixes the dash pattern of the ablations the reproduction
// runs (reproduce.addAblations and the plateau reading of SafeOpt-MC).
var variantTable = map[string]int{
	"keep_seed": 0,
	"gp":        0,
	"plateau":   1,
}

// StyleOf returns label's style, the same in every figure. A label
// "<base> (<variant>)" or "<algorithm> <variant>" (an algorithm of the
// table followed by a space) is a variant of its base: the base's colour
// with a dash pattern (variantTable, or one chosen by a hash of the
// variant), so that a new ablation label needs no edit here. A label
// that is neither in the table nor a variant gets a colour from an FNV
// hash of its text, solid; Styles resolves the rare clash of two such
// labels in one figure.
func StyleOf(label string) Style {
	base, variant := splitVariant(label)
	var s Style
	if t, ok := styleTable[base]; ok {
		s.Color = Palette[t.color]
		if t.dash >= 0 {
			s.Dashes = variantDashes[t.dash]
		}
	} else {
		s.Color = Palette[hash(base)%uint32(len(Palette))]
	}
	if variant != "" {
		k, ok := variantTable[variant]
		if !ok {
			k = int(hash(variant) % uint32(len(variantDashes)))
		}
		s.Dashes = variantDashes[k]
	}
	return s
}

// splitVariant splits "<base> (<variant>)" and "<algorithm> <variant>";
// any other label is its own base.
func splitVariant(label string) (base, variant string) {
	if i := strings.LastIndex(label, " ("); i > 0 && strings.HasSuffix(label, ")") {
		b, v := splitVariant(label[:i])
		inner := label[i+2 : len(label)-1]
		if v != "" {
			inner = v + " " + inner
		}
		return b, inner
	}
	// The longest algorithm name that starts the label, then a space.
	best := ""
	for name := range styleTable {
		if len(name) > len(best) && strings.HasPrefix(label, name+" ") {
			best = name
		}
	}
	if best != "" {
		return best, strings.TrimSpace(label[len(best)+1:])
	}
	return label, ""
}

func hash(s string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(s))
	return h.Sum32()
}

// Styles returns StyleOf for each label, except that where two labels of
// one figure would look alike (both hashed to the same colour and dash
// pattern) the later one moves on to the next palette colour: labels in
// the table never move.
func Styles(labels []string) []Style {
	out := make([]Style, len(labels))
	used := map[string]bool{}
	key := func(s Style) string {
		return fmt.Sprint(paletteIndex(s.Color), dashKey(s.Dashes))
	}
	// Labels of the table first, so that they keep their style.
	for pass := 0; pass < 2; pass++ {
		for i, l := range labels {
			base, _ := splitVariant(l)
			_, fixed := styleTable[base]
			if fixed != (pass == 0) {
				continue
			}
			s := StyleOf(l)
			if !fixed {
				for k := 0; k < len(Palette) && used[key(s)]; k++ {
					s.Color = Palette[(paletteIndex(s.Color)+1)%len(Palette)]
				}
			}
			used[key(s)] = true
			out[i] = s
		}
	}
	return out
}

func paletteIndex(c color.NRGBA) int {
	for i, p := range Palette {
		if p == c {
			return i
		}
	}
	return -1
}

func dashKey(d []vg.Length) string { return fmt.Sprint(d) }

// SplitVariant splits a label into the label it is a variant of and the
// variant: "safeopt-mc (plateau)" and "safeopt-mc plateau" into
// "safeopt-mc" and "plateau" (the second form only after an algorithm of
// the style table). A label that is no variant is its own base, with
// variant "".
func SplitVariant(label string) (base, variant string) { return splitVariant(label) }

// ErrOffStyle is CheckStyle's error: an SVG drawn outside the one style.
var ErrOffStyle = errors.New("off the figures' style")

var (
	svgFont   = regexp.MustCompile(`font-family:([^;"]+);[^"]*font-size:([0-9.]+)px`)
	svgStroke = regexp.MustCompile(`stroke:#([0-9A-Fa-f]{6})`)
)

// CheckStyle reports how an SVG of a figure leaves the one style every
// figure of the project is drawn in (issue 44): a text in another family
// than the panels' or at a size outside the titles' to the legends'
// (10 to 8.5 points, a title shrunk to fit as far as the legend's) or
// their scripts' (0.7 of that), or a line or outline in a colour that is
// neither in Palette nor a grey. It reads the attributes vgsvg writes.
func CheckStyle(svg []byte) error {
	texts := svgFont.FindAllSubmatch(svg, -1)
	if len(texts) == 0 {
		return fmt.Errorf("%w: no text", ErrOffStyle)
	}
	lo, hi := float64(legendSize.Points()), float64(titleSize.Points())
	for _, m := range texts {
		if string(m[1]) != "Liberation Serif" {
			return fmt.Errorf("%w: a text in %s, not Liberation Serif", ErrOffStyle, m[1])
		}
		size, _ := strconv.ParseFloat(string(m[2]), 64)
		const eps = 1e-3
		if !(size >= lo-eps && size <= hi+eps) && !(size >= scriptScale*lo-eps && size <= scriptScale*hi+eps) {
			return fmt.Errorf("%w: a text at %gpx, outside [%g, %g] and its scripts'", ErrOffStyle, size, lo, hi)
		}
	}
	for _, m := range svgStroke.FindAllSubmatch(svg, -1) {
		v, _ := strconv.ParseUint(string(m[1]), 16, 32)
		r, g, b := int(v>>16), int(v>>8&255), int(v&255)
		if r == g && g == b { // a grey, black or white
			continue
		}
		// A colour drawn with an alpha is written rounded: within 2
		// of its palette colour per channel.
		near := func(c color.NRGBA) bool {
			return abs(r-int(c.R)) <= 2 && abs(g-int(c.G)) <= 2 && abs(b-int(c.B)) <= 2
		}
		if !slices.ContainsFunc(Palette, near) {
			return fmt.Errorf("%w: a line in #%s, not in Palette", ErrOffStyle, m[1])
		}
	}
	return nil
}

func abs(x int) int { return max(x, -x) }
