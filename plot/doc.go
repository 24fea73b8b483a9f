// Package plot draws the project's figures as PNG and SVG: panels of mean
// curves with optional bands (Bands), one style per algorithm in every
// figure (StyleOf, Styles), shared y axes with a tick at 0 (ShareY), colour
// bars where colour encodes a value (Panel.Bar), and legends placed where
// they cover no data (SaveRow, Check).
//
// Layer 4 (docs/layout.md): it imports bandit (for the algorithms' names,
// its styles) and internal packages only; never experiment, reproduce or
// sweep, which call it.
package plot
