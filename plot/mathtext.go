package plot

import (
	"math"
	"strings"

	xfont "golang.org/x/image/font"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
)

// mathText is the figures' text handler: text as written, except that
// within $…$ a letter is set in italic, "_x" or "_{…}" is a subscript,
// "^x" or "^{…}" a superscript, and \delta, \sigma, \ell, … are their
// letters — enough for R_T/T, ℓ_f, D^w and δ on axes, titles and legends.
//
// gonum/plot's own LaTeX handler (text.Latex, over go-latex v0.1.0)
// panics on a subscript, a superscript or any character beyond ASCII
// ("unknown ast node *ast.Sub", "unhandled token: ≤"), which every
// label here has; this one draws runs of gonum's plain text, so a label
// without $ is drawn exactly as text.Plain draws it, and no input makes
// it fail: an unmatched $ or brace, or an unknown macro, is drawn as
// written.
type mathText struct{ text.Plain }

var _ text.Handler = mathText{}

// Sizes and shifts of scripts, in units of the font's size.
const (
	scriptScale = 0.7
	supRaise    = 0.38
	subLower    = 0.18
)

// run is a piece of a line drawn in one font at one height.
type run struct {
	s      string
	italic bool
	shift  int // 0 on the baseline, +1 superscript, −1 subscript
}

// macros are the names mathText turns into letters.
var macros = map[string]string{
	"alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε", "varepsilon": "ε",
	"eta": "η", "theta": "θ", "kappa": "κ", "lambda": "λ", "mu": "μ", "nu": "ν", "pi": "π",
	"rho": "ρ", "sigma": "σ", "tau": "τ", "phi": "φ", "chi": "χ", "psi": "ψ", "omega": "ω",
	"Delta": "Δ", "Sigma": "Σ", "Omega": "Ω", "ell": "ℓ", "le": "≤", "leq": "≤", "ge": "≥",
	"geq": "≥", "pm": "±", "times": "×", "infty": "∞", "cdot": "·", "in": "∈", "star": "*",
}

// runs splits a line into its runs.
func runs(line string) []run {
	var out []run
	add := func(s string, italic bool, shift int) {
		if s == "" {
			return
		}
		if n := len(out); n > 0 && out[n-1].italic == italic && out[n-1].shift == shift {
			out[n-1].s += s
			return
		}
		out = append(out, run{s, italic, shift})
	}
	for line != "" {
		i := strings.IndexByte(line, '$')
		j := -1
		if i >= 0 {
			j = strings.IndexByte(line[i+1:], '$')
		}
		if i < 0 || j < 0 {
			add(line, false, 0) // no math, or an unmatched $: as written
			break
		}
		add(line[:i], false, 0)
		math := line[i+1 : i+1+j]
		line = line[i+2+j:]
		for math != "" {
			c := math[0]
			switch {
			case (c == '_' || c == '^') && len(math) > 1:
				shift := -1
				if c == '^' {
					shift = 1
				}
				arg, rest := scriptArg(math[1:])
				for _, r := range mathRuns(arg) {
					add(r.s, r.italic, shift)
				}
				math = rest
			default:
				tok, rest := mathToken(math)
				for _, r := range mathRuns(tok) {
					add(r.s, r.italic, 0)
				}
				math = rest
			}
		}
	}
	return out
}

// scriptArg is a script's argument: {…} (unmatched: the rest), a macro,
// or one character.
func scriptArg(s string) (arg, rest string) {
	if s[0] == '{' {
		if k := strings.IndexByte(s, '}'); k > 0 {
			return s[1:k], s[k+1:]
		}
		return s[1:], ""
	}
	return mathToken(s)
}

// mathToken is the next macro (\name) or character of math text.
func mathToken(s string) (tok, rest string) {
	if s[0] == '\\' {
		k := 1
		for k < len(s) && (s[k] >= 'a' && s[k] <= 'z' || s[k] >= 'A' && s[k] <= 'Z') {
			k++
		}
		if k > 1 {
			return s[:k], s[k:]
		}
	}
	for k := range s {
		if k > 0 {
			return s[:k], s[k:]
		}
	}
	return s, ""
}

// mathRuns sets math text: macros as their letters (upright, as Greek
// in the figures' serif reads best), ASCII letters in italic, the rest
// upright.
func mathRuns(s string) []run {
	var out []run
	for s != "" {
		tok, rest := mathToken(s)
		s = rest
		if tok[0] == '\\' {
			if l, ok := macros[tok[1:]]; ok {
				out = append(out, run{l, false, 0})
				continue
			}
			out = append(out, run{tok, false, 0}) // unknown: as written
			continue
		}
		c := tok[0]
		out = append(out, run{tok, c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z', 0})
	}
	return out
}

// face is the font of a run.
func (h mathText) face(fnt font.Font, r run) font.Face {
	if r.shift != 0 {
		fnt.Size = vg.Length(scriptScale) * fnt.Size
	}
	if r.italic {
		fnt.Style = xfont.StyleItalic
	}
	return h.Fonts.Lookup(fnt, fnt.Size)
}

// offset is a run's baseline shift for a font of size size.
func offset(r run, size vg.Length) vg.Length {
	switch r.shift {
	case 1:
		return vg.Length(supRaise) * size
	case -1:
		return -vg.Length(subLower) * size
	}
	return 0
}

// Box implements text.Handler.
func (h mathText) Box(txt string, fnt font.Font) (width, height, depth vg.Length) {
	ext := h.Extents(fnt)
	height, depth = ext.Ascent, ext.Descent
	for _, r := range runs(txt) {
		face := h.face(fnt, r)
		width += face.Width(r.s)
		e := h.Extents(face.Font)
		height = max(height, e.Ascent+offset(r, fnt.Size))
		depth = max(depth, e.Descent-offset(r, fnt.Size))
	}
	return width, height, depth
}

// Draw implements text.Handler: text.Plain's Draw, a run at a time.
func (h mathText) Draw(c vg.Canvas, txt string, sty text.Style, pt vg.Point) {
	txt = strings.TrimRight(txt, "\n")
	if len(txt) == 0 {
		return
	}
	ascent := h.Extents(sty.Font).Ascent
	c.SetColor(sty.Color)
	if sty.Rotation != 0 {
		c.Push()
		c.Rotate(sty.Rotation)
	}
	sin64, cos64 := math.Sincos(sty.Rotation)
	cos, sin := vg.Length(cos64), vg.Length(sin64)
	pt.X, pt.Y = pt.Y*sin+pt.X*cos, pt.Y*cos-pt.X*sin
	lines := h.Lines(txt)
	ht := sty.Height(txt)
	pt.Y += ht*vg.Length(sty.YAlign) - ascent
	for i, line := range lines {
		w, _, _ := h.Box(line, sty.Font)
		at := pt.Add(vg.Point{X: vg.Length(sty.XAlign) * w, Y: vg.Length(len(lines)-i) * sty.Font.Size})
		for _, r := range runs(line) {
			face := h.face(sty.Font, r)
			c.FillString(face, at.Add(vg.Point{Y: offset(r, sty.Font.Size)}), r.s)
			at.X += face.Width(r.s)
		}
	}
	if sty.Rotation != 0 {
		c.Pop()
	}
}
